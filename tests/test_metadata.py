"""schema/metadata.yml (the Datasette metadata) against the database the build writes.

The metadata documents every table and column of the public database and holds the
canned queries; these tests fail when the schema and the metadata drift apart, and
run each canned query as Datasette would, with its named parameters.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
METADATA = ROOT / "schema" / "metadata.yml"


@pytest.fixture(scope="module")
def metadata() -> dict:
    return yaml.safe_load(METADATA.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def database_meta(metadata) -> dict:
    return metadata["databases"]["academie"]


@pytest.fixture(scope="module")
def fts_tables(built_db) -> set[str]:
    """The full-text index: FTS virtual tables and their shadow tables (<fts>_data, _idx …)."""
    conn = sqlite3.connect(built_db)
    try:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        conn.close()
    fts = {name for name, sql in rows if re.match(r"CREATE VIRTUAL TABLE\b.*\bUSING FTS\d", sql or "", re.I | re.S)}
    return fts | {name for name, _ in rows if any(name.startswith(f"{f}_") for f in fts)}


@pytest.fixture(scope="module")
def schema(built_db, fts_tables) -> dict[str, list[str]]:
    """table → its columns, for every table of the built database but the full-text index."""
    conn = sqlite3.connect(built_db)
    try:
        tables = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            if r[0] not in fts_tables and not r[0].startswith("sqlite_")
        ]
        return {t: [c[1] for c in conn.execute(f"PRAGMA table_info([{t}])")] for t in tables}
    finally:
        conn.close()


def _descriptions(database_meta) -> list[str]:
    texts = [database_meta.get("description") or ""]
    for table in (database_meta.get("tables") or {}).values():
        texts.append(table.get("description") or "")
        texts.extend(str(d) for d in (table.get("columns") or {}).values())
    texts.extend(q.get("description") or "" for q in (database_meta.get("queries") or {}).values())
    return texts


def test_top_level(metadata):
    assert metadata["title"].strip()
    assert "aduj:whist.13" in metadata["description_html"]
    assert metadata["license"] == "CC0-1.0"
    assert metadata["license_url"] == "https://creativecommons.org/publicdomain/zero/1.0/"
    assert metadata["source"].strip()


def test_every_table_and_column_is_described(schema, database_meta):
    assert {"passages", "corrections", "chapters"} <= set(schema)  # the FTS filter kept the real tables
    tables = database_meta.get("tables") or {}
    missing = []
    for table, columns in schema.items():
        meta = tables.get(table) or {}
        if not str(meta.get("description") or "").strip():
            missing.append(table)
        described = meta.get("columns") or {}
        missing += [f"{table}.{c}" for c in columns if not str(described.get(c) or "").strip()]
    assert not missing, f"schema/metadata.yml has no description for: {', '.join(missing)}"


def test_metadata_names_only_what_exists(schema, fts_tables, database_meta):
    """Stale metadata: a table, a column or an option naming what the database lacks."""
    stale = []
    for table, meta in (database_meta.get("tables") or {}).items():
        if table not in schema:
            stale.append(f"table {table}")
            continue
        columns = set(schema[table])
        stale += [f"column {table}.{c}" for c in (meta.get("columns") or {}) if c not in columns]
        named = [meta.get(k) for k in ("label_column", "sort", "sort_desc", "fts_pk")] + list(meta.get("facets") or [])
        stale += [f"{table}: option naming {c}" for c in named if c is not None and c not in columns]
        if meta.get("fts_table") and meta["fts_table"] not in fts_tables:
            stale.append(f"{table}: fts_table {meta['fts_table']}")
    # references in the prose: 'chapters.raw_text', 'games.slug' …
    for text in _descriptions(database_meta):
        for table, column in re.findall(r"\b([a-z_]+)\.([a-z_]+)\b", text):
            if table in schema and column not in schema[table]:
                stale.append(f"{table}.{column} (in a description)")
    assert not stale, f"schema/metadata.yml names what the database lacks: {', '.join(stale)}"


def test_passages_sort_is_reading_order(db, database_meta):
    """metadata sorts passages by id, which must be chapter_id, then seq."""
    assert database_meta["tables"]["passages"]["sort"] == "id"
    by_id = [r[0] for r in db.execute("SELECT id FROM passages ORDER BY id")]
    by_reading = [r[0] for r in db.execute("SELECT id FROM passages ORDER BY chapter_id, seq")]
    assert by_id == by_reading


# -- canned queries ----------------------------------------------------------------


def run(db, database_meta, name: str, **params) -> list[sqlite3.Row]:
    query = database_meta["queries"][name]
    assert set(re.findall(r"(?<!:):(\w+)", query["sql"])) == set(params), f"{name}: parameters"
    return db.execute(query["sql"], params).fetchall()


def test_queries_are_titled_and_described(database_meta):
    queries = database_meta["queries"]
    assert {"article", "search", "corrections_of", "page"} <= set(queries)
    for name, q in queries.items():
        assert str(q.get("title") or "").strip(), name
        assert str(q.get("description") or "").strip(), name


@pytest.mark.parametrize("as_text", [False, True], ids=["int", "text"])  # Datasette passes text
def test_article(db, database_meta, as_text):
    number = "13" if as_text else 13
    rows = run(db, database_meta, "article", game="whist", number=number)
    assert len(rows) == 1
    row = rows[0]
    assert row["citation"] == "aduj:whist.13"
    assert row["page"] == 407
    assert row["text_clean"].startswith("13. ")
    assert row["edition"] == "aduj"
    assert row["source_file"].endswith(".txt")


def test_search(db, database_meta):
    rows = run(db, database_meta, "search", q="matadors")
    assert rows
    assert {r["game"] for r in rows} == {"hombre"}
    assert all("[matadors]" in r["snippet"].lower() for r in rows)


@pytest.mark.parametrize("q", ["l'as", 'le "matador', "  vole   entreprise "])
def test_search_takes_any_text(db, database_meta, q):
    """Apostrophes, stray quotes and extra spaces are words, not FTS5 syntax errors."""
    run(db, database_meta, "search", q=q)


def test_corrections_of(db, database_meta):
    rows = run(db, database_meta, "corrections_of", citation="aduj:whist.13")
    assert any(r["fix"] == "segment.article_number" and r["before"] == "i3." and r["after"] == "13." for r in rows)
    starts = [r["clean_start"] for r in rows]
    assert starts == sorted(starts)


@pytest.mark.parametrize("as_text", [False, True], ids=["int", "text"])
def test_page(db, database_meta, as_text):
    rows = run(db, database_meta, "page", game="hombre", page="161" if as_text else 161)
    assert [r["number"] for r in rows] == list(range(50, 61))
    assert {r["kind"] for r in rows} == {"article"}
    assert rows[0]["citation"] == "aduj:hombre.50"
