"""What a build's recording of the book's reads costs the clean stage
(`.venv/bin/python bench/recording.py [--chapters N] [--runs N]`).

A build cleans each chapter while recording what it reads of the book's counts
(``resources.Views``: each read kept in the chapter's views, in the decision under
way, in the paragraph's reads, and read again through the next chapter's views when
a decision is taken from the memo): the evidence that lets an incremental build keep
a chapter, or a paragraph, whose reads still hold. This times the clean stage alone
on the chapters of `bench/book.py`'s 130-chapter book, laid out first, in one
process: once as `academie clean` runs it (nothing recorded) and once as a build runs
it (a fresh ``Views`` per chapter), each round in a fresh process, the two kinds of
round taken in turn so that the machine's drift touches them alike. Prints both
rates and their ratio; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from book import make_library  # noqa: E402
from run import SUB_ENV  # noqa: E402

# one round: the chapters laid out, the tables loaded (a first chapter cleaned and
# its cleaning not timed), then every chapter cleaned, recorded as a build records or not
ROUND = r"""
import json, sys, time
from pathlib import Path
from pipeline.chapter import laid_out
from pipeline.clean import clean
from pipeline.corpus import chapter_files
from pipeline.resources import Resources, Views
corpus, recorded = Path(sys.argv[1]), sys.argv[2] == "recorded"
res = Resources(corpus)
lays = [laid_out(f, res) for f in chapter_files(corpus)]
clean(lays[0], res)
t = time.perf_counter()
for lay in lays:
    res.consulted = Views() if recorded else None
    clean(lay, res)
res.consulted = None
print(json.dumps({"s": time.perf_counter() - t, "chars": sum(len(x.chapter.text) for x in lays)}))
from pipeline.cli import end
end(0)
"""


def timed(corpus: Path, kind: str) -> dict:
    p = subprocess.run([sys.executable, "-c", ROUND, str(corpus), kind], cwd=ROOT, env=SUB_ENV,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chapters", type=int, default=130)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        make_library(corpus, 1, args.chapters)
        got: dict[str, list[float]] = {"plain": [], "recorded": []}
        chars = 0
        for _ in range(args.runs):
            for kind in got:
                r = timed(corpus, kind)
                got[kind].append(r["s"])
                chars = r["chars"]
    plain, recorded = (statistics.median(got[k]) for k in ("plain", "recorded"))
    print(f"the clean stage on bench/book.py's book, {args.chapters} chapters ({chars:,} characters), "
          f"median of {args.runs} rounds each, taken in turn:")
    print(f"  nothing recorded (academie clean):  {plain:6.2f} s  {chars / plain / 1000:6.1f} kB/s")
    print(f"  the reads recorded (a build):       {recorded:6.2f} s  {chars / recorded / 1000:6.1f} kB/s  "
          f"({recorded / plain:.2f}× the time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
