"""The whole pipeline: corpus/ → build/academie.db.

The stages are named components in ``CHAPTER_STAGES`` (run on each chapter, a pure
function of the record before it and the resources, so chapters can run in parallel)
and ``CORPUS_STAGES`` (run once on every chapter together), as spaCy lists the
components of its pipeline. ``build`` runs them all and publishes; a chapter that
cannot be read is reported, one line naming the file and the reason, and the others
still build.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from .clean import clean
from .corpus import Manifest, chapter_files
from .fixes import KINDS, kind_of
from .ingest import MAX_CHAPTER_BYTES, ingest
from .layout import layout
from .link import link
from .link.checks import run_checks
from .link.stubs import write_package
from .proof import proof
from .publish import publish
from .records import BuildReport, BuiltChapter, ChapterInfo, CheckRecord, Diagnostic, Game, InputError, Layout, Segmented
from .resources import Resources
from .segment import segment
from .segment.citations import assign_citations

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[Any, Resources], Any]


def _ingest(path: Path, res: Resources) -> Any:
    return ingest(path, max_bytes=res.max_chapter_bytes or MAX_CHAPTER_BYTES)


# One chapter: its file → RawChapter → Layout → Layout (cleaned) → Segmented → Segmented
# with the editor's decisions (corpus/proofs/) on top of the engine's.
CHAPTER_STAGES: tuple[Stage, ...] = (
    Stage("ingest", _ingest),
    Stage("layout", layout),
    Stage("clean", clean),
    Stage("segment", segment),
    Stage("proof", proof),
)
# Then the corpus: citations (needing every chapter, so that they never depend on file
# order), rules and the corpus's checks (link), the database (publish). Named here for
# the timings; ``build`` runs them.
CORPUS_STAGES = ("citations", "link", "publish")


@dataclass
class StageTimes:
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, dt: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + dt


def process_chapter(path: Path, res: Resources, times: StageTimes | None = None,
                    stages: tuple[Stage, ...] = CHAPTER_STAGES) -> Any:
    """Run the chapter stages on one file; with ``times``, time each of them."""
    record: Any = Path(path)
    for stage in stages:
        t0 = time.perf_counter()
        record = stage.run(record, res)
        if times is not None:
            times.add(stage.name, time.perf_counter() - t0)
    return record


def clean_file(path: Path, res: Resources) -> Layout:
    """Any text file, read and cleaned as a chapter: its paragraphs, with what was done."""
    stages = tuple(s for s in CHAPTER_STAGES if s.name in ("ingest", "layout", "clean"))
    return process_chapter(path, res, stages=stages)


_WORKER_RES: Resources | None = None


def _worker(args: tuple[str, str, int | None]) -> tuple[str, Segmented | None, str | None]:
    global _WORKER_RES
    path, corpus, max_bytes = args
    if _WORKER_RES is None or str(_WORKER_RES.corpus) != corpus:
        _WORKER_RES = Resources(corpus, max_bytes)
    return (path, *_process_or_reason(Path(path), _WORKER_RES))


def _process_or_reason(path: Path, res: Resources, times: StageTimes | None = None) -> tuple[Segmented | None, str | None]:
    """A chapter's result, or why it has none: a bad file, or a fault of the pipeline
    on it (named as such, so that one chapter never stops the others)."""
    try:
        return process_chapter(path, res, times), None
    except InputError as exc:
        return None, exc.reason
    except Exception as exc:  # noqa: BLE001 - reported per chapter, the build goes on
        return None, f"internal error while processing: {type(exc).__name__}: {exc} (please report it)"


def build(
    corpus: Path | str,
    db_path: Path | str,
    jobs: int = 1,
    max_bytes: int = MAX_CHAPTER_BYTES,
    progress: Progress | None = None,
    times: StageTimes | None = None,
    res: Resources | None = None,
) -> BuildReport:
    """Build the database from the corpus. With ``times`` (and one job), every stage is
    timed; ``res`` may be given already loaded (the benchmark does)."""
    corpus = Path(corpus)
    report = BuildReport()
    if not corpus.is_dir():
        raise InputError(str(corpus), "corpus folder not found")
    _check_writable(Path(db_path))
    manifest = Manifest.load(corpus / "manifest.toml")
    res = res or Resources(corpus, max_bytes)
    if not res.games_path.exists():
        report.diagnostics.append(Diagnostic(
            res.games_path.name, "warning", "no list of games in the corpus: games are named by their headings only"))
    files = chapter_files(corpus)
    for folder in sorted(p for p in corpus.iterdir() if p.suffix.lower() == ".txt" and p.is_dir()):
        report.diagnostics.append(Diagnostic(folder.name, "warning", "a folder, not a chapter file: skipped"))
    if not files:
        raise InputError(str(corpus), "no chapter files (*.txt, ALTO *.xml) in the corpus folder")

    results = _process_all(files, res, jobs, progress, times)
    done: list[tuple[ChapterInfo, Segmented]] = []
    for f in files:
        seg, err = results[str(f)]
        if seg is None:
            report.diagnostics.append(Diagnostic(f.name, "error", err or "failed"))
            continue
        info, notes = manifest.chapter_info(f.name, seg.layout.header)
        report.shapes[f.name] = seg.layout.shape
        report.diagnostics.extend(seg.layout.chapter.diagnostics)
        report.diagnostics.extend(notes)
        report.diagnostics.extend(seg.layout.diagnostics)
        report.diagnostics.extend(seg.diagnostics)
        done.append((info, seg))

    if not done:
        # a build that read nothing must not replace a good database with an empty one
        report.diagnostics.append(Diagnostic(corpus.name or str(corpus), "error",
                                             "no chapter could be read: the database was not written"))
        return report
    with _timed(times, "citations"):
        built = cite_chapters(done)
    with _timed(times, "link"):
        stubs, problems = link(built)
        report.diagnostics.extend(problems)
        # the corpus's own checks of its figures (corpus/checks/), found by citation
        checks, warnings = run_checks(corpus / "checks", built)
        report.diagnostics.extend(warnings)
    with _timed(times, "publish"):
        publish(db_path, list(manifest.editions.values()), built, _games(built, res), report.diagnostics, stubs, checks)
        write_package([s for s, _ in stubs.values()], Path(db_path).parent)
    report.published = True
    _count(report, built, stubs, checks)
    return report


def _check_writable(db_path: Path) -> None:
    """Refuse, before any work, a database path that cannot be written."""
    if db_path.is_dir():
        raise InputError(str(db_path), "is a folder: give the path of a database file (e.g. build/academie.db)")
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(str(db_path), "cannot be written: a file stands where its folder should be") from None
    except OSError as exc:
        raise InputError(str(db_path), f"cannot be written: {exc.strerror or exc}") from None
    if not os.access(db_path.parent, os.W_OK):
        raise InputError(str(db_path), f"cannot be written: no permission to write in {db_path.parent}")


def cite_chapters(done: list[tuple[ChapterInfo, Segmented]]) -> list[BuiltChapter]:
    """The chapters in the order given here once (by edition, chapter number, unnumbered
    last, file name; chapter ids follow it), each with its citations: whatever order
    the files came in, the same citations."""
    done = sorted(done, key=lambda c: (c[0].edition_id, c[0].number is None, c[0].number or 0, c[0].source_file))
    return [BuiltChapter(info, seg, cites) for (info, seg), cites in zip(done, assign_citations(done))]


def _process_all(files: list[Path], res: Resources, jobs: int, progress: Progress | None,
                 times: StageTimes | None) -> dict[str, tuple[Segmented | None, str | None]]:
    results: dict[str, tuple[Segmented | None, str | None]] = {}
    if jobs > 1 and len(files) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            args = [(str(f), str(res.corpus), res.max_chapter_bytes) for f in files]
            for path, seg, err in pool.map(_worker, args):
                results[path] = (seg, err)
                if progress:
                    progress(Path(path).name)
    else:
        for f in files:
            results[str(f)] = _process_or_reason(f, res, times)
            if progress:
                progress(f.name)
    return results


def _games(built: list[BuiltChapter], res: Resources) -> list[Game]:
    """Every game a passage or a running head names, by slug."""
    games: dict[str, Game] = {}
    for c in built:
        for g in c.seg.games:
            games.setdefault(g.slug, g)
        for p in c.seg.layout.pages:
            if p.head_game and p.head_game not in games:
                games[p.head_game] = res.catalogue.game(p.head_game)
    return sorted(games.values(), key=lambda g: g.slug)


def _count(report: BuildReport, built: list[BuiltChapter], stubs: dict, checks: list[CheckRecord]) -> None:
    passages = [p for c in built for p in c.seg.passages]
    report.chapters = len(built)
    report.games = len({p.game for p in passages if p.game})
    report.articles = sum(p.kind == "article" for p in passages)
    report.passages = len(passages)
    corrections = [k for p in passages for k in p.text.corrections()]
    kinds = Counter(kind_of(k.fix) for k in corrections)
    report.decisions = (sum("proof." in k.fix for k in corrections)
                        + sum(p.status != "not proofread" for p in passages)
                        + sum(g.status != "not proofread" for c in built for g in c.seg.layout.pages))
    report.corrections = {kind: kinds[kind] for kind in KINDS if kinds[kind]}
    report.rules = len(stubs)
    report.checks = sum(c.agrees is not None for c in checks)
    report.disagreements = sum(c.agrees is False for c in checks)


@contextmanager
def _timed(times: StageTimes | None, stage: str) -> Iterator[None]:
    """Time a block into ``times`` under ``stage``, if timing."""
    t0 = time.perf_counter()
    yield
    if times is not None:
        times.add(stage, time.perf_counter() - t0)
