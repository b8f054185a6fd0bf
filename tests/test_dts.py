"""DTS 1.0 in the reading room (pipeline/web/dts.py), read in-process through the ``room``
fixture: every response against JSON schemas written from the specification's tables
(tests/fixtures/dts/), the navigation's table of parameters row by row, the errors it
asks for, the document endpoint against the exported TEI, and a client that goes from
the entry point to the text of Whist, art. 13 by the URI templates alone."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote, urlsplit

import jsonschema
import pytest
from lxml import etree

from pipeline.clean.evaluate import page_text
from pipeline.publish import tei

SCHEMA = json.loads((Path(__file__).parent / "fixtures" / "dts" / "dts-1.0.schema.json").read_text(encoding="utf-8"))
BASE = "http://127.0.0.1:8001"  # the reading room's base URL when none is configured
NS = {"t": tei.TEI_NS, "dts": tei.DTS_NS}


def valid(data: dict, definition: str) -> dict:
    jsonschema.validate(data, {**SCHEMA, "$ref": f"#/$defs/{definition}"})
    return data


def answer(room, path: str, definition: str) -> dict:
    r = room.get(path)
    assert r.status_code == 200, (path, r.text[:300])
    assert r.headers["content-type"] == "application/ld+json; charset=utf-8"
    return valid(r.json(), definition)


def error(room, path: str, status: int) -> str:
    r = room.get(path)
    assert r.status_code == status, (path, r.status_code, r.text[:300])
    body = r.json()
    assert (body["ok"], body["status"]) == (False, status)
    return body["error"]


def expand(template: str, **values) -> str:
    """RFC 6570 expansion of the forms DTS uses: {?a,b} and {&a,b} (undefined values left out)."""
    def one(m):
        op, names = m.group(1), m.group(2).split(",")
        pairs = [f"{n}={quote(str(values[n]), safe='')}" for n in names if values.get(n) is not None]
        return (op + "&".join(pairs)) if pairs else ""

    return re.sub(r"\{([?&])([^}]*)\}", one, template)


def path_of(url: str) -> str:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == BASE, url
    return parts.path + (f"?{parts.query}" if parts.query else "")


@pytest.fixture(scope="module")
def documents(built_db) -> dict[str, etree._ElementTree]:
    conn = sqlite3.connect(built_db)
    try:
        return {e["id"]: tei.edition_tei(conn, e["id"]) for e in tei.editions(conn)}
    finally:
        conn.close()


@pytest.fixture(scope="module")
def units(documents) -> dict[tuple[str, str | None], list[tei.Unit]]:
    out = {}
    for e, tree in documents.items():
        plain = tei.plain_copy(tree)
        out[(e, None)] = tei.cite_units(plain)
        out[(e, "pages")] = tei.cite_units(plain, "pages")
    return out


def navigation(room, **params) -> dict:
    query = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in params.items())
    return answer(room, f"/dts/navigation?{query}", "Navigation")


def ids(members: list[dict]) -> list[str]:
    return [m["identifier"] for m in members]


# -- entry point and collections ---------------------------------------------------------------------

def test_the_entry_point_gives_the_three_templates(room):
    assert answer(room, "/dts/", "EntryPoint") == {
        "@context": "https://dtsapi.org/context/v1.0.json", "dtsVersion": "1.0", "@id": f"{BASE}/dts/",
        "@type": "EntryPoint", "collection": f"{BASE}/dts/collection{{?id,page,nav}}",
        "navigation": f"{BASE}/dts/navigation{{?resource,ref,start,end,down,tree,page}}",
        "document": f"{BASE}/dts/document{{?resource,ref,start,end,tree,mediaType}}"}
    assert room.get("/dts").json() == room.get("/dts/").json()


def test_the_corpus_holds_one_collection_per_edition_each_holding_its_resource(room, db, documents):
    root = answer(room, "/dts/collection", "Collection")
    assert root == answer(room, "/dts/collection?id=academie", "Collection")
    editions = [r[0] for r in db.execute("SELECT id FROM editions WHERE id IN (SELECT edition_id FROM chapters) ORDER BY id")]
    assert (root["@id"], root["@type"], root["totalParents"]) == ("academie", "Collection", 0)
    assert [m["@id"] for m in root["member"]] == [f"academie/{e}" for e in editions] and root["totalChildren"] == len(editions)
    for member in root["member"]:
        edition = answer(room, path_of(expand(member["collection"], nav=None)), "Collection")
        assert {k: v for k, v in edition.items() if k not in ("@context", "dtsVersion", "member")} == member
        (resource,) = edition["member"]
        assert (edition["totalChildren"], edition["totalParents"]) == (1, 1)
        e = member["@id"].split("/", 1)[1]
        assert (resource["@id"], resource["@type"], resource["totalParents"]) == (e, "Resource", 1)
        assert resource["mediaTypes"] == ["application/tei+xml"]
        assert resource["download"] == f"{BASE}/download/tei/{e}.xml"
        assert resource["citationTrees"] == tei.citation_trees_json(tei.plain_copy(documents[e]))
        alone = answer(room, f"/dts/collection?id={e}", "Collection")
        assert alone == {"@context": root["@context"], "dtsVersion": "1.0", **resource}
        # nav=parents: the edition's collection, and the corpus above it
        assert [m["@id"] for m in answer(room, f"/dts/collection?id={e}&nav=parents", "Collection")["member"]] == [
            member["@id"]]
        assert [m["@id"] for m in answer(room, f"/dts/collection?id={quote(member['@id'], safe='')}&nav=parents",
                                         "Collection")["member"]] == ["academie"]
    assert answer(room, "/dts/collection?nav=parents", "Collection")["member"] == []


def test_the_default_citation_tree_has_no_identifier_and_the_pages_tree_has_one(room):
    trees = answer(room, "/dts/collection?id=aduj", "Collection")["citationTrees"]
    assert "identifier" not in trees[0] and [t.get("identifier") for t in trees[1:]] == ["pages"]
    top = trees[0]["citeStructure"]
    assert [s["citeType"] for s in top] == ["game"]
    assert [s["citeType"] for s in top[0]["citeStructure"]] == ["article", "section", "paragraph", "gloss", "footnote"]
    assert trees[1]["citeStructure"] == [{"@type": "CiteStructure", "citeType": "page"}]


# -- navigation ----------------------------------------------------------------------------------------

def unit_fields(u: tei.Unit) -> tuple:
    return u.identifier, u.level, u.parent, u.cite_type


def member_fields(m: dict) -> tuple:
    return m["identifier"], m["level"], m["parent"], m["citeType"]


def test_the_whole_tree_is_the_one_the_tei_declares_in_document_order(room, units, documents, db):
    citations = {r[0] for r in db.execute("SELECT citation FROM passages")}
    for (e, tree), expected in units.items():
        params = {"resource": e, "down": -1} | ({"tree": tree} if tree else {})
        members = navigation(room, **params)["member"]
        assert [member_fields(m) for m in members] == [unit_fields(u) for u in expected]
        for m in members:
            cited = f"{e}:{m['identifier']}"
            assert m.get("@id") == (f"{BASE}/cite/{cited}" if tree is None and cited in citations else None)
        # document order: each unit starts after the one before it
        plain = tei.plain_copy(documents[e])
        order = {el: k for k, el in enumerate(plain.getroot().iter())}
        firsts = [order[u.elements[0]] for u in tei.cite_units(plain, tree)]
        assert firsts == sorted(firsts)


def test_games_are_named_in_dublin_core(room, db):
    games = dict(db.execute("SELECT slug, name FROM games").fetchall())
    for m in navigation(room, resource="aduj", down=1)["member"]:
        assert m.get("dublinCore") == ({"title": [{"lang": "fr", "value": games[m["identifier"]]}]}
                                       if m["identifier"] in games else None)


def test_the_table_of_down_ref_start_and_end(room, units):
    """The specification's table, row by row, on the resource aduj."""
    tree = units[("aduj", None)]
    by = {u.identifier: u for u in tree}
    top = [u.identifier for u in tree if u.level == 1]
    whist = [u.identifier for u in tree if u.identifier == "whist" or u.identifier.startswith("whist.")]
    # absent, absent, absent: 400
    assert error(room, "/dts/navigation?resource=aduj", 400)
    # absent, ref: the unit, no member
    nav = navigation(room, resource="aduj", ref="whist.13")
    assert nav["ref"] == {"identifier": "whist.13", "@type": "CitableUnit", "level": 2, "parent": "whist",
                          "citeType": "article", "@id": f"{BASE}/cite/aduj:whist.13"}
    assert "member" not in nav and "start" not in nav
    # absent, start/end: both units, no member
    nav = navigation(room, resource="aduj", start="whist.12", end="whist.14")
    assert (nav["start"]["identifier"], nav["end"]["identifier"]) == ("whist.12", "whist.14") and "member" not in nav
    # 0 without ref: 400; 0 with ref: its siblings, itself included; 0 with start/end: 400
    assert error(room, "/dts/navigation?resource=aduj&down=0", 400)
    assert ids(navigation(room, resource="aduj", ref="whist.13", down=0)["member"]) == [
        u.identifier for u in tree if u.parent == "whist"]
    assert ids(navigation(room, resource="aduj", ref="whist", down=0)["member"]) == top
    assert error(room, "/dts/navigation?resource=aduj&start=whist.1&end=whist.2&down=0", 400)
    # > 0 without ref: the tree from the root down to that depth
    assert ids(navigation(room, resource="aduj", down=1)["member"]) == top
    assert ids(navigation(room, resource="aduj", down=2)["member"]) == [u.identifier for u in tree if u.level <= 2]
    # > 0 with ref: the ref and its subtree to that depth below it
    assert ids(navigation(room, resource="aduj", ref="whist", down=1)["member"]) == [
        i for i in whist if by[i].level <= 2]
    assert ids(navigation(room, resource="aduj", ref="whist.20", down=1)["member"]) == ["whist.20", "whist.20.1"]
    # > 0 with start/end: from start to the end of end's subtree, to that depth below the deeper
    assert ids(navigation(room, resource="aduj", start="whist.19", end="whist.20", down=1)["member"]) == [
        "whist.19", "whist.20", "whist.20.1"]
    assert ids(navigation(room, resource="aduj", start="whist.19", end="whist.20.1", down=1)["member"]) == [
        "whist.19", "whist.20", "whist.20.1"]
    # -1: to the bottom
    assert ids(navigation(room, resource="aduj", ref="whist", down=-1)["member"]) == whist
    assert ids(navigation(room, resource="aduj", start="whist", end="whist", down=-1)["member"]) == whist
    assert len(navigation(room, resource="aduj", down=-1)["member"]) == len(tree)
    # a depth beyond the tree: what there is
    assert ids(navigation(room, resource="aduj", ref="whist.13", down=5)["member"]) == ["whist.13"]


