"""One chapter through the chapter stages: its file → RawChapter → Layout → Layout
(cleaned) → Segmented → Segmented with the editor's decisions (corpus/proofs/) on top
of the engine's. The stages are named components in ``CHAPTER_STAGES``, each a pure
function of the record before it and the resources (so chapters can run in parallel,
elsewhere, and be cached: pipeline/build.py runs them, with the corpus's stages).
Apart from the build so that a command that cleans one file (``academie clean``)
imports the stages it runs, not the link stage, publish, the engines and the cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .clean import clean
from .ingest import MAX_CHAPTER_BYTES, ingest
from .layout import layout
from .proof import proof
from .records import Layout, RawChapter
from .resources import Resources
from .segment import segment

if TYPE_CHECKING:
    from .build import StageTimes


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[Any, Resources], Any]


def _ingest(path: Path, res: Resources) -> Any:
    return ingest(Path(path), max_bytes=res.max_chapter_bytes or MAX_CHAPTER_BYTES)


CHAPTER_STAGES: tuple[Stage, ...] = (
    Stage("ingest", _ingest),
    Stage("layout", layout),
    Stage("clean", clean),
    Stage("segment", segment),
    Stage("proof", proof),
)


def process_chapter(path: Path | RawChapter, res: Resources, times: StageTimes | None = None,
                    stages: tuple[Stage, ...] = CHAPTER_STAGES) -> Any:
    """Run the chapter stages on one file (or from the record of a later stage, with
    the stages after it); with ``times``, time each of them."""
    record: Any = path
    for stage in stages:
        t0 = time.perf_counter()
        record = stage.run(record, res)
        if times is not None:
            times.add(stage.name, time.perf_counter() - t0)
    return record


def laid_out(path: Path, res: Resources) -> Layout:
    """Any text file, read and laid out as a chapter, not yet cleaned."""
    return process_chapter(path, res, stages=tuple(s for s in CHAPTER_STAGES if s.name in ("ingest", "layout")))


def clean_file(path: Path, res: Resources, jobs: int = 1) -> Layout:
    """Any text file, read and cleaned as a chapter: its paragraphs, with what was done;
    with ``jobs``, its paragraphs cleaned in that many processes."""
    return clean(laid_out(path, res), res, jobs)
