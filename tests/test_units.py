"""Small mechanisms on text written for the tests: ingest, games, lexicon, clean rules."""

import codecs
import unicodedata

import pytest

from pipeline.clean import fix_and_explain
from pipeline.layout import LayoutSettings
from pipeline.layout.paragraphs import mend_break
from pipeline.games import Catalogue, GameEntry
from pipeline.ingest import ingest_bytes
from pipeline.ingest.read import _CONTROL
from pipeline.markers import heading_marker, note_calls, note_marker, number_marker
from pipeline.records import InputError


# -- ingest ----------------------------------------------------------------------------------

def test_utf8_with_bom_and_crlf_normalised():
    raw = ingest_bytes(codecs.BOM_UTF8 + "Règle première.\r\nSuite du jeu.\r".encode("utf-8"), "a.txt")
    assert raw.text == "Règle première.\nSuite du jeu.\n"
    assert raw.encoding == "utf-8-sig" and raw.diagnostics == ()


def test_latin1_detected_and_said():
    raw = ingest_bytes("Le joueur à droite mêle.".encode("latin-1"), "b.txt")
    assert raw.text == "Le joueur à droite mêle."
    assert [str(d) for d in raw.diagnostics] == ["b.txt: warning: not valid UTF-8: decoded as cp1252"]


def test_decomposed_accents_composed():
    raw = ingest_bytes("me\u0302le\u0301".encode("utf-8"), "c.txt")
    assert raw.text == "mêlé"


@pytest.mark.parametrize("data,message", [
    (b"", "e.txt: empty file: no text to read"),
    (b"  \n\n ", "e.txt: empty file: no text to read"),
    (b"abc\x00def", "e.txt: binary file: NUL byte at offset 3, not text"),
    (bytes(range(1, 32)) * 20, "e.txt: binary file: 520 control characters, not text"),
])
def test_unreadable_input_named_with_its_reason(data, message):
    with pytest.raises(InputError) as err:
        ingest_bytes(data, "e.txt")
    assert str(err.value) == message


def test_the_control_characters_counted_are_unicodes_but_the_spacing_ones():
    counted = [chr(i) for i in range(0x250) if _CONTROL.fullmatch(chr(i))]
    assert counted == [chr(i) for i in range(0x110000)
                       if unicodedata.category(chr(i)) == "Cc" and chr(i) not in "\t\n\v\f\r"]
    # C1 controls, as cp1252 text never holds them: one in 200 characters is text, more is binary
    assert ingest_bytes(("é" * 400 + "\x85\x9f").encode("utf-8"), "c1.txt").text.endswith("\x85\x9f")
    with pytest.raises(InputError, match="3 control characters"):
        ingest_bytes(("é" * 400 + "\x85\x9f\x7f").encode("utf-8"), "c1.txt")


# -- games -----------------------------------------------------------------------------------

@pytest.fixture()
def catalogue():
    return Catalogue([
        GameEntry("piquet", "Piquet", ("piquet",), ("PIQ",)),
        GameEntry("pharaon", "Pharaon", ("pharaon",), ("PHA",)),
        GameEntry("treize", "Treize", ("treize",), ("TRE",)),
        GameEntry("tre-sette", "Tre-sette", ("tre-sette",), ("TRE",)),
        GameEntry("whist", "Whist", ("whist", "wisk"), ("WIS",)),
    ])


@pytest.mark.parametrize("head,games", [
    ("PIQ", {"piquet"}), ("P I Q", {"piquet"}), ("piq", {"piquet"}), ("VV I S", {"whist"}),
    ("DU PIQUET.", {"piquet"}), ("TRE", {"treize", "tre-sette"}), ("ABC", set()), ("PHARAQN", {"pharaon"}),
])
def test_running_heads_name_the_games_they_can_mean(catalogue, head, games):
    assert catalogue.head_games(head) == games


def test_ambiguous_head_names_no_game(catalogue):
    assert catalogue.head_game("TRE") is None
    assert catalogue.head_game("PIQ") == "piquet"


def test_damaged_names_matched_by_length_aware_similarity(catalogue):
    assert catalogue.match_name("PHARAOM") == "pharaon"
    assert catalogue.match_name("wisk") == "whist"
    assert catalogue.match_name("manière") is None


# -- lexicon: mending words broken at a line end --------------------------------------------------

