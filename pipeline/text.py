"""Text that remembers where it came from.

Every text the pipeline derives (a passage's reading text, its clean text) is a
``MappedText``: a list of pieces, each either a slice of the chapter's raw text
copied unchanged, or a replacement of a raw slice recorded with the fix that made
it (``pipeline.fixes``). So every character maps back to raw offsets, every
difference from the raw text is an explained edit, and the raw text is restored by
undoing the edits.

Stages never change a ``MappedText`` in place: ``apply`` returns a new one.

Also here, because every stage compares words: the one way of folding text.
"""

from __future__ import annotations

import bisect
import itertools
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from .fixes import FIXES


def _check_fix(fix: str) -> None:
    # an edit under a name that is not registered would be unexplained in the database
    for name in fix.split("+"):
        if name not in FIXES:
            raise ValueError(f"unknown fix {name!r}: register it in pipeline/fixes.py")


# -- folding -------------------------------------------------------------------------------

_FOLD_LETTERS = str.maketrans({"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae", "ſ": "s", "’": "'", "‘": "'"})


def fold(text: str) -> str:
    """Text as a reader types it, for comparing names and searching: lower case, no
    accents, œ → oe, æ → ae, the long s as s, typographic apostrophes plain
    ('Œuvre d’Hombre' → 'oeuvre d'hombre')."""
    text = unicodedata.normalize("NFKD", text.translate(_FOLD_LETTERS))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


@lru_cache(maxsize=100_000)
def base_letter(ch: str) -> str:
    """A character without case or accents, still one character for one ('É' → 'e',
    'œ' → 'œ'): the channel model aligns printed and meant letters one to one."""
    return "".join(c for c in unicodedata.normalize("NFD", ch.lower()) if not unicodedata.combining(c))


class _BaseLetters(dict):
    """code point → ``base_letter`` of its character, made when first asked for: a table
    for ``str.translate``, which folds a word in one call (the same letters as
    ``base_letter`` one by one, tests/test_text.py)."""

    def __missing__(self, point: int) -> str:
        letter = self[point] = base_letter(chr(point))
        return letter


_BASE_LETTERS = _BaseLetters()


def fold_letters(word: str) -> str:
    """``base_letter`` of every character: a word folded without changing its length."""
    if word.isascii():  # most words, and then base_letter is lower case (no accent to drop)
        return word.lower()
    return word.translate(_BASE_LETTERS)


@dataclass(frozen=True)
class Edit:
    """One change asked for by a fix, in the coordinates of the current text."""

    start: int
    end: int
    after: str
    fix: str  # a name of pipeline.fixes.FIXES
    confidence: float = 1.0
    # a person's decision: its confidence stands (not the lowest of the fixes it covers),
    # and it is recorded even where the text is the print again (a word checked)
    final: bool = False

    def __post_init__(self) -> None:
        _check_fix(self.fix)


@dataclass(frozen=True)
class Correction:
    """One recorded difference between raw and derived text.

    ``start``/``end`` are offsets in the chapter's raw text, ``clean_start``/
    ``clean_end`` offsets in the derived text. ``fix`` names the fixes that made
    it, joined by '+' when later fixes edited the output of earlier ones.
    """

    start: int
    end: int
    before: str
    after: str
    fix: str
    confidence: float
    clean_start: int
    clean_end: int


@dataclass(frozen=True)
class Piece:
    raw_start: int
    raw_end: int
    text: str
    fixes: tuple[str, ...] = ()
    confidence: float = 1.0

    @property
    def changed(self) -> bool:
        return bool(self.fixes)


