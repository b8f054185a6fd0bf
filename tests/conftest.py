"""Shared fixtures: the real pipeline on the real corpus, built once per test session,
and the reading room on it, in-process and as a real `academie serve`.

Tests that start a process (the command line, `academie serve`, Chromium) or a server
carry the ``slow`` marker, and so do the long explorations (Hypothesis's properties,
the HTTP fuzzer); `make test-fast` (``pytest -m "not slow"``) runs the others.
The marker is enforced: a test without it that starts a process or binds a socket
fails, naming itself (``_guard`` below)."""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from pathlib import Path

import pytest

from pipeline.build import build, process_chapter
from pipeline.resources import Resources
from tests.helpers import CORPUS, PLANTED, ReadingRoom, serving

# -- the slow marker, enforced -------------------------------------------------------------------

# the audit events (PEP 578) of starting a process or a server
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.exec", "os.spawn",
                            "os.system", "os.startfile", "socket.bind"})
_running: list[pytest.Item | None] = [None]  # the test being run, from its setup to its teardown


def _guard(event: str, args: tuple) -> None:
    item = _running[0]
    if item is not None and event in PROCESS_EVENTS and item.get_closest_marker("slow") is None:
        raise RuntimeError(f"{item.nodeid} starts a process or a server ({event}) but is not marked slow")


sys.addaudithook(_guard)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _running[0] = item
    try:
        return (yield)
    finally:
        _running[0] = None


# -- the corpus, built -----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def res() -> Resources:
    return Resources(CORPUS)


@pytest.fixture(scope="session")
def chapters(res):
    """file name → Segmented, for every chapter of the corpus."""
    return {p.name: process_chapter(p, res) for p in sorted(CORPUS.glob("*.txt"))}


@pytest.fixture(scope="session")
def built_db(tmp_path_factory, res) -> Path:
    """The database built from corpus/ by the real build, in a temporary folder (with
    the session's resources, loaded once)."""
    db = tmp_path_factory.mktemp("build") / "academie.db"
    report = build(CORPUS, db, res=res)
    assert not report.errors, report.errors
    return db


@pytest.fixture()
def db(built_db):
    conn = sqlite3.connect(built_db)
    conn.row_factory = sqlite3.Row
    yield conn
    conn.close()


# -- the reading room ------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def room(built_db):
    """The reading room on the corpus's database, in-process (tests.helpers.ReadingRoom)."""
    r = ReadingRoom(built_db)
    yield r
    r.close()


@pytest.fixture(scope="session")
def server(built_db, tmp_path_factory):
    """(base URL, port, database name, sha256 of the database before serving): the
    corpus's database served by `academie serve`, once for the whole session."""
    before = hashlib.sha256(built_db.read_bytes()).hexdigest()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with serving(built_db, log) as base:
        yield base, int(base.rsplit(":", 1)[1]), built_db.stem, before, log


@pytest.fixture(scope="session")
def planted_db(tmp_path_factory, res):
    """A made-up chapter with markup planted in its text (tests.helpers.PLANTED), built
    alone, read as a chapter of the corpus (with its games and its book's words)."""
    corpus = tmp_path_factory.mktemp("planted")
    (corpus / "boston.txt").write_text(PLANTED, encoding="utf-8")
    db = corpus / "planted.db"
    report = build(corpus, db, res=res)
    assert not report.errors, report.errors
    return db


@pytest.fixture(scope="session")
def planted_room(planted_db):
    r = ReadingRoom(planted_db)
    yield r
    r.close()


@pytest.fixture(scope="session")
def planted_server(planted_db):
    with serving(planted_db, planted_db.with_name("serve.log")) as base:
        yield base