def test_the_pages_tree(room, units):
    pages = [u.identifier for u in units[("aduj", "pages")]]
    assert ids(navigation(room, resource="aduj", tree="pages", down=1)["member"]) == pages
    nav = navigation(room, resource="aduj", tree="pages", ref="407")
    assert nav["ref"] == {"identifier": "407", "@type": "CitableUnit", "level": 1, "parent": None, "citeType": "page"}
    assert error(room, "/dts/navigation?resource=aduj&tree=pages&ref=whist.13", 404)


def test_the_navigation_says_what_it_was_asked(room):
    nav = navigation(room, resource="aduj", ref="whist", down=1)
    assert nav["@id"] == f"{BASE}/dts/navigation?resource=aduj&ref=whist&down=1"
    assert nav["resource"] == {k: v for k, v in answer(room, "/dts/collection?id=aduj", "Collection").items()
                               if k not in ("@context", "dtsVersion")}


@pytest.mark.parametrize("path, status, says", [
    ("/dts/navigation?down=1", 400, "no resource given"),
    ("/dts/navigation?resource=aduj&ref=whist&start=whist.1&end=whist.2", 400, "ref cannot be given with start or end"),
    ("/dts/navigation?resource=aduj&start=whist.1", 400, "start and end go together"),
    ("/dts/navigation?resource=aduj&end=whist.1&down=1", 400, "start and end go together"),
    ("/dts/navigation?resource=aduj&start=whist.3&end=whist.1&down=1", 400, "comes after end"),
    ("/dts/navigation?resource=aduj&down=x", 400, "down must be a whole number"),
    ("/dts/navigation?resource=aduj&down=-2", 400, "down must be -1 or more"),
    ("/dts/navigation?resource=aduj&down=1&page=0", 400, "page must be 1 or more"),
    ("/dts/navigation?resource=nope&down=1", 404, "no resource 'nope'"),
    ("/dts/navigation?resource=aduj&ref=whist.99", 404, "no unit 'whist.99'"),
    ("/dts/navigation?resource=aduj&start=whist.1&end=whist.99", 404, "no unit 'whist.99'"),
    ("/dts/navigation?resource=aduj&down=1&tree=chapters", 404, "no citation tree 'chapters'"),
    ("/dts/navigation?resource=aduj&down=1&page=2", 404, "no page 2"),
    ("/dts/document", 400, "no resource given"),
    ("/dts/document?resource=aduj&ref=whist.1&end=whist.2", 400, "ref cannot be given with start or end"),
    ("/dts/document?resource=aduj&start=whist.1", 400, "start and end go together"),
    ("/dts/document?resource=aduj&start=whist.3&end=whist.1", 400, "comes after end"),
    ("/dts/document?resource=nope", 404, "no resource 'nope'"),
    ("/dts/document?resource=aduj&ref=whist.99", 404, "no unit 'whist.99'"),
    ("/dts/document?resource=aduj&tree=chapters", 404, "no citation tree 'chapters'"),
    ("/dts/document?resource=aduj&ref=whist.13&mediaType=text/html", 404, "served as application/tei+xml only"),
    ("/dts/collection?id=nope", 404, "no collection or resource 'nope'"),
    ("/dts/collection?nav=sideways", 400, "nav is children or parents"),
    ("/dts/collection?page=2", 404, "no page 2"),
])
def test_errors_are_the_specification_s(room, path, status, says):
    assert says in error(room, path, status)


