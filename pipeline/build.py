"""The whole pipeline: corpus/ → build/academie.db.

The stages are named components in ``CHAPTER_STAGES`` (pipeline/chapter.py: run on
each chapter, a pure function of the record before it and the resources, so chapters
can run in parallel, elsewhere (pipeline/engines.py), and be cached (pipeline/cache.py)) and
``CORPUS_STAGES`` (run once on every chapter together), as spaCy lists the
components of its pipeline. ``build`` runs them all and publishes; a chapter that
cannot be read is reported, one line naming the file and the reason, and the others
still build.
"""

from __future__ import annotations

import marshal
import os
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from . import memos
from .cache import BookSince, ChapterCache, chapter_digest, pipeline_version
from .chapter import CHAPTER_STAGES, Stage, _ingest, clean_file, laid_out, process_chapter  # noqa: F401 (the API's too)
from .clean import KNOWN_BLOCKS, KnownBlocks
from .clean.book import (BOOK_BUCKETS, CHAPTER_COUNTS, book_buckets, book_evidence, book_mappings, book_moved, corrector,
                         count_corpus)
from .clean.correct import book_counts
from .corpus import Manifest, chapter_files
from .fixes import KINDS, kind_of
from .lexicon import Lexicon
from .ingest import MAX_CHAPTER_BYTES
from .engines import run_chapters
from .link import candidates, extract, link, load_rules, loaded_components, rules_loaded, stubs
from .link.checks import load_checks, run_loaded
from .link.stubs import wrapped, write_package
from .publish.write import Writer
from .publish.search import passages_search_text
from .records import (BuildReport, BuiltChapter, ChapterInfo, CheckRecord, Diagnostic, Game, Header, InputError,
                      RawChapter, Segmented)
from .resources import Consulted, Evidence, Reads, Resources, Views, tree_holds, tree_reads
from .segment.citations import assign_citations, chapter_citations

Progress = Callable[[str], None]


# Each chapter's articles are then read for their rules ("rules", with the chapter
# stages: in parallel, and cached with them). Then the corpus: citations (needing every
# chapter, so that they never depend on file order), the rules found by citation and the
# corpus's checks (link), the database with the rules' stubs (publish, skipped when the
# database already holds this build). Named here for the timings; ``build`` runs them.
CORPUS_STAGES = ("citations", "link", "publish")


@dataclass
class StageTimes:
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, dt: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + dt


@dataclass
class ChapterResult:
    """What the chapter stages make of one chapter (its passages, and the rule each
    candidate passage states), or why they could not; with what the chapter read of
    the corpus-wide evidence, and the time each stage took. Cached, packed as its entry
    holds it (``cache.Packed``: what workers send back)."""

    source_file: str
    seg: Segmented | None
    error: str | None = None
    rules: tuple | None = None  # RuleRecord of each of link.candidates(seg), in order
    rules_error: str | None = None
    evidence: dict = field(default_factory=dict)  # book's counts' name → what the cleaning read of them (Evidence)
    book: tuple[str, str] = ("", "")  # the book's candidate words it was cleaned with (book_evidence)
    search: tuple[str, ...] = ()  # passages.text_search of each of seg's passages (publish.search)
    wrapped: tuple[str, ...] = ()  # the text of each candidate passage as its stub's docstring holds it
    times: dict[str, float] = field(default_factory=dict)
    # what the cleaning read paragraph by paragraph (``Views``): its context's key, the
    # keys read before the first paragraph, each paragraph's key and reads, and the
    # largest value of each mapping whose largest was read (``_paragraph_reads``); kept
    # beside the entry
    cleaned: bytes | None = None
    paragraphs_kept: int = 0  # of its paragraphs, those taken as the last build cleaned them

    def summary(self) -> ChapterSummary:
        if self.seg is None:
            return ChapterSummary(self.source_file, False, self.error or "failed", self.evidence, self.book)
        layout = self.seg.layout
        return ChapterSummary(self.source_file, True, None, self.evidence, self.book, layout.header, layout.shape,
                              tuple(layout.chapter.diagnostics), (*layout.diagnostics, *self.seg.diagnostics),
                              tuple(self.seg.games), tuple(p.head_game for p in layout.pages if p.head_game))


