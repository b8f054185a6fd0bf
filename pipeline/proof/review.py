"""What an editor does, as functions the command line and the reading room share:
rank what to look at first (``queue``), and write decisions (``accept``, ``reject``,
``set_item``, ``set_reading``, ``mark``), each found in the built database and written into the
corpus's proof files. The database is read only; the next build applies the
decisions.
"""

from __future__ import annotations

import math
import sqlite3
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..decisions import STATUSES, Decision, anchor, append, decision, load, proof_file

# the fixes an editor may accept or reject: those of words and numbers (a layout edit
# or a decision already taken is not in the queue)
QUEUE_KINDS = ("typography", "spelling", "number")
DECIDED_ELSEWHERE = 3.0  # how much likelier a decision is to matter where the same print was decided


class ReviewError(Exception):
    """What names nothing, or several things; the message says which, on one line."""


@dataclass(frozen=True)
class Item:
    """A place where a decision would change the reading text, or confirm it."""

    id: str  # '<citation>@<raw start>': stable while the chapter file is
    kind: str  # 'fix' (applied by the engine) or 'suggestion' (left unapplied)
    citation: str
    source_file: str
    page: int | None
    start: int  # raw span
    end: int
    before: str  # as printed
    after: str  # the engine's reading (a fix) or its suggestion
    fix: str
    confidence: float
    same: int  # how many items of the book have the same print
    score: float  # how much a decision is expected to change: the queue's order


def queue(conn: sqlite3.Connection, corpus: Path | None, chapter: str | None = None,
          limit: int | None = 20) -> list[Item]:
    """What to look at first: the fixes the engine was least sure of and the
    suggestions it was most sure of, each weighted by how often the book prints the
    same misreading, and a misreading an editor has already decided elsewhere first
    (its other occurrences are where the decision is likely to hold again)."""
    rows = conn.execute(f"""
        SELECT 'fix' AS kind, k.start, k."end", k.before, k.after, k.fix, k.confidence, p.citation, p.page,
               c.source_file FROM corrections k JOIN passages p ON p.id = k.passage_id JOIN chapters c ON c.id = p.chapter_id
        WHERE k.kind IN ({",".join("?" * len(QUEUE_KINDS))})
        UNION ALL
        SELECT 'suggestion', s.start, s."end", s.before, s.suggestion, s.fix, s.confidence, p.citation, p.page,
               c.source_file FROM suggestions s JOIN passages p ON p.id = s.passage_id JOIN chapters c ON c.id = p.chapter_id
        """, QUEUE_KINDS).fetchall()
    decided_spans, decided_prints = _decided(corpus) if corpus is not None else (set(), set())
    same: dict[str, int] = {}
    for r in rows:
        same[r[3].lower()] = same.get(r[3].lower(), 0) + 1
    items = []
    for kind, start, end, before, after, fix, confidence, citation, page, source_file in rows:
        if chapter and source_file != chapter:
            continue
        if (source_file, start, end) in decided_spans:
            continue
        doubt = 1.0 - confidence if kind == "fix" else confidence
        n = same[before.lower()]
        # a print an editor decided elsewhere: its other occurrences first
        score = doubt * (1.0 + math.log2(n)) * (DECIDED_ELSEWHERE if before.lower() in decided_prints else 1.0)
        items.append(Item(f"{citation}@{start}", kind, citation, source_file, page, start, end, before, after, fix,
                          confidence, n, round(score, 4)))
    items.sort(key=lambda i: (-i.score, i.source_file, i.start))
    return items[:limit] if limit else items


def _decided(corpus: Path) -> tuple[set[tuple[str, int, int]], set[str]]:
    """The spans decided in these chapters, and the prints decided anywhere in the corpus."""
    spans, prints = set(), set()
    folder = Path(corpus) / "proofs"
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        for d in load(path):
            if d.action != "mark":
                spans.add((d.file, d.start, d.end))
                prints.add(d.text.lower())
    return spans, prints


# -- decisions -------------------------------------------------------------------------------

