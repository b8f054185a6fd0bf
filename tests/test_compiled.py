"""The modules setup.py compiles (Cython, as they are written): compiled where built,
imported from their source once edited, and cleaning as their source does."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from tests.helpers import CORPUS

ROOT = Path(__file__).resolve().parent.parent


def compiled_in_setup() -> list[str]:
    """setup.py's ``COMPILED``, as module names."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    paths = next(ast.literal_eval(node.value) for node in tree.body
                 if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED")
    return sorted(p.removesuffix(".py").replace("/", ".") for p in paths)


def package_copy(tmp_path: Path) -> Path:
    """The package copied as installed (its compiled modules and their digests), without bytecode."""
    shutil.copytree(ROOT / "pipeline", tmp_path / "pipeline", ignore=shutil.ignore_patterns("__pycache__", "*.c"))
    return tmp_path


def run_in(root: Path, code: str, *args: str) -> subprocess.CompletedProcess:
    """Python code run with the package copy at ``root`` (and nothing else of ours) on its path."""
    r = subprocess.run([sys.executable, "-c", code, *args], cwd=root, capture_output=True, text=True,
                       env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                            "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 0, r.stderr
    return r


def imported(root: Path, code: str) -> str:
    return run_in(root, code).stdout


def test_the_clean_stage_runs_compiled():
    from pipeline import build, clean  # noqa: F401  (every module the clean stage imports)
    from pipeline.clean import book, context, correct, sequence, steps  # noqa: F401

    assert len(compiled_in_setup()) == 9
    assert pipeline.compiled_modules() == compiled_in_setup(), \
        "the clean stage's modules were not compiled: run make install (a C compiler is needed)"
    assert context.__file__.endswith(".so")


@pytest.mark.slow
def test_an_edited_module_is_imported_from_its_source(tmp_path):
    root = package_copy(tmp_path)
    with open(root / "pipeline" / "memos.py", "a", encoding="utf-8") as f:
        f.write("\nEDITED = True\n")
    (digest,) = (root / "pipeline").glob("lexicon.*.so.sha256")
    digest.unlink()  # a module compiled, its digest lost: its source is imported too
    out = imported(root, "import pipeline.memos as m, pipeline.lexicon as l, pipeline.resources as r, pipeline\n"
                         "print(m.__file__.rpartition('/')[2], getattr(m, 'EDITED', False))\n"
                         "print(l.__file__.rpartition('/')[2])\n"
                         "print(r.__file__.endswith('.so'))\n"
                         "print(pipeline.compiled_modules())")
    assert out.splitlines() == ["memos.py True", "lexicon.py", "True",
                                "['pipeline.resources', 'pipeline.text']"]
    out = imported(root, "import os; os.environ['ACADEMIE_FROM_SOURCE'] = '1'\n"
                         "import pipeline.resources as r, pipeline\n"
                         "print(r.__file__.rpartition('/')[2], pipeline.compiled_modules())")
    assert out == "resources.py []\n"


@pytest.mark.slow
def test_compiled_and_source_modules_clean_a_chapter_alike(tmp_path):
    """The same chapter cleaned by the compiled modules and by their sources (every
    digest removed): the same text, the same fixes explained, to the byte."""
    root = package_copy(tmp_path)
    chapter = sorted(CORPUS.glob("*.txt"))[0]
    # (printed at exit, as the command ends the process itself)
    code = ("import atexit, sys, pipeline\n"
            "atexit.register(lambda: print(pipeline.compiled_modules(), file=sys.stderr))\n"
            "from pipeline.cli import main\n"
            "sys.argv = ['academie', 'clean', '--explain', sys.argv[1]]\n"
            "main()")
    runs = {}
    for mode in ("compiled", "source"):
        if mode == "source":
            for digest in (root / "pipeline").rglob("*.so.sha256"):
                digest.unlink()
        runs[mode] = run_in(root, code, str(chapter))
    assert runs["compiled"].stderr.splitlines()[-1] == str(compiled_in_setup())
    assert runs["source"].stderr.splitlines()[-1] == "[]"
    assert runs["compiled"].stdout == runs["source"].stdout
    assert runs["compiled"].stderr.splitlines()[:-1] == runs["source"].stderr.splitlines()[:-1]
    assert len(runs["compiled"].stdout) > 5000 and runs["compiled"].stderr.count("\n") > 20