@dataclass(frozen=True)
class ChapterSummary:
    """What a build reads of a chapter's cached result until it publishes it: its
    corpus-wide evidence, to check the entry with (``ChapterCache.validity``), and what
    publishing needs to be laid out (``_Held``). Kept apart in the entry, and read
    alone: the result itself is read back once, when the chapter is published."""

    source_file: str
    processed: bool  # else the chapter could not be read: ``error`` says why
    error: str | None
    evidence: dict
    book: tuple[str, str]
    header: Header | None = None  # the export's header line
    shape: str = ""
    read_diagnostics: tuple[Diagnostic, ...] = ()  # ingest's, then the manifest's of the header
    diagnostics: tuple[Diagnostic, ...] = ()  # layout's and segment's
    games: tuple[Game, ...] = ()  # of its passages
    heads: tuple[str, ...] = ()  # the games its running heads name (slugs)


def work_chapter(raw: RawChapter, res: Resources) -> ChapterResult:
    """The chapter stages and the rule extraction on one chapter, as read by ingest:
    what a worker does. What the resources cost to load the first time is timed apart,
    under ``start-up`` (spaCy's load under ``start-up: spaCy``)."""
    times = StageTimes()
    with _timed(times, "start-up"):
        _warm(res)
    with res.lock:  # a chapter at a time per process: what it consults is its own
        res.consulted = Views()
        try:
            seg, err = _process_or_reason(raw, res, times, CHAPTER_STAGES[1:])
            with _timed(times, "cache"):  # what the cache will check the entry with
                views = res.consulted
                evidence = {name: Evidence(view.read) for name, view in views.items()}
                cleaned = None if seg is None else _paragraph_reads(views)
                kept = views.kept
        finally:
            res.consulted = None
    result = ChapterResult(raw.source_file, seg, err, times=times.seconds, evidence=evidence,
                           cleaned=cleaned, paragraphs_kept=kept)
    if seg is not None:
        twice, book_candidates = book_evidence(res)
        result.book = (twice, book_candidates())
        with _timed(times, "publish"):
            # the lexicon publish would read them with (not the resources', which a caller may set)
            result.search = passages_search_text(seg.passages, Lexicon.default())
        todo = candidates(seg)
        known = res.cached(KNOWN_RULES, dict)
        # a passage read before as it reads now (a chapter edited elsewhere) states the
        # same rule: spaCy is loaded only for the passages never read
        unread = [p for p in todo if p.text.text not in known]
        if unread and not rules_loaded(res):
            with _timed(times, "start-up: spaCy"):
                load_rules(res)
        with _timed(times, "rules"):
            read, result.rules_error = extract(seg, unread, res) if unread else ((), None)
            if result.rules_error is None:
                fresh = dict(zip((p.text.text for p in unread), read))
                result.rules = tuple(replace(fresh.get(p.text.text) or known[p.text.text], passage_seq=p.seq)
                                     for p in todo)
        with _timed(times, "publish"):
            result.wrapped = tuple(wrapped(p.text.text) for p in todo)
    return result


# resources' key: a passage's clean text → the rule read of it in an earlier build
KNOWN_RULES = "build.known_rules"


def known_rules(results: Iterator[ChapterResult | None]) -> dict:
    """The rule each candidate passage of these results states, by the passage's text."""
    known = {}
    for result in results:
        if result is not None and result.seg is not None and result.rules is not None:
            known.update((p.text.text, rec) for p, rec in zip(candidates(result.seg), result.rules))
    return known