def _item(conn: sqlite3.Connection, item_id: str, corpus: Path) -> Item:
    citation, _, at = item_id.rpartition("@")
    if not citation or not at.isdigit():
        raise ReviewError(f"{item_id!r} is not an item: write '<citation>@<raw offset>', as 'academie proof queue' "
                          "shows it ('aduj:whist.13@4886')")
    for item in queue(conn, corpus, limit=None):
        if item.citation == citation and item.start == int(at):
            return item
    raise ReviewError(f"no fix or suggestion {item_id} to decide (already decided, or not in the database: "
                      "'academie proof queue' lists them)")


def _chapter(conn: sqlite3.Connection, source_file: str) -> str:
    return conn.execute("SELECT raw_text FROM chapters WHERE source_file = ?", (source_file,)).fetchone()[0]


def accept(conn: sqlite3.Connection, corpus: Path, item_id: str, note: str | None = None) -> tuple[Path, Decision]:
    """Keep what the engine read (a fix), or take what it suggested (a suggestion)."""
    item = _item(conn, item_id, corpus)
    raw = _chapter(conn, item.source_file)
    if item.kind == "fix":
        # the engine's reading kept, written down: what the decision teaches the channel
        d = decision("accept", item.source_file, raw, item.start, item.end, fix=item.fix, reading=item.after,
                     target=item.citation, note=note)
    else:
        d = decision("set", item.source_file, raw, item.start, item.end, reading=item.after, fix=item.fix,
                     target=item.citation, note=note)
    return _write(corpus, d)


def reject(conn: sqlite3.Connection, corpus: Path, item_id: str, note: str | None = None) -> tuple[Path, Decision]:
    """Undo what the engine read (a fix), or keep the print (a suggestion): the page
    prints what the OCR read."""
    item = _item(conn, item_id, corpus)
    raw = _chapter(conn, item.source_file)
    return _write(corpus, decision("reject", item.source_file, raw, item.start, item.end, fix=item.fix,
                                   target=item.citation, note=note))


def set_item(conn: sqlite3.Connection, corpus: Path, item_id: str, reading: str,
             note: str | None = None) -> tuple[Path, Decision]:
    """What the page prints where the item is: the span the engine fixed, or the word
    it made a suggestion for (the reading room's 'type a reading')."""
    if not reading.strip():
        raise ReviewError("no reading typed: type what the page prints, or accept or reject the engine's reading")
    if any(unicodedata.category(c).startswith("C") for c in reading):
        raise ReviewError(f"{reading!r} has a control character (a line break, a tab…): type the words as printed, "
                          "on one line")
    item = _item(conn, item_id, corpus)
    raw = _chapter(conn, item.source_file)
    return _write(corpus, decision("set", item.source_file, raw, item.start, item.end, reading=reading, fix=item.fix,
                                   target=item.citation, note=note))


def set_reading(conn: sqlite3.Connection, corpus: Path, citation: str, reading: str, at: str, nth: int = 1,
                note: str | None = None) -> tuple[Path, Decision]:
    """What the page prints for the words ``at`` of a passage, as the reading text
    shows them now, or as the OCR printed them (the ``nth`` time they occur)."""
    p = _passage(conn, citation)
    found = _nth(p["text_clean"], at, nth)
    if found is not None:
        start, end = _raw_span(conn, p, found, found + len(at))
    else:
        found = _nth(p["text_raw"], at, nth)
        if found is None:
            raise ReviewError(f"{at!r} is not in {citation}" + (f" {nth} times" if nth > 1 else "")
                              + ": give the words as the reading text shows them, or as the OCR printed them")
        start, end = p["raw_start"] + found, p["raw_start"] + found + len(at)
    raw = _chapter(conn, p["source_file"])
    return _write(corpus, decision("set", p["source_file"], raw, start, end, reading=reading, target=citation,
                                   note=note))


