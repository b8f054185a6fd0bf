"""The proof stage: an editor's decisions (``corpus/proofs/``) applied on top of the
engine, ``Segmented`` → ``Segmented``.

It runs after segment, so that no fix of the engine ever edits a span a person
decided. Each decision applied is an edit under a ``proof.*`` fix (a correction row
like the others, its confidence the person's 1.0, kept even where the reading is the
print: a word checked); a page or passage status is set on its record. A decision
whose span cannot be found again is a warning naming it, and stays in its file.
"""

from __future__ import annotations

from dataclasses import replace

from ..records import Diagnostic, Passage, Segmented
from ..resources import Resources
from ..text import Edit, MappedText
from ..decisions import Decision, ProofFileError, anchor, parse, proof_file

__all__ = ["proof", "Decision"]


def proof(seg: Segmented, res: Resources) -> Segmented:
    chapter = seg.layout.chapter
    path = proof_file(res.corpus, chapter.source_file)
    try:
        text = res.proof_text(chapter.source_file)
        decisions = parse(text, path.name) if text is not None else []
    except ProofFileError as exc:
        return replace(seg, diagnostics=seg.diagnostics + (
            Diagnostic(f"proofs/{path.name}", "error", f"{exc}; no decision of this chapter applied"),))
    if not decisions:
        return seg
    diagnostics: list[Diagnostic] = []
    passages = list(seg.passages)
    pages = list(seg.layout.pages)
    applied: dict[tuple, tuple[Decision, int, int]] = {}  # the last decision per span or target wins
    for d in decisions:
        span = anchor(d, chapter.text)
        if span is None:
            diagnostics.append(Diagnostic(f"proofs/{path.name}", "warning",
                                          f"decision {d.id} ({d.describe()}) not applied: its text is no longer in "
                                          f"{chapter.source_file}; it stays in its file"))
            continue
        key = ("mark", d.target) if d.action == "mark" else ("span", span)
        applied.pop(key, None)
        applied[key] = (d, *span)
    by_passage: dict[int, list[tuple[Decision, int, int]]] = {}
    statuses: dict[int, str] = {}
    for d, start, end in applied.values():
        if d.action == "mark" and d.target and d.target.startswith("page "):
            page = next((p for p in pages if p.start <= start < _page_end(pages, p)), None)
            if page is not None:
                pages[page.seq] = replace(page, status=d.status)
            continue
        owner = _owner(passages, start, end)
        if owner is None:
            diagnostics.append(Diagnostic(f"proofs/{path.name}", "warning",
                                          f"decision {d.id} ({d.describe()}) not applied: its span is in no passage"))
            continue
        if d.action == "mark":
            statuses[owner] = d.status
        else:
            by_passage.setdefault(owner, []).append((d, start, end))
    for seq, items in by_passage.items():
        p = passages[seq]
        text, skipped = _decide(p.text, items)
        # a span a person decided is no longer the engine's to suggest
        decided = [(start, end) for _, start, end in items]
        kept = tuple(s for s in p.suggestions if not any(s.start < end and start < s.end for start, end in decided))
        p = replace(p, suggestions=kept)
        for d in skipped:
            diagnostics.append(Diagnostic(f"proofs/{path.name}", "warning", f"decision {d.id} ({d.describe()}) not "
                                          "applied: it overlaps a later decision"))
        passages[seq] = replace(p, text=text)
    for seq, status in statuses.items():
        passages[seq] = replace(passages[seq], status=status)
    layout = replace(seg.layout, pages=tuple(pages))
    return replace(seg, layout=layout, passages=tuple(passages), diagnostics=seg.diagnostics + tuple(diagnostics))


def _page_end(pages, page) -> int:
    later = [p.start for p in pages if p.seq > page.seq]
    return min(later) if later else 1 << 62


def _owner(passages: list[Passage], start: int, end: int) -> int | None:
    """The innermost passage whose raw span holds the decision's (a footnote printed
    inside a paragraph is the footnote's)."""
    owners = [p for p in passages if p.text.raw_start <= start and end <= p.text.raw_end]
    if not owners:
        return None
    return min(owners, key=lambda p: p.text.raw_end - p.text.raw_start).seq


def _decide(text: MappedText, items: list[tuple[Decision, int, int]]) -> tuple[MappedText, list[Decision]]:
    """Apply a passage's decisions, later first when two overlap."""
    edits: list[Edit] = []
    taken: list[tuple[int, int]] = []
    skipped: list[Decision] = []
    for d, start, end in reversed(items):
        a, b = _clean_span(text, start, end)
        if any(a < y and x < b or (a == b == x) for x, y in taken):
            skipped.append(d)
            continue
        taken.append((a, b))
        if d.action == "set":
            after, fix = d.reading, "proof.set"
        elif d.action == "accept":
            after, fix = text.text[a:b], "proof.accept"
        else:  # reject: the print, for every piece the span touches
            after, fix = _raw_of(text, a, b), "proof.reject"
        edits.append(Edit(a, b, after, fix, 1.0, final=True))
    return text.apply(edits), skipped


def _clean_span(text: MappedText, start: int, end: int) -> tuple[int, int]:
    """The span of the clean text that the raw span became: from the first piece it
    touches to the last, a changed piece whole."""
    a = b = None
    off = 0
    for p in text.pieces:
        n = len(p.text)
        if p.raw_end > start and p.raw_start < end or (start == end and p.raw_start <= start <= p.raw_end):
            if p.changed:
                a = off if a is None else a
                b = off + n
            else:
                a = off + max(start - p.raw_start, 0) if a is None else a
                b = off + min(end, p.raw_end) - p.raw_start
        off += n
    if a is None:  # an empty span between pieces
        pos = text.from_raw_offset(start)
        a = b = pos if pos is not None else len(text.text)
    return a, b


def _raw_of(text: MappedText, a: int, b: int) -> str:
    """The raw text the clean span [a, b) came from."""
    pieces, off = [], 0
    for p in text.pieces:
        n = len(p.text)
        if off < b and off + n > a or (a == b and off == a):
            if p.changed:
                pieces.append(text.raw[p.raw_start:p.raw_end])
            else:
                pieces.append(p.text[max(a - off, 0):min(b, off + n) - off])
        off += n
    return "".join(pieces)
