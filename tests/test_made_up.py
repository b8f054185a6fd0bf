"""Chapters written for the tests, with other games, other running heads and other
OCR damage than the corpus: the mechanisms must read them just as well."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.build import process_chapter

MADE_UP = Path(__file__).parent / "fixtures" / "made_up"


@pytest.fixture(scope="module")
def boston(res):
    return process_chapter(MADE_UP / "boston_piquet.txt", res)


@pytest.fixture(scope="module")
def reversis(res):
    return process_chapter(MADE_UP / "reversis_lines.txt", res)


@pytest.fixture(scope="module")
def wrapped(res):
    return process_chapter(MADE_UP / "wrapped_roman.txt", res)


def chapter(tmp_path, res, text, name="made_up.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return process_chapter(path, res)


def arts(seg, game=None):
    return [(p.number, p.page) for p in seg.passages if p.kind == "article" and (game is None or p.game == game)]


# -- running heads and pages ------------------------------------------------------------------

def test_heads_in_any_order_and_damage_give_the_page_sequence(boston):
    pages = [(p.number, p.number_raw, p.number_status, p.running_head, p.head_game) for p in boston.layout.pages]
    assert pages == [
        (117, None, "inferred", "BOS", "boston"),
        (118, "ii8", "decoded", "BOS ii8", "boston"),
        (119, "ii9", "decoded", "ii9 BOS", "boston"),
        (120, "l2o", "decoded", "B O S l2o", "boston"),
        (121, "l2i", "decoded", "l2i PIQ", "piquet"),
    ]
    assert boston.layout.header.number == 7 and boston.layout.header.total == 40


def test_gap_in_page_numbers_is_reported(reversis):
    assert [p.number for p in reversis.layout.pages] == [213, 214, 216]
    assert [str(d) for d in reversis.layout.diagnostics] == [
        "reversis_lines.txt: warning: page 216 follows page 214: pages are missing or a head is misread"
    ]


def test_a_lost_head_is_placed_at_the_mid_sentence_break(tmp_path, res):
    seg = chapter(tmp_path, res, "\n".join([
        "WIS 10",
        "1. Celui qui donne mal perd la donne.",
        "2. Celui qui joue avant son tour ne peut",
        "plus reprendre sa carte.",
        "3. Personne ne regarde les levées.",
        "12 WIS",
        "4. On ne change pas de place.",
    ]))
    assert [(p.number, p.number_status, p.running_head) for p in seg.layout.pages] == [
        (10, "read", "WIS 10"), (11, "inferred", None), (12, "read", "12 WIS"),
    ]
    assert arts(seg) == [(1, 10), (2, 10), (3, 11), (4, 12)]
    assert seg.passages[1].text.text == "2. Celui qui joue avant son tour ne peut plus reprendre sa carte."


def test_a_head_that_could_be_several_games_names_none(tmp_path, res):
    seg = chapter(tmp_path, res, "TRE 41\n\nLe banquier tire les cartes.\n\n42 TRE\n\nLes pontes jouent.\n")
    assert [p.head_game for p in seg.layout.pages] == [None, None]
    assert {p.game for p in seg.passages} == {None}


def test_heads_are_not_taken_from_text(tmp_path, res):
    seg = chapter(tmp_path, res, "Le double 6 sonnez.\n\nLe double 5 quine.\n\nIl y a 12 cartes.\n")
    assert [p.running_head for p in seg.layout.pages] == [None]
    assert [p.text.text for p in seg.passages] == ["Le double 6 sonnez.", "Le double 5 quine.", "Il y a 12 cartes."]


# -- paragraphs ----------------------------------------------------------------------------------

def test_paragraph_joined_across_a_page_break(boston):
    first = boston.passages[0]
    assert first.text.text == "les joueurs conviennent d'abord de la valeur des fiches et du nombre de tours que durera la partie. Le sort désigne celui qui doit faire."
    assert first.page == 117
    [brk] = [c for c in first.text.corrections() if c.fix == "layout.page_break"]
    assert brk.before == "\n\nBOS ii8\n\n" and brk.after == " "


def test_a_page_break_inside_a_word_mends_it(tmp_path, res):
    seg = chapter(tmp_path, res, "Le joueur doit en- \n\nBOS 12\n\ntendre la partie avant de jouer, puis il com-\n\n13 BOS\n\nmence.\n")
    assert [p.text.text for p in seg.passages] == ["Le joueur doit entendre la partie avant de jouer, puis il commence."]
    rules = [c.fix for c in seg.passages[0].text.corrections()]
    assert "layout.page_break+layout.join_hyphenated" in rules


def test_wrapped_lines_reflowed_and_hyphens_decided_by_the_lexicon(wrapped):
    text = wrapped.passages[1].text.text
    # (the chapter is printed with the long s: the corrector reads it as s)
    assert text.startswith("Lorsque les joueurs ont pris leurs cartes, celui qui est premier annonce son point;")
    assert "les tierces très-facilement, sans" in text  # the hyphen of 'très-' is the word's own
    assert wrapped.passages[3].text.text == "V. Celui qui a dit son jeu doit le montrer, si l'autre le demande."


def test_stray_hyphen_between_two_words_becomes_a_space(tmp_path, res):
    seg = chapter(tmp_path, res, "On compte les points dans-\nl'ordre des cartes, et les joueurs jouent\nà tour de rôle.\n")
    assert "dans l'ordre" in seg.passages[0].text.text


def test_a_hyphen_left_inside_a_line_joins_a_word_not_two(tmp_path, res):
    # the export kept a line end's hyphen inside the line: a word broken ('mar- quer') is
    # joined, two words a stray mark parts ('de- place', 'dames- surnuméraires') stay two
    seg = chapter(tmp_path, res, "La dame qui bat ne change pas de- place, et le joueur doit mar- quer "
                                 "les points des deux dames- surnuméraires avant de jouer.\n")
    assert seg.passages[0].text.text == ("La dame qui bat ne change pas de place, et le joueur doit marquer "
                                         "les points des deux dames surnuméraires avant de jouer.")


def test_a_chapter_whose_lines_the_export_ran_together_has_its_line_ends_hyphens_mended(tmp_path, res):
    # each paragraph one line: a hyphen with no space after it ('mê-ler') is where a line
    # ended, mended where the pieces make a word; a compound's stays ('peut-être'), and so
    # does a word the chapter prints hyphened again and again and never whole ('tric-trac')
    seg = chapter(tmp_path, res,
                  "Le joueur qui a la main doit mê-ler les cartes et les faire couper par son voisin de gauche; "
                  "s'il oublie de les faire couper, son adver-saire peut demander que l'on recom-mence la donne, "
                  "et peut-être marquer deux points.\n\n"
                  "Au tric-trac on joue avec deux dés; le tric-trac est un jeu de hasard et d'adresse, et chacun "
                  "sait que le tric-trac demande de l'at-tention.\n\n"
                  "Celui qui a gagné la partie met les jetons sur ses ge-noux et compte ce que son adversaire lui "
                  "doit; il ne peut pas les rendre avant la fin de la fête de l'Hô-tel-de-Ville.\n")
    assert [p.text.text for p in seg.passages] == [
        "Le joueur qui a la main doit mêler les cartes et les faire couper par son voisin de gauche; s'il oublie "
        "de les faire couper, son adversaire peut demander que l'on recommence la donne, et peut-être marquer "
        "deux points.",
        "Au tric-trac on joue avec deux dés; le tric-trac est un jeu de hasard et d'adresse, et chacun sait que "
        "le tric-trac demande de l'attention.",
        "Celui qui a gagné la partie met les jetons sur ses genoux et compte ce que son adversaire lui doit; il "
        "ne peut pas les rendre avant la fin de la fête de l'Hôtel-de-Ville."]
    mends = [(c.before, c.after, c.fix) for p in seg.passages for c in p.text.corrections() if c.fix.startswith("layout")]
    assert mends == [("-", "", "layout.join_hyphenated")] * 6


def test_a_line_end_s_hyphen_after_a_prefix_is_mended_where_the_littre_never_pairs_the_pieces(tmp_path, res):
    # 'mi-', 'au-' are prefixes, '-leur' a suffix: the hyphen might be the word's own; the
    # Littré prints the compounds of the period as two words side by side ('mi chemin',
    # 'sur tout', 'long temps') and never these two ('mi lieu', 'meil leur'), which it prints
    # run together: a line end's. A compound a listed one has inside it stays ('vis a-vis').
    seg = chapter(tmp_path, res,
                  "Il marche au mi-lieu des joueurs et prend la place de l'au-tre, car c'est le meil-leur joueur "
                  "de la partie, sur-tout au piquet, où il a joué long-temps.\n\n"
                  "Il s'arrête à mi-chemin de la ville, vis a-vis de la porte, et joue au tric-trac avec ses amis.\n")
    assert [p.text.text for p in seg.passages] == [
        "Il marche au milieu des joueurs et prend la place de l'autre, car c'est le meilleur joueur de la "
        "partie, sur-tout au piquet, où il a joué long-temps.",
        "Il s'arrête à mi-chemin de la ville, vis a-vis de la porte, et joue au tric-trac avec ses amis."]
    mends = [(c.before, c.after, c.fix) for p in seg.passages for c in p.text.corrections() if c.fix.startswith("layout")]
    assert mends == [("-", "", "layout.join_hyphenated")] * 3


def test_a_hyphen_inside_a_printed_line_is_left_as_printed(tmp_path, res):
    # the export kept the printed lines: a hyphen inside one is the print's, and neither
    # piece is read as a word of its own ('noux' is not 'nous')
    seg = chapter(tmp_path, res, "Celui qui a gagné met les jetons sur ses ge-noux\net compte ce que son adversaire\n"
                                 "lui doit; au tric-trac on ne les rend\npas avant la fin de la partie.\n")
    assert seg.passages[0].text.text == ("Celui qui a gagné met les jetons sur ses ge-noux et compte ce que son "
                                         "adversaire lui doit; au tric-trac on ne les rend pas avant la fin de la partie.")


def test_a_speck_inside_a_word_may_hide_its_letters(tmp_path, res):
    # a speck of debris is a glyph the OCR added ('pr^ier' is 'prier' where the sentence
    # calls for it) or a blot over letters it hides ('premier', 'marque'): the sentence
    # decides, the blot's cost paid
    seg = chapter(tmp_path, res, "Il est le pr^ier à jouer, et il ma^que un point.\n"
                                 "\n"
                                 "On doit pr^ier le joueur de jouer.\n")
    assert [p.text.text for p in seg.passages] == ["Il est le premier à jouer, et il marque un point.",
                                                  "On doit prier le joueur de jouer."]
    assert [(c.before, c.after, c.fix) for p in seg.passages for c in p.text.corrections()] == [
        ("pr^ier", "premier", "clean.segmentation"), ("ma^que", "marque", "clean.segmentation"),
        ("pr^ier", "prier", "clean.segmentation")]


def test_a_speck_after_an_elided_letter_is_its_apostrophe_unless_the_sentence_reads_a_word(tmp_path, res):
    # 'l^as', 'd^une': the apostrophe misread; 'la m^in', 'en m^ain': a blot over a letter,
    # a glyph added, inside one word the sentence calls for (not "m'in", "m'ain")
    seg = chapter(tmp_path, res, "Il joue l^as de pique, et d^une carte il prend la m^in.\n"
                                 "\n"
                                 "Il n^a plus de cartes en m^ain.\n")
    assert [p.text.text for p in seg.passages] == ["Il joue l'as de pique, et d'une carte il prend la main.",
                                                  "Il n'a plus de cartes en main."]
    assert [(c.before, c.after, c.fix) for p in seg.passages for c in p.text.corrections()] == [
        ("^", "'", "clean.elision"), ("^", "'", "clean.elision"), ("m^in", "main", "clean.non_word"),
        ("^", "'", "clean.elision"), ("m^ain", "main", "clean.non_word")]


# -- kinds of passages ---------------------------------------------------------------------------

def test_games_headings_and_their_text_split(boston):
    assert [g.slug for g in boston.games] == ["boston", "piquet"]
    heading = [p for p in boston.passages if p.kind == "heading"]
    assert [(p.text.text, p.game) for p in heading] == [("PIQUET (jeu du).", "piquet")]
    after = boston.passages[boston.passages.index(heading[0]) + 1]
    assert (after.kind, after.text.text) == ("paragraph", "Ce jeu se joue à deux personnes avec trente-deux cartes.")


def test_articles_numbered_through_ocr_damage(boston):
    assert arts(boston, "boston") == [(1, 118), (2, 118), (3, 118), (4, 118), (5, 119), (6, 119), (7, 119), (8, 120), (9, 120), (10, 120)]
    assert [p.number_raw for p in boston.passages if p.kind == "article" and p.game == "boston"] == [
        "I", "î", "3", "4", "S", "G", "7", "8", "g", "lo"]
    assert arts(boston, "piquet") == [(1, 121), (2, 121)]


def test_article_sequence_decides_ambiguous_readings(reversis):
    assert [p.number for p in reversis.passages if p.kind == "article"] == list(range(38, 53))
    raw = {p.number: p.number_raw for p in reversis.passages if p.kind == "article"}
    assert (raw[38], raw[44], raw[46], raw[48], raw[51]) == ("3B", "A4", "4G", "4S", "56")
    assert reversis.passages[16].text.text == "51. Les amendes se payent à la fin de chaque tour."


def test_ordinal_items_are_list_items_not_articles(reversis):
    items = [p.text.text for p in reversis.passages if p.kind == "paragraph"]
    assert items == ["1°. l'as, un point;", "2°. le roi, deux points;", "3°. le valet, quatre points."]


def test_roman_numbers_make_sections_before_titles_and_articles_before_rules(wrapped):
    kinds = [(p.kind, p.number, p.number_raw) for p in wrapped.passages]
    assert kinds == [
        ("section", 3, "III"), ("paragraph", None, None), ("article", 4, "IV"), ("article", 5, "V"),
        ("article", 6, "ARTICLE SIXIÈME."), ("heading", None, None), ("paragraph", None, None),
    ]
    assert wrapped.passages[0].text.text == "III. De la manière de compter les points."
    assert wrapped.passages[4].text.text == "ARTICLE SIXIÈME. Celui qui tourne une carte en donnant, paye un jeton au jeu."
    assert (wrapped.passages[5].text.text, wrapped.passages[5].game) == ("LOTO. (Jeu du)", "loto")


def test_footnote_attached_to_its_call(boston):
    [note] = [p for p in boston.passages if p.kind == "footnote"]
    assert note.text.text == "(1) On appelle misère le coup où l'on s'engage à ne faire aucune levée."
    caller = boston.passages[note.note_for]
    assert caller.number == 6 and caller.text.text.endswith("contre les trois autres (1).")


def test_glossary_entries_split_and_named(boston):
    glosses = [(p.term, p.text.text) for p in boston.passages if p.kind == "gloss"]
    assert glosses == [
        ("Panier", "Panier. C'est le lieu où l'on met les fiches des amendes."),
        ("Misère", "Misère. Ce terme se dit du coup où l'on ne fait aucune levée."),
    ]


def test_game_named_by_a_title_when_no_head_names_it(tmp_path, res):
    seg = chapter(tmp_path, res, "\n\n".join([
        "les cartes se tirent une à une.",
        "Termes usités au vingt-et-un.",
        "Carte. C'est ce que le banquier donne.",
        "BOSTON (jeu du). Ce jeu se joue à quatre.",
    ]))
    assert [p.game for p in seg.passages] == ["vingt-et-un", "vingt-et-un", "vingt-et-un", "boston", "boston"]


def test_a_game_missing_from_the_list_is_named_from_its_heading(tmp_path, res):
    seg = chapter(tmp_path, res, "BRISCAN (jeu du). Ce jeu se joue à deux.\n\n1. Chacun reçoit six cartes.\n")
    assert [(g.slug, g.name) for g in seg.games] == [("briscan", "Briscan")]
    assert arts(seg) == [(1, None)]


def test_an_article_ends_on_a_full_stop_where_the_next_one_starts(tmp_path, res):
    # the numbers say a sentence ends before each: a comma or a stray mark there is the
    # full stop misread, a last word with no mark lost its own; a question mark stays
    text = ("DU JEU DE LA TRIOMPHE.\n\n"
            "1. Celui qui donne mal perd son tour,\n2. Celui qui renonce paye un jeton«\n"
            "3. Le premier joue une carte\n4. Qui joue le dernier?\n5. Le roi vaut un point.\n")
    seg = chapter(tmp_path, res, text)
    articles = [(p.number, p.text.text) for p in seg.passages if p.kind == "article"]
    assert articles == [
        (1, "1. Celui qui donne mal perd son tour."),
        (2, "2. Celui qui renonce paye un jeton."),
        (3, "3. Le premier joue une carte."),
        (4, "4. Qui joue le dernier?"),
        (5, "5. Le roi vaut un point."),
    ]
    ends = [(c.before, c.after, c.fix) for p in seg.passages for c in p.text.corrections() if c.fix == "segment.article_end"]
    assert ends == [(",", ".", "segment.article_end"), ("«", ".", "segment.article_end"), ("", ".", "segment.article_end")]
