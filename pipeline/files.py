"""Writing outputs so that nothing half-written is ever read: each is written under a
temporary name beside its target, carrying the writer's process id, and renamed over
the target only when complete. What a killed writer left behind is removed by the
next one, once that process is gone."""

from __future__ import annotations

import gc
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def temporary(target: Path, tag: str = "tmp") -> Path:
    """'.academie.db.tmp-1234' beside 'academie.db': this process's scratch name."""
    return target.with_name(f".{target.name}.{tag}-{os.getpid()}")


def write_whole(target: Path, data: bytes) -> None:
    """``target``'s bytes replaced at once by ``data`` (its folder made if need be)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary(target)
    tmp.write_bytes(data)
    os.replace(tmp, target)


@contextmanager
def uncollected(lasting: bool = False) -> Iterator[None]:
    """The cyclic garbage collector off while a stored value is read back: hundreds of
    thousands of containers made at once, none of them garbage, that it would walk
    again and again for nothing (half the time of the load). ``lasting``: what was made
    lives as long as the process (the lexicon's tables), so it is frozen too
    (``gc.freeze``): every full collection after would walk it again, a tenth of a
    rebuild of one chapter."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
        if lasting:
            gc.freeze()
    finally:
        if collecting:
            gc.enable()


def remove_stale(target: Path) -> list[Path]:
    """Remove the temporary files and folders of ``target`` whose writer is dead."""
    return remove_stale_of(target.parent, re.escape(target.name))


def remove_stale_of(folder: Path, names: str) -> list[Path]:
    """Remove the temporary files and folders whose writer is dead of every target in
    ``folder`` whose name ``names`` (a regular expression) matches whole."""
    removed = []
    pattern = re.compile(rf"\.(?:{names})\.(?:tmp|old)-(\d+)")
    for leftover in folder.glob(".*-*"):
        m = pattern.fullmatch(leftover.name)
        if m and not alive(int(m.group(1))):
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)
            removed.append(leftover)
    return removed


def alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True
