"""Shared fixtures: the real pipeline on the real corpus, built once per test session."""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from pipeline.build import build, process_chapter
from pipeline.resources import Resources

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


@pytest.fixture(scope="session")
def res() -> Resources:
    return Resources(CORPUS)


@pytest.fixture(scope="session")
def chapters(res):
    """file name → Segmented, for every chapter of the corpus."""
    return {p.name: process_chapter(p, res) for p in sorted(CORPUS.glob("*.txt"))}


@pytest.fixture(scope="session")
def built_db(tmp_path_factory) -> Path:
    """The database built from corpus/ by the real build, in a temporary folder."""
    db = tmp_path_factory.mktemp("build") / "academie.db"
    report = build(CORPUS, db)
    assert not report.errors, report.errors
    return db


@pytest.fixture()
def db(built_db):
    conn = sqlite3.connect(built_db)
    conn.row_factory = sqlite3.Row
    yield conn
    conn.close()


STARTUP_TIMEOUT = 20.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(db_path: Path, log: Path):
    """`academie serve` on DB_PATH, a real Datasette process on a free port, stopped on
    exit; yields its base URL once it answers."""
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "serve", "--db", str(db_path), "--port", str(port)],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUTF8": "1"},
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"academie serve exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(base + "/-/versions.json", timeout=1) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"academie serve not up after {STARTUP_TIMEOUT:.0f} s:\n{log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def server(built_db, tmp_path_factory):
    """(base URL, port, database name, sha256 of the database before serving): the
    corpus's database served by `academie serve`, once for the whole session."""
    before = hashlib.sha256(built_db.read_bytes()).hexdigest()
    with serving(built_db, tmp_path_factory.mktemp("serve") / "serve.log") as base:
        yield base, int(base.rsplit(":", 1)[1]), built_db.stem, before


# A made-up chapter whose text carries markup: the pages must show it as text.
PLANTED = """‹ Nouvelle académie des jeux, ou règles des jeux de société Chapitre 3 sur 40 · BOS · texte numérisé non relu

BOS 41

BOSTON (jeu du).

Règles du jeu de Boston.

1. Celui qui donne mal <script>alert("planted")</script> paye une fiche à chacun des joueurs.

2. Le joueur qui renonce <|ue >^ «[ paye le double & perd la partie.

BOS 42

3. On ne peut plus revenir sur la donne <img src=x onerror=alert(2)> lorsque la première carte est jouée.
"""


@pytest.fixture(scope="session")
def planted_server(tmp_path_factory):
    """A made-up chapter with markup planted in its text, built and served."""
    corpus = tmp_path_factory.mktemp("planted")
    (corpus / "boston.txt").write_text(PLANTED, encoding="utf-8")
    db = corpus / "planted.db"
    report = build(corpus, db)
    assert not report.errors, report.errors
    with serving(db, corpus / "serve.log") as base:
        yield base
