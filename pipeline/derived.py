"""Data derived from the sources the pipeline reads, kept on disk between processes
(``cache_dir()``): what every process would otherwise remake at start-up, the same
each time (wordfreq's list as a dict, the lexicon's candidate index).

An entry is named by a key that digests what it is made from (its sources'
identity and the deriving code's version); its file holds a header (format, key,
digest of the rest) and the data, marshalled (builtin types only: reading it runs
no code). One that is truncated, altered, of another format or key, or unreadable
is derived again, never used; entries are written under a temporary name and
renamed, so a concurrent process never reads half of one.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from pathlib import Path
from typing import Any, Callable

from .files import uncollected

FORMAT = b"academie derived 1\n"


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
    """The entry of this name and key, if there is one and it is whole and this key's."""
    try:
        data = _path(name, key).read_bytes()
    except OSError:
        return None
    try:
        header, rest = data[: len(FORMAT)], data[len(FORMAT):]
        stored_key, digest, payload = rest.split(b"\n", 2)
        if header != FORMAT or stored_key.decode() != key or digest.decode() != hashlib.blake2b(payload).hexdigest():
            return None
        with uncollected(lasting=True):  # (derived data is what a process keeps to its end)
            return marshal.loads(payload)
    except Exception:  # noqa: BLE001 - damaged or foreign: derived again
        return None


def save(name: str, key: str, value: Any) -> None:
    """Keep an entry (nothing if the folder cannot be written: derived again next time)."""
    path = _path(name, key)
    try:
        payload = marshal.dumps(value)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        tmp.write_bytes(FORMAT + key.encode() + b"\n" + hashlib.blake2b(payload).hexdigest().encode() + b"\n" + payload)
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass


def cached(name: str, key: str, derive: Callable[[], Any], check: Callable[[Any], bool] = lambda v: True) -> Any:
    """The entry of this name and key, derived and kept if there is none (or it fails
    ``check``: the shape the caller expects)."""
    value = load(name, key)
    if value is not None and check(value):
        return value
    value = derive()
    save(name, key, value)
    return value
