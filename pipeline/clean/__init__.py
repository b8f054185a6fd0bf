"""The clean stage: named, explainable fixes of the OCR, each a recorded edit.

Like ftfy, cleaning is a list of steps applied in order (``steps.STEPS``); each finds
edits in the current text under a registered fix (pipeline/fixes.py).
``fix_and_explain`` returns the clean text with the list of what was done; ``clean``
cleans every paragraph of a chapter's ``Layout``. The correction engine is
``correct``, its settings ``pipeline/data/clean.toml``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..records import Layout
from ..resources import Resources
from ..text import Correction, Edit, MappedText
from .book import chapter_context
from .correct import OcrConfidence
from .steps import STEPS, CleanContext, Step, Suggestion

__all__ = ["STEPS", "CleanContext", "Step", "Suggestion", "chapter_context", "clean", "clean_text", "fix_and_explain"]


def clean_text(text: MappedText, ctx: CleanContext, steps: Sequence[Step] = STEPS) -> MappedText:
    for step in steps:
        ctx.raw_of = lambda a, b, t=text: (t.to_raw(a), t.to_raw(b - 1) + 1 if b > a else t.to_raw(a))
        earlier = list(ctx.suggestions)
        edits = list(step.find(text.text, ctx))
        if edits:
            edits = _non_overlapping(edits)
            changed = [ctx.raw_of(e.start, e.end) for e in edits]
            # what an earlier step only suggested for a word a later step has changed is
            # stale: the reader would be offered a reading of a word no longer printed
            stale = {id(sg) for sg in earlier if any(a < sg.end and sg.start < max(b, a + 1) for a, b in changed)}
            ctx.suggestions[:] = [sg for sg in ctx.suggestions if id(sg) not in stale]
            text = text.apply(edits)
    return text


def _non_overlapping(edits: list[Edit]) -> list[Edit]:
    out: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if out and e.start < out[-1].end:
            continue
        out.append(e)
    return out


def clean(layout: Layout, res: Resources) -> Layout:
    games = sorted({p.head_game for p in layout.pages if p.head_game})
    ctx = chapter_context(layout.chapter.text, res, layout.chapter.source_file, games)
    if layout.chapter.alto is not None:
        ctx.ocr = OcrConfidence((w.start, w.end, w.confidence) for w in layout.chapter.alto.words()
                                if w.confidence is not None)
    blocks = []
    for b in layout.blocks:
        ctx.suggestions = []
        text = clean_text(b.text, ctx)
        blocks.append(replace(b, text=text, suggestions=tuple(ctx.suggestions)))
    return replace(layout, blocks=tuple(blocks))


def fix_and_explain(text: str, res: Resources, steps: Sequence[Step] = STEPS) -> tuple[str, list[Correction]]:
    """Clean a text and say what was done, each edit with its fix and confidence."""
    ctx = chapter_context(text, res)
    mt = clean_text(MappedText.from_raw(text, 0, len(text)), ctx, steps)
    return mt.text, mt.corrections()