def _paragraph_reads(views: Views) -> bytes | None:
    """What the cleaning read paragraph by paragraph (``ChapterResult.cleaned``), as the
    cache keeps it: made in the worker (a hundred thousand reads for a chapter; marshal
    writes such plain tuples twice as fast as pickle, and the cache's version holds
    Python's). None if not recorded, or if a read is of a kind marshal cannot write."""
    if views.context is None:
        return None
    tops = {name: view.read[Consulted.TOP] for name, view in views.items() if Consulted.TOP in view.read}
    try:
        return marshal.dumps((*views.context, tuple(views.blocks), tops))
    except ValueError:
        return None


_NONE: frozenset = frozenset()

# the reads of the book the paragraphs taken as cleaned before may carry, all chapters
# together (some 150 MB): past it, the chapters left are cleaned whole, so that an edit
# that redoes most of a library does not hold every paragraph's reads at once
KNOWN_READS_LIMIT = memos.READS_LIMIT


def reusable_blocks(store: ChapterCache, since: BookSince, texts: dict[str, str], res: Resources) -> dict[str, KnownBlocks]:
    """For each of these chapters (file name → its text now), cleaned again, the
    paragraphs of the entry the last build used that the changes of the book's counts
    since (``since``) leave as they were: none of the keys a paragraph read (nor any the
    chapter read before its first paragraph) changed value, nor any it read of the
    chapter's own counts (``CHAPTER_COUNTS``: its text then and now), and the words the
    book adds to the engine's candidates are the same. A paragraph is the same function
    of the same reads: taken as it was. Chapters are taken in order while their
    paragraphs' reads stay within ``KNOWN_READS_LIMIT``."""
    twice, candidates = book_evidence(res)
    mappings = book_mappings(res)
    tops: dict[str, object] = {}
    moved = since.changed

    def holds(reads: Reads, were_top: dict, own_moved: set) -> bool:
        for name, keys in reads:
            if name == CHAPTER_COUNTS:
                if not own_moved.isdisjoint(keys):
                    return False
                continue
            if not moved.get(name, _NONE).isdisjoint(keys):
                return False
            if name == BOOK_BUCKETS:
                continue  # (the same candidates: the same buckets)
            if name not in mappings:
                return False
            if Consulted.TOP in keys:
                if name not in tops:
                    tops[name] = max(mappings[name].values(), default=0)
                if name not in were_top or were_top[name] != tops[name]:
                    return False
        return True

    out = {}
    reads_kept = 0
    for name, text in texts.items():
        if reads_kept >= KNOWN_READS_LIMIT:
            break
        key = since.entries.get(name)
        entry = store.load(key) if key is not None else None
        kept = store.paragraphs(key) if entry is not None and entry.seg is not None else None
        if kept is None or (entry.book[0] != twice and entry.book[1] != candidates()):
            continue
        context, before, blocks, were_top = kept
        # the words whose count in the chapter its edit changed (as chapter_context counts them)
        own_moved = {w for w, _ in book_counts([entry.seg.layout.chapter.text]).items() ^ book_counts([text]).items()}
        if len(blocks) != len(entry.seg.layout.blocks) or not holds(before, were_top, own_moved):
            continue
        # (the layout's blocks as the clean stage left them: no later stage replaces them)
        judged: dict[int, bool] = {}  # each decision's reads, judged once for the chapter's paragraphs

        def holds_here(reads: Reads, were_top: dict = were_top, own_moved: set = own_moved) -> bool:
            return holds(reads, were_top, own_moved)

        out[name] = known = KnownBlocks(context, {k: (*KnownBlocks.relative(b), reads)
                                                  for (k, reads), b in zip(blocks, entry.seg.layout.blocks)
                                                  if tree_holds(reads, holds_here, judged)})
        seen: set[int] = set()
        reads_kept += sum(len(keys) for *_, tree in known.blocks.values()
                          for reads in tree_reads(tree, seen) for _, keys in reads)
    return out


def _warm(res: Resources) -> None:
    """Load what every chapter is processed with (once per process)."""
    res.lexicon, res.digits, res.catalogue  # noqa: B018
    corrector(res).index  # noqa: B018


