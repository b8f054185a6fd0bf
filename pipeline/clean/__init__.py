"""The clean stage: named, explainable fixes of the OCR, each a recorded edit.

Like ftfy, cleaning is a list of steps applied in order (``steps.STEPS``); each finds
edits in the current text under a registered fix (pipeline/fixes.py).
``fix_and_explain`` returns the clean text with the list of what was done; ``clean``
cleans every paragraph of a chapter's ``Layout``. The correction engine is
``correct``, its settings ``pipeline/data/clean.toml``.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, replace
from typing import Sequence

from ..files import uncollected
from ..records import Block, Layout
from ..resources import Resources, Views, noted, read_again_tree
from ..text import Correction, Edit, MappedText, Piece
from .book import chapter_context
from .correct import OcrConfidence
from .steps import STEPS, CleanContext, Step, Suggestion

__all__ = ["KNOWN_BLOCKS", "STEPS", "CleanContext", "KnownBlocks", "Step", "Suggestion", "block_key", "chapter_context",
           "clean", "clean_text", "context_key", "fix_and_explain", "in_processes"]


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


# resources' key: chapter file → the paragraphs its cleaning may take as the last build
# cleaned them (``KnownBlocks``, from ``build.reusable_blocks``)
KNOWN_BLOCKS = "clean.known_blocks"


@dataclass(frozen=True)
class KnownBlocks:
    """What a chapter's last cleaning left that still holds: the key of the context it
    was cleaned in, and each paragraph whose reads of the book's counts are unchanged,
    by its key (``block_key``): its clean pieces and its suggestions, their raw offsets
    counted from the paragraph's start (``relative``), and those reads."""

    context: str
    blocks: dict

    @staticmethod
    def relative(block: Block) -> tuple[tuple[Piece, ...], tuple[Suggestion, ...]]:
        """A cleaned paragraph's pieces and suggestions, as ``blocks`` keeps them."""
        d = -block.text.raw_start
        return _moved(block.text.pieces, d), _moved(block.suggestions, d, "start", "end")


def block_key(block: Block) -> str:
    """A paragraph as the clean stage receives it: its pieces (text, the fixes already
    made, raw offsets from the paragraph's start) and the raw text they cover. Where it
    stands in the chapter is not in it: cleaning reads a paragraph's text alone (raw
    offsets only place its suggestions), so an edit earlier in the chapter, which moves
    every later paragraph, leaves them their keys."""
    text = block.text
    return hashlib.sha256(pickle.dumps((_moved(text.pieces, -text.raw_start), text.raw_text), protocol=5)).hexdigest()


def _moved(items: Sequence, d: int, start: str = "raw_start", end: str = "raw_end") -> tuple:
    """Pieces (or, with their field names, suggestions) with their raw offsets moved by ``d``."""
    return tuple(x if d == 0 else replace(x, **{start: getattr(x, start) + d, end: getattr(x, end) + d}) for x in items)


def context_key(ctx: CleanContext) -> str:
    """What a chapter's paragraphs are cleaned in besides the book's counts (read
    lookup by lookup) and the pipeline (the cache's version): the printing and the topic."""
    book = ctx.book
    return hashlib.sha256(pickle.dumps((book.long_s, sorted(book.terms), book.term_bonus), protocol=5)).hexdigest()


def clean(layout: Layout, res: Resources, jobs: int = 1) -> Layout:
    """Every paragraph of the layout cleaned; with ``jobs`` above 1, outside a build
    (``academie clean -j``), in that many forked processes (``in_processes``)."""
    # the cyclic garbage collector off meanwhile: the decisions' memos grow by a hundred
    # thousand containers for 250 KB, none of them garbage, which its full collections
    # walked again and again (5% of the stage); the stage makes no cycle of references
    # (tests/test_invariants.py), so what it made is kept (the memos, trimmed between
    # chapters) or freed by its count. (Not frozen after, though the first collection
    # walks it all for nothing, 1.3 s of the 130-chapter book's cleaning in a build:
    # ``gc.freeze`` freezes every object of the process, and in a Dask worker or a pool's
    # process the machinery's own, some later garbage in cycles, would never be freed.)
    with uncollected():
        return _clean(layout, res, jobs)


