"""Invariants that hold for any input, checked on chapters shuffled from the corpus
lines and sprinkled with noise: nothing is lost, every edit is undone exactly."""

from __future__ import annotations

import random

import pytest

from pipeline.clean import clean
from pipeline.ingest import ingest_bytes
from pipeline.layout import layout
from pipeline.segment import segment
from pipeline.text import restore_raw
from tests.helpers import CORPUS

LINES = [l for p in sorted(CORPUS.glob("*.txt")) for l in p.read_text(encoding="utf-8").split("\n")]
NOISE = ["", "", "TRE 3o9", "i4o WIS", "Page 2", "(i) Note.", "12. Il faut jouer", "-", "»", "A B C D", "  ", "l2.", "x-"]


def scrambled(seed: int) -> str:
    rng = random.Random(seed)
    lines = rng.sample(LINES, k=min(len(LINES), rng.randint(1, 60)))
    for _ in range(rng.randint(0, 15)):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(NOISE))
    if rng.random() < 0.3:  # wrap some lines as a printer would
        lines = [chunk for l in lines for chunk in (l[i:i + 38] for i in range(0, max(len(l), 1), 38))]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(16))  # Hypothesis (test_properties.py) explores further
def test_nothing_lost_and_every_edit_undone(res, seed):
    text = scrambled(seed)
    if not text.strip():
        return
    raw = ingest_bytes(text.encode("utf-8"), f"scrambled-{seed}.txt")
    seg = segment(clean(layout(raw, res), res), res)
    covered = [False] * len(raw.text)
    for p in seg.passages:
        assert restore_raw(p.text.text, p.text.corrections(), p.text.raw_start) == p.text.raw_text
        for i in range(p.text.raw_start, p.text.raw_end):
            covered[i] = True
    for f in seg.layout.furniture:
        assert raw.text[f.start:f.end] == f.text
        for i in range(f.start, f.end):
            covered[i] = True
    lost = "".join(c for i, c in enumerate(raw.text) if not covered[i] and not c.isspace())
    assert lost == ""
    assert [p.seq for p in seg.passages] == list(range(len(seg.passages)))
    assert all(p.kind in ("heading", "section", "paragraph", "article", "gloss", "footnote") for p in seg.passages)


def test_the_clean_stage_gives_the_garbage_collector_back_as_it_found_it(res):
    # (it is off while a chapter is cleaned: the decisions' memos are no garbage)
    import gc

    lay = layout(ingest_bytes("On joue la carte.\n".encode("utf-8"), "gc.txt"), res)
    assert gc.isenabled()
    clean(lay, res)
    assert gc.isenabled()
    gc.disable()
    try:
        clean(lay, res)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_chapter_s_work_makes_no_cycle_for_the_collector_to_find(res):
    """The clean stage runs with the collector off (``clean.clean``): what it makes is
    to be kept or freed by its count, never left in cycles for the collector to find
    (a closure that calls itself, or a closure a compiled generator keeps as its own:
    they made 57,949 objects of garbage on 250 KB). Nor does the rest of a chapter's
    work make any (a build's, its reads recorded, its rules read)."""
    import gc
    from collections import Counter

    from pipeline.build import _ingest, work_chapter

    first, second = sorted(CORPUS.glob("*.txt"))[:2]
    work_chapter(_ingest(first, res), res)  # (the tables loaded, spaCy's tokenizer too)
    collecting = gc.isenabled()
    gc.collect()  # (what the tests before left, collected first)
    gc.disable()
    try:
        work_chapter(_ingest(second, res), res)
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect()
        kinds = Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if collecting:
            gc.enable()
    assert (found, kinds.most_common(5)) == (0, [])
