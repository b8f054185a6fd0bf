"""Writing the database: the built chapters → the SQLite file.

The schema is schema/academie.sql; rows are written with sqlite-utils, which also
builds the full-text index (FTS5, accents and case ignored). The database is written
to a temporary file beside the target and renamed over it only once complete, so a
failed or killed build leaves the previous database as it was.
"""

from __future__ import annotations

import bisect

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from ..corpus import UNKNOWN
from ..files import remove_stale, temporary
from ..fixes import FIXES, kind_of
from ..lexicon import Lexicon
from ..records import BuiltChapter, CheckRecord, Diagnostic, Edition, Game
from .search import passages_search_text

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"
FTS_TOKENIZER = "unicode61 remove_diacritics 2"


def schema_sql() -> str:
    path = SCHEMA_DIR / "academie.sql"
    if not path.exists():
        raise FileNotFoundError(f"{path}: the database schema is missing (install the project with 'pip install -e .')")
    return path.read_text(encoding="utf-8")


def publish(
    db_path: Path | str,
    editions: list[Edition],
    chapters: list[BuiltChapter],
    games: list[Game],
    diagnostics: list[Diagnostic],
    stubs: dict | None = None,
    checks: list[CheckRecord] | None = None,
    search: dict[str, tuple[str, ...]] | None = None,
) -> None:
    """``search``: the search text of each chapter's passages (``passages_search_text``),
    by chapter file, if made already. The chapters all at once; ``Writer`` takes them
    one by one (a library's do not fit in memory together)."""
    stubs = stubs or {}
    with Writer(db_path, editions, {c.info.edition_id for c in chapters}, games) as writer:
        for c in chapters:
            writer.chapter(c, (search or {}).get(c.info.source_file))
        writer.rules(stubs)
        writer.finish(diagnostics, checks or [])


