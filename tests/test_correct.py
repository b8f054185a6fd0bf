"""The correction engine, on sentences written for the tests: each confusion class,
and the traps it must not fall into (period spelling, real words, numbers)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pipeline.build import process_chapter
from pipeline.clean import chapter_context, fix_and_explain
from pipeline.clean.book import corrector
from pipeline.clean.correct import BookContext

MADE_UP = Path(__file__).parent / "fixtures" / "made_up"


def fixed(res, text):
    return fix_and_explain(text, res)[0]


@pytest.mark.parametrize("printed,expected", [
    # b read as L, h as li, fl as (l, m as rn, n as ii, e as c, t as l, y as j, i as r …
    ("Le nomLre des joueurs est de quatre.", "Le nombre des joueurs est de quatre."),
    ("Il y a une cliaise près de la table.", "Il y a une chaise près de la table."),
    ("On pose la dame sur la (lèche du coin.", "On pose la dame sur la flèche du coin."),
    ("Le joueur rentre à la rnaison.", "Le joueur rentre à la maison."),
    ("Celui qui doiine mal perd la partie.", "Celui qui donne mal perd la partie."),
    ("Chacun regarde ses cartes en silcnce.", "Chacun regarde ses cartes en silence."),
    ("Le joueur qui perdanl la partie paye.", "Le joueur qui perdant la partie paye."),
    ("Le joueur qui a la main doit pajer un jeton.", "Le joueur qui a la main doit payer un jeton."),
    ("Il fant jouer avant la fin du coup; on ne pent pas revenir.", "Il faut jouer avant la fin du coup; on ne peut pas revenir."),
    ("Il faut voir lc jeu de son voisin, cl le sien.", "Il faut voir le jeu de son voisin, et le sien."),
])
def test_confusions_put_right(res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("sentence", [
    "De mesme on a vu des foibles secours; il est affoibli.",  # oi before bl: the period's ai
    "Il habitait dans la Lande, près de Bordeaux, où l'on joue peu.",  # a real word, a real place
    "Ils font leur partie le soir, et ils avoient joué dans le tems.",  # 'font' the verb; period spelling
    "On sçavoit alors connoître les loix du jeu; les savans & les joueurs.",
    "Les dés sont jetés; là il faut jouer, dès que la main est faite.",  # accents are not errors
    "Il faut 3 points, ou 12 cartes, page 407.",  # numbers stay numbers
    "Le codille et le robre, le quinola et la bête.",  # the game's own words
])
def test_correct_words_left_alone(res, sentence):
    assert fix_and_explain(sentence, res) == (sentence, [])


@pytest.mark.parametrize("printed,expected", [
    # the same printed word read both ways, as its sentence decides
    ("Il doit jouer une petite carte de celle couleur.", "Il doit jouer une petite carte de cette couleur."),
    ("Il prend sa carte, et celle qui reste au talon.", "Il prend sa carte, et celle qui reste au talon."),
    ("Si vous avez deux rois dans voire main, jouez-les.", "Si vous avez deux rois dans votre main, jouez-les."),
    ("Il peut jouer, voire même couper.", "Il peut jouer, voire même couper."),
    ("Il marque eu bredouille tous les points.", "Il marque en bredouille tous les points."),
    ("Elle a eu la main deux fois.", "Elle a eu la main deux fois."),
    ("On compte les points, mais ou ne marque pas la partie.", "On compte les points, mais on ne marque pas la partie."),
    ("Il joue trèfle ou pique, à son choix.", "Il joue trèfle ou pique, à son choix."),
    ("Quand ce n'est pas son lour, il ne peut pas jouer.", "Quand ce n'est pas son tour, il ne peut pas jouer."),
    ("Il ne dit pas un mol de toute la partie.", "Il ne dit pas un mot de toute la partie."),
    ("Il joue fout ce qu'il a perdu.", "Il joue tout ce qu'il a perdu."),
    ("Les jetons qui oui une valeur convenue.", "Les jetons qui ont une valeur convenue."),
    ("On doit paver trois fiches pour ce coup.", "On doit payer trois fiches pour ce coup."),
])
def test_real_words_read_in_context(res, printed, expected):
    text, edits = fix_and_explain(printed, res)
    assert text == expected
    assert {e.fix for e in edits} <= {"clean.context_word"}


@pytest.mark.parametrize("printed,expected", [
    # a verb's passé simple or future, which the word pairs read as its present or its
    # infinitive (a for e, a letter lost: cheap glyphs): the narrative's tense decides,
    # which they do not see; the print stands
    ("Le joueur se rapprocha de la table et prit ses cartes.", "Le joueur se rapprocha de la table et prit ses cartes."),
    ("Il ne s'y trompa point, et joua cœur.", "Il ne s'y trompa point, et joua cœur."),
    ("Le joueur s'inclina de nouveau.", "Le joueur s'inclina de nouveau."),
    ("Il nous rapprocha du but.", "Il nous rapprocha du but."),
    ("La République s'attachera à confirmer ces résultats.", "La République s'attachera à confirmer ces résultats."),
    # … a word that is chiefly another one than that verb's present is still read
    # ('contre', a preposition, not a form of 'contrer')
    ("Il joue contra son voisin.", "Il joue contre son voisin."),
])
def test_a_verbs_passe_simple_or_future_is_not_read_as_another_tense(res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,reading,same_verb", [
    ("rapprocha", "rapproche", True),
    ("donnèrent", "donnent", True),  # the longest ending: 'èrent', not 'a'
    ("commença", "commence", True),  # the stem's ç before a is its c before e
    ("mangea", "mange", True),  # … and its ge its g
    ("attachera", "attacher", True),  # the future, and the infinitive
    ("attacherai", "attache", True),
    ("rapprocha", "rapprochait", False),  # the imperfect: neither present nor infinitive
    ("contra", "contre", False),  # 'contre' far commoner than 'contrer'
    ("filla", "fille", False),  # no verb 'filler'
    ("la", "le", False),  # no stem
])
def test_which_readings_are_another_tense_of_the_printed_verb(res, printed, reading, same_verb):
    assert res.lexicon.another_tense(printed, reading) is same_verb


@pytest.mark.parametrize("word,verb", [
    ("repasseront", True), ("constataient", True), ("commençoit", True), ("mangeaient", True),
    ("jouerle", False),  # no ending of a verb: 'jouer' and 'le'
    ("quela", False),  # 'queler' is no verb
    ("estla", False),  # 'est' and 'la': 'estler' is no verb
])
def test_which_tokens_are_a_known_verbs_form(res, word, verb):
    assert res.lexicon.verb_form(word) is verb


@pytest.mark.parametrize("printed,expected,fix", [
    # several confusions in one word: too dear alone, called for by the sentence
    ("Il doit jouer une pelile carte de la couleur.", "Il doit jouer une petite carte de la couleur.",
     "clean.context_nonword"),
    # the corpus prints 'loules' and 'èlre' twice or more, as a word of its own would be, and
    # *toutes* and *être* too: the same misreading made again, which the engine reads alone
    # (until 2026-12-07, the sentence did)
    ("Il faut se rappeler loules les cartes jouées.", "Il faut se rappeler toutes les cartes jouées.", "clean.non_word"),
    ("Le joueur doit èlre placé vis-à-vis de son associé.", "Le joueur doit être placé vis-à-vis de son associé.",
     "clean.non_word"),
])
def test_words_misread_in_several_letters_read_in_context(res, printed, expected, fix):
    text, edits = fix_and_explain(printed, res)
    assert (text, [e.fix for e in edits]) == (expected, [fix])


@pytest.mark.parametrize("printed,expected", [
    # the sentence is sure of the letters, not of the accent ('conservé' or 'conserve'): its
    # best reading is made, not as sure as a reading it is sure of
    ("Le marbre antique confervé dans la galerie du Palais.", "Le marbre antique conservé dans la galerie du Palais."),
    ("Le tableau fut placé dans la galerie, conservd par les soins du Roi.",
     "Le tableau fut placé dans la galerie, conservé par les soins du Roi."),
])
def test_a_reading_whose_accent_alone_is_in_doubt_is_made(res, printed, expected):
    text, edits = fix_and_explain(printed, res)
    assert (text, [(e.fix, e.confidence) for e in edits]) == (expected, [("clean.context_nonword", 0.6)])


def test_a_rarer_word_one_cheap_confusion_away_is_made_down_to_the_prior_floor(res):
    """An unknown word's reading is made only if it is at least ``nonword_min_prior``
    common (2.5): 'diversement' (zipf 2.7) and 'outrepasser' (2.58), a final 't' and 'r'
    read 'i', are made; 'négligemment' (2.43) and 'hardiment' (2.40) stay as printed,
    however cheap the reading: rarer words are as often the reading of a name or of
    debris as the word meant."""
    assert fixed(res, "Les joueurs comptent diversemeni leurs points.") == \
        "Les joueurs comptent diversement leurs points."
    assert fixed(res, "Il faut outrepassei la règle.") == "Il faut outrepasser la règle."
    for sentence in ("Il joue négligemmeni ses cartes.", "Il joue hardimeni ses cartes."):
        assert fixed(res, sentence) == sentence


def test_a_misreading_the_book_prints_again_is_read_where_the_book_prints_its_word(res):
    """An unknown word the book prints twice is the book's own ('robre'), unless the OCR's
    commonest confusions explain it; and unless the Littré never prints it and the book
    prints its reading: then it is the same misreading made again ('convena', twice in a
    chapter that prints *convenu*). The same print, the book without its reading, stays.
    ('robre', which the Littré does not print either, has no reading cheap enough: it stays.)"""
    cor = corrector(res)
    again = cor.decide("convena", BookContext(Counter({"convena": 2, "convenu": 1})), False)
    assert (again.word, again.applied, again.fix) == ("convenu", True, "clean.non_word")
    alone = cor.decide("convena", BookContext(Counter({"convena": 2})), False)
    assert (alone.word, alone.applied) == ("convenu", False)  # suggested only
    # where the Littré's printings are not asked for (0), the print the book repeats is its own
    from dataclasses import replace

    from pipeline.clean.correct import Corrector

    strict = Corrector(cor.lexicon, cor.model, replace(cor.settings, recurrent_min_littre=0))
    kept = strict.decide("convena", BookContext(Counter({"convena": 2, "convenu": 1})), False)
    assert (kept.word, kept.applied) == ("convenu", False)


def test_a_piece_of_a_word_a_space_parts_is_not_read_alone(res):
    """A piece that, run together with its neighbour across a space, makes a word the
    lexicon knows is a piece of that word: 'Car dinal' (*cardinal*) is not made 'Car
    final', and 'ci toyens' is not 'ci moyens' but, joined by the sentence, *citoyens*."""
    assert fixed(res, "Le portrait du Car dinal de Fleury est au salon.") == \
        "Le portrait du Car dinal de Fleury est au salon."
    assert fixed(res, "Les ci toyens opèrent le sauvetage.") == "Les citoyens opèrent le sauvetage."


