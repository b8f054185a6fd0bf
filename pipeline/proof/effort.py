"""The editor's effort, simulated on a gold chapter: how far the reading text gets
towards the printed page after N decisions, taken in the queue's order and in reading
order.

A simulated editor takes each item of the queue (a fix or a suggestion of the engine)
and decides it as the gold says: the words the item touches become the gold's words
aligned to them (kept, if they are already the gold's). An item whose words cannot be
aligned one for one with the gold's costs a decision and changes nothing. The figure
this feature is judged by: how many decisions the queue needs to bring the chapter
half-way to what deciding every item would give, against the same taken in reading
order.
"""

from __future__ import annotations

import bisect
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import regex
from rapidfuzz.distance import Levenshtein

from ..clean.evaluate import normalise, words
from .review import Item, queue

_WORD = regex.compile(r"[\p{L}\p{N}'’&]+")


@dataclass
class Effort:
    chapter: str
    items: int
    steps: list[int]  # numbers of decisions measured
    queue_cer: list[float]  # CER after each number of decisions, in the queue's order
    reading_cer: list[float]  # the same, in reading order
    queue_half: int | None  # decisions to get half-way to deciding everything, in the queue's order
    reading_half: int | None


def effort(conn: sqlite3.Connection, gold_dir: Path, steps: tuple[int, ...] = (0, 5, 10, 20, 40)) -> list[Effort]:
    out = []
    for gold in sorted(Path(gold_dir).glob("*.txt")):
        row = conn.execute("SELECT id FROM chapters WHERE source_file = ?", (gold.name,)).fetchone()
        if row is None:
            continue
        out.append(_chapter_effort(conn, row[0], gold.name, gold.read_text(encoding="utf-8"), steps))
    return out


def _chapter_effort(conn, chapter_id: int, name: str, gold: str, steps: tuple[int, ...]) -> Effort:
    passages = conn.execute("SELECT id, citation, raw_start, text_clean FROM passages WHERE chapter_id = ? ORDER BY seq",
                            (chapter_id,)).fetchall()
    offsets, texts = {}, []
    pos = 0
    for pid, citation, _, text in passages:
        offsets[citation] = (pos, pid)
        texts.append(text)
        pos += len(text) + 1
    clean = "\n".join(texts)
    items = queue(conn, None, chapter=name, limit=None)
    decided = [_decision(conn, it, offsets, clean, gold) for it in items]
    by_reading = sorted(range(len(items)), key=lambda k: items[k].start)
    gold_n = normalise(gold)

    def cer_after(order: list[int], n: int) -> float:
        edits = sorted((decided[k] for k in order[:n] if decided[k] is not None), key=lambda e: e[0])
        text, last = [], 0
        for a, b, reading in edits:
            if a < last:
                continue
            text.append(clean[last:a])
            text.append(reading)
            last = b
        text.append(clean[last:])
        return Levenshtein.distance(normalise("".join(text)), gold_n) / max(len(gold_n), 1)

    queue_order = list(range(len(items)))
    counts = [min(n, len(items)) for n in steps] + [len(items)]
    q = [cer_after(queue_order, n) for n in counts]
    r = [cer_after(by_reading, n) for n in counts]
    target = q[0] - (q[0] - q[-1]) / 2  # half-way to what deciding every item gives
    return Effort(name, len(items), counts, q, r, _first(queue_order, target, cer_after),
                  _first(by_reading, target, cer_after))


def _first(order: list[int], target: float, cer_after) -> int | None:
    for n in range(len(order) + 1):
        if cer_after(order, n) <= target + 1e-12:
            return n
    return None


def _decision(conn, item: Item, offsets: dict, clean: str, gold: str) -> tuple[int, int, str] | None:
    """The span of the joined clean text the item touches, and what the gold has there."""
    where = offsets.get(item.citation)
    if where is None:
        return None
    base, pid = where
    span = _clean_span(conn, pid, item)
    if span is None:
        return None
    a, b = base + span[0], base + span[1]
    found = list(_WORD.finditer(clean))
    starts = [m.start() for m in found]
    first = max(bisect.bisect_right(starts, a) - 1, 0)
    touched = [i for i in range(first, bisect.bisect_left(starts, max(b, a + 1))) if found[i].end() > a]
    if not touched:
        return None
    gold_words = words(normalise(gold))
    hyp = [m.group().replace("’", "'") for m in found]
    for op in Levenshtein.opcodes(hyp, gold_words):
        if op.src_start <= touched[0] and touched[-1] < op.src_end:
            if op.tag == "equal":
                return None  # already the gold's: the decision keeps it
            if op.tag == "replace" and op.src_end - op.src_start == op.dest_end - op.dest_start:
                k = touched[0] - op.src_start
                reading = " ".join(gold_words[op.dest_start + k: op.dest_start + k + len(touched)])
                return found[touched[0]].start(), found[touched[-1]].end(), reading
            return None
    return None


def _clean_span(conn, pid: int, item: Item) -> tuple[int, int] | None:
    """Where the item's raw span is in its passage's clean text."""
    if item.kind == "fix":
        row = conn.execute("SELECT clean_start, clean_end FROM corrections WHERE passage_id = ? AND start = ?",
                           (pid, item.start)).fetchone()
        return (row[0], row[1]) if row else None
    # a suggestion: the word as printed, where the raw offset lands in the clean text
    raw_start = conn.execute("SELECT raw_start FROM passages WHERE id = ?", (pid,)).fetchone()[0]
    shift = 0
    for start, end, cs, ce in conn.execute('SELECT start, "end", clean_start, clean_end FROM corrections '
                                           "WHERE passage_id = ? AND start < ? ORDER BY start", (pid, item.start)):
        if end > item.start:
            return None  # inside a fix: not a word as printed
        shift += (ce - cs) - (end - start)
    a = item.start - raw_start + shift
    return a, a + (item.end - item.start)
