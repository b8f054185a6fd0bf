"""What the tests share besides fixtures (those are in conftest.py): the project's
folders, the reading room in-process (Datasette's own client, no socket) and served by a
real `academie serve` process, and a made-up chapter with markup planted in it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
METADATA = ROOT / "schema" / "metadata.yml"


# -- the reading room in-process ---------------------------------------------------------------

class ReadingRoom:
    """Datasette in this process, as `academie serve` configures it: the database
    immutable, schema/metadata.yml, the same settings (pipeline.cli.SERVE_SETTINGS) and
    the plugin pipeline.web. Requests go through Datasette's in-process client
    (``datasette.client``: the ASGI app called directly, no socket)."""

    def __init__(self, db: Path, metadata: Path = METADATA, plugin: dict | None = None):
        from datasette.app import Datasette
        from datasette.plugins import pm
        from datasette.utils import parse_metadata

        import pipeline.web
        from pipeline.cli import SERVE_SETTINGS

        # the entry point `academie = pipeline.web` registers it when the project is
        # installed; a checkout that is not installed registers it here
        if not pm.is_registered(pipeline.web):
            pm.register(pipeline.web, name="academie")
        config = parse_metadata(metadata.read_text(encoding="utf-8"))
        # ``plugin``: settings of the plugin given as values, where `academie serve` passes
        # them through the environment (``{"$env": …}``): `--edit`'s corpus and token
        config["plugins"]["academie"].update(plugin or {})
        self.ds = Datasette(immutables=[str(db)], metadata=config, settings=dict(SERVE_SETTINGS))
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self.ds.invoke_startup())

    def get(self, path: str, **kwargs):
        """The httpx response to GET ``path`` (``cookies=``, ``headers=`` …)."""
        return self.loop.run_until_complete(self.ds.client.get(path, **kwargs))

    def post(self, path: str, **kwargs):
        """The httpx response to POST ``path`` (``data=``, ``cookies=`` …)."""
        return self.loop.run_until_complete(self.ds.client.post(path, **kwargs))

    def request(self, method: str, path: str):
        """The httpx response to ``method`` on ``path``."""
        return self.loop.run_until_complete(self.ds.client.request(method, path))

    def close(self) -> None:
        self.ds.executor.shutdown(wait=True)
        self.loop.close()


# -- the reading room in a real process --------------------------------------------------------

STARTUP_TIMEOUT = 20.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving_process(db_path: Path, log: Path, *options: str, env: dict[str, str] | None = None):
    """`academie serve` on DB_PATH (with ``options``, and ``env`` added to the
    environment), a real Datasette process on a free port; yields (its base URL, the
    process) once it answers. On exit the server is stopped with whatever it started (a
    rebuild of `--edit`): it runs in a process group of its own, ended whole."""
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "serve", "--db", str(db_path), "--port", str(port), *options],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUTF8": "1", **(env or {})}, start_new_session=True,
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
        yield base, proc
    finally:
        _end_group(proc)


def _end_group(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM to the server's process group (its id is the server's pid), SIGKILL to
    whatever of it is left after ``grace`` seconds."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while _group_alive(proc) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _group_alive(proc):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _group_alive(proc: subprocess.Popen) -> bool:
    proc.poll()  # the server reaped, so that a zombie does not count
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        return False
    return True


@contextlib.contextmanager
def serving(db_path: Path, log: Path, *options: str, env: dict[str, str] | None = None):
    """`academie serve` on DB_PATH (with ``options``), a real Datasette process on a free
    port, stopped on exit; yields its base URL once it answers."""
    with serving_process(db_path, log, *options, env=env) as (base, _):
        yield base


# -- a real browser ------------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots"
# the machine's network is closed: without these Chromium keeps calling home and stalls
CHROMIUM_ARGS = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


@contextlib.contextmanager
def chromium():
    """Debian's Chromium driven by Playwright (installed by `make browser`; no browser is
    ever downloaded), headless; screenshots go to SHOTS."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: `make browser` installs Debian's chromium (make test does it)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        args = CHROMIUM_ARGS + (["--no-sandbox"] if os.geteuid() == 0 else [])
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
        try:
            yield browser
        finally:
            browser.close()


# -- a made-up chapter whose text carries markup: the pages must show it as text ---------------

PLANTED = """‹ Nouvelle académie des jeux, ou règles des jeux de société Chapitre 3 sur 40 · BOS · texte numérisé non relu

BOS 41

BOSTON (jeu du).

Règles du jeu de Boston.

1. Celui qui donne mal <script>alert("planted")</script> paye une fiche à chacun des joueurs.

2. Le joueur qui renonce <|ue >^ «[ paye le double & perd la partie.

BOS 42

3. On ne peut plus revenir sur la donne <img src=x onerror=alert(2)> lorsque la première carte est jouée.
"""


def table_rows(db_path: Path) -> dict[str, list[tuple]]:
    """Every table of a database (the full-text index's shadow tables aside), its rows in
    rowid order: two builds compared table by table, row by row."""
    import sqlite3

    conn = sqlite3.connect(db_path)
    try:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%!_fts!_%' ESCAPE '!' ORDER BY name")]
        return {n: conn.execute(f'SELECT * FROM "{n}" ORDER BY rowid').fetchall() for n in names}
    finally:
        conn.close()


def assert_same_database(built: Path, reference: Path) -> None:
    """The two databases hold the same tables with the same rows, the first difference named."""
    got, want = table_rows(built), table_rows(reference)
    assert sorted(got) == sorted(want)
    for name in want:
        assert len(got[name]) == len(want[name]), name
        for i, (a, b) in enumerate(zip(got[name], want[name])):
            assert a == b, f"{name} row {i}: {a!r} != {b!r}"