def test_a_print_differing_from_its_readings_by_accents_alone_stays(res):
    # 'réprésenté': the letters are right, the accents the printer's; which reading is meant
    # the sentence cannot tell ('représenté', 'représente'), and the print is no OCR error
    text, edits = fix_and_explain("En 1698 Poirier a réprésenté l'union de la Paix.", res)
    assert (text, edits) == ("En 1698 Poirier a réprésenté l'union de la Paix.", [])


@pytest.mark.parametrize("sentence", [
    "Ils ont tendu des pièges aux joueurs.",  # the Littré prints 'piéges': the same word to the model
    "Il ne fera pas la vole sans la faire.",  # the game's word: 'voie' fits as well, the book says 'vole'
    "Le joueur qui a la main, dit-on, fe trompe.",  # 'te' is cheap, 'se' as likely: no reading stands out
    "Les dés sont jetés; dés que la main est faite, il joue.",  # a change of accents: period spelling
    "Ce n'est pas à Lour de jouer, mais à Pierre.",  # a capital inside a sentence: a name ('lour' would be read)
])
def test_words_the_sentence_leaves_alone(res, sentence):
    assert fixed(res, sentence) == sentence


def test_a_word_of_the_period_the_lexicon_lacks_is_read_as_the_littre_prints_it(res):
    """A word the modern lexicon lacks or hardly knows that the Littré prints (an
    inflection of the period, 'mêlât') is the print's own reading, its accents misread
    at most; a common word the misreading is further from must fit the sentence better
    than it. 'mélat' was made 'métal' (three letters changed against one accent)."""
    from pipeline.clean import clean_text
    from pipeline.text import MappedText

    def cleaned(text):
        ctx = chapter_context(text, res)
        mt = clean_text(MappedText.from_raw(text, 0, len(text)), ctx)
        return mt.text, [(c.before, c.after) for c in mt.corrections()]

    for sentence in ("Il ne faut pas qu'on mélat les cartes si vite.", "Il ne faut pas qu'on mêlât les cartes si vite.",
                     "Il fallait qu'il gagnàt la partie."):
        assert cleaned(sentence) == (sentence, [])
    reader = chapter_context("Il joue.", res).reader
    assert reader.littre_reading("mêlât") == ("mêlât", 0.0)
    form, cost = reader.littre_reading("Mélat")
    assert form == "mêlât" and cost == reader._cost("mélat", "mêlât") > 0
    assert reader.littre_reading("eù") is None  # 'eu', a common word: the engine weighs it (and 'où') already
    assert reader.littre_reading("eî") is None  # the Littré prints 'ei' once: a foreign word as likely
    assert reader.littre_reading("peliles") is None  # a misreading of no word of the Littré
    assert cleaned("Il a les peliles cartes.") == ("Il a les petites cartes.", [("peliles", "petites")])


def test_a_piece_of_a_broken_word_is_not_made_a_word_alone(res):
    """A piece joined by a hyphen to a fragment that is no word, and that the engine reads
    as none, is most likely part of one word the OCR broke ('prèfëi-eDce', préférence):
    not made a word alone ('préfet'), only suggested; the same piece alone is read, and
    so is a piece hyphened to a word ('contre-invile'). So is a piece a speck of debris
    parts from one that makes a word, or a spelling of the period, with it: 'pouvo.it' is
    'pouvoit', which the segmentation joins, not 'pouvoir' (its 'it' read 'il' first)."""
    assert fixed(res, "Il ne pouvo.it pas jouer.") == "Il ne pouvoit pas jouer."
    assert fixed(res, "Il ne faudro.it pas le battre.") == "Il ne faudroit pas le battre."
    # a speck that parts two words is a space: 'ii' is still 'il'
    assert fixed(res, "Auquel cas ii.recommenceroit la partie.").startswith("Auquel cas il")
    assert fixed(res, "Le préfèi de la ville joue.") == "Le préfet de la ville joue."
    for sentence in ("Il a la préfèi-eDce au premier en carte.", "Il a la préfèi-rcnce au premier."):
        text, edits = fix_and_explain(sentence, res)
        assert text == sentence and not edits
    assert fixed(res, "Il prend la contre-invile du joueur.") == "Il prend la contre-invite du joueur."


@pytest.mark.parametrize("sentence", [
    "Il pose ses cartes sur ses ge-noux avant de jouer.",  # not 'ge-nous'
    "Le joueur cou-pable de la faute paie une fiche.",  # not 'cou-table'
])
def test_a_piece_of_a_word_a_hyphen_parts_is_not_read_alone(res, sentence):
    """A hyphen with no space between two pieces that make a word ('ge-noux', genoux) is a
    line end the export lost, or a compound's: neither piece is a word of its own."""
    text, edits = fix_and_explain(sentence, res)
    assert text == sentence and not edits


@pytest.mark.parametrize("printed,expected", [
    # a space the OCR added: joined when the sentence calls for the word they make
    ("Il ne faut pas commencer, car la con solalion serait de deux fiches.",
     "Il ne faut pas commencer, car la consolation serait de deux fiches."),
    ("On fait ce qu'on ap pelle faire la vole.", "On fait ce qu'on appelle faire la vole."),
    ("Il peut proposer de com position, mais l'autre refuse.", "Il peut proposer de composition, mais l'autre refuse."),
    ("Il doit appeler toutes ses car les.", "Il doit appeler toutes ses cartes."),  # two real words, one misread
    ("Il a pris la con.solalion du jeu.", "Il a pris la consolation du jeu."),  # a speck of debris for the space
    # a space the OCR lost: parted when the sentence calls for two words
    ("La partie est triple et dune partie double.", "La partie est triple et d'une partie double."),
    ("Il le tient encore déplus loin.", "Il le tient encore de plus loin."),
    ("On ne jouerait qu'avec trentesix cartes.", "On ne jouerait qu'avec trente-six cartes."),
])
def test_words_joined_and_parted_in_context(res, printed, expected):
    text, edits = fix_and_explain(printed, res)
    assert (text, [e.fix for e in edits]) == (expected, ["clean.segmentation"])


@pytest.mark.parametrize("sentence", [
    "Il joue carreau, car les autres couleurs manquent.",  # 'cartes' is near, the sentence wants 'car les'
    "La dune est haute près de la mer.",  # a real dune
    "Il aime déjouer les pièges de son adversaire.",  # a real verb
    "Il ne faudroit pas le battre.",  # period spelling, whole
])
def test_spaces_the_sentence_leaves_alone(res, sentence):
    assert fixed(res, sentence) == sentence


def test_a_join_must_beat_the_print_read_with_a_letter_misread(res):
    from pipeline.clean import chapter_context

    reader = chapter_context("", res, "003_f61ce87bf6c7524e.txt").reader
    # 'il v a plusieurs': 'va' fits better than the print, but 'y a', a letter misread, better still
    assert reader.join("v", "a", "il", "plusieurs", False) is None
    assert reader.join("ap", "pelle", "on", "faire", False).word == "appelle"


def test_a_word_no_sentence_reads_otherwise_costs_no_memo_entry(res):
    """A known word with no reading a sentence may call for ('toujours'), and a spelling
    of the period ('avoit'), are left as printed wherever they stand, with nothing of
    the book read: the sentence's reader answers None at once, with no entry in its memo
    for each place (four words in ten; the answer ``_decide`` gives, which is tested
    too). A word with readings ('celle': 'cette') is decided, and its decision kept."""
    from pipeline.clean import chapter_context

    reader = chapter_context("Il joue une carte.", res).reader
    for word, prev, nxt in (("toujours", "a", "joué"), ("avoit", "il", "joué"), ("toujours", "il", "joue")):
        reader._words.setdefault(word, reader._word(word))  # (worked out as its first decision does, if not read from the disk)
        before = len(reader._decided)
        assert reader.decide(word, prev, nxt, False) is None
        assert reader._decide(word, prev, nxt, False) is None
        assert len(reader._decided) == before
    assert reader.split("toujours", "a", "joué", False) is None and reader._split_readings["toujours"] == []
    before = len(reader._decided)
    assert reader.split("toujours", "il", "joue", False) is None and len(reader._decided) == before
    assert reader.decide("celle", "de", "carte", False).word == "cette"
    assert len(reader._decided) == before + 1


def test_long_s_read_by_lexicon_and_context(res):
    seg = process_chapter(MADE_UP / "long_s_tables.txt", res)
    text = " ".join(p.text.text for p in seg.passages)
    assert "de la garder; car les dames qui sont sur la case sont à couvert" in text
    assert "Des cases & des dames. Quand vous avez fait une case, il est" in text
    assert "les joueurs font leur jeu comme il leur plaît, & ils font faire les cases" in text
    assert "servent à marquer les points; on met un jeton sur la flèche du coin." in text


# a page whose OCR read most long s as s: two hundred words with an f, all words
_PLAIN_F = "Le fils fait un effort pour offrir des fleurs à sa femme, sans faute. " * 25
# … and a paragraph where it read some as f: twelve words of three letters or more that
# are words only with an s ('fous', 'chofe'), and 'fe'
_SOME_LONG_S = ("Elle paroît fous la figure d'une Nymphe, qui fe repofe dans le fein de la Gloire. "
                "C'eft une chofe prefque aufli belle que celle qu'on conferve à Rome; il faut la fuivre feule, "
                "quoi qu'il en foit, fur le chemin. ")


def test_a_printing_whose_ocr_read_some_long_s_as_f_is_a_long_s_printing(res):
    """Where the OCR read most long s as s and some as f, the f-words that are words only
    with an s are too few for the share that tells a printing whose every long s was
    read as f (15%), but enough to tell it from the OCR's chance f for an s: twelve of
    three letters or more, 6% of the f-words (confusions.toml's [long_s_printing]: 6
    and 4%, twice the most the ICDAR books printed without the long s reach). Three are
    not enough, nor twelve among four times as many f-words, nor short tokens any OCR
    makes ('fi', 'ft'). The words of such a text are read as in any long-s printing."""
    from pipeline.clean.correct import is_long_s_printing

    lex = res.lexicon
    assert is_long_s_printing(_PLAIN_F + _SOME_LONG_S, lex)
    first = _SOME_LONG_S.split(". ")[0] + ". "  # 'fous', 'repofe', 'fein' (and 'fe')
    assert not is_long_s_printing(_PLAIN_F + first * 1, lex)
    assert not is_long_s_printing(_PLAIN_F * 4 + _SOME_LONG_S, lex)  # (12 of 760: 1.6%)
    assert not is_long_s_printing(_PLAIN_F, lex)
    assert not is_long_s_printing(_PLAIN_F + "Il fi ft. " * 8, lex)  # (16 of 191: 8%)
    text, _ = fix_and_explain(_PLAIN_F + _SOME_LONG_S, res)
    assert text.endswith("Elle paroît sous la figure d'une Nymphe, qui se repose dans le sein de la Gloire. "
                         "C'est une chose presque aussi belle que celle qu'on conserve à Rome; il faut la suivre "
                         "seule, quoi qu'il en soit, sur le chemin. ")
    assert text.startswith(_PLAIN_F)  # the f-words that are words with an f, as printed


