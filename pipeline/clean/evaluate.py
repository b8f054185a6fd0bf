"""Measuring the cleaning against hand-corrected gold chapters.

A gold file ``<chapter>.txt`` is the reading text of the corpus chapter of the same
name, corrected by hand (conventions in its folder's CONVENTIONS.md). Texts are
compared after folding whitespace and dropping spaces before punctuation, as the
conventions say. For each chapter:

- CER (character error rate) of the raw file and of the clean reading text;
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


def cer(hypothesis: str, reference: str) -> float:
    h, r = normalise(hypothesis), normalise(reference)
    return Levenshtein.distance(h, r) / max(len(r), 1)


@dataclass
class Score:
    chapter: str
    characters: int = 0  # of the gold text
    words: int = 0  # of the gold text
    errors_raw: int = 0  # character edits, raw → gold
    errors_clean: int = 0
    right_raw: int = 0  # gold words the raw text has right
    right_clean: int = 0
    fixed: int = 0
    broken: int = 0
    broken_words: list[tuple[str, str]] = field(default_factory=list)  # (gold word, what cleaning made of it)

    @property
    def cer_raw(self) -> float:
        return self.errors_raw / max(self.characters, 1)

    @property
    def cer_clean(self) -> float:
        return self.errors_clean / max(self.characters, 1)

    @property
    def reduction(self) -> float:
        return 1.0 - self.errors_clean / self.errors_raw if self.errors_raw else 0.0

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
        for name in ("characters", "words", "errors_raw", "errors_clean", "right_raw", "right_clean", "fixed", "broken"):
            setattr(total, name, getattr(self, name) + getattr(other, name))
        total.broken_words = self.broken_words + other.broken_words
        return total


def score(chapter: str, raw: str, clean: str, gold: str) -> Score:
    r, c, g = normalise(raw), normalise(clean), normalise(gold)
    s = Score(chapter, characters=len(g))
    s.errors_raw = Levenshtein.distance(r, g)
    s.errors_clean = Levenshtein.distance(c, g)
    gw, rw, cw = words(g), words(r), words(c)
    s.words = len(gw)
    raw_right = _right(rw, gw)
    clean_right, clean_seen = _right_with_hyp(cw, gw)
    s.right_raw = sum(raw_right)
    s.right_clean = sum(clean_right)
    for j, (a, b) in enumerate(zip(raw_right, clean_right)):
        if not a and b:
            s.fixed += 1
        elif a and not b:
            s.broken += 1
            s.broken_words.append((gw[j], clean_seen[j] or ""))
    return s


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


def evaluate_db(conn, gold_dir) -> list[Score]:
    """Score every built chapter that has a gold file in ``gold_dir``."""
    from pathlib import Path

    scores = []
    for gold in sorted(Path(gold_dir).glob("*.txt")):
        row = conn.execute("SELECT id, raw_text FROM chapters WHERE source_file = ?", (gold.name,)).fetchone()
        if row is None:
            continue
        clean = "\n".join(r[0] for r in conn.execute(
            "SELECT text_clean FROM passages WHERE chapter_id = ? ORDER BY seq", (row[0],)))
        scores.append(score(gold.name, row[1], clean, gold.read_text(encoding="utf-8")))
    return scores
