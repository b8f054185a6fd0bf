"""The two tiers of the suite. Tests that start a process or a server carry the ``slow``
marker, and `make test-fast` (``pytest -m "not slow"``) leaves them out; conftest's audit
hook makes the marker true: a test without it cannot start a process or bind a socket."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest


def test_a_test_not_marked_slow_cannot_start_a_process(request):
    message = f"{request.node.nodeid} starts a process or a server (subprocess.Popen) but is not marked slow"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        subprocess.run([sys.executable, "-c", "pass"])


def test_nor_a_server(request):
    message = f"{request.node.nodeid} starts a process or a server (socket.bind) but is not marked slow"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(RuntimeError, match=re.escape(message)):
        s.bind(("127.0.0.1", 0))


@pytest.mark.slow
def test_a_test_marked_slow_may():
    assert subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout == "42\n"


def test_the_marker_is_registered(pytestconfig):
    assert any(m.startswith("slow: ") for m in pytestconfig.getini("markers"))
    assert pytestconfig.option.strict_markers