def test_a_long_s_read_as_another_thin_glyph_in_a_long_s_printing(res):
    """In a long-s printing the long s is read as an f most often, and now and then as
    another thin upright glyph (confusions.toml's long_s_also: 'l', 'i', 'j', 'J', at
    0.5): 'auili' is *aussi*, 'deilin' *dessin*. Not in a chapter printed without the
    long s, where an l for an s is any letter for another."""
    misread = "Le tableau est peint jur bois, & on y voit auili un deilin de la même main. "
    text, _ = fix_and_explain(_PLAIN_F + _SOME_LONG_S + misread, res)
    assert text.endswith("Le tableau est peint sur bois, & on y voit aussi un dessin de la même main. ")
    assert fixed(res, misread + "Il a des fleurs.") == \
        "Le tableau est peint sur bois, & on y voit auili un deilin de la même main. Il a des fleurs."


def test_a_long_s_read_where_the_sentence_calls_for_it_though_the_chapter_repeats_the_f_word(res):
    # the chapter prints 'fous' five times and 'sous' never: the OCR's misreading repeated,
    # no evidence for the f-word; where the sentence calls for the s reading ('pastel sous
    # glace'), by less than a real word's margin, it is read too
    chapter = ("Le premier tableau eft connu fous le nom de la Vierge; il eft peint fur toile. Le fecond eft "
               "connu fous le nom du Berger, & il repréfente un Payfage. Les figures font placées fur un fond "
               "d'architecture. Le troifiéme eft connu fous le nom de la Chaffe. Un pastel fous glace eft à "
               "côté, & un deffein fous verre. Il eft à fa droite, de Ion côté.")
    text = fixed(res, chapter)
    assert "Un pastel sous glace est à côté, & un dessein sous verre." in text
    assert text.count("connu sous le nom") == 3
    # the long s alone is the OCR's: the period's accent stays ('troisiéme', not 'troisième')
    assert "Le troisiéme est connu" in text
    # the long s read as a capital I, a thin upright glyph as 'l', 'i', 'j' and 'J' are
    assert text.endswith("Il est à sa droite, de son côté.")


def test_long_s_left_alone_outside_long_s_printings(res):
    # one 'fur' in a chapter printed without the long s is not enough to read it as 'sur'
    assert fixed(res, "Il met sa fourrure de fur et de cuir.") == "Il met sa fourrure de fur et de cuir."
    # a real word stays ('fuite', 'font'); a word no lexicon knows that its f read as an s
    # makes common, and nothing else near, is read so (a book the OCR read ſ as s in, but
    # for a few: no long-s printing by its share of them)
    assert fixed(res, "Il prend la fuite, et les cartes font sur la table.") == (
        "Il prend la fuite, et les cartes font sur la table.")
    assert fixed(res, "Il a prefque gagné la partie.") == "Il a presque gagné la partie."


def test_real_word_error_needs_the_book_or_the_topic(res):
    assert fixed(res, "On marque les points contre la Lande du milieu.") == "On marque les points contre la Lande du milieu."
    chapter = ("Le trictrac se joue avec deux dés, un cornet et quinze dames sur les flèches du tablier. "
               "On marque les points contre la Lande du milieu; la pile du talon et le coin sont à part.")
    assert "contre la bande du milieu" in fixed(res, chapter)


def test_numbers_read_in_a_list_of_numbers(res):
    assert fixed(res, "Le point se fait par lo et g, par 10, 9 et 8, ou par 10, 9, 8 et 7.") == (
        "Le point se fait par 10 et 9, par 10, 9 et 8, ou par 10, 9, 8 et 7.")
    # an initial the clause's stops cut off from the numbers around it is no number of theirs
    sentence = "Reçu en 1742, mort en 1760. S. Martin le remplace en 1761, puis en 1770."
    assert fixed(res, sentence) == sentence


@pytest.mark.parametrize("printed,expected", [
    ("Qu il joue ou non, il n a rien à dire.", "Qu'il joue ou non, il n'a rien à dire."),
    ("On ne peut plus s en dédire.", "On ne peut plus s'en dédire."),
    ("Ilfaut que chaque joueur paye.", "Il faut que chaque joueur paye."),
    ("S ouvent on joue en trois parties.", "Souvent on joue en trois parties."),
    ("Il se place visà-vis de son associé.", "Il se place vis-à-vis de son associé."),
    ("Dans ce cas, D est en droit de jouer.", "Dans ce cas, D est en droit de jouer."),  # a player, not d'
    ("Il joue, i M. Durand le suit.", "Il joue, i M. Durand le suit."),  # a capital goes on no word: not 'iM'
    # no elision French does not print: the Littré has "j'" before 'il' 0.009 times as often as chance would
    ("Le levier dont il fut frappé j il est de Martin.", "Le levier dont il fut frappé j il est de Martin."),
    ("Si l on joue, d elle dépend la partie.", "Si l'on joue, d'elle dépend la partie."),
])
def test_elisions_and_word_boundaries(res, printed, expected):
    assert fixed(res, printed) == expected


def test_every_edit_explained(res):
    text, edits = fix_and_explain("Le joueur doit pajer un jeton , cl le nomLre est fixe.", res)
    assert text == "Le joueur doit payer un jeton, et le nombre est fixe."
    assert [(e.before, e.after, e.fix) for e in edits] == [
        ("pajer", "payer", "clean.non_word"),
        (" ", "", "clean.spacing"),
        ("cl", "et", "clean.real_word"),
        ("nomLre", "nombre", "clean.non_word"),
    ]
    assert all(0 < e.confidence <= 1 for e in edits)


def test_uncertain_correction_is_a_suggestion_not_an_edit(res):
    d = corrector(res).decide("Lande", BookContext(Counter()), False)
    assert (d.word, d.applied) == ("bande", False)


def test_eval_on_the_gold_chapters_meets_the_targets(built_db):
    import sqlite3

    from pipeline.clean.evaluate import evaluate_db

    scores = evaluate_db(sqlite3.connect(built_db), Path(__file__).parent / "fixtures" / "gold")
    assert [s.chapter for s in scores] == ["002_88808cca03487927.txt", "004_1b7568f237a1e7a3.txt"]
    total = scores[0] + scores[1]
    # measured from the page text (the export's header line is not OCR): 54% in Nov. 2026,
    # 58.8% with the sequence model, 69.5% in Dec. 2026 (100 of the 153 wrong words fixed,
    # none broken); the targets are 70% and 65%, and 0.2% broken at most
    assert total.reduction >= 0.69
    assert total.reduction_layout + total.reduction_words == pytest.approx(total.reduction)
    assert total.broken_rate <= 0.002
    assert total.fixed_rate >= 0.65  # the peers fix 22% at most


def test_eval_measures_from_the_page_text_not_the_export_header(tmp_path):
    """A chapter whose only difference from its gold is the export's header line and a
    running head: the raw side has no header, so the only error is the head, which
    layout removes."""
    import sqlite3

    from pipeline.build import build
    from pipeline.clean.evaluate import evaluate_db

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    header = "‹ Nouvelle académie des jeux Chapitre 3 sur 40 · BOS · texte numérisé non relu"
    text = "Le joueur qui donne mal paye une fiche.\n\nIl faut jouer à son tour."
    (corpus / "ch.txt").write_text(f"{header}\n\nBOS 41\n\n{text}\n", encoding="utf-8")
    gold = tmp_path / "gold"
    gold.mkdir()
    (gold / "ch.txt").write_text(text + "\n", encoding="utf-8")
    build(corpus, tmp_path / "t.db")
    [s] = evaluate_db(sqlite3.connect(tmp_path / "t.db"), gold)
    assert (s.errors_raw, s.errors_layout, s.errors_clean) == (len("BOS 41 "), 0, 0)
    assert (s.reduction, s.reduction_layout, s.reduction_words) == (1.0, 1.0, 0.0)


def test_search_for_a_word_finds_its_damaged_and_period_forms(db):
    def found(word):
        return {r[0] for r in db.execute(
            "SELECT p.citation FROM passages p JOIN passages_fts f ON f.rowid = p.rowid "
            "WHERE passages_fts MATCH ?", (word,))}

    lande = {r[0] for r in db.execute("SELECT citation FROM passages WHERE text_raw LIKE '%contre la Lande%'")}
    assert lande and lande <= found("bande")
    assert "unknown:001-75e3c30c86ec1490.s10.3" in found("avait")  # printed 'avoit'
    assert found("regle") == found("règle")  # accents ignored


def test_digits_read_inside_words_and_long_s_period_words(res):
    assert fixed(res, "Il a pris de5 cartes et le ro1 de pique.") == "Il a pris des cartes et le roi de pique."
    long_s = "Il eft certain que fi le joueur veut fçavoir le jeu, il fe trouve fur la table & doit paffer fon tour."
    assert fixed(res, long_s) == (
        "Il est certain que si le joueur veut sçavoir le jeu, il se trouve sur la table & doit passer son tour.")


def run_cli(*args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=Path(__file__).parent.parent)


@pytest.mark.slow  # the command line, in a process of its own
def test_clean_command_explains_each_edit(tmp_path):
    page = tmp_path / "page.txt"
    page.write_text("Le joueur qui a la main doit pajer un jeton,\ncl celui qui renonce paye le douLle.\n", encoding="utf-8")
    proc = run_cli("clean", page, "--explain")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Le joueur qui a la main doit payer un jeton, et celui qui renonce paye le double.\n"
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("page.txt:1:30: 'pajer' → 'payer'  clean.non_word (")
    assert lines[2].startswith("page.txt:2:1: 'cl' → 'et'  clean.real_word (")
    assert lines[3].startswith("page.txt:2:30: 'douLle' → 'double'  clean.non_word (")


@pytest.mark.slow  # the command line, in a process of its own
def test_explain_and_eval_commands(built_db):
    proc = run_cli("explain", "aduj:whist.13", "--db", built_db)
    assert proc.returncode == 0, proc.stderr
    assert "i3. Personne ne doit prendre les caries" in proc.stdout
    assert "'caries' → 'cartes'  clean.real_word" in proc.stdout
    assert "'i3.' → '13.'  segment.article_number" in proc.stdout
    proc = run_cli("eval", Path(__file__).parent / "fixtures" / "gold", "--db", built_db)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["chapter", "chars", "CER", "raw", "layout", "clean", "reduced", "layout", "fixes",
                                "words", "wrong", "fixed", "broken", "broken", "%"]
    total = lines[4].split()
    assert total[:2] == ["total", "9844"]  # characters of the gold text
    # the raw CER of the page text: the header line is not counted (it was 5.49% with it)
    assert total[2] == "3.77%"
    assert float(total[5].rstrip("%")) >= 50.0  # CER reduction
    assert lines[5].startswith("CER: of the raw page text (the export's header and footer lines left out)")
    assert lines[6:9] == ["", "calibration: the fixes of words and numbers by confidence, and the share right (every "
                          "word they touch is the gold's)", "confidence    fixes  right   share"]
    bands = [l.split() for l in lines[9:15]]
    assert [b[0] for b in bands] == ["0.95–1.00", "0.90–0.95", "0.80–0.90", "0.70–0.80", "0.50–0.70", "0.00–0.50"]
    assert sum(int(b[1]) for b in bands) > 50  # the fixes of words and numbers the gold judges
    assert run_cli("explain", "aduj:whist.99", "--db", built_db).stderr.startswith("error: no passage cited 'aduj:whist.99'")