class MappedText:
    """A text derived from ``raw[start:end]`` with every edit recorded."""

    __slots__ = ("raw", "pieces", "_text", "_ends")

    def __init__(self, raw: str, pieces: Sequence[Piece]):
        self.raw = raw
        self.pieces = tuple(pieces)
        self._text: str | None = None
        self._ends: list[int] | None = None  # where each piece ends in the text (``to_raw``)

    def __getstate__(self) -> tuple:
        return self.raw, self.pieces, self._text  # (not the offsets ``to_raw`` keeps: made again when asked)

    def __setstate__(self, state: tuple) -> None:
        self.raw, self.pieces, self._text = state
        self._ends = None

    @classmethod
    def from_raw(cls, raw: str, start: int, end: int) -> "MappedText":
        return cls(raw, [Piece(start, end, raw[start:end])] if end > start else [Piece(start, start, "")])

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(p.text for p in self.pieces)
        return self._text

    @property
    def raw_start(self) -> int:
        return self.pieces[0].raw_start

    @property
    def raw_end(self) -> int:
        return self.pieces[-1].raw_end

    @property
    def raw_text(self) -> str:
        return self.raw[self.raw_start : self.raw_end]

    def __len__(self) -> int:
        return len(self.text)

    def __repr__(self) -> str:
        return f"MappedText({self.text!r} ← raw[{self.raw_start}:{self.raw_end}])"

    # -- edits -----------------------------------------------------------------

    def apply(self, edits: Iterable[Edit]) -> "MappedText":
        """Apply non-overlapping edits given in current-text coordinates.

        An edit that touches a piece already changed by an earlier fix absorbs that
        piece whole, so one raw span never carries two overlapping records.
        """
        edits = sorted(edits, key=lambda e: (e.start, e.end))
        if not edits:
            return self
        for a, b in zip(edits, edits[1:]):
            if b.start < a.end or (b.start == a.start and a.start == a.end):
                raise ValueError(f"overlapping edits: {a} and {b}")
        cuts = sorted({e.start for e in edits} | {e.end for e in edits})
        pieces = _split_unchanged(self.pieces, cuts)
        offsets = _offsets(pieces)
        out: list[Piece] = []
        i = 0
        for edit in edits:
            while i < len(pieces) and offsets[i] + len(pieces[i].text) <= edit.start:
                out.append(pieces[i])
                i += 1
            j = i
            if edit.start == edit.end:
                # an insertion: it absorbs a changed piece only if it falls inside it
                if j < len(pieces) and offsets[j] < edit.start:
                    j += 1
            else:
                while j < len(pieces) and offsets[j] < edit.end:
                    j += 1
            covered = pieces[i:j]
            if not covered:
                at = out[-1].raw_end if out else (pieces[i].raw_start if i < len(pieces) else self.raw_end)
                out.append(Piece(at, at, edit.after, (edit.fix,), edit.confidence))
                continue
            first_off = offsets[i]
            joined = "".join(p.text for p in covered)
            new_text = joined[: max(edit.start - first_off, 0)] + edit.after + joined[edit.end - first_off :]
            fixes: list[str] = []
            conf = edit.confidence
            for p in covered:
                for r in p.fixes:
                    if r not in fixes:
                        fixes.append(r)
                if p.changed and not edit.final:
                    conf = min(conf, p.confidence)
            if edit.fix not in fixes:
                fixes.append(edit.fix)
            raw_a, raw_b = covered[0].raw_start, covered[-1].raw_end
            if new_text == self.raw[raw_a:raw_b] and not edit.final:
                out.append(Piece(raw_a, raw_b, new_text))  # a later edit undid an earlier one
            else:
                out.append(Piece(raw_a, raw_b, new_text, tuple(fixes), conf))
            i = j
        out.extend(pieces[i:])
        return MappedText(self.raw, merge_unchanged(out))

    def replace(self, start: int, end: int, after: str, fix: str, confidence: float = 1.0) -> "MappedText":
        return self.apply([Edit(start, end, after, fix, confidence)])

    # -- slicing -----------------------------------------------------------------

    def split(self, at: int) -> tuple["MappedText", "MappedText"]:
        """Cut the text in two at ``at``; a changed piece straddling the cut goes left."""
        left: list[Piece] = []
        right: list[Piece] = []
        off = 0
        for p in self.pieces:
            end = off + len(p.text)
            if end <= at:
                left.append(p)
            elif off >= at:
                right.append(p)
            elif not p.changed:
                k = at - off
                left.append(Piece(p.raw_start, p.raw_start + k, p.text[:k]))
                right.append(Piece(p.raw_start + k, p.raw_end, p.text[k:]))
            else:
                left.append(p)
            off = end
        if not left:
            left = [Piece(self.raw_start, self.raw_start, "")]
        if not right:
            right = [Piece(self.raw_end, self.raw_end, "")]
        return MappedText(self.raw, left), MappedText(self.raw, right)

    def slice(self, start: int, end: int) -> "MappedText":
        return self.split(end)[0].split(start)[1]

    def strip(self) -> "MappedText":
        """Drop leading and trailing whitespace (it stays in the raw text, outside the span)."""
        t = self.text
        a = len(t) - len(t.lstrip())
        b = len(t.rstrip())
        if a == 0 and b == len(t):
            return self
        return self.slice(a, b)

    def concat(
        self,
        other: "MappedText",
        joiner: str,
        fix: str,
        confidence: float = 1.0,
        moved: Sequence[tuple[int, int, str]] = (),
    ) -> "MappedText":
        """Join two texts whose raw spans follow each other; the raw between them
        (whitespace, a running head …) becomes ``joiner``, recorded under ``fix``.
        ``moved`` are raw spans inside that gap which belong elsewhere (a footnote
        set apart): each vanishes from this text under its own fix."""
        _check_fix(fix)
        if other.raw_start < self.raw_end:
            raise ValueError("concat: texts out of raw order")
        segments: list[tuple[int, int, str, str, float]] = []
        pos = self.raw_end
        for a, b, moved_fix in moved:
            _check_fix(moved_fix)
            if a > pos:
                segments.append((pos, a, "", fix, confidence))
            segments.append((a, b, "", moved_fix, 1.0))
            pos = b
        segments.append((pos, other.raw_start, joiner, fix, confidence))
        pieces = list(self.pieces)
        for a, b, after, r, c in segments:
            if after == self.raw[a:b]:
                pieces.append(Piece(a, b, after))
            else:
                pieces.append(Piece(a, b, after, (r,), c))
        return MappedText(self.raw, merge_unchanged([*pieces, *other.pieces]))

    # -- mapping -------------------------------------------------------------------

    def to_raw(self, pos: int) -> int:
        """Raw offset of the character at ``pos`` in the current text (the piece found
        by bisection: a paragraph run on for a whole chapter has thousands of pieces, and
        each edit and suggestion asks)."""
        ends = self._ends
        if ends is None:
            ends = self._ends = list(itertools.accumulate(len(p.text) for p in self.pieces))
        k = bisect.bisect_right(ends, pos)
        if k == len(ends):
            if not ends or pos != ends[-1]:
                return self.raw_end
            k -= 1  # (the text's end: the last piece's)
        p = self.pieces[k]
        off = ends[k] - len(p.text)
        if not p.changed:
            return p.raw_start + (pos - off)
        return p.raw_start if pos == off else p.raw_end

    def from_raw_offset(self, raw_pos: int) -> int | None:
        """Where a raw character landed in the current text (None if an edit took it)."""
        off = 0
        for p in self.pieces:
            if p.raw_start <= raw_pos < p.raw_end:
                return off + (raw_pos - p.raw_start) if not p.changed else off
            off += len(p.text)
        return None

    def corrections(self) -> list[Correction]:
        out = []
        off = 0
        for p in self.pieces:
            if p.changed:
                out.append(
                    Correction(
                        p.raw_start,
                        p.raw_end,
                        self.raw[p.raw_start : p.raw_end],
                        p.text,
                        "+".join(p.fixes),
                        round(p.confidence, 3),
                        off,
                        off + len(p.text),
                    )
                )
            off += len(p.text)
        return out


