"""Passages from drafts: footnotes attached to the passages that call them, note marks
written as numbers, the corrector's suggestions given to the passages that hold their
words."""

from __future__ import annotations

from dataclasses import replace

from ..markers import note_calls, note_marker
from ..records import Diagnostic, Layout, Passage
from ..resources import Resources
from ..text import Edit, MappedText
from .articles import write_number
from .kinds import Draft
from .settings import SegmentSettings


def attach_notes(drafts: list[Draft], diagnostics: list[Diagnostic], name: str) -> None:
    search_back = SegmentSettings.default().notes.search_back
    for i, d in enumerate(drafts):
        if d.kind != "footnote":
            continue
        for j in range(i - 1, max(-1, i - search_back), -1):
            other = drafts[j]
            if other.kind == "footnote" or d.page_seq - other.page_seq > 1:
                continue
            if any(c.value == d.note for c in note_calls(other.text.text)):
                d.note_for = j
                break
        if d.note_for is None:
            diagnostics.append(Diagnostic(name, "info", f"footnote ({d.note}) on page seq {d.page_seq}: its call was not found"))


def _write_notes(d: Draft) -> MappedText:
    confidence = SegmentSettings.default().notes.mark_confidence
    t = d.text
    edits = []
    if d.kind == "footnote":
        m = note_marker(t.text)
        if m:
            mark = t.text[m.start : m.end].rstrip()
            want = f"({m.value})"
            if mark != want:
                edits.append(Edit(m.start, m.start + len(mark), want, "segment.note_mark", confidence))
    else:
        for c in note_calls(t.text):
            want = f"({c.value})"
            if c.token != want:
                edits.append(Edit(c.start, c.end, want, "segment.note_mark", confidence))
    return t.apply(edits) if edits else t


def give_suggestions(passages: list[Passage], suggestions: list) -> list[Passage]:
    """Each suggestion to the passage whose text holds its word (the innermost one)."""
    if not suggestions:
        return passages
    held: dict[int, list] = {}
    for s in suggestions:
        owners = [p for p in passages if p.text.raw_start <= s.start and s.end <= p.text.raw_end]
        if owners:
            owner = min(owners, key=lambda p: p.text.raw_end - p.text.raw_start)
            held.setdefault(owner.seq, []).append(s)
    return [replace(p, suggestions=tuple(held.get(p.seq, ()))) for p in passages]


def passages(drafts: list[Draft], layout: Layout, res: Resources) -> list[Passage]:
    out = []
    for seq, d in enumerate(drafts):
        d.text = write_number(d, res)
        text = _write_notes(d)
        page = layout.pages[d.page_seq].number if d.page_seq < len(layout.pages) else None
        numbered = d.kind in ("article", "section")
        out.append(
            Passage(
                seq=seq,
                kind=d.kind,  # type: ignore[arg-type]
                text=text,
                page_seq=d.page_seq,
                page=page,
                game=d.game,
                number=d.number if numbered else None,
                number_raw=d.number_raw if numbered else None,
                term=d.term,
                note_for=d.note_for,
                note=d.note,
            )
        )
    return out