def test_the_game_a_chapter_is_about_makes_its_name_likelier(res):
    from pipeline.clean import chapter_context, clean_text
    from pipeline.text import MappedText

    def cleaned(text, games):
        ctx = chapter_context(text, res, None, games)
        mt = clean_text(MappedText.from_raw(text, 0, len(text)), ctx)
        return mt.text, [(c.before, c.after, c.fix) for c in mt.corrections()], [
            (s.before, s.suggestion) for s in ctx.suggestions]

    # running heads naming piquet: the game's name is read, alone
    text = "Il aime ce piqnet."
    assert cleaned(text, ("piquet",)) == ("Il aime ce piquet.", [("piqnet", "piquet", "clean.non_word")], [])
    # elsewhere the same reading is only suggested …
    assert cleaned(text, ()) == (text, [], [("piqnet", "piquet")])
    # … unless the sentence chooses it over the engine's other reading ('piquer' as near alone)
    assert cleaned("Il aime le piqnet plus que tout.", ())[0] == "Il aime le piquet plus que tout."
    # … unless the sentence calls for it: 'au piquet' is the French of the games
    assert cleaned("Au piqnet, celui qui a la main joue le premier.", ()) == (
        "Au piquet, celui qui a la main joue le premier.", [("piqnet", "piquet", "clean.context_nonword")], [])


def test_a_fix_is_judged_right_when_every_word_it_touches_is_the_gold_s():
    from pipeline.clean.evaluate import calibration, fixes_judged

    clean = "Le joueur paye le double, et la carle reste."
    gold = "Le joueur paye le double, et la carte reste."
    fixes = [
        (clean.index("paye"), clean.index("paye") + 4, 0.92, "spelling"),  # 'pajer' made 'paye': right
        (clean.index("carle"), clean.index("carle") + 5, 0.6, "spelling"),  # made 'carle': wrong
        (clean.index(","), clean.index(",") + 1, 0.99, "spelling"),  # punctuation alone: not judged
        (3, 3, 1.0, "layout"),  # layout: not judged
        (clean.index("double") + 3, clean.index("double") + 3, 0.97, "spelling"),  # a letter deleted inside 'double'
    ]
    assert fixes_judged(clean, gold, fixes) == [(0.92, True), (0.6, False), (0.97, True)]
    assert calibration([(0.92, True), (0.6, False), (0.97, True), (1.0, True)]) == [
        (0.95, 1.0, 2, 2), (0.9, 0.95, 1, 1), (0.8, 0.9, 0, 0), (0.7, 0.8, 0, 0), (0.5, 0.7, 1, 0), (0.0, 0.5, 0, 0)]


def test_a_suggestion_for_a_word_a_later_step_changed_is_dropped(res):
    """'pr^ier': the corrector, alone, can only suggest 'parler'; the sentence then reads
    the speck as debris inside 'prier'. The reader must not be offered 'parler' for a
    word the text no longer prints."""
    from pipeline.clean import chapter_context, clean_text
    from pipeline.text import MappedText

    text = "On doit pr^ier le joueur de jouer."
    ctx = chapter_context(text, res)
    mt = clean_text(MappedText.from_raw(text, 0, len(text)), ctx)
    assert (mt.text, [(c.before, c.after, c.fix) for c in mt.corrections()], ctx.suggestions) == (
        "On doit prier le joueur de jouer.", [("pr^ier", "prier", "clean.segmentation")], [])


def test_a_build_of_another_corpus_leaves_the_resources_book_as_it_was(res, planted_db):
    """A made-up chapter built with the session's resources is read as a chapter of their
    corpus (its book's words); the build must not make its own chapter the book of every
    later cleaning with these resources."""
    from pipeline.clean.book import corpus_counts, corpus_pairs

    corpus = Path(__file__).parent.parent / "corpus"
    names = sorted(p.name for p in corpus.glob("*.txt"))
    assert sorted(corpus_counts(res)[1]) == names and sorted(corpus_pairs(res)[1]) == names


def test_a_word_whose_first_glyph_may_be_an_elided_article_is_read_without_error(res):
    """The learned channel reads 'T' as "l'" ('Taccepte' for "l'accepte"): the index then
    offers "l'enclave" for 'Tenclave', which the sequence model has no count of. The
    chapter must still be cleaned (it was an internal error of the whole chapter), and the
    corrector, which decides such readings, reads it."""
    assert fixed(res, "Tenclave est perdue pour lui.") == "L'enclave est perdue pour lui."


def test_the_next_word_calls_for_the_s_reading_even_printed_with_its_own_long_s():
    """'font fouvent': in a long-s printing the word after may print its s as f too; its
    s reading ('souvent') is the cue, with no list of the OCR's forms."""
    from pipeline.clean.correct import ChannelModel

    cue = ChannelModel.default().long_s_cue
    assert [cue(w) for w in ("fouvent", "fur", "souvent", "faire", "leur", "lui")] == [1, 1, 1, -1, -1, 0]


@pytest.mark.parametrize("printed,expected", [
    # two words run together with no mark: a hyphen only when both sides make a compound
    ("Il le ditde bonne foi, et l'autre accepte.", "Il le dit de bonne foi, et l'autre accepte."),
    ("Pierre peutfaire la vole quand il veut.", "Pierre peut faire la vole quand il veut."),
    ("Il joue luimême la première carte.", "Il joue lui-même la première carte."),
    ("On compte vingtun points pour la partie.", "On compte vingt-un points pour la partie."),
    # three words run together
    ("La carte est nulle si l'on jouesansdire le nombre.", "La carte est nulle si l'on joue sans dire le nombre."),
    # … as French puts them side by side: the Littré prints 'du ne' once, where chance would pair them 305 times
    ("Il joue dunemanière adroite.", "Il joue dunemanière adroite."),  # not 'du ne manière'
    # … each a word the Littré prints: 'res' (twice) is none, 'carresse' the period's 'caresse'
    ("Un chien dont il en carresse un autre.", "Un chien dont il en carresse un autre."),
    # 'même' hyphened to a personal pronoun only
    ("Il prend lamême carte que lui.", "Il prend la même carte que lui."),
    ("Il est maintenant à Villardin près de Laval.", "Il est maintenant à Villardin près de Laval."),  # a name
    # a name inside a sentence is not two words; a capital opening one may be
    ("Le livre de Lepeintre des Roches est rare.", "Le livre de Lepeintre des Roches est rare."),
    ("Celuiqui joue le premier perd.", "Celui qui joue le premier perd."),
    # the second half of a word the OCR parted is no two words: 'versaire' is not 'vers aire'
    # ('aire' is common in French); the sentence joins it to its first half, or it stays
    ("Il faut que l'ad versaire ne gagne pas.", "Il faut que l'adversaire ne gagne pas."),
    ("Avant que l'ad-versaire ait marqué ses points.", "Avant que l'ad-versaire ait marqué ses points."),
    # a word the Littré prints, rare to the lexicon, is one word ('artiste ment', 'mois son née', 'par vins')
    ("Les cartes sont artistement rangées sur la table.", "Les cartes sont artistement rangées sur la table."),
    ("La récolte moissonnée avant le temps.", "La récolte moissonnée avant le temps."),
    ("Il ne parvins pas à le battre.", "Il ne parvins pas à le battre."),
    # a name in capitals, and a capital inside a part, which is debris ('maîtresse sI')
    ("Un tableau peint par DESMAISONS sur toile.", "Un tableau peint par DESMAISONS sur toile."),
    ("Il joue mal, et sa maîtressesI le regarde.", "Il joue mal, et sa maîtressesI le regarde."),
    # a form of a verb the lexicon knows, which it lacks itself: one word ('repas seront',
    # 'constat aient'), where two words run together are still parted ('jouer le', 'que la')
    ("Les joueurs repasseront la carte au voisin.", "Les joueurs repasseront la carte au voisin."),
    ("Les joueurs constataient la perte du coup.", "Les joueurs constataient la perte du coup."),
    ("Il faut jouerle premier coup, et quela partie commence.", "Il faut jouer le premier coup, et que la partie commence."),
    # a prefix no French prints alone, and its word: one word ('anti française')
    ("Une ligue antifrançaise et interfédérale joue.", "Une ligue antifrançaise et interfédérale joue."),
    # the period's spelling of a word the Littré prints ('croissait', 17 times): one word,
    # not 'crois soit'; wordfreq's 'laloi', a typo of the web the Littré never prints, is two
    ("Le corps se nourrissoit & croissoit avec l'âge.", "Le corps se nourrissoit & croissoit avec l'âge."),
    ("Il est à laloy du Roi et à la loy de Dieu.", "Il est à la loy du Roi et à la loy de Dieu."),
])
def test_words_run_together_are_parted_with_a_space_or_the_compound_s_hyphen(res, printed, expected):
    assert fixed(res, printed) == expected


def test_a_word_the_book_prints_thrice_is_not_parted_into_two(res):
    # 'surdame' is no French word, but 'sur' and 'dame' are: once, it is two words run
    # together; printed three times, it is the book's own term
    once = "Il pose la dame en surdame et joue."
    assert fixed(res, once) == "Il pose la dame en sur dame et joue."
    thrice = "Il pose la dame en surdame et joue. La surdame est perdue. Une surdame vaut deux points."
    assert fixed(res, thrice) == thrice


def test_a_real_word_that_a_commoner_one_fits_as_well_is_left():
    # the engine, judging 'tait' alone, makes it 'fait' (a thousand times commoner, t
    # and f alike to the OCR); 'se fait' fits its neighbours better too, but by less
    # than its frequency says, which the engine has weighed: 'se tait' the neighbours favour
    from pipeline.resources import Resources

    sentence = "Celui qui se tait perd la partie."
    assert fixed(Resources(Path("corpus")), sentence) == sentence


