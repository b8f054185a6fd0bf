"""`academie serve`: the real command, a real Datasette process, real HTTP.

The server is conftest's ``server``: `academie serve` on a free port with the database
the session built, stopped at teardown. Nothing here depends on
schema/metadata.yml: `serve` passes it to Datasette only when it exists.
"""

from __future__ import annotations

import hashlib
import json
import socket
import unicodedata
import urllib.request
from pathlib import Path

import pytest


def get(base: str, path: str):
    with urllib.request.urlopen(base + path, timeout=10) as r:
        assert r.status == 200
        return json.loads(r.read().decode("utf-8"))


def test_database_is_served_immutable(server, built_db):
    base, _, name, before = server
    databases = {d["name"]: d for d in get(base, "/-/databases.json")}
    assert name in databases, databases
    assert databases[name]["is_mutable"] is False
    assert Path(databases[name]["path"]).resolve() == built_db.resolve()
    # immutable: serving never writes to the file
    assert hashlib.sha256(built_db.read_bytes()).hexdigest() == before


def test_passage_by_citation(server):
    base, _, name, _ = server
    rows = get(base, f"/{name}/passages.json?_shape=array&citation=aduj:whist.13")
    assert len(rows) == 1, rows
    assert rows[0]["citation"] == "aduj:whist.13"
    assert rows[0]["number"] == 13
    assert rows[0]["page"] == 407
    assert rows[0]["game"] == "whist"
    assert rows[0]["kind"] == "article"


def test_full_text_search_finds_only_hombre(server):
    base, _, name, _ = server
    rows = get(base, f"/{name}/passages.json?_search=matadors&_shape=array")
    assert rows, "no passage found for 'matadors'"
    assert {r["game"] for r in rows} == {"hombre"}
    for r in rows:
        folded = "".join(c for c in unicodedata.normalize("NFKD", r["text_clean"]) if not unicodedata.combining(c))
        assert "matadors" in folded.lower(), r["citation"]


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
    _, port, _, _ = server
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass
    addr = _non_loopback_ipv4()
    if addr is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    with pytest.raises(OSError):
        with socket.create_connection((addr, port), timeout=2):
            pass