# -- document --------------------------------------------------------------------------------------------

def tei_answer(room, path: str, resource: str) -> etree._Element:
    r = room.get(path)
    assert r.status_code == 200, (path, r.text[:300])
    assert r.headers["content-type"] == "application/tei+xml; charset=utf-8"
    assert r.headers["link"] == f'<{BASE}/dts/collection?id={resource}>; rel="collection"'
    return etree.fromstring(r.content)


def wrapped(doc: etree._Element) -> etree._Element:
    (wrapper,) = doc.xpath("/t:TEI/t:text/t:body/dts:wrapper", namespaces=NS)
    return wrapper


def test_the_whole_resource_is_the_exported_document(room, built_db, tmp_path, documents):
    files = {w.edition: w.path.read_bytes() for w in tei.export(built_db, tmp_path)}
    for e in documents:
        r = room.get(f"/dts/document?resource={e}")
        assert r.content == files[e] == room.get(f"/download/tei/{e}.xml").content
        assert r.headers["link"] == f'<{BASE}/dts/collection?id={e}>; rel="collection"'
        assert room.get(f"/dts/document?resource={e}&mediaType=application/tei%2Bxml").content == files[e]


def test_a_unit_s_document_is_its_element_in_a_wrapper_with_both_texts(room, db):
    for p in db.execute("SELECT p.citation, p.text_clean, p.text_raw, c.edition_id FROM passages p "
                        "JOIN chapters c ON c.id = p.chapter_id WHERE p.kind IN ('article', 'gloss', 'footnote')"):
        ref = p["citation"].split(":", 1)[1]
        doc = tei_answer(room, f"/dts/document?resource={p['edition_id']}&ref={quote(ref)}", p["edition_id"])
        (unit,) = wrapped(doc)
        assert unit.get(tei.XML_ID) == tei.xml_id(ref)
        assert tei.read_clean(unit) == p["text_clean"]
        own = unit.find("t:p", NS) if tei.local(unit) == "div" else unit  # an article's div: its own paragraph
        if not own.xpath(".//t:note | .//t:anchor", namespaces=NS):  # a footnote's text is read where it was printed
            assert tei.read_raw(own) == p["text_raw"]
        assert doc.find("t:teiHeader", NS) is not None  # the fixes the corrections point at come with it


