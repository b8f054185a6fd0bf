"""The rule extraction alone (`.venv/bin/python bench/rules.py`): spaCy's start-up and the
rules stage's speed on the 130-chapter book of bench/book.py, against issue 14's target.

The book's candidate passages (what the build hands the rules stage) are made once, by
the chapter stages, and kept in bench/out/rules_passages.json with a digest of the book
they come from; they are made again when the book differs. Each figure is then the
median of --runs fresh processes, as a build pays it:

- start-up: the pipeline's link stage imported and its model loaded (``load_rules``),
  with ``import spacy`` apart (what no loading strategy can save);
- rules: ``extract`` over every chapter's candidates, in order, as the build calls it,
  in characters of the book's chapter files per second (the unit of bench/scale.py);
  the records' digest is printed, so that two trees can be shown to read the same rules.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
TARGET_KBPS = 200.0  # the whole build after start-up (issue 14): the rules stage alone must be well above it

STARTUP = r"""
import json, sys, time
t0 = time.perf_counter()
import spacy
t1 = time.perf_counter()
from pipeline.link import load_rules
from pipeline.resources import Resources
load_rules(Resources(sys.argv[1]))
t2 = time.perf_counter()
print(json.dumps({"spacy_import": t1 - t0, "load": t2 - t1, "total": t2 - t0}))
"""

STAGE = r"""
import hashlib, json, sys, time
from pipeline.link import extract, load_rules
from types import SimpleNamespace as NS
from pipeline.resources import Resources
res = Resources(sys.argv[1])
load_rules(res)
book = json.load(open(sys.argv[2], encoding="utf-8"))
# what extract reads of a passage: its seq and clean text
chapters = [[NS(seq=seq, text=NS(text=text)) for seq, text in ps] for ps in book["chapters"]]
t = time.perf_counter()
found = [extract(None, ps, res) for ps in chapters]
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "digest": hashlib.sha256(repr(found).encode()).hexdigest()[:16]}))
"""


def book_passages(path: Path) -> dict:
    """The candidate passages of the 130-chapter book, made again if the book changed."""
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT))
    from book import Seed, make_library

    from pipeline.build import process_chapter
    from pipeline.corpus import chapter_files
    from pipeline.link import candidates
    from pipeline.resources import Resources

    with tempfile.TemporaryDirectory(prefix="academie-rules-") as tmp:
        corpus = Path(tmp) / "book"
        make_library(corpus, 1, 130, Seed())
        files = chapter_files(corpus)
        digest = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()
        if path.exists():
            kept = json.loads(path.read_text(encoding="utf-8"))
            if kept.get("book") == digest:
                return kept
        res = Resources(corpus)
        chapters = [[(p.seq, p.text.text) for p in candidates(process_chapter(f, res))] for f in files]
        made = {"book": digest, "chars": sum(len(f.read_text(encoding="utf-8")) for f in files), "chapters": chapters}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(made, ensure_ascii=False), encoding="utf-8")
    return made


def fresh(tree: Path, code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, str(tree / "corpus"), *args], capture_output=True, text=True,
                         cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def runs(measures: list[dict], key: str) -> str:
    return ", ".join(f"{m[key]:.2f}" for m in measures)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--passages", type=Path, default=OUT / "rules_passages.json")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the pipeline measured (another worktree: its figures before a change)")
    a = ap.parse_args()
    book = book_passages(a.passages)
    n = sum(len(ps) for ps in book["chapters"])
    print(f"pipeline: {a.tree}")
    print(f"book: {len(book['chapters'])} chapters, {book['chars'] / 1e3:.0f} kB, {n} candidate passages "
          f"({sum(len(t) for ps in book['chapters'] for _, t in ps) / 1e3:.0f} kB of clean text)")
    with open("/proc/loadavg") as f:
        print(f"load average: {f.read().split()[0]}")
    starts = [fresh(a.tree, STARTUP) for _ in range(a.runs)]
    med = {k: statistics.median(s[k] for s in starts) for k in starts[0]}
    print(f"start-up: {med['total']:.2f} s (import spacy {med['spacy_import']:.2f} s, the model's load "
          f"{med['load']:.2f} s); runs {runs(starts, 'total')}")
    stages = [fresh(a.tree, STAGE, str(a.passages.resolve())) for _ in range(a.runs)]
    seconds = statistics.median(s["seconds"] for s in stages)
    kbps = book["chars"] / seconds / 1e3
    print(f"rules stage: {seconds:.2f} s, {kbps:.0f} kB/s (target of the whole build {TARGET_KBPS:.0f} kB/s: "
          f"{'met' if kbps >= TARGET_KBPS else 'MISSED'}); runs {runs(stages, 'seconds')}")
    print(f"records digest: {', '.join(sorted({s['digest'] for s in stages}))}")
    with open("/proc/loadavg") as f:
        print(f"load average: {f.read().split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