@pytest.mark.parametrize("printed,expected", [
    # "l'" and a word, the OCR's one capital for the l and its apostrophe, inside a sentence
    ("Il garde ainsi Tor et l'argent de la partie.", "Il garde ainsi l'or et l'argent de la partie."),
    ("Il faut que Vadversaire joue le premier.", "Il faut que l'adversaire joue le premier."),
    # a word in its own right ('ton'), but then its capital too is a misreading
    ("Il faut le dire, car Ton perd sinon.", "Il faut le dire, car l'on perd sinon."),
    ("Il joue avec Tom et Pierre.", "Il joue avec Tom et Pierre."),
    # the word after the article keeps the capital it is printed with
    ("On le porta à THôpital de la ville.", "On le porta à l'Hôpital de la ville."),
    ("THôpital est loin de la ville.", "L'Hôpital est loin de la ville."),
    # names stay names: a capital is read as another letter where the rest is the word as printed, or where
    # the OCR is known to print that capital for it ('Tor'), not as its small letter would be ('B' for 'h')
    ("Il part ainsi pour Tours et revient.", "Il part ainsi pour Tours et revient."),
    ("Il vint avec Bouteux et Pierre.", "Il vint avec Bouteux et Pierre."),
    # after a title's full stop the sentence goes on: the capital word is a name's ('L' no "l'")
    ("Une foire de M. Lenfant, peinte par lui.", "Une foire de M. Lenfant, peinte par lui."),
    ("Le valet, que Pierre a joué, est perdu.", "Le valet, que Pierre a joué, est perdu."),
])
def test_a_capital_inside_a_sentence_read_as_an_elided_article_when_the_sentence_calls_for_it(res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,expected", [
    # a small letter the OCR printed as a capital inside a sentence, the rest of the word as
    # printed: read as the common word the sentence calls for
    ("Il faut jouer Ja première carte de la main.", "Il faut jouer la première carte de la main."),
    ("On marque Irois points pour le jeu.", "On marque trois points pour le jeu."),
    ("Il joue encore Lien plus vite que lui.", "Il joue encore bien plus vite que lui."),
    # J for l, a confusion of the hand table (the corpus's fixes show it, and the newspapers'
    # misread words four times as often as J for d): 'les' over 'des', as likely there
    ("Il prend Jes cartes de son adversaire.", "Il prend les cartes de son adversaire."),
    # an elided word printed with a capital inside a sentence: no sentence prints one there
    ("Les dames restent pour J'instant sur la bande.", "Les dames restent pour l'instant sur la bande."),
    ("Le joueur, lui répondit J'officier, a perdu.", "Le joueur, lui répondit l'officier, a perdu."),
    ("Le joueur qui a J'as de pique gagne.", "Le joueur qui a l'as de pique gagne."),
    # traps: a capital after a colon may open a sentence ("J'ai"); a capital's own letter
    # in small, accented or not, is its case, no misreading ("d'Etat", not "d'état");
    # and names
    ("Il dit: J'ai gagné la partie.", "Il dit: J'ai gagné la partie."),
    ("Le Conseiller d'Etat est venu de l'Eglise.", "Le Conseiller d'Etat est venu de l'Eglise."),
    ("Il écrit son Evangile à Rome.", "Il écrit son Evangile à Rome."),
    ("Il parle de Jean et de Tours.", "Il parle de Jean et de Tours."),
])
def test_a_capital_inside_a_sentence_read_as_a_small_letter_when_the_sentence_calls_for_a_common_word(
        res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,expected", [
    # the period capitalised its nouns: a capitalised word inside a sentence one cheap
    # confusion from a common word, its capital kept, is that word
    ("Le premier Joneur doit couper les cartes.", "Le premier Joueur doit couper les cartes."),
    ("Il faut que la Sculprure soit placée au Capiraine de la Compagnie.",
     "Il faut que la Sculpture soit placée au Capitaine de la Compagnie."),
    # a name stays: one confusion from a rarer word ('notoire'), its accents its own, or
    # a word the chapter prints again
    ("Le Portrait de Natoire peint par lui-même.", "Le Portrait de Natoire peint par lui-même."),
    ("Des Belles Lettres de Caën et de Rouen.", "Des Belles Lettres de Caën et de Rouen."),
    ("Il vint avec Joucur; Joucur joua le premier.", "Il vint avec Joucur; Joucur joua le premier."),
])
def test_a_capitalised_noun_inside_a_sentence_is_read_with_its_capital_where_a_common_word_is_one_confusion_away(
        res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,expected", [
    # a word printed in capitals is read against its readings in capitals: its case is no
    # misreading (each letter's case was priced as one, and no such word was ever read)
    ("AVEC DES REMARQUES NOUVELLFS.", "AVEC DES REMARQUES NOUVELLES."),
    ("RÈGLES DU JEU, ET DU JFU DE LA MANILLE.", "RÈGLES DU JEU, ET DU JEU DE LA MANILLE."),
    # … but its accents are the printer's, a Roman numeral is a number, and a name stays,
    # though the web knows one like it ('Julian': the Littré prints it twice)
    ("TRAITÉ DU JEU DES ECHECS.", "TRAITÉ DU JEU DES ECHECS."),
    ("SOUS LOUIS XIV ET LOUIS XV.", "SOUS LOUIS XIV ET LOUIS XV."),
    ("A Rome, M. JULIART, peintre.", "A Rome, M. JULIART, peintre."),
])
def test_a_word_in_capitals_is_read_in_capitals(res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,expected", [
    # a word in capitals the OCR cut in two pieces that are no words ('REMAR QUES'), as a
    # word in small letters is joined ('N ommant'), if the word is a common one the
    # Littré prints; single capitals are labels ('la bande B C', not 'BC')
    ("AVEC DES REMAR QUES NOUVELLES.", "AVEC DES REMARQUES NOUVELLES."),
    ("Près de la bande B C pour huit points.", "Près de la bande B C pour huit points."),
])
def test_a_word_in_capitals_cut_in_two_is_joined(res, printed, expected):
    assert fixed(res, printed) == expected


def test_a_capital_inside_a_sentence_is_read_as_another_letter_where_the_tables_or_the_rest_say_so():
    """A capital the OCR printed is a capital's shape: 'B' for 'h' is not priced as 'b'
    for 'h' unless the tables know that capital for that letter, or the rest of the word
    is the reading as printed (a word whose only odd glyph is its first: how the channel
    learns such capitals from the corpus's fixes at all)."""
    from pipeline import data
    from pipeline.clean.correct import ChannelModel, _only_first_changed

    model = ChannelModel(data.load("confusions"))
    assert model.misread_capital("Tor", "l'or") and model.misread_capital("Lande", "bande")
    assert not model.misread_capital("Bouteux", "honteux") and not model.misread_capital("Tille", "fille")
    assert model.step_cost("b", "h", False) == 0.35  # the small letter's confusion is cheap
    assert _only_first_changed("bonteux", "honteux") and _only_first_changed("ijonne", "bonne")
    assert _only_first_changed("tor", "l'or") and not _only_first_changed("bouteux", "honteux")


def test_an_accented_letter_misread_as_a_glyph_of_its_bare_letter_pays_that_confusion_and_the_accent():
    from pipeline import data
    from pipeline.clean.correct import ChannelModel

    model = ChannelModel(data.load("confusions"))
    assert model.step_cost("c", "e", False) == 0.3
    assert model.step_cost("c", "è", False) == pytest.approx(0.3 + 0.2)  # 'c' for 'e', the accent lost
    assert model.step_cost("c", "é", False) == 0.4  # a confusion the table lists for the accented letter is its
    assert model.step_cost("x", "è", False) == 1.0  # no confusion listed for the bare letter: a substitution


@pytest.mark.parametrize("printed,expected", [
    ("Il se tient prcs de la table.", "Il se tient près de la table."),
    ("Le frcre du joueur perd.", "Le frère du joueur perd."),
])
def test_a_word_whose_accented_letter_the_ocr_read_as_another_glyph_is_read(res, printed, expected):
    assert fixed(res, printed) == expected


def test_readings_the_engine_cannot_tell_apart_are_the_sentence_s_to_choose_between(res):
    """'dangereue' is one glyph from 'dangereux' and from 'dangereuse', as likely alone:
    the engine leaves it, with both; the sentence chooses, each way, where its
    neighbours favour one by the lead."""
    ctx = chapter_context("Elle fit une partie.", res)
    engine = ctx.corrector.decide("dangereue", ctx.book, False)
    assert not engine.applied and {w for w, _, may in engine.tied if may} == {"dangereux", "dangereuse"}
    assert fixed(res, "Elle fit une dangereue partie de dés.") == "Elle fit une dangereuse partie de dés."
    assert fixed(res, "Il fit un coup dangereue pour lui.") == "Il fit un coup dangereux pour lui."
    # a word the engine finds one likely reading for is not tied
    assert ctx.corrector.decide("dangerenx", ctx.book, False).tied == ()


@pytest.mark.parametrize("printed,expected", [
    # a line end's hyphen the export kept inside the line, a word misread across it
    ("Le joueur doit immédia-tcment payer.", "Le joueur doit immédiatement payer."),
    ("Il faut jouer promp-tcment la carte.", "Il faut jouer promptement la carte."),
    # … its first piece not parted first as words run together ('con si')
    ("Le prix a monté consi-dérablcment cette année.", "Le prix a monté considérablement cette année."),
    # a compound as printed: its pieces words, or the pieces run together a word already
    ("Il joue au tric-trac et peut-être aux dames.", "Il joue au tric-trac et peut-être aux dames."),
    ("Son porte-feuille est sur la table.", "Son porte-feuille est sur la table."),
    ("On joue au whist-piquet.", "On joue au whist-piquet."),
])
def test_a_word_misread_across_a_hyphen_inside_the_line_is_joined_and_read(res, printed, expected):
    assert fixed(res, printed) == expected


def test_a_full_stop_after_a_title_opens_no_sentence_and_after_an_article_s_numeral_it_does(res):
    from pipeline.clean.steps import _opens_sentence

    import re

    titles = res.lexicon.titles
    text = "Le jeu de M. Dupont. I. Si l'on joue, S. Pierre et MM. Durand paient. Ils jouent."
    capitals = [(m.group(), m.start()) for m in re.finditer(r"\b[A-Z]\w*", text)]
    assert [w for w, at in capitals if _opens_sentence(text, at, titles)] == ["Le", "I", "Si", "Ils"]
    # without the titles, any full stop ends a sentence
    assert [w for w, at in capitals if _opens_sentence(text, at)] == ["Le", "Dupont", "I", "Si", "Pierre", "Durand", "Ils"]


def test_a_word_of_the_period_s_language_is_changed_alone_only_where_its_neighbours_do_not_favour_it(res):
    """'peint' (the Littré prints it 240 times) in a chapter about games: the engine alone
    reads the game's 'point', but 'est peint en', 'est peint sur' favour the print,
    however little ([context] littre_word_veto): it stays, suggested. Words of two or
    three letters keep the veto of ten to one: 'ta', 'te' are read 'la', 'le'."""
    text = ("Le roi de cœur est peint en rouge, et le valet de pique est peint sur bois. Le joueur qui a le "
            "point marque deux jetons, et celui qui a l'atout joue le premier, puis la levée.")
    assert fix_and_explain(text, res) == (text, [])
    ctx = chapter_context(text, res)
    assert ctx.reader.vetoes("peint", "point", "est", "en") and not ctx.reader.vetoes("peint", "point", "est", "de")
    assert fixed(res, "Il donne ta carte et te jeton à son voisin.") == "Il donne la carte et le jeton à son voisin."


def test_a_word_the_chapter_prints_far_more_often_than_the_engine_s_reading_is_its_own(res):
    """A chapter on cards that says six times how they are painted: 'peint' is a common
    word, but in a chapter about games the engine alone reads the game's 'point' (one
    vowel away, far commoner, a term). Printed six times against one 'point', it is the
    chapter's own word: no OCR misreads a word six times in seven. The sentences do not
    call for 'point', so every 'peint' stays; asked for seven, the engine changes them."""
    from dataclasses import replace

    from pipeline.clean import clean_text
    from pipeline.text import MappedText

    text = ("Le roi de cœur est peint en rouge, et le valet de pique est peint en noir. La dame de carreau est "
            "peint sur le côté. L'as de trèfle est peint au milieu de la carte. Le joueur qui a le point marque "
            "deux jetons, et celui qui a l'atout joue le premier. Le dix de cœur est peint de dix marques. Le "
            "joueur qui fait la levée prend les cartes, et le sept est peint de sept marques.")
    assert fix_and_explain(text, res) == (text, [])
    ctx = chapter_context(text, res)
    assert (ctx.chapter["peint"], ctx.chapter["point"]) == (6, 1)
    # the Littré's veto keeps four of them, whose neighbours favour the print ('peint en'):
    # the two of 'peint de' are the chapter's to keep; with neither, all six go
    for littre_word_count, changed in ((50, 2), (10 ** 9, 6)):
        ctx.settings = replace(ctx.settings, context=replace(ctx.settings.context, chapter_word_count=7,
                                                             littre_word_count=littre_word_count))
        ctx.reader.settings = ctx.settings.context
        made = clean_text(MappedText.from_raw(text, 0, len(text)), ctx).corrections()
        assert [(c.before, c.after, c.fix) for c in made] == [("peint", "point", "clean.real_word")] * changed