class Writer:
    """The database written chapter by chapter, into a temporary file beside it that
    takes its name only when ``finish`` has written the rest (the build log, the
    checks, the full-text index): left without ``finish``, the file is removed and the
    database is as it was. Each chapter given is written and can then be let go, so
    that what a build holds is one chapter, not the library. Rows are the ones
    ``publish`` writes: chapters' ids and every table's ids follow the order given."""

    def __init__(self, db_path: Path | str, editions: list[Edition], used: set[str], games: list[Game]):
        self.path = Path(db_path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(self.path)
        self.tmp = temporary(self.path)
        if self.tmp.exists():
            self.tmp.unlink()
        self.conn = sqlite3.connect(self.tmp)
        # the file is private until renamed, and discarded if anything fails: no journal,
        # no syncing while it is written
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        self.db = sqlite_utils.Database(self.conn)
        self.conn.executescript(schema_sql())
        _write_fixes(self.db)
        _write_editions(self.db, editions, used)
        self.db["games"].insert_all({"slug": g.slug, "name": g.name} for g in games)
        self.ids = _Ids()
        self._ruled = 0  # the passages up to this id have had their rules written
        self.chapters = 0
        self.done = False

    def chapter(self, c: BuiltChapter, search: tuple[str, ...] | None = None) -> None:
        """One chapter's rows (``search``: its passages' search texts, made if None)."""
        self.chapters += 1
        _write_chapter(self.db, self.chapters, c)
        _write_pages(self.db, self.chapters, c, self.ids)
        _write_passages(self.db, self.chapters, c, self.ids,
                        search if search is not None else passages_search_text(c.seg.passages, Lexicon.default()))

    def rules(self, stubs: dict) -> None:
        """The rules of passages written since the last call (citation → (Stub, RuleRecord))."""
        ids = dict(self.conn.execute("SELECT citation, id FROM passages WHERE id > ?", (self._ruled,)))
        self._ruled = self.ids.passage
        _write_rules(self.db, stubs, ids)

    def stubs(self) -> list:
        """The stubs written, in the order they were (``Stub``), read back from the file."""
        from ..link.stubs import Stub

        return [Stub(*row) for row in self.conn.execute(
            "SELECT citation, stub_module, stub_function, stub_source, status FROM rules ORDER BY rowid")]

    def finish(self, diagnostics: list[Diagnostic], checks: list[CheckRecord]) -> None:
        """The rest, the index, and the file on disk under the database's name."""
        _complete(self.db, diagnostics, checks)
        with open(self.tmp, "rb") as f:
            os.fsync(f.fileno())  # on disk before it takes the database's name
        os.replace(self.tmp, self.path)
        self.done = True

    def close(self) -> None:
        """Without ``finish``: the temporary file removed, the database as it was."""
        if not self.done:
            self.conn.close()
            self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _write_rules(db: sqlite_utils.Database, stubs: dict, ids: dict[str, int]) -> None:
    """``ids``: the id of each passage cited, by citation."""
    _insert(db, "rules", [
        {
            "passage_id": ids[cite],
            "citation": cite,
            "modality": rec.modality,
            "bearer": rec.bearer,
            "condition": rec.condition,
            "consequences": json.dumps([{**c.spec(), "start": c.start, "end": c.end} for c in rec.consequences],
                                       ensure_ascii=False),
            "spans": json.dumps(rec.spans),
            "confidence": rec.confidence,
            "missing": "; ".join(rec.missing) or None,
            "stub_module": stub.module,
            "stub_function": stub.function,
            "stub_source": stub.source,
            "status": stub.status,
        }
        for cite, (stub, rec) in stubs.items()
    ])


def _write_chapter_games(conn: sqlite3.Connection) -> None:
    """Each chapter's games and their counts, from the passages just written: what the
    home page lists, which would otherwise group a page's thousands of passages at each
    request."""
    conn.execute("""
        INSERT INTO chapter_games (chapter_id, game, first_seq, passages, articles)
        SELECT chapter_id, game, min(seq), count(*), sum(kind = 'article') FROM passages
        WHERE game IS NOT NULL GROUP BY chapter_id, game ORDER BY chapter_id, min(seq)""")


def _write_checks(db: sqlite_utils.Database, checks: list[CheckRecord]) -> None:
    """The corpus's checks of the treatise's figures, each linked to the passage it checks."""
    db["checks"].insert_all(
        {
            "name": c.name,
            "game": c.game,
            "citation": c.citation,
            "claim": c.claim,
            "text_says": None if c.error else json.dumps(c.text_says, ensure_ascii=False),
            "code_says": None if c.error else json.dumps(c.code_says, ensure_ascii=False),
            "agrees": None if c.agrees is None else int(c.agrees),
            "note": c.note,
            "error": c.error,
        }
        for c in checks
    )


def _complete(db: sqlite_utils.Database, diagnostics: list[Diagnostic], checks: list[CheckRecord]) -> None:
    """The rows written after the chapters', the full-text index, the file compacted and
    closed (complete, not yet under the database's name)."""
    conn = db.conn
    db["build_log"].insert_all(
        {"source_file": d.file, "level": d.level, "message": d.message} for d in diagnostics
    )
    _write_checks(db, checks)
    _write_chapter_games(conn)
    db["passages"].enable_fts(["text_clean", "text_search", "text_raw"], tokenize=FTS_TOKENIZER)
    conn.commit()
    conn.execute("VACUUM")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()


@dataclass
class _Ids:
    """Row ids given across chapters, so that every table's ids follow reading order."""

    page: int = 0
    passage: int = 0
    correction: int = 0


def _insert(db: sqlite_utils.Database, table: str, rows: list[dict]) -> None:
    """Rows of the same columns into ``table``, as sqlite-utils' ``insert_all`` writes
    them, without its per-value conversions (a fifth of publishing's time): every value
    here is already one SQLite stores (a list or dict would be refused, not converted)."""
    if not rows:
        return
    columns = list(rows[0])
    names = ", ".join(f'"{c}"' for c in columns)
    db.conn.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})',
                        [[row[c] for c in columns] for row in rows])


def _write_fixes(db: sqlite_utils.Database) -> None:
    db["fixes"].insert_all(
        {"name": f.name, "stage": f.stage, "kind": f.kind, "explanation": f.explanation} for f in FIXES.values()
    )


def _write_editions(db: sqlite_utils.Database, editions: list[Edition], used: set[str]) -> None:
    db["editions"].insert_all(
        {"id": e.id, "title": e.title, "year": e.year, "source": e.source, "chapter_count": e.chapters}
        for e in editions
        if e.id in used or e.id != UNKNOWN.id
    )