def _process_or_reason(chapter: Path | RawChapter, res: Resources, times: StageTimes | None = None,
                       stages: tuple[Stage, ...] = CHAPTER_STAGES) -> tuple[Segmented | None, str | None]:
    """A chapter's result, or why it has none: a bad file, or a fault of the pipeline
    on it (named as such, so that one chapter never stops the others)."""
    try:
        return process_chapter(chapter, res, times, stages), None
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
    cache: Path | str | None = None,
    full: bool = False,
    engine: str = "local",
    scheduler: str | None = None,
) -> BuildReport:
    """Build the database from the corpus. Each stage's time is added to ``times``
    (those of workers too); ``res`` may be given already loaded (the benchmark does).

    A chapter's result is kept in ``cache`` (default: ``cache/`` beside the database)
    and taken from it while the chapter, its decisions, the pipeline and what the
    chapter read of the corpus's word counts are unchanged; ``full`` ignores it. The
    chapters left are processed here, in ``jobs`` processes, or (``engine="dask"``)
    on a Dask cluster: ``scheduler``'s, or a local one of ``jobs`` workers."""
    started, begun = time.perf_counter(), time.time()
    corpus, db_path = Path(corpus), Path(db_path)
    times = times if times is not None else StageTimes()
    report = BuildReport(times=times.seconds)
    if not corpus.is_dir():
        raise InputError(str(corpus), "corpus folder not found")
    _check_writable(db_path)
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

    store = ChapterCache(Path(cache) if cache is not None else db_path.parent / "cache", pipeline_version(res))
    store.remove_stale()  # what a killed build was writing
    with _timed(times, "cache"):
        edition = store.edition_key({f.name: chapter_digest(f, res.proof_text(f.name)) for f in files}, corpus,
                                    db_path, res.max_chapter_bytes or MAX_CHAPTER_BYTES)
        # the database already this edition's: decided before any chapter is read or counted
        kept = None if full or Path(res.corpus).resolve() != corpus.resolve() else store.published_report(db_path, edition)
    if kept is not None:
        times.add("total", time.perf_counter() - started)
        kept.times = times.seconds
        return kept

    raws: dict[str, RawChapter] = {}
    held: dict[str, _Held] = {}  # what each chapter's result is published with, its entry on disk
    with _timed(times, "ingest"):
        for f in files:
            try:
                raws[f.name] = _ingest(f, res)
            except InputError as exc:
                held[f.name] = _Held(f.name, None, error=exc.reason)
        count_corpus(res, raws.values(), corpus)
    keys = {name: store.key(raw, res.proof_text(name)) for name, raw in raws.items()}
    # the book's counts are this corpus's chapters' (resources of another corpus keep their own)
    own_book = Path(res.corpus).resolve() == corpus.resolve()
    todo = []
    with _timed(times, "cache"):
        since = None
        if own_book and not full:
            since = store.book_since(corpus, keys, {name: raw.text for name, raw in raws.items()},
                                     lambda before, after: book_moved(res, before, after))
        valid = store.validity(*book_evidence(res), book_mappings(res), since, lambda: book_buckets(res))
        for name, raw in raws.items():
            taken = None if full else store.summary(keys[name])
            if taken is not None and valid(taken[0], keys[name]):
                held[name] = _Held.of(*taken, keys[name], manifest)
                report.cached += 1
                if progress:
                    progress(name)
            else:
                todo.append(raw)
        if todo and not full:
            res.ship(KNOWN_RULES, known_rules(store.previous(raw.source_file) for raw in todo))
        # (shipped every build: what an earlier build of these resources found is not this one's)
        res.ship(KNOWN_BLOCKS, reusable_blocks(store, since, {raw.source_file: raw.text for raw in todo}, res)
                 if todo and since is not None else {})
    for packed in run_chapters(todo, res, jobs, engine, scheduler, progress):
        for stage, dt in packed.times.items():
            times.add(stage, dt)
        report.paragraphs_kept += packed.paragraphs_kept
        stamp = None
        with _timed(times, "cache"):
            if packed.processed:
                stamp = store.save(keys[packed.source_file], packed)
            summary = packed.summary()
        # the result let go, its entry on disk: a library's chapters do not fit in memory together
        held[packed.source_file] = _Held.of(summary, stamp, keys[packed.source_file], manifest)
    complete = all(held[name].error is None for name in raws)
    if own_book:
        with _timed(times, "cache"):
            store.mark_book(corpus, keys if complete else None)
    del raws, todo

    done: list[_Held] = []
    for f in files:
        h = held[f.name]
        if h.error is not None:
            report.diagnostics.append(Diagnostic(f.name, "error", h.error))
            continue
        report.shapes[f.name] = h.shape
        report.diagnostics.extend(h.diagnostics)
        done.append(h)
    if not done:
        # a build that read nothing must not replace a good database with an empty one
        report.diagnostics.append(Diagnostic(corpus.name or str(corpus), "error",
                                             "no chapter could be read: the database was not written"))
        return report
    # the order given here once (chapter ids follow it), as ``cite_chapters``: whatever order the files came in
    done.sort(key=lambda h: _chapter_order(h.info))
    mark = store.published(db_path)
    report.up_to_date = report.cached == len(keys) and mark is not None and mark.get("edition") == edition
    with _timed(times, "link"):
        # the corpus's own checks of its figures (corpus/checks/), found by citation
        found, check_notes = load_checks(corpus / "checks")
    cited = {c.spec.citation for c in found}
    checked: dict[str, Any] = {}  # the passages the checks cite, by citation
    taken: dict[str, int] = {}
    counts = _Counts()
    writer = None
    try:
        if not report.up_to_date:  # else the database holds exactly this build: not written again
            with _timed(times, "publish"):
                writer = Writer(db_path, list(manifest.editions.values()), {h.info.edition_id for h in done},
                                _games(done, res))
        # one chapter at a time, read back from its entry: cited, linked, counted, written
        for h in done:
            result = _entry(h, store, corpus, res)
            with _timed(times, "citations"):
                chapter = BuiltChapter(h.info, result.seg, chapter_citations(h.info, result.seg.passages, taken))
            with _timed(times, "link"):
                linked, problems = link([chapter], [(result.rules, result.rules_error)])
                report.diagnostics.extend(problems)
                checked.update((cite, p) for p, cite in zip(chapter.seg.passages, chapter.citations) if cite in cited)
            counts.add(chapter, linked)
            if writer is not None:
                with _timed(times, "publish"):
                    writer.chapter(chapter, result.search)
                    writer.rules(stubs(linked, {p.text.text: w for p, w in zip(candidates(result.seg), result.wrapped)}))
        with _timed(times, "link"):
            checks, warnings = run_loaded(found, checked)
            report.diagnostics.extend(check_notes + warnings)
        counts.report(report, checks)
        if writer is not None:
            with _timed(times, "publish"):
                made = writer.stubs()
                writer.finish(report.diagnostics, checks)
                write_package(made, db_path.parent)
                store.mark_published(db_path, edition, replace(report, published=True) if complete else None)
    finally:
        if writer is not None:
            writer.close()
    report.published = True
    with _timed(times, "cache"):
        # the cache kept to twice what the books use: older entries of edited chapters, of other pipelines
        report.pruned, report.pruned_bytes = store.prune(set(keys.values()), begun)
    report.spacy = loaded_components(res)
    times.add("total", time.perf_counter() - started)
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