def test_a_real_word_the_engine_would_change_alone_is_left_when_the_sentence_says_the_print(res):
    # 'no' alone is far likelier 'ne'; before a number, after an article or an
    # abbreviation's full stop, it is the numéro; before a verb, after a pronoun, it is 'ne'
    for sentence in ("Il a vu le no 12 du tableau.", "Il marque avant de jouer (V. no 46), car sans cela il perd."):
        assert fix_and_explain(sentence, res) == (sentence, [])
    ctx = chapter_context("Il a vu le no 12 du tableau.", res)
    assert ctx.reader.vetoes("no", "ne", "le", "<n>") and ctx.reader.vetoes("no", "ne", ".", "<n>")
    assert not ctx.reader.vetoes("no", "ne", "il", "peut")


@pytest.mark.parametrize("printed,expected", [
    ("Il joue un 'atout et gagne.", "Il joue un atout et gagne."),  # a speck before a word
    ("Le jeu est donne' au voisin.", "Le jeu est donné au voisin."),  # an é's accent printed apart
    # elisions, quotations and period apostrophes stay
    ("Il dit que l 'on joue.", "Il dit que l'on joue."),
    ("Le mot 'aime' est court.", "Le mot 'aime' est court."),
    ("Il n'en a pas grand' chose.", "Il n'en a pas grand' chose."),
])
def test_an_apostrophe_that_elides_nothing(res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,expected", [
    # an accent the sentence refuses, a speck above the letter: taken off
    ("Il est hors dé la partie.", "Il est hors de la partie."),
    ("Celui qui à perdu paye.", "Celui qui a perdu paye."),
    # the period's accents stay, and are not even suggested otherwise
    ("Il part dés que le jour paraît.", "Il part dés que le jour paraît."),
    ("La piéce est jouée selon la régle.", "La piéce est jouée selon la régle."),
    ("Il joue à la fois à cœur et à pique.", "Il joue à la fois à cœur et à pique."),
])
def test_an_accent_taken_off_only_when_the_sentence_refuses_it(res, printed, expected):
    text, edits = fix_and_explain(printed, res)
    assert (text, {e.fix for e in edits}) == (expected, {"clean.context_word"} if expected != printed else set())


def test_a_capital_after_a_small_letter_is_a_misread_glyph_not_a_word(res):
    # no book prints 'voisiMage': read as the likeliest word, far enough ahead of the next
    text, edits = fix_and_explain("Il prévient son voisiMage avant de jouer.", res)
    assert (text, [(e.before, e.after, e.fix) for e in edits]) == (
        "Il prévient son voisinage avant de jouer.", [("voisiMage", "voisinage", "clean.context_nonword")])
    # capitals then small letters are a numeral's or a title's
    assert fixed(res, "Au XVIIIe siècle, Mlle Dupont jouait ainsi.") == "Au XVIIIe siècle, Mlle Dupont jouait ainsi."


@pytest.mark.parametrize("printed,expected,fix", [
    # the engine alone reads 'pai' as 'par', the cheaper misreading; the sentence calls for 'pas'
    ("Il ne faut pai jouer la dame.", "Il ne faut pas jouer la dame.", "clean.context_reading"),
    # … and where it calls for nothing else, the engine's reading stays
    ("Il passe pai la porte du jardin.", "Il passe par la porte du jardin.", "clean.real_word"),
])
def test_a_word_the_engine_changes_is_given_the_reading_its_sentence_calls_for(res, printed, expected, fix):
    text, edits = fix_and_explain(printed, res)
    assert (text, [(e.before, e.fix) for e in edits]) == (expected, [("pai", fix)])
    # the reader alone, whatever the book prints: between 'faut' and 'jouer', 'pas'; between
    # 'passe' and 'la', nothing leads 'par' enough
    reader = chapter_context(printed, res).reader
    assert reader.rereads("pai", "par", "faut", "jouer", False).word == "pas"
    assert reader.rereads("pai", "par", "passe", "la", False) is None


@pytest.mark.parametrize("printed,expected", [
    # a full stop run into a small letter between two whole words: a speck for a space
    ("Ceux qui vont.de la partie paient.", "Ceux qui vont de la partie paient."),
    # an abbreviation's full stop, and a word the OCR broke, stay as printed
    ("Il dit etc.de même.", "Il dit etc.de même."),
    ("Les dames ne fais.mt point.", "Les dames ne fais.mt point."),
    # … or run into the word after it
    ("Il joue la .dame de pique.", "Il joue la dame de pique."),
    ("Il joue avec Pierre et .Paul ensuite.", "Il joue avec Pierre et Paul ensuite."),
    # before a capital, a sentence may end there: left as printed
    ("Il joue .Paul perd.", "Il joue .Paul perd."),
    ("Il prend la. Pierre joue.", "Il prend la. Pierre joue."),
])
def test_a_full_stop_between_two_words_is_a_speck(res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,expected", [
    ("Il prend la carte(1) et joue.", "Il prend la carte (1) et joue."),  # a note's call
    ("Il a le roi(ni la dame.", "Il a le roi(ni la dame."),  # debris, no bracket closed
])
def test_an_opening_bracket_gets_its_space(res, printed, expected):
    assert fixed(res, printed) == expected


@pytest.mark.parametrize("printed,expected", [
    # the acute of a final é, lost by the OCR: the participle after 'avoir'
    ("Il a gagne deux fois.", "Il a gagné deux fois."),
    ("Celui qui a commence joue le premier.", "Celui qui a commencé joue le premier."),
    # … and of 'à', the OCR's commonest loss of an accent
    ("Il faut aller a droite.", "Il faut aller à droite."),
    ("Il a une case a faire.", "Il a une case à faire."),
    # the verb as printed where the sentence wants it
    ("Il gagne la partie.", "Il gagne la partie."),
    ("Elle a la main.", "Elle a la main."),
    ("Il y a deux rois.", "Il y a deux rois."),
    ("Il accepte le jeu.", "Il accepte le jeu."),
])
def test_a_lost_accent_given_back_when_the_sentence_calls_for_it(res, printed, expected):
    text, edits = fix_and_explain(printed, res)
    assert (text, {e.fix for e in edits}) == (expected, {"clean.context_word"} if expected != printed else set())


def test_a_word_the_book_prints_often_and_never_with_the_accent_keeps_its_spelling(res):
    # the corpus prints 'vole' (a card game's term: all the tricks) sixteen times, 'volé' never
    reader = chapter_context("Il a vole deux fois.", res).reader
    assert reader.book.get("vole", 0) >= 3 and not reader.book.get("volé", 0)
    assert reader._acute("vole") is None and reader._acute("gagne") == "gagné"
    assert fixed(res, "Il a vole deux fois.") == "Il a vole deux fois."


_CANDIDATES_SCRIPT = """
import json, sys
from pathlib import Path
from pipeline.clean.book import chapter_context
from pipeline.clean.context import ContextReader
from pipeline.resources import Resources
ContextReader._commonest_key = lambda self: None  # (worked out here, under this hash seed: not read from the disk)
ctx = chapter_context("Il joue une carte de pique.", Resources(Path("corpus")))
r = ctx.reader
print(json.dumps([r.known_candidates(w) for w in ("pte", "carle", "fur", "lien", "celle")]
                 + [r.unknown_candidates(w, "la") for w in ("cbose", "prefermce", "qnelque")]))
"""


