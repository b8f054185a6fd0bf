"""The edition's files, offered on the reading room's home page, each with its size and
sha256: the SQLite database (Datasette's own download of an immutable database,
``/academie.db``), one TEI document per edition (``/download/tei/aduj.xml``, the bytes
``academie export tei`` writes) and the rule stubs package (``/download/academie_rules.zip``,
the files ``academie build`` writes beside the database, from ``rules.stub_source``).

Everything is made from the database being served, which is immutable, once per database
file (its path, size and modification time): the first request builds, the others read.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import zipfile

from datasette import Response

RULES_ZIP = "academie_rules.zip"
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so that the same stubs make the same bytes
_cache: dict[tuple, object] = {}
_making: dict[tuple, asyncio.Future] = {}  # what is being made for _cache, by key


def _db(datasette):
    return datasette.get_database()


def database_key(datasette) -> tuple:
    """Names the database file being served: another after a rebuild renamed over it."""
    path = _db(datasette).path
    st = os.stat(path)
    return (path, st.st_size, st.st_mtime_ns)


def _key(datasette, what: str) -> tuple:
    return (*database_key(datasette), what)


async def cached(datasette, what: str, make):
    """``make(conn)`` run on the database's connection (in Datasette's thread), once per
    database file; what it makes is shared by every request: not to be changed."""
    return await _once(_key(datasette, what), lambda: _db(datasette).execute_fn(make))


async def _once(key: tuple, make):
    """``await make()`` once for ``key``, kept in _cache: requests that come while it is
    being made wait for it (a server started on a library and asked its home page by
    several readers at once would otherwise make every TEI document once for each); a
    failure is not kept."""
    if key in _cache:
        return _cache[key]
    task = _making.get(key)
    if task is None:
        task = _making[key] = asyncio.ensure_future(make())
        task.add_done_callback(lambda _: _making.pop(key, None))
    value = await asyncio.shield(task)  # a request that leaves does not stop the others' making
    _cache[key] = value
    return value


async def edition_ids(datasette) -> list[str]:
    from ..publish.tei import editions

    return await cached(datasette, "editions", lambda conn: [e["id"] for e in editions(conn)])


async def tei_document(datasette, edition: str) -> bytes:
    """The TEI document of an edition, as ``academie export tei`` writes it."""
    from ..publish.tei import edition_tei, tei_bytes

    return await cached(datasette, f"tei:{edition}", lambda conn: tei_bytes(edition_tei(conn, edition)))


def rules_package(conn) -> bytes:
    """The rule stubs package as a zip: the files ``academie build`` writes, from the
    database's ``rules.stub_source``, in a fixed order with fixed times."""
    from ..link.stubs import PACKAGE, Stub, package_files

    stubs = [Stub(*r) for r in conn.execute(
        "SELECT citation, stub_module, stub_function, stub_source, status FROM rules ORDER BY passage_id")]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, source in sorted(package_files(stubs).items()):
            info = zipfile.ZipInfo(f"{PACKAGE}/{name}", date_time=_ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, source.encode("utf-8"))
    return out.getvalue()


def _sha256_file(path: str) -> tuple[int, str]:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return os.path.getsize(path), h.hexdigest()


async def files(datasette) -> list[dict]:
    """The files the home page offers: name, url, what it is, size in bytes and sha256;
    made once per database file (hashing a library's TEI documents takes longer than
    the rest of the page)."""
    return await _once(_key(datasette, "files"), lambda: _files(datasette))


async def _files(datasette) -> list[dict]:
    db = _db(datasette)
    size, digest = _sha256_file(db.path)
    out = [{"name": f"{db.name}.db", "url": f"/{db.name}.db", "size": size, "sha256": digest,
            "what": "the SQLite database: every table of the edition (schema/academie.sql)"}]
    for edition in await edition_ids(datasette):
        data = await tei_document(datasette, edition)
        out.append({"name": f"{edition}.xml", "url": f"/download/tei/{edition}.xml", "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "what": f"the TEI P5 document of the edition {edition}: both texts, every correction, citations"})
    rules = await cached(datasette, "rules", rules_package)
    out.append({"name": RULES_ZIP, "url": f"/download/{RULES_ZIP}", "size": len(rules),
                "sha256": hashlib.sha256(rules).hexdigest(),
                "what": "the rule stubs package academie_rules: one Python function per article"})
    for f in out:
        f["size_text"] = human_size(f["size"])
    return out


def human_size(n: int) -> str:
    return f"{n} B" if n < 1000 else f"{n / 1000:.1f} kB" if n < 1_000_000 else f"{n / 1_000_000:.1f} MB"


# -- routes ----------------------------------------------------------------------------------------

async def tei_download(datasette, request):
    edition = request.url_vars["edition"]
    if edition not in await edition_ids(datasette):
        return Response.text(f"No edition {edition!r} in the database", status=404)
    return Response(await tei_document(datasette, edition), content_type="application/tei+xml; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{edition}.xml"'})


async def rules_download(datasette, request):
    return Response(await cached(datasette, "rules", rules_package), content_type="application/zip",
                    headers={"content-disposition": f'attachment; filename="{RULES_ZIP}"'})


ROUTES = [
    (r"^/download/tei/(?P<edition>[\w.-]{1,64})\.xml$", tei_download),
    (r"^/download/academie_rules\.zip$", rules_download),
]