@pytest.mark.parametrize("left,right,how", [
    ("com", "mence", ""),  # a word broken in two
    ("com", "pofé", ""),  # period long s: 'composé'
    ("très", "facilement", "-"),  # the hyphen is the word's own
    ("vis", "à-vis", "-"),
    ("vingt", "et-un", "-"),
    ("lieu", "à", " "),  # a suffix that links two parts is never last: 'donner lieu à des'
    ("dans", "toute", " "),  # a stray mark between two words
    ("ren", "tre", ""),
    ("Saint", "Germain", "-"),  # no word goes on in a capital: names joined by their hyphen
    ("ROU", "LETTE", ""),  # unless it is all capitals
    ("mi", "chemin", "-"),  # a prefix hyphened to a word
    ("mi", "neur", ""),  # … but 'neur' is no word, and 'mineur' is: a line end's hyphen
    ("vice", "légat", "-"),  # a rare word after the prefix that makes none run together: the prefix's
])
def test_mend_break(res, left, right, how):
    assert mend_break(left, right, res.lexicon, LayoutSettings.default().hyphens)[0] == how


@pytest.mark.parametrize("left,right,how", [
    ("de", "place", " "),  # two words likelier than 'deplace', which the web misspells
    ("dames", "surnuméraires", " "),  # two words, not one no one prints
    ("On", "ne", " "),
    ("opposi", "tion", ""),  # a word broken at a line end the export lost
    ("mar", "quer", ""),
    ("ce", "pendant", ""),  # 'cependant' likelier than 'ce pendant'
    ("de", "main", ""),
    ("dit", "il", "-"),  # the hyphen is the word's own
    ("lieu", "à", " "),
    ("mi", "neur", ""),  # a prefix before no word: 'mineur' broken at a line end the export lost
])
def test_mend_break_inside_a_line(res, left, right, how):
    # a hyphen and a space inside a line: a stray mark as likely as a line end lost
    assert mend_break(left, right, res.lexicon, LayoutSettings.default().hyphens, inline=True)[0] == how


def test_the_same_breaks_at_a_line_end_join(res):
    # at a line end the hyphen says a word went on: 'de-' / 'place' is 'déplace' misread
    s = LayoutSettings.default().hyphens
    assert [mend_break(a, b, res.lexicon, s)[0] for a, b in [("de", "place"), ("opposi", "tion")]] == ["", ""]


@pytest.mark.parametrize("word", ["avoit", "tems", "sçavoir", "connoître", "savans", "fur", "étoient", "différens"])
def test_period_spellings_are_known_words(res, word):
    assert res.lexicon.known(word)


def test_the_period_s_rewrites_looked_for_at_once_give_what_each_gives(res):
    from pipeline.lexicon import Lexicon

    lexicon = res.lexicon
    one_by_one = Lexicon({}, {"period": {"rewrites": [[p.pattern, r] for p, r in lexicon._rewrites], "words": [], "modern_min_zipf": 3.5},
                              "hyphens": {"prefixes": [], "prefix_word_zipf": 3.0, "suffixes": [], "always": [], "after_pronouns": [], "pronouns": [], "linking": [], "compounds": []}})
    one_by_one._any_rewrite = None  # no search first: each rewrite tried
    words = ["connoissoient", "paroître", "tems", "sçut", "piéce", "savans", "carte", "jouer", "", "y"]
    assert [lexicon.period_modern(w) for w in words] == [one_by_one.period_modern(w) for w in words]
    assert lexicon.period_modern("connoissoient") == ["connoissaient", "connaissoient", "connaissaient"]
    assert lexicon.period_modern("carte") == []
    # a rewrite with a group of its own: the rewrites are not looked for at once
    grouped = Lexicon({}, {"period": {"rewrites": [["(o)it$", "ait"]], "words": [], "modern_min_zipf": 3.5},
                           "hyphens": {"prefixes": [], "prefix_word_zipf": 3.0, "suffixes": [], "always": [], "after_pronouns": [], "pronouns": [], "linking": [], "compounds": []}})
    assert grouped._any_rewrite is None and grouped.period_modern("avoit") == ["avait"]


def test_an_elided_word_is_as_frequent_as_the_word_after_its_apostrophe():
    from pipeline.lexicon import Lexicon

    lexicon = Lexicon({"as": 1e-4, "carte": 1e-5, "l'homme": 1e-6}, {
        "period": {"rewrites": [], "words": [], "modern_min_zipf": 3.5},
        "hyphens": {"prefixes": [], "prefix_word_zipf": 3.0, "suffixes": [], "always": [], "after_pronouns": [], "pronouns": [], "linking": [], "compounds": []}})
    assert lexicon.zipf("l'as") == lexicon.zipf("L’as") == lexicon.zipf("qu'as") == lexicon.zipf("as") == 5.0
    assert lexicon.zipf("l'homme") == 3.0  # the list's own, as written
    assert lexicon.zipf("x'as") == lexicon.zipf("las") == lexicon.zipf("l'") == 0.0  # no elision, or nothing after it


