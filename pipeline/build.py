"""The whole pipeline: corpus/ → build/academie.db.

``process_chapter`` runs the stages on one file (a pure function of the file and the
resources, so chapters can run in parallel); ``build`` runs it on every chapter of
the corpus, gives each its edition and its citations, and publishes. A chapter that
cannot be read is reported, one line naming the file and the reason, and the others
still build.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .citations import assign_citations
from .clean import clean
from .corpus import Manifest
from .ingest import DEFAULT_MAX_BYTES, ingest
from .layout import layout
from .publish import BuiltChapter, publish
from .records import BuildReport, ChapterInfo, Diagnostic, Game, InputError, Segmented
from .resources import Resources
from .segment import segment
from .stubs import write_package

Progress = Callable[[str], None]


def process_chapter(path: Path, res: Resources, max_bytes: int = DEFAULT_MAX_BYTES) -> Segmented:
    raw = ingest(path, max_bytes=max_bytes)
    return segment(clean(layout(raw, res), res), res)


@dataclass
class StageTimes:
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, dt: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + dt


def process_chapter_timed(path: Path, res: Resources, times: StageTimes, max_bytes: int = DEFAULT_MAX_BYTES) -> Segmented:
    t0 = time.perf_counter()
    raw = ingest(path, max_bytes=max_bytes)
    t1 = time.perf_counter()
    lay = layout(raw, res)
    t2 = time.perf_counter()
    cl = clean(lay, res)
    t3 = time.perf_counter()
    seg = segment(cl, res)
    t4 = time.perf_counter()
    times.add("ingest", t1 - t0)
    times.add("layout", t2 - t1)
    times.add("clean", t3 - t2)
    times.add("segment", t4 - t3)
    return seg


def chapter_files(corpus: Path) -> list[Path]:
    """Every *.txt of the folder (any case), broken links included: they get their error."""
    return sorted(p for p in corpus.iterdir() if p.suffix.lower() == ".txt" and not p.is_dir())


_WORKER_RES: Resources | None = None


def _worker(args: tuple[str, str, int]) -> tuple[str, Segmented | None, str | None]:
    global _WORKER_RES
    path, games, max_bytes = args
    if _WORKER_RES is None or str(_WORKER_RES.games_path) != games:
        _WORKER_RES = Resources(games)
    return (path, *_process_or_reason(Path(path), _WORKER_RES, max_bytes))


def _process_or_reason(path: Path, res: Resources, max_bytes: int) -> tuple[Segmented | None, str | None]:
    """A chapter's result, or why it has none: a bad file, or a fault of the pipeline
    on it (named as such, so that one chapter never stops the others)."""
    try:
        return process_chapter(path, res, max_bytes), None
    except InputError as exc:
        return None, exc.reason
    except Exception as exc:  # noqa: BLE001 - reported per chapter, the build goes on
        return None, f"internal error while processing: {type(exc).__name__}: {exc} (please report it)"


def build(
    corpus: Path | str,
    db_path: Path | str,
    jobs: int = 1,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Progress | None = None,
) -> BuildReport:
    corpus = Path(corpus)
    report = BuildReport()
    if not corpus.is_dir():
        raise InputError(str(corpus), "corpus folder not found")
    manifest = Manifest.load(corpus / "manifest.toml")
    games_path = corpus / "games.toml"
    if not games_path.exists():
        report.diagnostics.append(Diagnostic(
            games_path.name, "warning", "no list of games in the corpus: games are named by their headings only"))
    res = Resources(games_path)
    files = chapter_files(corpus)
    if not files:
        raise InputError(str(corpus), "no chapter files (*.txt) in the corpus folder")

    results: dict[str, tuple[Segmented | None, str | None]] = {}
    if jobs > 1 and len(files) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for path, seg, err in pool.map(_worker, [(str(f), str(games_path), max_bytes) for f in files]):
                results[path] = (seg, err)
                if progress:
                    progress(Path(path).name)
    else:
        for f in files:
            results[str(f)] = _process_or_reason(f, res, max_bytes)
            if progress:
                progress(f.name)

    done: list[tuple[ChapterInfo, Segmented]] = []
    for f in files:
        seg, err = results[str(f)]
        if seg is None:
            report.diagnostics.append(Diagnostic(f.name, "error", err or "failed"))
            continue
        info, notes = manifest.chapter_info(f.name, seg.layout.header)
        report.diagnostics.extend(seg.layout.chapter.diagnostics)
        report.diagnostics.extend(notes)
        report.diagnostics.extend(seg.layout.diagnostics)
        report.diagnostics.extend(seg.diagnostics)
        done.append((info, seg))

    # citations are given in a fixed order, so that they never depend on file order
    done.sort(key=lambda c: (c[0].edition_id, c[0].number if c[0].number is not None else 10**6, c[0].source_file))
    citations = assign_citations(done)
    games: dict[str, Game] = {}
    for info, seg in done:
        for g in seg.games:
            games.setdefault(g.slug, g)
        for p in seg.layout.pages:
            if p.head_game and p.head_game not in games:
                games[p.head_game] = res.catalogue.game(p.head_game)
    built = [BuiltChapter(info, seg, cites) for (info, seg), cites in zip(done, citations)]
    stubs = link(built)
    publish(db_path, list(manifest.editions.values()), built, sorted(games.values(), key=lambda g: g.slug),
            report.diagnostics, stubs)
    write_package([s for s, _ in stubs.values()], Path(db_path).parent)

    report.chapters = len(built)
    report.games = len({p.game for c in built for p in c.seg.passages if p.game})
    report.articles = sum(p.kind == "article" for c in built for p in c.seg.passages)
    report.passages = sum(len(c.seg.passages) for c in built)
    for c in built:
        for p in c.seg.passages:
            for k in p.text.corrections():
                if k.rule.startswith("layout."):
                    report.joins += 1
                else:
                    report.corrections += 1
    report.rules = len(stubs)
    return report


def link(built: list[BuiltChapter]) -> dict[str, tuple]:
    """Stage 6: every article's structure and stub, citation → (Stub, RuleRecord).
    The only stage that loads spaCy, once per build."""
    from . import encoded  # noqa: F401  (registers the hand encodings)
    from .model import ENCODED
    from .rules import Extractor
    from .stubs import make_stub

    # every article, and every paragraph of a game that states a norm
    candidates = [(p, cite) for c in built for p, cite in zip(c.seg.passages, c.citations)
                  if p.kind == "article" or (p.kind == "paragraph" and p.game)]
    if not candidates:
        return {}
    records = Extractor().extract_many([p for p, _ in candidates])
    return {
        cite: (make_stub(cite, p.page, p.text.text, rec, cite in ENCODED), rec)
        for (p, cite), rec in zip(candidates, records)
        if p.kind == "article" or rec.modality in NORMATIVE
    }


NORMATIVE = ("obligation", "prohibition", "permission", "penalty", "scoring")