@pytest.mark.slow  # two processes
def test_the_candidates_weighed_are_the_same_whatever_the_process_s_hash_seed():
    """Which of two candidates as frequent is kept, and the order they are weighed in
    (a tie of the sentence's is broken by it), must not hang on the order of a set,
    which changes with each process's hash seed: two builds of one corpus decide alike."""
    import os
    import subprocess
    import sys

    outs = [subprocess.run([sys.executable, "-c", _CANDIDATES_SCRIPT], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).resolve().parent.parent,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert outs[0] == outs[1] and len(outs[0]) > 100


@pytest.mark.parametrize("long_s", [False, True])
def test_the_commonest_words_readings_read_from_the_disk_are_those_worked_out_afresh(res, monkeypatch, long_s):
    """What a reader reads from the disk of the commonest words (``ContextReader.
    _read_commonest``) is what its memos would be given: for every 50th word of the
    table, its candidates as a known word, what its decisions share, its parts as two
    words, its Littré id and its frequency, as a reader that reads no table and a
    sequence model with empty memos work them out; for a book printed with the long s
    and for one without."""
    from weakref import WeakKeyDictionary

    from pipeline.clean import context
    from pipeline.clean.sequence import SequenceModel

    def reader_of(long_s):
        r = chapter_context("Il joue une carte de pique.", res).reader
        return r if r.long_s is long_s else context.ContextReader(r.corrector, r.sequence, r.settings, r.segmentation,
                                                                   long_s, r.book)

    reader = reader_of(long_s)
    known, words, splits, ids, aliases, zipfs = reader.commonest_readings()
    assert len(words) == context.COMMONEST and reader._candidates["celle"] == known["celle"]
    assert "cette" in dict(known["celle"])
    # 'avoit' a spelling of the period, left as printed; with the long s 'fois' may be 'sois' (its f)
    assert words["avoit"] is None and ("sois" in dict(known["fois"])) is long_s

    monkeypatch.setattr(context, "_SHARED", WeakKeyDictionary())
    monkeypatch.setattr(context.ContextReader, "_commonest_key", lambda self: None)
    fresh = reader_of(long_s)
    assert not fresh._candidates and not fresh._words
    m = fresh.sequence.model
    model = SequenceModel(m.counts, m.settings, m.frequency, m.modern, m.identity)
    lexicon = fresh.lexicon  # (``_zipf``, ``_best_zipf``: the memos' makers, read afresh)
    sample = sorted(words)[::50]
    assert len(sample) == 400
    for w in sample:
        assert fresh.known_candidates(w) == known[w] if len(w) > 1 else w not in known, w
        word = fresh._word(w)
        assert (None if word is context._PERIOD else word) == words[w], w
        assert fresh._two_words(w) == splits[w] if len(w) > 2 else w not in splits, w
        assert model.id_of(w) == ids[w] and (w in model.ids or model.alias(w) == aliases[w]), w
        assert (lexicon._zipf(w), lexicon._best_zipf(w)) == zipfs[w], w


def test_only_the_default_engine_reads_the_commonest_words_readings(res):
    """The table is of the engine its key names: a reader of other settings (a test's),
    or of a channel learned in the process, works every reading out itself."""
    from dataclasses import replace

    from pipeline import data
    from pipeline.clean.context import ContextReader
    from pipeline.clean.correct import ChannelModel, Corrector
    from pipeline.clean.learned import load_default as learned_costs

    reader = chapter_context("Il joue une carte de pique.", res).reader
    assert reader._commonest_key() is not None
    args = reader.corrector, reader.sequence, reader.settings, reader.segmentation, False, reader.book
    other = ContextReader(args[0], args[1], replace(reader.settings, reach=reader.settings.reach + 1), *args[3:])
    assert other._commonest_key() is None
    with pytest.raises(ValueError, match="not the default one"):
        other.commonest_readings()
    # the same tables, another channel object: one learning would have changed
    learned = ChannelModel(data.load("confusions"), learned_costs())
    assert ContextReader(Corrector(res.lexicon, learned), *args[1:])._commonest_key() is None


def test_a_period_spelling_whose_f_is_a_misread_long_s_is_weighed(res):
    """'foit' is the period's spelling of 'fait' (its oi) and, in a long-s printing, a
    misread 'soit': there the engine weighs it; elsewhere it is left as printed, and so
    are period spellings whose f makes no word read as an s ('foible')."""
    from pipeline.clean.correct import period_as_printed

    lex = res.lexicon
    assert period_as_printed(lex, "foit", long_s=False) and not period_as_printed(lex, "foit", long_s=True)
    assert period_as_printed(lex, "avoit", long_s=True) and period_as_printed(lex, "foible", long_s=True)


@pytest.mark.parametrize("printed,expected", [
    # a misread word of the period is read as the period spelt it, not as the modern word
    # the lexicon lists, where the print holds the period's letters ('oi', not 'ai')
    ("Il avoil gagné la partie, & il étoil content.", "Il avoit gagné la partie, & il étoit content."),
    ("Il faut jouer le valet, car on pourroil perdre.", "Il faut jouer le valet, car on pourroit perdre."),
    # … and not where it holds neither ('ainsj': 'ainsi', the modern word, not 'ainsy')
    ("Il prend la carte, puis ainsj il joue.", "Il prend la carte, puis ainsi il joue."),
])
def test_a_misread_word_of_the_period_is_read_as_the_period_spelt_it(res, printed, expected):
    assert fixed(res, printed) == expected


def test_the_period_spellings_of_a_modern_word_are_its_rewrites_backwards(res):
    lex = res.lexicon
    assert lex.period_spellings("avait") == ["avoit"]
    assert "sçavoir" in lex.period_spellings("savoir") and "troisiéme" in lex.period_spellings("troisième")
    assert lex.period_spellings("table") == []


# misreadings and the words they were made from, with far and near pairs among them
_PRINTS = ["tahle", "table", "rnoitié", "moitié", "carles", "cartes", "quiiue", "quinze", "fur", "sur", "de", "dé",
           "atfparavant", "auparavant", "Tenclave", "l'enclave", "lour", "tour"]


def test_a_cost_asked_within_a_limit_is_the_cost_or_inf_when_dearer():
    """The search stops once every explanation costs more than the limit: what it
    returns is then inf, and otherwise the cost searched to the end, whatever limit and
    whatever the model remembers from earlier calls."""
    import math

    from pipeline.clean.correct import ChannelModel

    exact = ChannelModel.default()
    costs = {(p, w): exact.cost(p, w, False) for p in _PRINTS for w in _PRINTS}
    assert costs["tahle", "table"] < 1.0 < costs["atfparavant", "table"]
    limited = ChannelModel.default()
    stopped = 0
    for (p, w), cost in costs.items():
        for limit in (0.0, 0.5, cost - 1e-6, cost, 2.6, math.inf):
            got = limited.cost(p, w, False, limit)
            assert got == (cost if cost <= limit else math.inf), (p, w, limit)
            stopped += got == math.inf
    assert stopped > 300


def test_the_compiled_distances_keep_the_choices_rapidfuzz_keeps_in_its_order():
    """setup.py compiles the filter of an unknown word's candidates by plain edits
    (pipeline/clean/_within.pyx); it must keep what rapidfuzz's ``process.extract``
    keeps, (distance, index) each, nearest first, then in the choices' order: for
    letters beyond Latin-1 ('œ', 'ſ') too, and for two thousand random words against
    random choices (a fixed seed), given as a list or kept in one run (``kept_choices``)."""
    import random

    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    from pipeline.clean import correct

    assert correct._compiled_within is not None, "the compiled distances were not built: run make install"

    def extract(word, choices, most):
        return [(d, k) for _, d, k in process.extract(word, choices, scorer=Levenshtein.distance,
                                                      score_cutoff=most, limit=None)]

    choices = ["carle", "cartes", "jeu", "carte", "arte", "xcarte", "", "cœur", "coeur"]
    assert correct._compiled_within("carte", choices, 1) == [(0, 3), (1, 0), (1, 1), (1, 4), (1, 5)]
    assert correct._compiled_within("cœur", choices, 2) == [(0, 7), (2, 8)]  # œ read o, e added
    assert correct._compiled_within("caſte", choices, 1) == [(1, 3)]
    assert correct._compiled_within("jeu", choices, 3) == extract("jeu", choices, 3)
    # an empty word and one of more than 64 letters are left to rapidfuzz
    assert correct._compiled_within("", choices, 1) is None
    assert correct._compiled_within("a" * 65, choices, 3) is None
    assert correct.within("", choices, 1) == [(0, 6)]
    assert correct.within("carte" * 13, ["carte" * 13 + "s"], 3) == [(1, 0)]
    rng = random.Random(7)
    letters = "abcdeéèœſxyz"
    for _ in range(2000):
        word = "".join(rng.choice(letters) for _ in range(rng.randint(1, 12)))
        choices = ["".join(rng.choice(letters) for _ in range(rng.randint(0, 14))) for _ in range(rng.randint(0, 20))]
        choices += [word[:k] + word[k + 1:] for k in range(len(word))]
        most = rng.randint(0, 4)
        assert correct._compiled_within(word, choices, most) == extract(word, choices, most), (word, choices, most)
        # the same choices kept in one run of memory (``kept_choices``): the same answer
        assert correct.within(word, correct.kept_choices(choices), most) == extract(word, choices, most)
    kept = correct.kept_choices(["carle", "cartes", "", "cœur"])
    assert type(kept) is correct._Choices and len(kept) == 4 and kept.strings == ["carle", "cartes", "", "cœur"]
    assert kept.within("carte", 1) == [(1, 0), (1, 1)] and kept.within("a" * 65, 1) is None
    assert correct.within("a" * 65, kept, 64) == [(64, 0), (64, 1)]  # (left to rapidfuzz, which reads the strings)


def test_the_compiled_buckets_keep_what_within_keeps_of_the_candidates(res):
    """setup.py compiles the reading of an unknown word's buckets (``_within.Buckets``,
    which ``CandidateIndex.near_within`` asks): it must keep what ``within`` keeps of
    ``candidates`` less the print in small letters, (distance, word, frequency) each, nearest
    first: on hand-made tables (a word in two buckets once, a letter beyond its fold
    table folded by the index's own, a word of more than 64 letters left to the
    caller), and on the lexicon's index and one with a book's words added, each word
    asked twice (the second time from the buckets' runs), elided articles included;
    and while a chapter's reads are recorded, with the same keys read."""
    from pipeline.clean import correct
    from pipeline.clean.correct import _lexicon_index
    from pipeline.resources import Consulted
    from pipeline.text import fold_letters

    assert correct._Buckets is not None, "the compiled buckets were not built: run make install"
    folded = correct._Folded()
    exact = {"crt": ["carte", "Carte", "cœur"], "jeu": ["jeu", "jeû"]}
    deletes = {"crt": ["carte", "cartes", "carté"], "ǎb": ["ǎbc", "abc"]}
    zipf = {"carte": 4.87, "Carte": 1.2, "cartes": 4.1, "carté": 2.0, "jeû": 0.5}
    buckets = correct._Buckets(exact, deletes, zipf, folded)
    # (each with its frequency, None where the table has none)
    assert buckets.within("carte", ["crt", "none"], 1, "carte") == [(0, "Carte", 1.2), (0, "carté", 2.0),
                                                                     (1, "cartes", 4.1)]
    assert buckets.within("carte", ["crt"], 1, "") == [(0, "carte", 4.87), (0, "Carte", 1.2), (0, "carté", 2.0),
                                                       (1, "cartes", 4.1)]
    assert buckets.within("coeur", ["crt"], 2, "") == [(2, "cœur", None)]  # œ is not oe: one letter for two
    assert buckets.within("abc", ["ǎb"], 0, "") == [(0, "ǎbc", None), (0, "abc", None)]  # ǎ folded by fold_letters
    assert buckets.within("jeu", ["jeu", "jeu"], 0, "jeu") == [(0, "jeû", 0.5)]
    assert buckets.within("a" * 65, ["crt"], 3, "") is None
    assert buckets.within("", ["crt"], 3, "") is None
    # the words at least that common, once each, as found (a word with no frequency as 0.0)
    assert buckets.common(["crt", "none"], 2.0) == ["carte", "cartes", "carté"]
    assert buckets.common(["jeu", "crt"], 0.0) == ["jeu", "jeû", "carte", "Carte", "cœur", "cartes", "carté"]
    assert buckets.common(["crt"], 4.5) == ["carte"]

    cor = corrector(res)
    base = _lexicon_index(cor.lexicon, cor.model)
    extended = base.with_words([("fichets", 1.5), ("doublet", 2.2), ("carteaux", 3.4)])
    printed = ["carles", "Tenvoie", "Vautre", "rnoitié", "fichels", "doublct", "cartcaux", "quiiue", "Pierre",
               "atfparavant", "moTitrer", "dunemême", "a", "cœur", "ǎutre"]
    for index in (base, extended):
        for p in printed * 2:
            words = list(index.candidates(p) - {p.lower()})
            expected = [(d, words[k], index.zipf.get(words[k]))
                        for d, k in correct.within(fold_letters(p), [index.folded[w] for w in words], 3)]
            got = index.near_within(p, 3)
            assert sorted(got) == sorted(expected), p
            assert [d for d, _, _ in got] == sorted(d for d, _, _ in got), p
    # a known word's: the words of its skeletons as common as a floor, within a few edits
    known_words = ["carte", "Loule", "les", "tour", "celle", "jeu", "Partie", "fichets", "a"]
    book = extended.buckets_of([("fichets", 1.5)])  # (what the book adds, as a chapter's view reads it)
    for index in (base, extended):
        for p in known_words:
            for floor, most in ((0.0, 3), (1.5, 2), (3.0, 3), (4.5, 2), (9.0, 3)):
                same = list(index.same_skeleton(p, floor) - {p.lower()})
                expected = [(d, same[k], index.zipf.get(same[k]))
                            for d, k in correct.within(fold_letters(p), [index.folded[w] for w in same], most)]
                got = index.same_within(p, floor, most, p.lower())
                assert sorted(got) == sorted(expected) and [x[0] for x in got] == sorted(x[0] for x in got), (p, floor)
                index.consulted = Consulted(book, "book")
                index.same_skeleton(p, floor)
                read = dict(index.consulted.read)
                index.consulted = Consulted(book, "book")
                assert sorted(index.same_within(p, floor, most, p.lower())) == sorted(got)
                assert index.consulted.read == read and len(read) > 0, (p, floor)
                index.consulted = None
    assert extended.same_within("fichets", 1.0, 2) == [(0, "fichets", 1.5), (2, "tickets", base.zipf["tickets"])]
    assert base.same_within("fichets", 1.0, 2) == [(2, "tickets", base.zipf["tickets"])]
    assert sorted(w for _, w, _ in base.same_within("carles", 3.0, 1)) == ["carlos", "carrés", "cartes"]

    # while a chapter's reads are recorded, the keys looked in are read as ``candidates`` reads them
    for index in (base, extended):
        for p in printed:
            index.consulted = Consulted(index.buckets_of([("fichets", 1.5)]), "book")
            words = list(index.candidates(p) - {p.lower()})
            read = dict(index.consulted.read)
            index.consulted = Consulted(index.buckets_of([("fichets", 1.5)]), "book")
            got = index.near_within(p, 3)
            assert index.consulted.read == read and len(read) > 0, p
            expected = [(d, words[k], index.zipf.get(words[k]))
                        for d, k in correct.within(fold_letters(p), [index.folded[w] for w in words], 3)]
            assert sorted(got) == sorted(expected), p
            index.consulted = None
    assert (1, "fichets", 1.5) in extended.near_within("fichels", 3)
    assert "fichets" not in {w for _, w, _ in base.near_within("fichels", 3)}
    assert (2, "l'envoie", None) in base.near_within("Tenvoie", 3)  # 'T' read "l'": a letter for another, one added
    assert base.near_within("a" * 65, 3) is None  # (the corrector then asks ``within``)


def test_the_compiled_priors_are_the_python_priors_to_the_last_bit():
    """setup.py compiles the loop of the corrector's priors (pipeline/clean/_priors.pyx);
    it must give ``_prior_loop``'s numbers to the bit, capped and not, with the book's
    counts read one by one or from a list, a word no frequency gives (0.0), a count
    beyond the table, and the terms asked recorded as ``_TermsAsked`` records them."""
    from pipeline.clean import correct

    assert correct._compiled_prior_loop is not None, "the compiled priors were not built: run make install"
    words = ["Partie", "jeu", "carte", "xq", "as", "Roi", "écarté", "de"]
    zs = [4.62, 5.1, 4.87, 0.0, 4.9, 3.75, 2.5, 7.53]
    counts = {"partie": 12, "jeu": 3, "carte": 250_000, "roi": 1, "écarté": 7}
    terms = frozenset({"carte", "roi", "as"})
    table = correct._LOG2
    for capped in (True, False):
        for term_bonus in (0.0, 1.25):
            expected = correct._prior_loop(words, zs, None, counts.get, None, terms, table, 0.35, 6.0, 1.5,
                                           term_bonus, capped)
            got = correct._compiled_prior_loop(words, zs, None, counts.get, None, terms, table, 0.35, 6.0, 1.5,
                                               term_bonus, capped)
            assert [x.hex() for x in got] == [x.hex() for x in expected]
            listed = [counts.get(w.lower(), 0) for w, z in zip(words, zs) if z > 0]
            asked_py, asked_c = {}, {}
            assert correct._compiled_prior_loop(words, zs, iter(listed), None, asked_c, terms, table, 0.35, 6.0, 1.5,
                                                term_bonus, capped) == correct._prior_loop(
                words, zs, iter(listed), None, asked_py, terms, table, 0.35, 6.0, 1.5, term_bonus, capped) == expected
            assert asked_c == asked_py == {"partie": False, "jeu": False, "carte": True, "as": True, "roi": True,
                                           "écarté": False, "de": False}
    assert expected[3] == 0.0  # no frequency: no prior
    # 'carte' counted beyond the table: its bonus the table's last, as the Python reads it
    assert expected[2] == 4.87 + 1.25 + 0.35 * table[-1]


def test_the_compiled_edits_find_the_words_one_letter_away_that_the_python_edits_find():
    """setup.py compiles the search for the known words one letter from a word
    (pipeline/clean/_edits.pyx); it must find what ``_edits1`` intersected with the
    table finds: a letter lost, read as another or added, at the first place and the
    last, for the words of a sentence against a table of their neighbours."""
    from pipeline.clean import context

    assert context._compiled_edits1_in is not None, "the compiled edits were not built: run make install"
    table = {w: [w] for w in ["jeu", "jeux", "je", "feu", "eu", "jeun", "ajeu", "joue", "jour", "tour", "four",
                              "carte", "cartes", "carle", "arte", "cartel", "c-arte", "l'or", "or", "a", "b", ""]}
    words = ["jeu", "joue", "tour", "carte", "carle", "cart", "arte", "l'or", "lor", "o", "a", "", "c-arte", "zzz"]
    keys = context._Keys(table)
    for w in words:
        expected = table.keys() & context._edits1(w)
        assert context._compiled_edits1_in(w, table) == expected, w
        assert context._compiled_edits1_in(w, table, keys) == expected, w
        assert context._edits1_in(w, table) == expected, w
        assert context._edits1_in(w, table, keys) == expected, w
    assert context._compiled_edits1_in("jeu", table) == {"jeux", "je", "feu", "eu", "jeun", "ajeu"}
    assert context._compiled_edits1_in("", table) == {"a", "b"}
    # a word beyond ASCII is left to the Python edits ('é' is no letter they add)
    assert context._compiled_edits1_in("carté", table) is None
    assert context._edits1_in("carté", table) == {"carte"} == table.keys() & context._edits1("carté")


def test_the_edits_hashed_against_the_lexicon_s_keys_find_what_the_python_edits_find(res):
    """The keys' bits (``_edits.Keys``) pass over a string only if no key of the table is
    hashed like it: against the lexicon's own table of folded words, every string one
    letter from a word is found as without them, for the words of a page and for strings
    of random letters."""
    import random

    from pipeline.clean import context

    reader = chapter_context("Il joue une carte de pique.", res).reader
    table, keys = reader._by_fold(), reader._by_fold_keys()
    assert keys is not None and len(table) > 20_000
    words = ["jeu", "joue", "tour", "carte", "carle", "pique", "atout", "prefermce", "qnelque", "a", "o", "",
             "reconnoissance", "cbose", "partie", "partic", "zzzz"]
    rng = random.Random(9)
    words += ["".join(rng.choice("abcdeilmnorstu") for _ in range(rng.randint(1, 9))) for _ in range(300)]
    found = 0
    for w in words:
        expected = table.keys() & context._edits1(w)
        assert context._edits1_in(w, table, keys) == expected, w
        found += len(expected)
    assert found > 1000  # (words that have neighbours in the table, not only strings that have none)


def test_the_index_s_keys_one_glyph_less_are_all_found_that_either_table_has(res):
    """``CandidateIndex._near`` looks up only the keys ``_edits.one_less_in`` lets by
    (the skeletons and each less one glyph, hashed against both tables' keys): none of
    them that a table has may be passed over, for words of the page, misread words,
    strings of random glyphs and skeletons beyond ASCII ('cœur')."""
    import random

    from pipeline.clean import _edits

    index = corrector(res).index
    model = index.model
    rng = random.Random(4)
    words = ["jeu", "joue", "carte", "prefermce", "qnelque", "Tenvoie", "rnise", "été", "cœur", "œuvre", "a", ""]
    words += ["".join(rng.choice("abcdeilmnorstuœé") for _ in range(rng.randint(1, 10))) for _ in range(400)]
    looked = 0
    for w in words:
        skeletons = set()
        for reading in (w, *model.merged_readings(w)):
            skeletons |= model.skeletons(reading)
        every = set(skeletons)
        for sk in skeletons:
            every.update(sk[:k] + sk[k + 1 :] for k in range(len(sk)))
        let_by = _edits.one_less_in(skeletons, index._keys())
        assert let_by <= every, w
        assert {k for k in every if k in index.exact or k in index.deletes} <= let_by, w
        looked += len(let_by)
    assert any(not k.isascii() for k in index.exact) and looked > 1500
    # an index the book's words extend has keys of its own
    extended = index.with_words([("zqxwv", 4.0)])
    key = model.skeleton("zqxwv")
    assert key in _edits.one_less_in({key}, extended._keys()) and "zqxwv" in extended._near("zqxwv")


def test_the_compiled_search_costs_every_pair_as_the_python_search_does():
    """setup.py compiles the channel's search (pipeline/clean/_search.pyx) at install;
    it must give the costs of ``correct._dp`` to the last bit, within every limit, on
    the pairs above and on every word of a sentence against every other."""
    import math

    from pipeline.clean import correct

    assert correct._search is not None, "the compiled search was not built: run make install (a C compiler is needed)"
    assert correct._SEARCH is correct._compiled_search
    model = correct.ChannelModel.default()
    # (letters beyond U+00FF too: the search reads those from the dict, not from its arrays)
    words = _PRINTS + "Le joueur qui a fait la vole paye le double, fi la carte eft tournée".split() \
        + ["cœur", "Œuvre", "ſoit", "fœur"]
    checked = 0
    for long_s in (False, True):
        for p in words:
            for w in words:
                exact = correct._dp(model, p, w, long_s)
                assert correct._compiled_search(model, p, w, long_s) == exact, (p, w, long_s)
                for limit in (0.0, 0.5, exact - 1e-6, exact, 2.6, math.inf):
                    assert correct._compiled_search(model, p, w, long_s, limit) == correct._dp(model, p, w, long_s, limit)
                    checked += 1
    assert checked == 2 * len(words) ** 2 * 6


def test_the_index_s_common_candidates_are_its_candidates_that_common(res):
    """``CandidateIndex.candidates(printed, least)`` leaves out a bucket whose commonest
    word is rarer than ``least`` and keeps a deleted skeleton's words whole (each is
    ``delete_min_zipf`` common): the same as the candidates filtered one by one, on the
    lexicon's index and on one with a book's rarer words added, for floors below, at and
    above ``delete_min_zipf``, elided articles ('Tenvoie') included."""
    from pipeline.clean.correct import _lexicon_index

    cor = corrector(res)
    base = _lexicon_index(cor.lexicon, cor.model)
    extended = base.with_words([("fichets", 1.5), ("doublet", 2.2), ("carteaux", 3.4)])
    printed = ["carles", "Tenvoie", "Vautre", "rnoitié", "fichels", "doublct", "cartcaux", "jeu", "quiiue", "a", ""]
    for index in (base, extended):
        for least in (0.0, 1.0, 2.5, 3.0, 3.5, 5.0):
            for p in printed:
                assert index.candidates(p, least) == {c for c in index.candidates(p) if index.zipf.get(c, 0.0) >= least}, \
                    (p, least)
    assert "fichets" in extended.candidates("fichels", 1.0) and "fichets" not in extended.candidates("fichels", 2.0)
    assert "carte" in base.candidates("carles", 3.0)
