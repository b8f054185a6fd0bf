"""The README's examples, run as they are written.

In a fenced block of README.md, a line ``$ academie …`` is a command and the lines
after it, up to the next ``$`` line or the end of the block, are what it prints
(standard error and standard output as a terminal shows them); blank lines before
the next command only separate. A line ``…`` alone stands for any number of lines
left out. ``$ cat FILE`` shows a file the examples
use: running it writes that file. Other commands (``curl``) are shown, not run.

The commands run in order in a fresh folder with a copy of the project's ``corpus``
(the proofreading examples write decisions into it) and its ``tests``, so ``academie
build`` there writes ``build/academie.db`` and the commands after it read it.
``academie serve`` is started, as many lines read as the example shows (at least one),
and stopped. What changes at every run is masked on both sides before comparing:
times and durations, the ids of decisions made from them, and the token of ``serve --edit``.

``python tests/readme_examples.py`` rewrites the outputs of the examples that no
longer match (``make readme``): review the diff, restore the ``…`` you want, commit
it with the change that made it. ``--times`` also rewrites those that match but for
their timings (``make readme-times``, on a quiet machine: the figures a reader sees).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
ELIDED = "…"


@dataclass
class Example:
    line: int  # 1-based line of the '$' line in the README
    command: str  # without the '$ '
    expected: list[str]

    @property
    def runs(self) -> bool:
        return self.command.startswith(("academie ", "cat "))


def examples(text: str) -> list[Example]:
    out: list[Example] = []
    in_block = False
    current: Example | None = None
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            in_block = not in_block
            current = None
            continue
        if not in_block:
            continue
        if line.startswith("$ "):
            current = Example(number, line[2:], [])
            out.append(current)
        elif current is not None:
            current.expected.append(line)
    for ex in out:  # blank lines before the next command separate, they are not output
        while ex.expected and not ex.expected[-1].strip():
            ex.expected.pop()
    return out


def prepare(folder: Path) -> Path:
    """A folder to run the examples in: the project's corpus and tests, no build yet."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "corpus").exists():
        shutil.copytree(ROOT / "corpus", folder / "corpus", ignore=shutil.ignore_patterns("__pycache__", "proofs"))
    if not (folder / "tests").exists():
        (folder / "tests").symlink_to(ROOT / "tests")
    return folder


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8",
            "COLUMNS": "200", "TERM": "dumb", "ACADEMIE_EDITOR": "marie"}


_VOLATILE = [(re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"), "<when>"), (re.compile(r"\bd[0-9a-f]{8}\b"), "<id>"),
             (re.compile(r"\btoken=[A-Za-z0-9_%.~-]+"), "token=<token>"), (re.compile(r"\b\d+\.\d s\b"), "<seconds>")]


def mask(line: str) -> str:
    for pattern, stand_in in _VOLATILE:
        line = pattern.sub(stand_in, line)
    return line.rstrip()


def run(example: Example, folder: Path, timeout: float = 300) -> list[str]:
    """What the command prints, as lines (standard error and output in the order written)."""
    words = shlex.split(example.command)
    if words[0] == "cat":
        (folder / words[1]).write_text("\n".join(example.expected) + "\n", encoding="utf-8")
        return list(example.expected)
    argv = [sys.executable, "-m", "pipeline.cli", *words[1:]]
    if words[1] == "serve":
        return _first_lines_of_serve(argv, folder, max(1, len(example.expected)))
    proc = subprocess.run(argv, cwd=folder, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, encoding="utf-8", timeout=timeout)
    return proc.stdout.rstrip("\n").split("\n") if proc.stdout else []


def _first_lines_of_serve(argv: list[str], folder: Path, n: int) -> list[str]:
    proc = subprocess.Popen(argv, cwd=folder, env=environment(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8")
    try:
        return [proc.stderr.readline().rstrip("\n") for _ in range(n)]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line, where a line '…' stands for any number of lines."""
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        key = (i, j)
        if key not in memo:
            if i == len(expected):
                memo[key] = j == len(actual)
            elif expected[i] == ELIDED:
                memo[key] = any(go(i + 1, k) for k in range(j, len(actual) + 1))
            else:
                memo[key] = j < len(actual) and mask(expected[i]) == mask(actual[j]) and go(i + 1, j + 1)
        return memo[key]

    return go(0, 0)


def update(folder: Path, times: bool = False) -> int:
    """Rewrite the outputs of the examples that no longer match; returns how many.
    With ``times``, also those that match but for what is masked (times, ids), line for
    line: the timings printed as this machine took them (run it on a quiet machine)."""
    lines = README.read_text(encoding="utf-8").split("\n")
    changed = 0
    results = []
    for ex in examples("\n".join(lines)):
        if ex.runs:
            results.append((ex, run(ex, folder)))
    for ex, actual in reversed(results):  # bottom up, so that the line numbers above stay right
        if matches(ex.expected, actual) and not (times and ELIDED not in ex.expected
                                                  and len(ex.expected) == len(actual) and ex.expected != actual):
            continue
        changed += 1
        start = ex.line  # the 0-based index of the first output line
        lines[start : start + len(ex.expected)] = actual
    README.write_text("\n".join(lines), encoding="utf-8")
    return changed


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        n = update(prepare(Path(tmp) / "readme"), times="--times" in sys.argv[1:])
    print(f"README.md: {n} example(s) rewritten" if n else "README.md: every example matches")