def mark(conn: sqlite3.Connection, corpus: Path, target: str, status: str, chapter: str | None = None,
         note: str | None = None) -> tuple[Path, Decision]:
    """A page's or a passage's status: 'page 407' (with the chapter when several have
    it) or a citation."""
    if status not in STATUSES:
        raise ReviewError(f"unknown status {status!r}: one of {', '.join(repr(s) for s in STATUSES)}")
    words = target.replace("p.", "page ").split()
    if words and words[0].lower() in ("page", "p") and len(words) == 2 and words[1].isdigit() or target.isdigit():
        number = int(words[-1])
        sql = ("SELECT g.raw_start, g.head_end, c.source_file FROM pages g JOIN chapters c ON c.id = g.chapter_id "
               "WHERE g.number = ?" + (" AND c.source_file = ?" if chapter else ""))
        pages = conn.execute(sql, (number, chapter) if chapter else (number,)).fetchall()
        if not pages:
            raise ReviewError(f"no page {number} in the database" + (f" in {chapter}" if chapter else ""))
        if len(pages) > 1:
            raise ReviewError(f"page {number} is in {len(pages)} chapters ({', '.join(r[2] for r in pages)}): "
                              "say which with --chapter")
        start, head_end, source_file = pages[0]
        raw = _chapter(conn, source_file)
        end = head_end if head_end is not None else start
        return _write(corpus, decision("mark", source_file, raw, start, end, status=status, target=f"page {number}",
                                       note=note))
    p = _passage(conn, target)
    raw = _chapter(conn, p["source_file"])
    return _write(corpus, decision("mark", p["source_file"], raw, p["raw_start"], p["raw_end"], status=status,
                                   target=p["citation"], note=note))


def decisions(conn: sqlite3.Connection, corpus: Path, chapter: str | None = None) -> list[tuple[Decision, bool]]:
    """Every decision of the corpus (or of a chapter), with whether it can be found in
    the chapter as the database has it."""
    out = []
    folder = Path(corpus) / "proofs"
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        for d in load(path):
            if chapter and d.file != chapter:
                continue
            row = conn.execute("SELECT raw_text FROM chapters WHERE source_file = ?", (d.file,)).fetchone()
            out.append((d, row is not None and anchor(d, row[0]) is not None))
    return out


def _write(corpus: Path, d: Decision) -> tuple[Path, Decision]:
    path = proof_file(corpus, d.file)
    return path, append(path, d)


def _passage(conn: sqlite3.Connection, citation: str) -> sqlite3.Row:
    conn.row_factory = sqlite3.Row
    row = conn.execute("SELECT p.*, c.source_file FROM passages p JOIN chapters c ON c.id = p.chapter_id "
                       "WHERE p.citation = ?", (citation.strip(),)).fetchone()
    if row is None:
        raise ReviewError(f"no passage cited {citation!r} in the database")
    return row


def _nth(text: str, words: str, nth: int) -> int | None:
    at = -1
    for _ in range(max(nth, 1)):
        at = text.find(words, at + 1)
        if at < 0 or not words:
            return None
    return at


def _raw_span(conn: sqlite3.Connection, p: sqlite3.Row, a: int, b: int) -> tuple[int, int]:
    """The raw span a span of a passage's clean text came from, a correction it
    touches taken whole."""
    corrections = conn.execute('SELECT start, "end", clean_start, clean_end FROM corrections WHERE passage_id = ? '
                               "ORDER BY clean_start, start", (p["id"],)).fetchall()
    raw_ptr, clean_ptr = p["raw_start"], 0
    start = end = None
    for rs, re_, cs, ce in corrections:
        # the unchanged stretch before this correction: clean [clean_ptr, cs) is raw [raw_ptr, rs)
        if start is None and a < cs:
            start = raw_ptr + (a - clean_ptr)
        if end is None and b <= cs:
            end = raw_ptr + (b - clean_ptr)
        if start is None and cs <= a < max(ce, cs + 1):
            start = rs
        if end is None and cs < b <= ce:
            end = re_
        raw_ptr, clean_ptr = re_, ce
        if start is not None and end is not None:
            break
    if start is None:
        start = raw_ptr + (a - clean_ptr)
    if end is None:
        end = raw_ptr + (b - clean_ptr)
    return start, max(start, end)
