"""ALTO chapters: one file or a folder of per-page files, v2/v3/v4, a String per word
or per line, with or without zone tags, hyphenation and confidences; the same chapter
as plain text and as ALTO gives the same structure."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.build import cite_chapters, process_chapter
from pipeline.clean.correct import OcrConfidence
from pipeline.ingest import ingest
from pipeline.ingest.alto import alto_chapter
from pipeline.publish.write import _alto_ids
from pipeline.records import ChapterInfo, InputError
from pipeline.text import restore_raw
from tests import alto_helpers as A

FIXTURES = Path(__file__).parent / "fixtures" / "alto"
V4 = A.NS[4]
ARTICLES = [(1, 52), (2, 53), (3, 53), (4, 54), (5, 54), (6, 55), (7, 55), (8, 56), (9, 56), (10, 57), (11, 58),
            (12, 59), (13, 59), (14, 60), (15, 60), (16, 61), (17, 61), (18, 62)]


def structure(seg):
    info = ChapterInfo(seg.layout.chapter.source_file, "madeup", "manifest", None, None, None, "mouche")
    [built] = cite_chapters([(info, seg)])
    passages = [(p.kind, p.number, p.page, p.game, p.text.text) for p in seg.passages]
    pages = [(p.number, p.number_status, p.head_game) for p in seg.layout.pages]
    return passages, pages, built.citations


@pytest.fixture(scope="module")
def as_text(res, tmp_path_factory):
    path = tmp_path_factory.mktemp("text") / "mouche.txt"
    path.write_text(A.as_text(), encoding="utf-8")
    return process_chapter(path, res)


VARIANTS = {
    "one file, v4, a String per word, zone tags": lambda d: A.write_single(d / "mouche.xml"),
    "per-page files, v2, a String per line, no tags": lambda d: A.write_per_page(d / "mouche", version=2, words=False, tags=False),
    "one file, v3, no namespace, no tags": lambda d: A.write_single(d / "mouche.xml", version=3, tags=False, namespace=False),
    "per-page files, v3, words, tags": lambda d: A.write_per_page(d / "mouche", version=3),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_same_chapter_as_text_and_as_alto_has_the_same_structure(variant, as_text, res, tmp_path):
    seg = process_chapter(VARIANTS[variant](tmp_path), res)
    assert seg.layout.form == "alto" and as_text.layout.form == "wrapped"
    assert structure(seg) == structure(as_text)
    assert [(p.number, p.page) for p in seg.passages if p.kind == "article"] == ARTICLES
    assert [p.number for p in seg.layout.pages] == list(range(52, 63))
    assert structure(seg)[2][:5] == ["madeup:mouche", "madeup:mouche.p52.1", "madeup:mouche.p52.2",
                                     "madeup:mouche.1", "madeup:mouche.2"]
    assert not seg.layout.diagnostics
    assert uncovered(seg) == ""


def uncovered(seg) -> str:
    """The non-blank raw characters neither a passage nor furniture covers."""
    raw = seg.layout.chapter.text
    covered = [False] * len(raw)
    spans = [(p.text.raw_start, p.text.raw_end) for p in seg.passages] + [(f.start, f.end) for f in seg.layout.furniture]
    for a, b in spans:
        covered[a:b] = [True] * (b - a)
    return "".join(c for c, k in zip(raw, covered) if not k and not c.isspace())


def test_per_page_files_are_read_in_the_natural_order_of_their_names(res):
    seg = process_chapter(FIXTURES / "mouche", res)
    assert [p.file for p in seg.layout.chapter.alto.pages] == [f"mouche_f{k}.xml" for k in range(1, 12)]
    assert [p.number for p in seg.layout.pages] == list(range(52, 63))


def test_raw_text_is_the_lines_joined_and_every_word_keeps_its_span_and_id():
    xml = f"""<alto xmlns="{V4}"><Layout><Page ID="P1"><PrintSpace>
      <TextBlock ID="B1"><TextLine ID="L1"><String ID="S1" CONTENT="Le" WC="0.9"/><SP/><String ID="S2" CONTENT="jeu"/>
        <SP/><String ID="S3" CONTENT="com" SUBS_TYPE="HypPart1" SUBS_CONTENT="commence"/><HYP CONTENT="-"/></TextLine>
      <TextLine ID="L2"><String ID="S4" CONTENT="mence" SUBS_TYPE="HypPart2" SUBS_CONTENT="commence"/><String ID="S5" CONTENT="ici." CC="0 0 3 9"/></TextLine></TextBlock>
      <TextBlock ID="B2"><TextLine ID="L3"><String CONTENT="Fin"/></TextLine></TextBlock>
    </PrintSpace></Page></Layout></alto>""".encode()
    chapter = alto_chapter([("x.xml", xml)], "x.xml")
    assert chapter.text == "Le jeu com-\nmence ici.\n\nFin"
    words = chapter.alto.words()
    assert [(w.id, chapter.text[w.start:w.end], w.confidence, w.whole) for w in words] == [
        ("S1", "Le", 0.9, None), ("S2", "jeu", None, None), ("S3", "com", None, "commence"),
        ("S4", "mence", None, None), ("S5", "ici.", 0.0, None), ("L3", "Fin", None, None)]
    assert [b.id for b in chapter.alto.pages[0].blocks] == ["B1", "B2"]


def test_hyphenation_from_subs_content_and_passages_map_back_to_raw(res, tmp_path):
    seg = process_chapter(A.write_single(tmp_path / "mouche.xml"), res)
    first = seg.passages[1]
    assert first.text.text.startswith("On joue ce jeu de trois jusqu'à six personnes, avec")
    [join] = [c for c in first.text.corrections() if c.before == "-\n"]
    assert (join.after, join.fix, join.confidence) == ("", "layout.join_hyphenated", 1.0)
    raw = seg.layout.chapter.text
    for p in seg.passages:
        assert restore_raw(p.text.text, p.text.corrections(), p.text.raw_start) == raw[p.text.raw_start:p.text.raw_end]
    words = seg.layout.chapter.alto.words()
    starts = [w.start for w in words]
    assert _alto_ids(words, starts, seg.passages[0].text.raw_start, seg.passages[0].text.raw_end) == ("p0_l0_w0", "p0_l0_w3")
    art1 = seg.passages[3]
    assert art1.number == 1
    assert _alto_ids(words, starts, art1.text.raw_start, art1.text.raw_end) == ("p0_l5_w0", "p1_l0_w6")


def test_zones_drop_capital_margin_note_and_numbering_zone(res):
    xml = f"""<alto xmlns="{V4}"><Tags><OtherTag ID="T1" LABEL="MainZone"/><OtherTag ID="T2" LABEL="DropCapitalZone"/>
      <OtherTag ID="T3" LABEL="MarginTextZone"/><OtherTag ID="T4" LABEL="NumberingZone"/><OtherTag ID="T5" LABEL="RunningTitleZone:centre"/></Tags>
      <Layout><Page ID="P1"><PrintSpace>
      <TextBlock TAGREFS="T4"><TextLine><String CONTENT="i7"/></TextLine></TextBlock>
      <TextBlock TAGREFS="T5"><TextLine><String CONTENT="DOMINO"/></TextLine></TextBlock>
      <TextBlock TAGREFS="T2"><TextLine><String CONTENT="L"/></TextLine></TextBlock>
      <TextBlock TAGREFS="T1"><TextLine><String CONTENT="a partie se joue à deux."/></TextLine></TextBlock>
      <TextBlock TAGREFS="T3"><TextLine><String CONTENT="Note en marge."/></TextLine></TextBlock>
    </PrintSpace></Page></Layout></alto>""".encode()
    from pipeline.layout import layout

    lay = layout(alto_chapter([("d.xml", xml)], "d.xml"), res)
    assert [(p.number, p.number_raw, p.number_status, p.running_head, p.head_title) for p in lay.pages] == [
        (17, "i7", "decoded", "i7 DOMINO", "DOMINO")]
    assert [(f.kind, f.text) for f in lay.furniture] == [
        ("page_number", "i7"), ("running_head", "DOMINO"), ("margin_note", "Note en marge.")]
    [block] = lay.blocks
    assert block.text.text == "La partie se joue à deux."
    assert [(c.before, c.after, c.fix) for c in block.text.corrections()] == [("\n\n", "", "layout.drop_capital")]


@pytest.mark.parametrize("name, content, message", [
    ("bad.xml", f'<alto xmlns="{V4}"><Layout><String></Layout></alto>',
     "bad.xml: malformed XML: Opening and ending tag mismatch: String line 1 and Layout, line 1, column 81"),
    ("ns.xml", '<alto xmlns="http://example.org/alto"><Layout/></alto>',
     "ns.xml: unknown namespace 'http://example.org/alto': not ALTO v2, v3 or v4"),
    ("tei.xml", '<TEI xmlns="http://www.tei-c.org/ns/1.0"/>',
     "tei.xml: not ALTO: the root element is 'TEI' of 'http://www.tei-c.org/ns/1.0'"),
    ("empty.xml", f'<alto xmlns="{V4}"><Layout><Page><PrintSpace><TextBlock><TextLine><String CONTENT=" "/>'
     "</TextLine></TextBlock></PrintSpace></Page></Layout></alto>",
     "empty.xml: no text: the ALTO has no String with content"),
])
def test_bad_alto_is_one_error_line_naming_the_file(tmp_path, name, content, message):
    (tmp_path / name).write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest(tmp_path / name)
    assert str(exc.value) == message


def test_a_bad_page_of_a_folder_is_named_in_the_error(tmp_path):
    folder = A.write_per_page(tmp_path / "mouche")
    (folder / "mouche_f3.xml").write_text("<alto", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest(folder)
    assert str(exc.value) == "mouche: mouche_f3.xml: malformed XML: Couldn't find end of Start Tag alto line 1, line 1, column 6"


def test_ocr_confidence_is_a_factor_against_the_chapters_median():
    conf = OcrConfidence([(0, 5, 0.9), (6, 10, 0.5), (11, 15, 0.9), (16, 20, 0.999), (21, 25, 0.9)])
    assert [conf.factor(x) for x in (0, 6, 11, 16, 5, 30)] == [1.0, 0.58, 1.0, 3.0, 1.0, 1.0]


def _damaged(wc_damaged: float, wc_others: float) -> bytes:
    words = "Le joueur qui a la préféronce doit jouer le premier.".split()
    strings = "<SP/>".join(f'<String ID="w{k}" CONTENT="{w}" WC="{wc_damaged if w == "préféronce" else wc_others}"/>'
                           for k, w in enumerate(words))
    return (f'<alto xmlns="{V4}"><Layout><Page><PrintSpace><TextBlock><TextLine>{strings}'
            "</TextLine></TextBlock></PrintSpace></Page></Layout></alto>").encode()


def test_a_word_the_ocr_doubted_is_corrected_and_one_it_was_sure_of_is_kept(res):
    from pipeline.clean import clean
    from pipeline.layout import layout

    def read(xml):
        [block] = clean(layout(alto_chapter([("c.xml", xml)], "c.xml"), res), res).blocks
        return block.text.text

    assert read(_damaged(0.2, 0.9)) == "Le joueur qui a la préférence doit jouer le premier."
    assert read(_damaged(0.999, 0.6)) == "Le joueur qui a la préféronce doit jouer le premier."


def test_real_alto_from_gallicorpora(res):
    seg = process_chapter(FIXTURES / "bpt6k1281160s", res)
    chapter = seg.layout.chapter
    assert chapter.encoding == "utf-8" and seg.layout.form == "alto"
    assert [p.file for p in chapter.alto.pages] == ["bpt6k1281160s_f12.xml", "bpt6k1281160s_f13.xml"]
    assert chapter.alto.tagged
    # page 4's number opens the page and its running title follows the text in the file;
    # page 5's head and number are tagged as main text, so they stay text
    assert [(p.number, p.number_status, p.running_head, p.head_end) for p in seg.layout.pages] == [
        (4, "read", "4 La foire S. Germain,", 1), (5, "inferred", None, None)]
    text = " ".join(p.text.text for p in seg.passages)
    assert "leur patrimoine dans la bourse des passans." in text
    assert uncovered(seg) == ""
    raw = chapter.text
    for p in seg.passages:
        assert restore_raw(p.text.text, p.text.corrections(), p.text.raw_start) == raw[p.text.raw_start:p.text.raw_end]


def test_the_database_keeps_each_passages_alto_ids_and_null_for_text(res, as_text, tmp_path):
    import sqlite3

    from pipeline.publish import publish
    from pipeline.records import Edition, Game

    seg = process_chapter(FIXTURES / "mouche", res)
    infos = [ChapterInfo(s.layout.chapter.source_file, "madeup", "manifest", None, None, None, key)
             for s, key in ((seg, "mouche"), (as_text, "mouche-text"))]
    built = cite_chapters(list(zip(infos, (seg, as_text))))
    db = tmp_path / "a.db"
    publish(db, [Edition("madeup", "Made up")], built, [Game("mouche", "Mouche")], [])
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT c.source_file, c.layout_form, p.citation, p.alto_first, p.alto_last FROM passages p "
                        "JOIN chapters c ON c.id = p.chapter_id WHERE p.number = 10 ORDER BY c.source_file").fetchall()
    assert rows == [("mouche", "alto", "madeup:mouche.10", "p5_l0_w0", "p6_l0_w7"),
                    ("mouche.txt", "wrapped", "madeup:mouche.10-2", None, None)]


def _page(body: str, top: str = "") -> str:
    margin = f"<TopMargin><TextBlock><TextLine><String CONTENT=\"{top}\"/></TextLine></TextBlock></TopMargin>" if top else ""
    lines = "".join(f'<TextLine><String CONTENT="{line}"/></TextLine>' for line in body.split("|"))
    return f"<Page>{margin}<PrintSpace><TextBlock TAGREFS=\"M\">{lines}</TextBlock></PrintSpace></Page>"


def test_a_head_the_tags_or_margins_do_not_name_is_found_among_the_first_lines(res):
    from pipeline.layout import layout

    def heads(pages: str, tags: str = "") -> list:
        xml = f'<alto xmlns="{V4}">{tags}<Layout>{pages}</Layout></alto>'.encode()
        lay = layout(alto_chapter([("h.xml", xml)], "h.xml"), res)
        return [(p.number, p.number_status, p.running_head) for p in lay.pages], [(f.kind, f.text) for f in lay.furniture]

    # tagged: the zones are all main text, yet the second page opens with a head line
    assert heads(_page("Le jeu se joue à deux.") + _page("MOU 53|On tire les places."),
                 '<Tags><OtherTag ID="M" LABEL="MainZone"/></Tags>') == (
        [(52, "inferred", None), (53, "read", "MOU 53")], [("running_head", "MOU 53")])
    # untagged: a head in the top margin; a first line that is text is not a head
    assert heads(_page("Le jeu se joue à deux.", top="MOU 7") + _page("On tire les places.")) == (
        [(7, "read", "MOU 7"), (8, "inferred", None)], [("running_head", "MOU 7")])


def test_an_alto_chapter_may_be_fifty_times_the_size_of_a_text_one(tmp_path):
    folder = A.write_per_page(tmp_path / "mouche")
    size = sum(f.stat().st_size for f in folder.iterdir())
    assert ingest(folder, max_bytes=size // 50 + 1).alto is not None
    with pytest.raises(InputError) as exc:
        ingest(folder, max_bytes=size // 50 - 1)
    limit = (size // 50 - 1) * 50
    assert str(exc.value) == (f"mouche: file too large: {size / 1e3:.1f} kB, more than the {limit / 1e3:.1f} kB "
                              "a chapter can be (split it, or raise --max-chapter-size)")


def test_entities_are_neither_expanded_without_bound_nor_read_from_outside():
    def read(doctype: str, content: str) -> str:
        xml = (f'<?xml version="1.0"?><!DOCTYPE alto [{doctype}]><alto xmlns="{V4}"><Layout><Page><PrintSpace>'
               f'<TextBlock><TextLine><String CONTENT="{content}"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>')
        with pytest.raises(InputError) as exc:
            alto_chapter([("e.xml", xml.encode())], "e.xml")
        return str(exc.value)

    laughs = '<!ENTITY a "aaaaaaaaaa">' + "".join(f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi"))
    assert read(laughs, "&i;").startswith("e.xml: malformed XML: Maximum entity amplification factor exceeded")
    assert read('<!ENTITY x SYSTEM "file:///etc/hostname">', "a &x; b") == (
        "e.xml: malformed XML: Attribute references external entity 'x', line 1, column 205")


def _damaged_numbering(pages):
    """The chapter as another printing sets it: article 3 run on inside article 2's
    paragraph, article 5 without its full stop, article 9's stop read as a comma."""
    out = []
    for title, number, lines in pages:
        lines = list(lines)
        if number == "53":
            lines = ["une, et retourne la carte du dessous.", "  2. Celui qui donne mal perd sa donne et",
                     "met un jeton au panier. 3. Chacun peut écarter autant de cartes",
                     "qu'il lui plaît, et en reprendre au talon."]
        lines = [l.replace("  5. Quand", "  5 Quand").replace("  9. Celui", "  9, Celui") for l in lines]
        out.append((title, number, lines))
    return out


def test_articles_run_on_or_damaged_in_alto_are_found_as_in_text(res, tmp_path):
    pages = _damaged_numbering(A.PAGES)
    text = tmp_path / "mouche.txt"
    text.write_text(A.as_text(pages), encoding="utf-8")
    as_plain = process_chapter(text, res)
    seg = process_chapter(A.write_single(tmp_path / "mouche.xml", pages), res)
    assert [(p.number, p.page) for p in seg.passages if p.kind == "article"] == ARTICLES
    assert structure(seg) == structure(as_plain)
    third = next(p for p in seg.passages if p.number == 3)
    assert third.text.text == "3. Chacun peut écarter autant de cartes qu'il lui plaît, et en reprendre au talon."
    # its ALTO ids start at the String of its number, mid-line
    words = seg.layout.chapter.alto.words()
    at = next(w for w in words if w.start == third.text.raw_start)
    assert seg.layout.chapter.text[at.start:at.end] == "3."
