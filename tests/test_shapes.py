"""Chapters exported in every usual shape (tests/fixtures/shapes/: one paragraph per
line, one line per printed line, no line breaks at all (with running heads, or with
bare page numbers run into the text), clean text without pages, an Internet Archive
_djvu.txt), each with articles run on inside paragraphs, damaged
numbers and spelled-out headings: each builds into the articles its made-up pages
print, and the build names the shape it found. The numbers of sentences ('les articles
VI. et VII.', 'en 1718.') stay text."""

from __future__ import annotations

import sqlite3
import tomllib
from pathlib import Path

import pytest

from pipeline.build import build, process_chapter
from pipeline.resources import Resources

SHAPES = Path(__file__).parent / "fixtures" / "shapes"
FIXTURES = sorted(p.name for p in SHAPES.glob("*.txt"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    db = tmp_path_factory.mktemp("shapes") / "shapes.db"
    report = build(SHAPES, db)
    return report, sqlite3.connect(db)


@pytest.fixture(scope="module")
def shapes_res():
    return Resources(SHAPES)


def expected(name: str) -> dict:
    return tomllib.loads((SHAPES / name.replace(".txt", ".expected.toml")).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", FIXTURES)
def test_every_article_with_its_number_game_and_page(built, name):
    _, db = built
    got = db.execute(
        "SELECT p.number, p.game, p.page FROM passages p JOIN chapters c ON c.id = p.chapter_id "
        "WHERE c.source_file = ? AND p.kind = 'article' ORDER BY p.seq", (name,)).fetchall()
    want = [(n, game, None if page == "none" else page) for n, game, page in expected(name)["articles"]]
    assert got == want


@pytest.mark.parametrize("name", FIXTURES)
def test_the_build_names_the_shape_of_each_chapter(built, name):
    report, db = built
    assert report.shapes[name] == expected(name)["shape"]
    assert db.execute("SELECT layout_form FROM chapters WHERE source_file = ?", (name,)).fetchone()[0] == \
        expected(name)["shape"].split(",")[0]


def test_the_shape_fixtures_build_without_errors(built):
    report, _ = built
    assert (report.chapters, report.articles, report.errors, report.warnings) == (6, 59, [], [])


def article(seg, number):
    [p] = [p for p in seg.passages if p.kind == "article" and p.number == number]
    return p


def test_a_run_on_article_starts_at_its_number_mid_line(shapes_res):
    seg = process_chapter(SHAPES / "mouche_paragraphs.txt", shapes_res)
    raw = seg.layout.chapter.text
    ninth = article(seg, 9)
    assert ninth.text.raw_start == raw.index("IX. Tout joueur")
    assert ninth.text.text == "IX. Tout joueur qui a joué avant son tour paye une fiche au panier, et la carte reste jouée."
    before = seg.passages[ninth.seq - 1]
    assert before.kind == "paragraph"
    assert before.text.text.endswith("10 livres. Sur quoi l'on ne compte pas les fiches du panier.")


def test_numbers_inside_sentences_stay_in_their_article(shapes_res):
    seg = process_chapter(SHAPES / "mouche_paragraphs.txt", shapes_res)
    assert article(seg, 4).text.text == (
        "IV. Quiconque renonce paye une fiche à chacun des joueurs, ainsi qu'il est marqué aux articles "
        "VI. et VII. ci-après.")
    assert article(seg, 6).text.text.endswith("comme au chapitre III. de ce livre.")
    assert "imprimé en 1718. La bête ne passe pas 10 livres." in seg.passages[article(seg, 9).seq - 1].text.text


def test_damaged_numbers_are_written_as_the_sequence_reads_them(shapes_res):
    seg = process_chapter(SHAPES / "mouche_paragraphs.txt", shapes_res)
    assert [(p.number, p.number_raw, p.text.text.split()[0]) for p in seg.passages if p.number in (3, 6, 7, 8)] == [
        (3, "IIl", "III."), (6, "Vl", "VI."), (7, "VII", "VII."), (8, "VIII", "VIII.")]


def test_run_on_text_loses_its_running_heads_at_the_page_break(shapes_res):
    seg = process_chapter(SHAPES / "lansquenet_google.txt", shapes_res)
    fourth, fifth = article(seg, 4), article(seg, 5)
    assert fourth.text.text == ("4. Si la carte du banquier vient avant l'autre, il gagne tout ce qui est au jeu, "
                                "comme il a été réglé en 1695.")
    assert fourth.text.raw_end < seg.layout.pages[1].start < fifth.text.raw_start
    assert [(p.number, p.running_head) for p in seg.layout.pages] == [
        (87, None), (88, "88 LANSQUENET."), (89, "LANSQUENET 89")]
    assert article(seg, 9).text.text == "9. Les cartes doubles se payent comme il est dit à l'article 5. ci-dessus."


def test_a_form_feed_starts_a_page_where_no_head_follows_it(tmp_path, shapes_res):
    path = tmp_path / "pages.txt"
    path.write_text("COMÈTE (jeu de la).\n\nI. Celui qui donne mal refait.\n\nII. On joue en montant.\n"
                    "\fLA COMÈTE. 31\n\nIII. Le premier qui n'a plus de cartes gagne.\n\f\n"
                    "IV. Chacun paye une fiche par carte.\n", encoding="utf-8")
    seg = process_chapter(path, shapes_res)
    assert [(p.number, p.number_status) for p in seg.layout.pages] == [(30, "inferred"), (31, "read"), (32, "inferred")]
    assert [(p.number, p.page) for p in seg.passages if p.kind == "article"] == [(1, 30), (2, 30), (3, 31), (4, 32)]
    assert seg.layout.shape == "blank-separated, form feeds"


def test_headings_of_every_spelling(tmp_path, shapes_res):
    path = tmp_path / "headings.txt"
    path.write_text("\n\n".join([
        "MANILLE (jeu de la).", "CHAPITRE PREMIER.", "ARTICLE PREMIER.", "On donne huit cartes.",
        "ARTICLE II", "On retourne la dernière.", "ART. III.", "Le dix est la manille.",
        "CHAPITRE SECOND.", "Article quatriéme.", "On fournit de la couleur.",
        "Art. 5. On coupe si l'on ne peut fournir.", "ARTICLE SIXIÉME. On compte les points."]) + "\n",
        encoding="utf-8")
    seg = process_chapter(path, shapes_res)
    assert [(p.kind, p.number, p.text.text) for p in seg.passages if p.kind in ("section", "article")] == [
        ("section", 1, "CHAPITRE PREMIER."),
        ("article", 1, "ARTICLE PREMIER. On donne huit cartes."),
        ("article", 2, "ARTICLE II On retourne la dernière."),
        ("article", 3, "ART. III. Le dix est la manille."),
        ("section", 2, "CHAPITRE SECOND."),
        ("article", 4, "Article quatriéme. On fournit de la couleur."),
        ("article", 5, "Art. 5. On coupe si l'on ne peut fournir."),
        ("article", 6, "ARTICLE SIXIÉME. On compte les points."),
    ]
    assert seg.layout.shape == "blank-separated, no pages"


def test_a_lone_number_after_a_sentence_end_is_no_article(tmp_path, shapes_res):
    """Position alone decides nothing: a number run on with no sequence around it,
    or one breaking the sequence, stays in its paragraph."""
    path = tmp_path / "lone.txt"
    path.write_text("Le brelan se joue à trois. 3 Joueurs au moins sont requis, et cinq au plus.\n", encoding="utf-8")
    assert [(p.kind, p.number) for p in process_chapter(path, shapes_res).passages] == [("paragraph", None)]
    path.write_text("1. Celui qui mêle donne trois cartes.\n\n2. On retourne la seizième. 7 Fiches "
                    "se payent au gagnant. 3. Le brelan de valets vaut mieux qu'un autre.\n", encoding="utf-8")
    assert [(p.kind, p.number, p.text.text) for p in process_chapter(path, shapes_res).passages] == [
        ("article", 1, "1. Celui qui mêle donne trois cartes."),
        ("article", 2, "2. On retourne la seizième. 7 Fiches se payent au gagnant."),
        ("article", 3, "3. Le brelan de valets vaut mieux qu'un autre."),
    ]


def test_run_on_heads_side_by_side_are_cut_together(tmp_path, shapes_res):
    """A page that prints nothing but its head (a plate's back) leaves two heads side by side."""
    path = tmp_path / "side.txt"
    filler = "Le banquier mêle les cartes. " * 40
    path.write_text(filler + "Il fait couper. 88 LANSQUENET. 89 LANSQUENET. On joue ensuite. " + filler, encoding="utf-8")
    seg = process_chapter(path, shapes_res)
    assert [(p.number, p.running_head) for p in seg.layout.pages] == [
        (87, None), (88, "88 LANSQUENET."), (89, "89 LANSQUENET.")]
    [paragraph] = seg.passages
    assert "Il fait couper. On joue ensuite." in paragraph.text.text
    assert [c.fix for c in paragraph.text.corrections()] == ["layout.page_break"]


def test_bare_page_numbers_run_into_the_text_are_page_breaks(shapes_res):
    """Google Books' text keeps a page's number where the page starts, mid-sentence,
    with nothing to tell it from the text but the sequence: 407, 4o8, 409, 410, at
    roughly regular distances, are pages; '3 au moins', 'en 1718', '10 livres',
    'l'article 12' and the article '7' that lost its full stop stay text."""
    seg = process_chapter(SHAPES / "triomphe_google.txt", shapes_res)
    raw = seg.layout.chapter.text
    assert seg.layout.shape == "run-on, page numbers inside the text"
    assert [(p.number, p.number_raw, p.number_status, p.start) for p in seg.layout.pages] == [
        (406, None, "inferred", 0),
        (407, "407", "read", raw.index("407 doit jouer")),
        (408, "4o8", "decoded", raw.index("4o8 convenu")),
        (409, "409", "read", raw.index("409 refait")),
        (410, "410", "read", raw.index("410 accord")),
    ]
    assert [(f.kind, raw[f.start:f.end]) for f in seg.layout.furniture] == [
        ("running_head", "407"), ("running_head", "4o8"), ("running_head", "409"), ("running_head", "410")]
    assert [(p.number, p.page) for p in seg.passages if p.kind == "article"] == [
        (1, 406), (2, 406), (3, 406), (4, 407), (5, 407), (6, 407), (7, 407),
        (8, 408), (9, 408), (10, 408), (11, 409), (12, 409), (13, 409), (14, 410)]
    # the number is cut out of its sentence as a running head is, the rest mapped to the raw text
    third = article(seg, 3)
    assert "celui qui a mêlé doit jouer le premier" in third.text.text
    assert [(c.fix, c.before, c.after, raw[c.start:c.end]) for c in third.text.corrections()
            if c.fix.startswith("layout")] == [("layout.page_break", " 407 ", " ", " 407 ")]
    assert "à moins que l'on ne soit convenu d'autre chose" in article(seg, 7).text.text
    assert "quelque accord qu'ils aient fait" in article(seg, 13).text.text
    # the traps stay in their sentences
    assert article(seg, 7).text.text.startswith("7. Celui qui a gagné le coup")
    assert "celui qui en fait 3 au moins" in article(seg, 6).text.text
    assert "imprimée en 1718 chez" in article(seg, 8).text.text
    assert "plus de 10 livres la partie" in article(seg, 9).text.text
    assert "à l'article 12 ci-dessus" in article(seg, 13).text.text


FILLER = ("Le joueur qui tient la main mêle les cartes et les fait couper par celui qui est "
          "assis à sa gauche, puis il les donne une à une en commençant par sa droite. ")


def _run_on(tmp_path, *pieces):
    path = tmp_path / "run_on.txt"
    path.write_text("".join(pieces), encoding="utf-8")
    return path


def test_bare_numbers_are_pages_only_as_a_run_at_regular_distances(tmp_path, shapes_res):
    run = [FILLER * 2 + "Il fait couper 51 encore une fois. ", FILLER * 2 + "Il fait couper 52 encore une fois. ",
           FILLER * 2 + "Il fait couper 53 encore une fois. ", FILLER * 2]
    seg = process_chapter(_run_on(tmp_path, *run), shapes_res)
    assert [(p.number, p.number_raw) for p in seg.layout.pages] == [(50, None), (51, "51"), (52, "52"), (53, "53")]
    # one number alone, or two in a row, prove nothing: they stay text
    for pieces in (run[:1] + [FILLER * 6], run[:2] + [FILLER * 6]):
        seg = process_chapter(_run_on(tmp_path, *pieces), shapes_res)
        assert seg.layout.shape == "run-on, no pages"
        assert "Il fait couper 51 encore une fois." in seg.passages[0].text.text
    # three in a row, the last a page's worth of text from the second and ten from the first
    seg = process_chapter(_run_on(tmp_path, run[0], run[1], FILLER * 20 + "Il fait couper 53 encore une fois. ",
                                  FILLER * 2), shapes_res)
    assert seg.layout.shape == "run-on, no pages"


def test_numbers_that_would_leave_pages_of_ten_thousand_characters_are_no_pages(tmp_path, shapes_res):
    """A long text holds small numbers in a row anywhere ('l'autre 4', 'fig. 5',
    'gagnant 6'): as pages they would leave its first or last page longer than any
    printed page (8,000 characters, pipeline/data/layout.toml), so they stay text."""
    run = [FILLER * 2 + "Il fait couper 51 encore une fois. ", FILLER * 2 + "Il fait couper 52 encore une fois. ",
           FILLER * 2 + "Il fait couper 53 encore une fois. "]
    assert len(FILLER * 60) > 9000
    for pieces in (run + [FILLER * 60], [FILLER * 60] + run + [FILLER * 2]):
        seg = process_chapter(_run_on(tmp_path, *pieces), shapes_res)
        assert seg.layout.shape == "run-on, no pages"
        text = " ".join(p.text.text for p in seg.passages)
        assert "Il fait couper 52 encore une fois." in text and "Il fait couper 53 encore une fois." in text
    # and a page between two of them that would hold ten thousand
    seg = process_chapter(_run_on(tmp_path, run[0], run[1], FILLER * 60, run[2], FILLER * 2), shapes_res)
    assert seg.layout.shape == "run-on, no pages"


def test_articles_that_lost_their_full_stops_are_no_pages(tmp_path, shapes_res):
    """Numbers after a sentence end and before a capital that continue the articles'
    numbering are articles, however regular their distances."""
    seg = process_chapter(_run_on(tmp_path, "1. ", FILLER * 2, "2. ", FILLER * 2, "3 ", FILLER * 2, "4 ",
                                  FILLER * 2, "5 ", FILLER * 2), shapes_res)
    assert seg.layout.shape == "run-on, no pages"
    assert [p.number for p in seg.passages if p.kind == "article"] == [1, 2, 3, 4, 5]


def test_a_word_s_second_half_goes_on_in_small_letters(tmp_path, shapes_res):
    """A paragraph ending on a hyphen goes on in the next one when that opens in small
    letters ('surnu-' / 'méraires'), or after a name's first half ('Saint-' /
    'Germain', the hyphen kept); a capital after a half in small letters opens a
    paragraph of its own (a page lost between them: 'résul-' / 'Pour rendre')."""
    path = _run_on(tmp_path, "Les points qu'il donne en battant à faux, résul-\n\n",
                   "Pour rendre cette vérité plus sensible, on peut supposer huit points.\n\n",
                   "Les dames surnu-\n\nméraires vont au coin, comme à Saint-\n\nGermain on le voit.\n")
    seg = process_chapter(path, shapes_res)
    assert [p.text.text for p in seg.passages] == [
        "Les points qu'il donne en battant à faux, résul-",
        "Pour rendre cette vérité plus sensible, on peut supposer huit points.",
        "Les dames surnuméraires vont au coin, comme à Saint-Germain on le voit."]


def test_numbers_before_a_measure_are_no_pages(tmp_path, shapes_res):
    """A catalogue gives each picture's dimensions ('sur toile de 2 pieds 3 pouces de
    haut'): the inches rise from one picture to the next, pages apart, as a run of
    page numbers would. A number before a measure of the period is a quantity
    (layout.toml's not_before), and stays in its sentence."""
    pieces = [FILLER * 2 + f"Un paysage sur toile de 2 pieds {k} pouces de haut. " for k in range(1, 6)]
    seg = process_chapter(_run_on(tmp_path, *pieces, FILLER * 2), shapes_res)
    assert seg.layout.shape == "run-on, no pages"
    text = " ".join(p.text.text for p in seg.passages)
    assert all(f"sur toile de 2 pieds {k} pouces de haut." in text for k in range(1, 6))