def test_a_range_s_document_holds_the_units_from_start_to_end(room, units):
    doc = tei_answer(room, "/dts/document?resource=aduj&start=whist.12&end=whist.20", "aduj")
    inside = [e.get(tei.XML_ID) for e in wrapped(doc).iter() if e.get(tei.XML_ID)]
    tree = [u.identifier for u in units[("aduj", None)]]
    assert inside == tree[tree.index("whist.12") : tree.index("whist.20.1") + 1]
    # the partial divs around them are copied so that the fragment is well formed
    assert [e.get("type") for e in wrapped(doc)] == ["chapter"]


def test_a_page_s_document_is_the_printed_page(room, db):
    """For every numbered page: the raw reading of its document is the chapter's raw text
    from its start to the next page's (the export's footer left out)."""
    for c in db.execute("SELECT id, edition_id, raw_text FROM chapters ORDER BY id"):
        pages = db.execute("SELECT number, raw_start FROM pages WHERE chapter_id = ? ORDER BY seq", (c["id"],)).fetchall()
        export = [tuple(r) for r in db.execute("SELECT raw_start, raw_end FROM furniture WHERE chapter_id = ? AND kind "
                                               "IN ('export_header', 'export_footer')", (c["id"],))]
        for k, page in enumerate(pages):
            if page["number"] is None:
                continue
            end = pages[k + 1]["raw_start"] if k + 1 < len(pages) else len(c["raw_text"])
            expected = page_text(c["raw_text"][:end], [(a, min(b, end)) for a, b in export if a < end])[
                len(page_text(c["raw_text"][: page["raw_start"]], [(a, b) for a, b in export if b <= page["raw_start"]])):]
            doc = tei_answer(room, f"/dts/document?resource={c['edition_id']}&tree=pages&ref={page['number']}",
                             c["edition_id"])
            assert tei.read_raw(wrapped(doc)) == expected, page["number"]