def _chapter_order(info: ChapterInfo) -> tuple:
    """A chapter's place in the edition: by edition, chapter number, unnumbered last, file name."""
    return info.edition_id, info.number is None, info.number or 0, info.source_file


def cite_chapters(done: list[tuple[ChapterInfo, Segmented]]) -> list[BuiltChapter]:
    """The chapters in the order given here once (by edition, chapter number, unnumbered
    last, file name; chapter ids follow it), each with its citations: whatever order
    the files came in, the same citations."""
    done = sorted(done, key=lambda c: _chapter_order(c[0]))
    return [BuiltChapter(info, seg, cites) for (info, seg), cites in zip(done, assign_citations(done))]


@dataclass
class _Held:
    """What publishing needs of a chapter's result besides its entry in the cache,
    which holds the rest: the result itself is let go once its entry is written, and
    read back when the chapter is published (a library's chapters do not fit in memory
    together)."""

    source_file: str
    key: str | None
    stamp: str | None = None  # of its entry, as this build took it or wrote it (``ChapterCache.load``)
    error: str | None = None  # why it has no result
    info: ChapterInfo | None = None
    shape: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()
    games: tuple[Game, ...] = ()  # of its passages
    heads: tuple[str, ...] = ()  # the games its running heads name (slugs)

    @classmethod
    def of(cls, summary: ChapterSummary, stamp: str | None, key: str, manifest: Manifest) -> "_Held":
        if not summary.processed:
            return cls(summary.source_file, key, stamp, error=summary.error)
        info, notes = manifest.chapter_info(summary.source_file, summary.header)
        return cls(summary.source_file, key, stamp, None, info, summary.shape,
                   (*summary.read_diagnostics, *notes, *summary.diagnostics), summary.games, summary.heads)


