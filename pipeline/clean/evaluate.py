"""Measuring the cleaning against hand-corrected gold chapters.

A gold file ``<chapter>.txt`` is the reading text of the corpus chapter of the same
name, corrected by hand (conventions in its folder's CONVENTIONS.md). Texts are
compared after folding whitespace and dropping spaces before punctuation, as the
conventions say. The raw side is the page text: the chapter file without the
export's header and footer lines (metadata of the export, not OCR; the gold drops
them too), running heads included (they are on the page, and removing them is the
layout stage's work). For each chapter:

- CER (character error rate) of the raw page text, of the reading text with only its
  layout edits (running heads dropped, lines and pages joined, hyphens mended,
  spacing), and of the clean reading text: the reduction splits into what layout did
  and what the fixes of words and numbers did;
- word by word, after aligning each text's words with the gold's: words the raw
  text had wrong and the clean text has right (fixed), and words the raw text had
  right and the clean text has wrong (broken) — the figure precision is judged by.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import regex
from rapidfuzz.distance import Levenshtein

_SPACE = regex.compile(r"\s+")
_SPACE_BEFORE = regex.compile(r" (?=[,.;:!?)])")
_SPACE_AFTER = regex.compile(r"(?<=\() ")
_WORD = regex.compile(r"[\p{L}\p{N}'’&]+")


def normalise(text: str) -> str:
    text = _SPACE.sub(" ", text).strip()
    text = _SPACE_BEFORE.sub("", text)
    return _SPACE_AFTER.sub("", text)


def words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(text)]


@dataclass
class Score:
    chapter: str
    characters: int = 0  # of the gold text
    words: int = 0  # of the gold text
    errors_raw: int = 0  # character edits, raw page text → gold
    errors_layout: int = 0  # reading text with its layout edits only → gold
    errors_clean: int = 0
    right_raw: int = 0  # gold words the raw text has right
    fixed: int = 0
    broken: int = 0
    broken_words: list[tuple[str, str]] = field(default_factory=list)  # (gold word, what cleaning made of it)
    # each fix of words and numbers: (its confidence, whether the words it touched are the gold's)
    fixes: list[tuple[float, bool]] = field(default_factory=list)

    @property
    def cer_raw(self) -> float:
        return self.errors_raw / max(self.characters, 1)

    @property
    def cer_layout(self) -> float:
        return self.errors_layout / max(self.characters, 1)

    @property
    def cer_clean(self) -> float:
        return self.errors_clean / max(self.characters, 1)

    @property
    def reduction(self) -> float:
        return 1.0 - self.errors_clean / self.errors_raw if self.errors_raw else 0.0

    @property
    def reduction_layout(self) -> float:
        """The share of the raw errors the layout edits removed."""
        return (self.errors_raw - self.errors_layout) / self.errors_raw if self.errors_raw else 0.0

    @property
    def reduction_words(self) -> float:
        """The share of the raw errors the fixes of words and numbers removed, after layout."""
        return (self.errors_layout - self.errors_clean) / self.errors_raw if self.errors_raw else 0.0

    @property
    def wrong_raw(self) -> int:
        return self.words - self.right_raw

    @property
    def fixed_rate(self) -> float:
        return self.fixed / max(self.wrong_raw, 1)

    @property
    def broken_rate(self) -> float:
        return self.broken / max(self.right_raw, 1)

    def __add__(self, other: "Score") -> "Score":
        total = Score("total")
        for name in ("characters", "words", "errors_raw", "errors_layout", "errors_clean", "right_raw", "fixed",
                     "broken"):
            setattr(total, name, getattr(self, name) + getattr(other, name))
        total.broken_words = self.broken_words + other.broken_words
        total.fixes = self.fixes + other.fixes
        return total


def score(chapter: str, raw: str, clean: str, gold: str, layout: str | None = None) -> Score:
    """``raw`` is the page text, ``layout`` the reading text with its layout edits
    only (the clean text if not given), ``clean`` the reading text."""
    r, c, g = normalise(raw), normalise(clean), normalise(gold)
    s = Score(chapter, characters=len(g))
    s.errors_raw = Levenshtein.distance(r, g)
    s.errors_clean = Levenshtein.distance(c, g)
    s.errors_layout = Levenshtein.distance(normalise(layout), g) if layout is not None else s.errors_clean
    gw, rw, cw = words(g), words(r), words(c)
    s.words = len(gw)
    raw_right = _right(rw, gw)
    clean_right, clean_seen = _right_with_hyp(cw, gw)
    s.right_raw = sum(raw_right)
    for j, (a, b) in enumerate(zip(raw_right, clean_right)):
        if not a and b:
            s.fixed += 1
        elif a and not b:
            s.broken += 1
            s.broken_words.append((gw[j], clean_seen[j] or ""))
    return s


# Confidence bands of the calibration table: a fix's confidence should be the share of
# the fixes of its band that are right.
BANDS = ((0.95, 1.0), (0.9, 0.95), (0.8, 0.9), (0.7, 0.8), (0.5, 0.7), (0.0, 0.5))


def calibration(fixes: list[tuple[float, bool]]) -> list[tuple[float, float, int, int]]:
    """(low, high, fixes, right) per confidence band, highest first; a band holds
    low ≤ confidence < high (the top band includes 1.0)."""
    out = []
    for low, high in BANDS:
        inside = [right for c, right in fixes if low <= c < high or (high == 1.0 and c == 1.0)]
        out.append((low, high, len(inside), sum(inside)))
    return out


def fixes_judged(clean: str, gold: str, corrections: list[tuple[int, int, float, str]]) -> list[tuple[float, bool]]:
    """Each fix of words and numbers (``corrections``: start and end in ``clean``,
    confidence, kind) with whether it is right: every word of the clean text it
    touches is a word of the gold, as the words are aligned. A fix that touches no
    word (punctuation) is not judged."""
    import bisect

    found = list(_WORD.finditer(clean))
    hyp = [m.group().replace("’", "'") for m in found]
    right = [False] * len(hyp)
    for op in Levenshtein.opcodes(hyp, words(normalise(gold))):
        if op.tag == "equal":
            for i in range(op.src_start, op.src_end):
                right[i] = True
    starts = [m.start() for m in found]
    out = []
    for a, b, confidence, kind in corrections:
        if kind == "layout":
            continue
        b = max(b, a + 1)  # a deletion or insertion touches the word at its place
        first = max(bisect.bisect_right(starts, a) - 1, 0)
        touched = [i for i in range(first, bisect.bisect_left(starts, b)) if found[i].end() > a]
        if touched:
            out.append((confidence, all(right[i] for i in touched)))
    return out


def _right(hyp: list[str], ref: list[str]) -> list[bool]:
    return _right_with_hyp(hyp, ref)[0]


def _right_with_hyp(hyp: list[str], ref: list[str]) -> tuple[list[bool], list[str | None]]:
    right = [False] * len(ref)
    seen: list[str | None] = [None] * len(ref)
    for op in Levenshtein.opcodes(hyp, ref):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        for k, j in enumerate(range(j1, j2)):
            if tag == "equal":
                right[j] = True
                seen[j] = hyp[i1 + k]
            elif tag == "replace" and i1 + k < i2:
                seen[j] = hyp[i1 + k]
    return right, seen


def page_text(raw: str, export_lines: list[tuple[int, int]]) -> str:
    """The chapter's raw text without the export's own lines (header, footers)."""
    out, pos = [], 0
    for a, b in sorted(export_lines):
        out.append(raw[pos:a])
        pos = b
    out.append(raw[pos:])
    return "".join(out)


def layout_only(clean: str, corrections: list[tuple[int, int, str, str]]) -> str:
    """A passage's clean text with every edit that is not layout undone:
    ``corrections`` are (clean_start, clean_end, before, kind). An edit that joins a
    layout fix and a word fix in one record (a word mended across a line end, then
    corrected) counts as a word fix, so it is undone whole."""
    out, pos = [], 0
    for a, b, before, kind in sorted(corrections):
        if kind == "layout":
            continue
        out.append(clean[pos:a])
        out.append(before)
        pos = b
    out.append(clean[pos:])
    return "".join(out)


def evaluate_db(conn, gold_dir) -> list[Score]:
    """Score every built chapter that has a gold file in ``gold_dir``."""
    from pathlib import Path

    scores = []
    for gold in sorted(Path(gold_dir).glob("*.txt")):
        row = conn.execute("SELECT id, raw_text FROM chapters WHERE source_file = ?", (gold.name,)).fetchone()
        if row is None:
            continue
        chapter_id, raw = row[0], row[1]
        export = [(a, b) for a, b in conn.execute(
            "SELECT raw_start, raw_end FROM furniture WHERE chapter_id = ? AND kind IN ('export_header', 'export_footer')",
            (chapter_id,))]
        passages = conn.execute("SELECT id, text_clean FROM passages WHERE chapter_id = ? ORDER BY seq",
                                (chapter_id,)).fetchall()
        edits: dict[int, list] = {}
        for pid, a, b, before, kind, confidence in conn.execute(
                "SELECT k.passage_id, k.clean_start, k.clean_end, k.before, k.kind, k.confidence FROM corrections k "
                "JOIN passages p ON p.id = k.passage_id WHERE p.chapter_id = ?", (chapter_id,)):
            edits.setdefault(pid, []).append((a, b, before, kind, confidence))
        clean = "\n".join(text for _, text in passages)
        layout = "\n".join(layout_only(text, [e[:4] for e in edits.get(pid, [])]) for pid, text in passages)
        gold_text = gold.read_text(encoding="utf-8")
        s = score(gold.name, page_text(raw, export), clean, gold_text, layout)
        offset, spans = 0, []
        for pid, text in passages:
            spans += [(offset + a, offset + b, confidence, kind) for a, b, _, kind, confidence in edits.get(pid, [])]
            offset += len(text) + 1
        s.fixes = fixes_judged(clean, gold_text, spans)
        scores.append(s)
    return scores


def score_chapter(seg, gold: str) -> Score:
    """Score a chapter processed in this process (a ``Segmented``) against its gold text,
    as ``evaluate_db`` scores it from the database: the same page text, layout text and
    clean text (used to measure a channel model without building a database)."""
    from ..fixes import kind_of

    raw = seg.layout.chapter.text
    export = [(f.start, f.end) for f in seg.layout.furniture if f.kind in ("export_header", "export_footer")]
    clean = "\n".join(p.text.text for p in seg.passages)
    layout = "\n".join(
        layout_only(p.text.text, [(k.clean_start, k.clean_end, k.before, kind_of(k.fix)) for k in p.text.corrections()])
        for p in seg.passages)
    return score(seg.layout.chapter.source_file, page_text(raw, export), clean, gold, layout)
