"""Text that remembers where it came from.

Every text the pipeline derives (a passage's reading text, its clean text) is a
``MappedText``: a list of pieces, each either a slice of the chapter's raw text
copied unchanged, or a replacement of a raw slice recorded with the rule that made
it. So every character maps back to raw offsets, every difference from the raw text
is an explained edit, and the raw text is restored by undoing the edits.

Stages never change a ``MappedText`` in place: ``apply`` returns a new one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass(frozen=True)
class Edit:
    """One change asked for by a rule, in the coordinates of the current text."""

    start: int
    end: int
    after: str
    rule: str
    confidence: float = 1.0


@dataclass(frozen=True)
class Correction:
    """One recorded difference between raw and derived text.

    ``start``/``end`` are offsets in the chapter's raw text, ``clean_start``/
    ``clean_end`` offsets in the derived text. ``rule`` names the rules that made
    it, joined by '+' when later rules edited the output of earlier ones.
    """

    start: int
    end: int
    before: str
    after: str
    rule: str
    confidence: float
    clean_start: int
    clean_end: int


@dataclass(frozen=True)
class Piece:
    raw_start: int
    raw_end: int
    text: str
    rules: tuple[str, ...] = ()
    confidence: float = 1.0

    @property
    def changed(self) -> bool:
        return bool(self.rules)


class MappedText:
    """A text derived from ``raw[start:end]`` with every edit recorded."""

    __slots__ = ("raw", "pieces", "_text")

    def __init__(self, raw: str, pieces: Sequence[Piece]):
        self.raw = raw
        self.pieces = tuple(pieces)
        self._text: str | None = None

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

        An edit that touches a piece already changed by an earlier rule absorbs that
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
                out.append(Piece(at, at, edit.after, (edit.rule,), edit.confidence))
                continue
            first_off = offsets[i]
            joined = "".join(p.text for p in covered)
            new_text = joined[: max(edit.start - first_off, 0)] + edit.after + joined[edit.end - first_off :]
            rules: list[str] = []
            conf = edit.confidence
            for p in covered:
                for r in p.rules:
                    if r not in rules:
                        rules.append(r)
                if p.changed:
                    conf = min(conf, p.confidence)
            if edit.rule not in rules:
                rules.append(edit.rule)
            raw_a, raw_b = covered[0].raw_start, covered[-1].raw_end
            if new_text == self.raw[raw_a:raw_b]:
                out.append(Piece(raw_a, raw_b, new_text))  # a later edit undid an earlier one
            else:
                out.append(Piece(raw_a, raw_b, new_text, tuple(rules), conf))
            i = j
        out.extend(pieces[i:])
        return MappedText(self.raw, merge_unchanged(out))

    def replace(self, start: int, end: int, after: str, rule: str, confidence: float = 1.0) -> "MappedText":
        return self.apply([Edit(start, end, after, rule, confidence)])

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
        rule: str,
        confidence: float = 1.0,
        moved: Sequence[tuple[int, int, str]] = (),
    ) -> "MappedText":
        """Join two texts whose raw spans follow each other; the raw between them
        (whitespace, a running head …) becomes ``joiner``, recorded under ``rule``.
        ``moved`` are raw spans inside that gap which belong elsewhere (a footnote
        set apart): each vanishes from this text under its own rule."""
        if other.raw_start < self.raw_end:
            raise ValueError("concat: texts out of raw order")
        segments: list[tuple[int, int, str, str, float]] = []
        pos = self.raw_end
        for a, b, moved_rule in moved:
            if a > pos:
                segments.append((pos, a, "", rule, confidence))
            segments.append((a, b, "", moved_rule, 1.0))
            pos = b
        segments.append((pos, other.raw_start, joiner, rule, confidence))
        pieces = list(self.pieces)
        for a, b, after, r, c in segments:
            if after == self.raw[a:b]:
                pieces.append(Piece(a, b, after))
            else:
                pieces.append(Piece(a, b, after, (r,), c))
        return MappedText(self.raw, merge_unchanged([*pieces, *other.pieces]))

    # -- mapping -------------------------------------------------------------------

    def to_raw(self, pos: int) -> int:
        """Raw offset of the character at ``pos`` in the current text."""
        off = 0
        for p in self.pieces:
            end = off + len(p.text)
            if pos < end or (pos == end and p is self.pieces[-1]):
                if not p.changed:
                    return p.raw_start + (pos - off)
                return p.raw_start if pos == off else p.raw_end
            off = end
        return self.raw_end

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
                        "+".join(p.rules),
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