# -- a client, from the entry point to the text of Whist, art. 13 -------------------------------------------

def test_a_client_walks_from_the_entry_point_to_whist_13(room):
    entry = answer(room, "/dts/", "EntryPoint")
    corpus = answer(room, path_of(expand(entry["collection"])), "Collection")
    resource = None
    for member in corpus["member"]:
        edition = answer(room, path_of(expand(member["collection"])), "Collection")
        for r in edition["member"]:
            top = answer(room, path_of(expand(r["navigation"], down=1)), "Navigation")["member"]
            named = [m for m in top if m.get("dublinCore", {}).get("title") == [{"lang": "fr", "value": "Whist"}]]
            if named:
                resource, game = r, named[0]
    assert resource is not None, "no resource has a game named Whist"
    articles = answer(room, path_of(expand(resource["navigation"], ref=game["identifier"], down=1)), "Navigation")
    art13 = next(m for m in articles["member"] if m["citeType"] == "article" and m["identifier"].endswith(".13"))
    doc = tei_answer(room, path_of(expand(resource["document"], ref=art13["identifier"])), resource["@id"])
    text = tei.read_clean(wrapped(doc)[0])
    assert text.startswith("13. ") and "Personne ne doit prendre les cartes" in text
    assert "Personne ne doit prendre les caries" in tei.read_raw(wrapped(doc))  # what the OCR printed is there too
    assert art13["@id"] == f"{BASE}/cite/aduj:whist.13"


# -- the README's examples, against the real answers ----------------------------------------------------

def _identifiers_but_paragraphs(room) -> list[str]:
    members = room.get("/dts/navigation?resource=aduj&ref=whist&down=1").json()["member"]
    return [m["identifier"] for m in members if m["citeType"] != "paragraph"][:5]


def _headers(room, path: str) -> list[str]:
    r = room.get(path)
    return [f"HTTP/1.1 {r.status_code} {r.reason_phrase}",
            *(f"{k}: {v}" for k, v in r.headers.items() if k.lower() in ("content-type", "link"))]


# each `$ curl` example of the README's DTS section → what it prints, computed from the answer
README_EXAMPLES = {
    "curl -s http://127.0.0.1:8001/dts/": lambda room: room.get("/dts/").text.split("\n"),
    "curl -s 'http://127.0.0.1:8001/dts/navigation?resource=aduj&ref=whist&down=1' | jq -r '.member[] | "
    "select(.citeType != \"paragraph\") | .identifier' | head -5": _identifiers_but_paragraphs,
    "curl -s 'http://127.0.0.1:8001/dts/navigation?resource=aduj&ref=whist.13' | jq .ref":
        lambda room: json.dumps(room.get("/dts/navigation?resource=aduj&ref=whist.13").json()["ref"], indent=2,
                                ensure_ascii=False).split("\n"),
    "curl -s -D - -o /dev/null 'http://127.0.0.1:8001/dts/document?resource=aduj&ref=whist.13' | grep -i -E "
    "'^(HTTP|content-type|link)'": lambda room: _headers(room, "/dts/document?resource=aduj&ref=whist.13"),
}


def test_the_readme_s_dts_examples_print_what_the_reading_room_answers(room):
    from tests.readme_examples import README, examples

    shown = {ex.command: ex.expected for ex in examples(README.read_text(encoding="utf-8"))
             if ex.command.startswith("curl") and "/dts/" in ex.command}
    assert set(shown) == set(README_EXAMPLES)
    for command, expected in shown.items():
        assert README_EXAMPLES[command](room) == expected, command