def _write_chapter(db: sqlite_utils.Database, chapter_id: int, c: BuiltChapter) -> None:
    layout = c.seg.layout
    raw = layout.chapter
    pages = [p.page for p in c.seg.passages if p.page is not None]
    _insert(db, "chapters", [
        {
            "id": chapter_id,
            "edition_id": c.info.edition_id,
            "source_file": c.info.source_file,
            "number": c.info.number,
            "total": c.info.total,
            "title": c.info.title,
            "sha256": raw.sha256,
            "raw_text": raw.text,
            "encoding": raw.encoding,
            "edition_source": c.info.edition_source,
            "layout_form": layout.form,
            "citation_key": c.info.key,
            "note": c.info.note,
            "passages": len(c.seg.passages),
            "articles": sum(p.kind == "article" for p in c.seg.passages),
            "first_page": min(pages, default=None),
            "last_page": max(pages, default=None),
        }
    ])


def _write_pages(db: sqlite_utils.Database, chapter_id: int, c: BuiltChapter, ids: _Ids) -> None:
    layout = c.seg.layout
    rows = []
    for p in layout.pages:
        ids.page += 1
        rows.append(
            {
                "id": ids.page,
                "chapter_id": chapter_id,
                "seq": p.seq,
                "number": p.number,
                "number_raw": p.number_raw,
                "number_status": p.number_status,
                "running_head": p.running_head,
                "head_game": p.head_game,
                "raw_start": p.start,
                "head_end": p.head_end,
                "status": p.status,
            }
        )
    _insert(db, "pages", rows)
    _insert(db, "furniture", [{"chapter_id": chapter_id, "kind": f.kind, "raw_start": f.start, "raw_end": f.end,
                               "text": f.text} for f in layout.furniture])


def _write_passages(db: sqlite_utils.Database, chapter_id: int, c: BuiltChapter, ids: _Ids,
                    search: tuple[str, ...]) -> None:
    """A chapter's passages (``search``: their search texts), with their corrections and suggestions."""
    rows, corrections, suggestions = [], [], []
    alto = c.seg.layout.chapter.alto
    words = alto.words() if alto is not None else []
    starts = [w.start for w in words]
    for p, cite, text_search in zip(c.seg.passages, c.citations, search, strict=True):
        ids.passage += 1
        first, last = _alto_ids(words, starts, p.text.raw_start, p.text.raw_end)
        for sg in p.suggestions:
            suggestions.append(
                {"passage_id": ids.passage, "start": sg.start, "end": sg.end, "before": sg.before,
                 "suggestion": sg.suggestion, "fix": sg.fix, "confidence": sg.confidence}
            )
        rows.append(
            {
                "id": ids.passage,
                "citation": cite,
                "chapter_id": chapter_id,
                "seq": p.seq,
                "game": p.game,
                "kind": p.kind,
                "number": p.number,
                "number_raw": p.number_raw,
                "page": p.page,
                "text_raw": p.text.raw_text,
                "text_clean": p.text.text,
                "text_search": text_search,
                "raw_start": p.text.raw_start,
                "raw_end": p.text.raw_end,
                "term": p.term,
                "note_for": c.citations[p.note_for] if p.note_for is not None else None,
                "alto_first": first,
                "alto_last": last,
                "status": p.status,
            }
        )
        for k in p.text.corrections():
            ids.correction += 1
            corrections.append(
                {
                    "id": ids.correction,
                    "passage_id": ids.passage,
                    "start": k.start,
                    "end": k.end,
                    "before": k.before,
                    "after": k.after,
                    "fix": k.fix,
                    "kind": kind_of(k.fix),
                    "confidence": k.confidence,
                    "clean_start": k.clean_start,
                    "clean_end": k.clean_end,
                }
            )
    _insert(db, "passages", rows)
    _insert(db, "corrections", corrections)
    _insert(db, "suggestions", suggestions)


def _alto_ids(words: list, starts: list[int], start: int, end: int) -> tuple[str | None, str | None]:
    """The ALTO ids of the first and last String a raw span overlaps."""
    if not words:
        return None, None
    k = max(0, bisect.bisect_right(starts, start) - 1)
    if words[k].end <= start:
        k += 1
    j = bisect.bisect_left(starts, end) - 1
    if k >= len(words) or j < k:
        return None, None
    return words[k].id, words[j].id
