"""The edition's files on the reading room's home page (pipeline/web/downloads.py): the
database, one TEI document per edition and the rule stubs package, each with the size and
sha256 of the very bytes its link gives, and the same bytes `academie build` and
`academie export tei` write."""

from __future__ import annotations

import hashlib
import io
import re
import sqlite3
import zipfile

from pipeline.publish import tei


def listed(room) -> dict[str, dict]:
    r = room.get("/index.json")
    assert r.status_code == 200
    return {f["name"]: f for f in r.json()["downloads"]}


def test_home_offers_the_database_the_tei_documents_and_the_rules_package(room, db):
    editions = [r[0] for r in db.execute("SELECT id FROM editions WHERE id IN (SELECT edition_id FROM chapters) ORDER BY id")]
    assert list(listed(room)) == ["academie.db", *[f"{e}.xml" for e in editions], "academie_rules.zip"]


def test_each_file_has_the_size_and_sha256_of_what_its_link_gives(room):
    page = room.get("/").text
    for name, f in listed(room).items():
        r = room.get(f["url"])
        assert r.status_code == 200, f["url"]
        assert (len(r.content), hashlib.sha256(r.content).hexdigest()) == (f["size"], f["sha256"]), name
        # and the page says so, next to the link
        item = re.search(rf'<li><a href="{re.escape(f["url"])}" download>{re.escape(name)}</a>(.*?)</li>', page, re.S)
        assert item and f["size_text"] in item.group(1) and f["sha256"] in item.group(1), name


def test_readers_asking_a_fresh_home_page_at_once_wait_for_one_making_of_each_file(room, monkeypatch):
    """A server just started on a library: four first requests of the home page at once
    make each edition's TEI document once, and all list the same files."""
    import asyncio

    from pipeline.web import downloads

    monkeypatch.setattr(downloads, "_cache", {})
    made: list[str] = []
    real = tei.edition_tei

    def counting(conn, edition):
        made.append(edition)
        return real(conn, edition)

    monkeypatch.setattr(tei, "edition_tei", counting)

    async def at_once():
        return await asyncio.gather(*(room.ds.client.get("/index.json") for _ in range(4)))

    pages = room.loop.run_until_complete(at_once())
    assert [r.status_code for r in pages] == [200] * 4
    assert len({str(r.json()["downloads"]) for r in pages}) == 1
    assert sorted(made) == sorted(set(made)) and len(made) == len(pages[0].json()["downloads"]) - 2
    assert downloads._making == {}


def test_the_database_is_the_file_served(room, built_db):
    f = listed(room)["academie.db"]
    assert (f["size"], f["sha256"]) == (built_db.stat().st_size, hashlib.sha256(built_db.read_bytes()).hexdigest())


def test_the_tei_documents_are_those_the_export_writes(room, built_db, tmp_path):
    for w in tei.export(built_db, tmp_path):
        r = room.get(f"/download/tei/{w.edition}.xml")
        assert r.content == w.path.read_bytes()
        assert r.headers["content-type"] == "application/tei+xml; charset=utf-8"
        assert r.headers["content-disposition"] == f'attachment; filename="{w.edition}.xml"'
    assert room.get("/download/tei/nope.xml").status_code == 404


def test_the_rules_package_is_the_one_the_build_wrote_beside_the_database(room, built_db):
    r = room.get("/download/academie_rules.zip")
    assert r.headers["content-type"] == "application/zip"
    folder = built_db.parent / "academie_rules"
    on_disk = {p.relative_to(built_db.parent).as_posix(): p.read_bytes() for p in folder.rglob("*.py")}
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        assert {n: z.read(n) for n in z.namelist()} == on_disk
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}  # the same stubs, the same bytes


def test_the_rules_package_is_made_from_the_database_alone(built_db):
    from pipeline.web.downloads import rules_package

    conn = sqlite3.connect(built_db)
    try:
        assert rules_package(conn) == rules_package(conn)
        with zipfile.ZipFile(io.BytesIO(rules_package(conn))) as z:
            sources = "".join(z.read(n).decode() for n in z.namelist())
        for (source,) in conn.execute("SELECT stub_source FROM rules"):
            assert source in sources
    finally:
        conn.close()