def _entry(h: _Held, store: ChapterCache, corpus: Path, res: Resources) -> ChapterResult:
    """A chapter's result read back from its entry, taken or written moments ago; if
    the entry has gone since (another process cleared the cache) or is another's (a
    build of another book sharing the cache replaced it), the chapter processed again."""
    result = store.load(h.key, h.stamp) if h.key is not None else None
    if result is None or result.seg is None:
        path = next((f for f in chapter_files(corpus) if f.name == h.source_file), corpus / h.source_file)
        result = work_chapter(_ingest(path, res), res)
        if result.seg is None:
            raise InputError(h.source_file, f"its cache entry went during the build, and it could not be read again: "
                                            f"{result.error}")
    return result


def _games(done: list[_Held], res: Resources) -> list[Game]:
    """Every game a passage or a running head names, by slug."""
    games: dict[str, Game] = {}
    for h in done:
        for g in h.games:
            games.setdefault(g.slug, g)
        for slug in h.heads:
            if slug not in games:
                games[slug] = res.catalogue.game(slug)
    return sorted(games.values(), key=lambda g: g.slug)


@dataclass
class _Counts:
    """The report's counts, added up chapter by chapter."""

    chapters: int = 0
    games: set[str] = field(default_factory=set)
    articles: int = 0
    passages: int = 0
    kinds: Counter = field(default_factory=Counter)
    decisions: int = 0
    rules: int = 0

    def add(self, c: BuiltChapter, linked: dict) -> None:
        passages = c.seg.passages
        self.chapters += 1
        self.games.update(p.game for p in passages if p.game)
        self.articles += sum(p.kind == "article" for p in passages)
        self.passages += len(passages)
        corrections = [k for p in passages for k in p.text.corrections()]
        self.kinds.update(kind_of(k.fix) for k in corrections)
        self.decisions += (sum("proof." in k.fix for k in corrections)
                           + sum(p.status != "not proofread" for p in passages)
                           + sum(g.status != "not proofread" for g in c.seg.layout.pages))
        self.rules += len(linked)

    def report(self, report: BuildReport, checks: list[CheckRecord]) -> None:
        report.chapters = self.chapters
        report.games = len(self.games)
        report.articles = self.articles
        report.passages = self.passages
        report.decisions = self.decisions
        report.corrections = {kind: self.kinds[kind] for kind in KINDS if self.kinds[kind]}
        report.rules = self.rules
        report.checks = sum(c.agrees is not None for c in checks)
        report.disagreements = sum(c.agrees is False for c in checks)


@contextmanager
def _timed(times: StageTimes | None, stage: str) -> Iterator[None]:
    """Time a block into ``times`` under ``stage``, if timing."""
    t0 = time.perf_counter()
    yield
    if times is not None:
        times.add(stage, time.perf_counter() - t0)