# -- markers ---------------------------------------------------------------------------------

def test_markers():
    assert heading_marker("P I Q U E T . ( Jeu du ) Ce jeu").name == "PIQUET"
    m = heading_marker("MOUCHE, ou MOUCHARD (jeu de la). Il se joue")
    assert (m.name, m.alternative) == ("MOUCHE", "MOUCHARD")
    assert heading_marker("La mouche (jeu de la)") is None
    assert note_marker("(l) Ce mot vient").value == 1
    assert [c.value for c in note_calls("les cartes (^i) et le talon (2).")] == [1, 2]
    assert number_marker("Il faut jouer.", __import__("pipeline.numbers", fromlist=["x"]).DigitModel.default()) is None


# -- clean rules -------------------------------------------------------------------------------

def test_fix_and_explain_says_what_it_did(res):
    text, edits = fix_and_explain("Le jeu , dit - on , fe trom[)e ; P A N I E R vaut 2i fiches .", res)
    assert text == "Le jeu, dit - on, fe trompe; PANIER vaut 21 fiches."
    assert [(e.before, e.after, e.fix) for e in edits] == [
        (" ", "", "clean.spacing"), (" ", "", "clean.spacing"), ("[)", "p", "clean.bracket_p"),
        (" ", "", "clean.spacing"), ("P A N I E R", "PANIER", "clean.letter_spacing"),
        ("2i", "21", "clean.digits_in_number"), (" ", "", "clean.spacing"),
    ]


def test_clean_leaves_period_spelling_and_words_alone(res):
    sentence = "Il avoit fçu dans le tems que les savans & les joueurs connoissoient ce jeu."
    assert fix_and_explain(sentence, res) == (sentence, [])


@pytest.mark.parametrize("sentence", [
    "Le joueur qui paroît le premier doit jouer.",  # not 'paraît': oît for aît
    "Il connoît la regle du jeu.",  # not 'connaît'
    "Il perdit la vûe de son jeu.",  # not 'vue': the period's û
    "Il est graveur général des monnoies de France.",  # oie for aie
    "Le jeu qui formoit autrefois une partie entière.",  # a rarer verb's imperfect ('formait', zipf 3.2)
])
def test_the_period_s_other_spellings_are_left_as_printed(res, sentence):
    assert fix_and_explain(sentence, res) == (sentence, [])


def test_a_bracket_and_an_apostrophe_are_the_stem_and_bowl_of_a_p(res):
    text, edits = fix_and_explain("Il peut l'appeler, ['ourvu qu'il la nomme.", res)
    assert (text, [(e.before, e.after, e.fix) for e in edits]) == (
        "Il peut l'appeler, pourvu qu'il la nomme.", [("['", "p", "clean.bracket_p")])
    assert fix_and_explain("Il [l'autre] joue.", res)[0] == "Il [l'autre] joue."


@pytest.mark.parametrize("printed,expected", [
    # '»' closing no '«': a comma the OCR misread, after a whole word
    ("Il joue ensuite» il passe son tour.", "Il joue ensuite, il passe son tour."),
    ("Il doit montrer quinze » sinon il perd.", "Il doit montrer quinze, sinon il perd."),
    # specks run into a word's end, or between two words
    ("Il joue le roi^ et la dame^, puis son^partenaire joue.", "Il joue le roi et la dame, puis son partenaire joue."),
    # a quotation, a letter read as '»', a speck inside a broken word: not these
    ("Il dit « je passe » et joue.", "Il dit « je passe » et joue."),
    # a letter read as '»': the word it makes far commoner than the word without it
    ("Il regarde la tabl» et les moin» forts.", "Il regarde la table et les moins forts."),
])
def test_marks_the_ocr_made_of_a_comma_or_of_specks(res, printed, expected):
    assert fix_and_explain(printed, res)[0] == expected


@pytest.mark.parametrize("printed,expected", [
    # a full stop after a word no sentence ends on is a speck
    ("Il joue avec ses. voisins et.le roi.", "Il joue avec ses voisins et le roi."),
    ("Il joue. Le roi perd; etc. les autres suivent.", "Il joue. Le roi perd; etc. les autres suivent."),
    # a comma run into the next word gets its space; a number's comma does not
    ("Il faut jouer,dans le cas, 1,5 fois.", "Il faut jouer, dans le cas, 1,5 fois."),
    # an apostrophe standing alone between words is a speck; an elision with spaces is joined
    ("Il est de même ' de tous pour l ' autre.", "Il est de même de tous pour l'autre."),
])
def test_specks_of_punctuation_between_words(res, printed, expected):
    assert fix_and_explain(printed, res)[0] == expected
