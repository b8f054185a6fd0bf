"""`academie serve`: the real command, a real Datasette process, real HTTP.

The server is conftest's ``server``: `academie serve` on a free port with the database
the session built, stopped at teardown. Only what needs the process is tested here: it
starts and says where, binds 127.0.0.1 only, serves the database immutable with the
settings and metadata it passes, and its plugin answers a round trip. What the pages
say is tested in-process (tests/test_web.py), on a Datasette configured the same way:
the last test checks that it is.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from pipeline.cli import SERVE_SETTINGS
from tests.helpers import METADATA, ROOT, ReadingRoom, serving

# `academie serve` is a process of its own
pytestmark = pytest.mark.slow


def get(base: str, path: str):
    with urllib.request.urlopen(base + path, timeout=10) as r:
        assert r.status == 200
        return json.loads(r.read().decode("utf-8"))


def test_it_says_where_the_reading_room_is(server):
    base, port, name, _, log = server
    assert log.read_text(encoding="utf-8").splitlines()[0] == (
        f"The reading room: http://127.0.0.1:{port}/  (the tables: http://127.0.0.1:{port}/{name})")


def test_database_is_served_immutable(server, built_db):
    base, _, name, before, _ = server
    databases = {d["name"]: d for d in get(base, "/-/databases.json")}
    assert list(databases) == [name]
    assert databases[name]["is_mutable"] is False
    assert Path(databases[name]["path"]).resolve() == built_db.resolve()
    # immutable: serving never writes to the file
    assert hashlib.sha256(built_db.read_bytes()).hexdigest() == before


def test_settings_and_metadata_it_passes(server):
    base = server[0]
    settings = get(base, "/-/settings.json")
    assert {k: settings[k] for k in SERVE_SETTINGS} == {
        "default_page_size": 50, "sql_time_limit_ms": 2000, "max_returned_rows": 1000}
    metadata = get(base, "/-/metadata.json")
    assert metadata["title"] == yaml.safe_load(METADATA.read_text(encoding="utf-8"))["title"]
    assert sorted(metadata["databases"]["academie"]["queries"]) == ["article", "corrections_of", "page", "search"]


@pytest.fixture()
def fresh_room(built_db):
    """A reading room of its own: Datasette writes into its metadata as canned queries
    are asked (their 'name'), so the session's room, asked everything by the fuzzer,
    would differ from a process just started."""
    r = ReadingRoom(built_db)
    yield r
    r.close()


def test_the_in_process_reading_room_is_the_served_one(server, fresh_room):
    """The Datasette the fast tests read in-process is configured as `academie serve`
    configures its own: same settings, metadata, plugins and pages."""
    room = fresh_room
    base = server[0]
    for path in ("/-/settings.json", "/-/metadata.json", "/-/plugins.json", "/-/databases.json"):
        inproc = room.get(path)
        assert inproc.status_code == 200, path
        assert inproc.json() == get(base, path), path
    # one round trip through the plugin, which the process loads by its entry point
    served = get(base, "/cite/aduj:whist.13.json")
    assert (served["p"]["citation"], served["p"]["page"], served["citation_text"]) == (
        "aduj:whist.13", 407, "Académie universelle des jeux, Whist, art. 13, p. 407")
    assert served["url"] == base + "/cite/aduj:whist.13"
    # the in-process room gives out the default address, the served one its own (--base-url's default)
    assert json.loads(room.get("/cite/aduj:whist.13.json").text.replace("http://127.0.0.1:8001", base)) == served


def test_serve_without_a_database_says_so(tmp_path):
    missing = tmp_path / "none.db"
    proc = subprocess.run([sys.executable, "-m", "pipeline.cli", "serve", "--db", str(missing)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {missing}: no database; run 'academie build' first\n"


def _non_loopback_ipv4() -> str | None:
    """An IPv4 address of this machine that is not loopback, or None."""
    candidates: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # UDP connect sends nothing: it only picks the outgoing address
            candidates.append(s.getsockname()[0])
        except OSError:
            pass
    try:
        candidates += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    for addr in candidates:
        if addr.startswith("127.") or addr == "0.0.0.0":
            continue
        # it is ours, and reachable, if we can listen on it and connect to ourselves there
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
                listener.bind((addr, 0))
                listener.listen(1)
                with socket.create_connection(listener.getsockname(), timeout=2):
                    pass
            return addr
        except OSError:
            continue
    return None


def test_listens_on_loopback_only(server):
    port = server[1]
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass
    addr = _non_loopback_ipv4()
    if addr is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    with pytest.raises(OSError):
        with socket.create_connection((addr, port), timeout=2):
            pass


def test_base_url_names_the_links_given_out_whatever_the_host_header(built_db, tmp_path):
    with serving(built_db, tmp_path / "serve.log", "--base-url", "https://jeux.example.org/salle/") as base:
        request = urllib.request.Request(base + "/cite/aduj:whist.13.json", headers={"Host": "evil.example"})
        with urllib.request.urlopen(request, timeout=10) as r:
            cited = json.loads(r.read().decode("utf-8"))
    assert cited["url"] == "https://jeux.example.org/salle/cite/aduj:whist.13"
    assert "url = {https://jeux.example.org/salle/cite/aduj:whist.13}" in cited["bibtex"]