def _split_unchanged(pieces: Sequence[Piece], cuts: Sequence[int]) -> list[Piece]:
    """Split unchanged pieces at the given text offsets (changed pieces stay whole)."""
    out: list[Piece] = []
    off = 0
    k = 0
    for p in pieces:
        end = off + len(p.text)
        while k < len(cuts) and cuts[k] <= off:
            k += 1
        if p.changed:
            out.append(p)
        else:
            start_local = 0
            while k < len(cuts) and cuts[k] < end:
                c = cuts[k] - off
                if c > start_local:
                    out.append(Piece(p.raw_start + start_local, p.raw_start + c, p.text[start_local:c]))
                    start_local = c
                k += 1
            out.append(Piece(p.raw_start + start_local, p.raw_end, p.text[start_local:]))
        off = end
    return out


def _offsets(pieces: Sequence[Piece]) -> list[int]:
    out, off = [], 0
    for p in pieces:
        out.append(off)
        off += len(p.text)
    return out


def merge_unchanged(pieces: Sequence[Piece]) -> list[Piece]:
    out: list[Piece] = []
    for p in pieces:
        if not p.text and not p.changed and p.raw_start == p.raw_end and out:
            continue
        if out and not p.changed and not out[-1].changed and out[-1].raw_end == p.raw_start:
            out[-1] = Piece(out[-1].raw_start, p.raw_end, out[-1].text + p.text)
        else:
            out.append(p)
    return out or [Piece(0, 0, "")]


def restore_raw(clean: str, corrections: Sequence[Correction], raw_start: int) -> str:
    """Undo ``corrections`` on ``clean``: the raw text the clean text came from.

    Uses only what the database stores, so a reader can check any passage.
    """
    out = []
    pos = 0
    for c in sorted(corrections, key=lambda c: c.clean_start):
        out.append(clean[pos : c.clean_start])
        out.append(c.before)
        pos = c.clean_end
    out.append(clean[pos:])
    return "".join(out)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of an offset, as editors count them."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