def _clean(layout: Layout, res: Resources, jobs: int) -> Layout:
    games = sorted({p.head_game for p in layout.pages if p.head_game})
    ctx = chapter_context(layout.chapter.text, res, layout.chapter.source_file, games)
    if layout.chapter.alto is not None:
        ctx.ocr = OcrConfidence((w.start, w.end, w.confidence) for w in layout.chapter.alto.words()
                                if w.confidence is not None)
    views = res.consulted
    # while a build records what the chapter reads, what each paragraph read is kept
    # (``Views.blocks``): a chapter cleaned again, for an edit of its own or a change
    # of the book's counts, takes the paragraphs left alone as they were (not for an
    # ALTO file: a paragraph's words' confidences are not in its key)
    per_block = isinstance(views, Views) and ctx.ocr is None
    known = None
    if per_block:
        views.context = (context_key(ctx), tuple((name, tuple(view.read)) for name, view in views.items() if view.read))
        known = res.cached(KNOWN_BLOCKS, dict).get(layout.chapter.source_file)
        if known is not None and known.context != views.context[0]:
            known = None
    done = None if per_block or jobs < 2 else in_processes(layout.blocks, ctx, jobs)
    blocks = []
    for k, b in enumerate(layout.blocks):
        ctx.suggestions = []
        if done is not None:
            text, suggestions = MappedText(b.text.raw, done[k][0]), done[k][1]
        elif per_block:
            text, suggestions = _noted_block(b, ctx, known, views)
        else:
            text, suggestions = clean_text(b.text, ctx), tuple(ctx.suggestions)
        blocks.append(replace(b, text=text, suggestions=suggestions))
    return replace(layout, blocks=tuple(blocks))


# what the forked processes clean: the paragraphs and their chapter's context, inherited, not sent
_FORKED: list = []


def in_processes(blocks: Sequence[Block], ctx: CleanContext, jobs: int) -> list[tuple] | None:
    """Each paragraph's clean pieces and suggestions, the paragraphs parted in runs of
    about equal length among ``jobs`` processes forked from this one (the lexicon and
    the chapter's context shared, each process's memos its own: a paragraph is cleaned
    as it is alone, so the text is the text cleaned in one process, tested); None where
    processes cannot be forked or there is too little to share."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods() or len(blocks) < 2:
        return None
    runs = _runs([len(b.text.raw_text) for b in blocks], jobs * 4)  # a few runs each: the pool evens them out
    if ctx.reader is not None:
        ctx.reader.sequence.model.forms()  # (a table each process would load on first use: loaded once, shared)
    _FORKED[:] = [blocks, ctx]
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(runs)), mp_context=multiprocessing.get_context("fork")) as pool:
            return [x for run in pool.map(_clean_run, runs) for x in run]
    finally:
        _FORKED.clear()


def _runs(sizes: list[int], n: int) -> list[tuple[int, int]]:
    """``sizes`` parted into at most n runs of consecutive items, each of about the same total."""
    total, runs, start, acc = sum(sizes), [], 0, 0
    for k, size in enumerate(sizes):
        acc += size
        if acc * n >= total * (len(runs) + 1) and k + 1 < len(sizes):
            runs.append((start, k + 1))
            start = k + 1
    runs.append((start, len(sizes)))
    return runs


def _clean_run(run: tuple[int, int]) -> list[tuple[tuple[Piece, ...], tuple[Suggestion, ...]]]:
    blocks, ctx = _FORKED
    out = []
    for b in blocks[run[0] : run[1]]:
        ctx.suggestions = []
        # (the pieces alone go back: each text's raw is the whole chapter's)
        out.append((clean_text(b.text, ctx).pieces, tuple(ctx.suggestions)))
    return out


def _noted_block(b: Block, ctx: CleanContext, known: KnownBlocks | None, views: Views) -> tuple[MappedText, tuple]:
    """A paragraph cleaned, or taken as the last build cleaned it, with its suggestions;
    its key and its reads of the book noted in ``views``."""
    key = block_key(b)
    hit = known.blocks.get(key) if known is not None else None
    if hit is not None:
        pieces, suggestions, reads = hit
        text = MappedText(b.text.raw, _moved(pieces, b.text.raw_start))
        suggestions = _moved(suggestions, b.text.raw_start, "start", "end")
        read_again_tree(reads, views)
        views.kept += 1
    else:
        entry = noted(lambda: clean_text(b.text, ctx), views)
        text, suggestions, reads = entry.value, tuple(ctx.suggestions), entry.tree()
    views.blocks.append((key, reads))
    return text, suggestions


def fix_and_explain(text: str, res: Resources, steps: Sequence[Step] = STEPS) -> tuple[str, list[Correction]]:
    """Clean a text and say what was done, each edit with its fix and confidence."""
    ctx = chapter_context(text, res)
    mt = clean_text(MappedText.from_raw(text, 0, len(text)), ctx, steps)
    return mt.text, mt.corrections()
