"""Data derived from the sources the pipeline reads, kept on disk between processes
(``cache_dir()``): what every process would otherwise remake at start-up, the same
each time (wordfreq's list as a dict, the lexicon's candidate index).

An entry is named by a key that digests what it is made from (its sources'
identity and the deriving code's version); its file holds a header (format, key,
the length and CRC-32 of the rest) and the data, marshalled (builtin types only:
reading it runs no code). One that is truncated, altered, of another format or key,
or unreadable is derived again, never used; entries are written under a temporary
name and renamed, so a concurrent process never reads half of one.

The folder is kept to the last few entries of each name (``KEEP``, the last used
first: a hit marks its entry used): each venv, each copy of the project, each version
of a source names its own, and nothing else would ever remove the others (a
hundred megabytes after a few clones). An entry removed is derived again if asked for.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import re
import sys
import zlib
from pathlib import Path
from typing import Any, Callable

from .files import remove_stale_of, uncollected, write_whole

# (until 2 the header held a BLAKE2 digest of the data: 10 ms a table of 7 MB, where
# CRC-32 takes 2 and detects damage as surely; an entry is no secret, and its key is checked)
FORMAT = b"academie derived 2\n"
# entries kept of each name: those of the few venvs or copies of the project in use at once
KEEP = 3
PACKAGE = Path(__file__).resolve().parent


def cache_dir() -> Path:
    """Where derived data is kept: $ACADEMIE_CACHE, else $XDG_CACHE_HOME/academie,
    else ~/.cache/academie."""
    env = os.environ.get("ACADEMIE_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "academie"


def key_of(*parts: object) -> str:
    """A key digesting ``parts`` and what the file's data depends on besides: the
    marshal format and the Python that reads it."""
    h = hashlib.sha256(f"{sys.version_info[:2]} marshal {marshal.version}".encode())
    for part in parts:
        data = repr(part).encode()
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()[:24]


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the package as this process runs it: every file of it, its code
    (compiled and not) and its data, but the reading room's and the C Cython made of a
    module at install (its source and the compiled module are read). What is derived by
    the pipeline's own code, not from a source file alone, is keyed by it (10 ms, once)."""
    h = hashlib.sha256(f"python {sys.version_info[:2]}\n".encode())
    files = [f for f in PACKAGE.rglob("*") if f.is_file() and "__pycache__" not in f.parts
             and f.relative_to(PACKAGE).parts[0] != "web" and f.suffix != ".c"]
    for f in sorted(files):
        h.update(f"{f.relative_to(PACKAGE)}\n".encode())
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def file_identity(path: Path) -> str:
    """A source file's place, size and date: what names what is derived from it."""
    try:
        st = path.stat()
    except OSError:
        return f"{path} absent"
    return f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"


def _path(name: str, key: str) -> Path:
    return cache_dir() / f"{name}-{key}.marshal"


def load(name: str, key: str) -> Any | None:
    """The entry of this name and key, if there is one and it is whole and this key's
    (marked used: ``prune`` keeps the last used)."""
    path = _path(name, key)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    used(path)
    try:
        # (the header read in place: the data, megabytes, not copied before it is read)
        end_key = data.find(b"\n", len(FORMAT))
        end_check = data.find(b"\n", end_key + 1)
        if end_key < 0 or end_check < 0 or not data.startswith(FORMAT) or data[len(FORMAT) : end_key] != key.encode():
            return None
        payload = memoryview(data)[end_check + 1 :]
        if data[end_key + 1 : end_check] != _check(payload):
            return None
        with uncollected(lasting=True):  # (derived data is what a process keeps to its end)
            return marshal.loads(payload)
    except Exception:  # noqa: BLE001 - damaged or foreign: derived again
        return None


def _check(payload) -> bytes:
    """What the header says of the data: its length and CRC-32."""
    return f"{len(payload)} {zlib.crc32(payload):08x}".encode()


def save(name: str, key: str, value: Any) -> None:
    """Keep an entry (nothing if the folder cannot be written: derived again next time)."""
    path = _path(name, key)
    try:
        payload = marshal.dumps(value)
        write_whole(path, FORMAT + key.encode() + b"\n" + _check(payload) + b"\n" + payload)
    except (OSError, ValueError):
        return
    prune(name, ".marshal")


def used(path: Path) -> None:
    """Mark an entry used now (its date: what ``prune`` keeps the last of)."""
    try:
        os.utime(path)
    except OSError:  # a read-only folder: kept or not, it is read
        pass


def prune(name: str, suffix: str, keep: int = KEEP) -> list[Path]:
    """Remove the entries of ``name`` (files ``<name>-<key><suffix>`` of the folder,
    the key a digest without '-') but the ``keep`` last used, and what a process that
    died was writing; the paths removed. A process reading one as it goes reads it
    whole (the file lives while open); one that asks for it later derives it again."""
    folder = cache_dir()
    entry = re.compile(rf"{re.escape(name)}-[^-]*{re.escape(suffix)}")
    try:
        removed = remove_stale_of(folder, entry.pattern)
        entries = sorted(((p.stat().st_mtime_ns, p) for p in folder.iterdir() if entry.fullmatch(p.name)),
                         reverse=True)
    except OSError:
        return []
    for _, path in entries[keep:]:
        try:
            path.unlink(missing_ok=True)
            removed.append(path)
        except OSError:
            pass
    return removed


def cached(name: str, key: str, derive: Callable[[], Any], check: Callable[[Any], bool] = lambda v: True) -> Any:
    """The entry of this name and key, derived and kept if there is none (or it fails
    ``check``: the shape the caller expects)."""
    value = load(name, key)
    if value is not None and check(value):
        return value
    value = derive()
    save(name, key, value)
    return value
