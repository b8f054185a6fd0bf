"""The cleaning's speed, against the targets of the correction engine's issue:
`.venv/bin/python bench/clean.py [--runs N] [--chars N]`.

The text is the engine's worst case: the first 250,000 characters (``--chars``) of
the first chapters of `bench/book.py`'s book (of 40), every OCR error a fresh one (no
decision is made twice for the same misreading). Each figure is the median of
``--runs`` rounds (default 3, after a warm-up round that is discarded), the
commands of a round run one after the other so that the machine's drift touches
them alike:

- ``academie clean FILE`` as a whole process, start-up included (target: under 3 s);
- the same with ``-j 2`` (its paragraphs in two forked processes);
- ``academie clean`` of a one-line file: the start-up as users pay it;
- the clean stage alone, cold, on one core: a fresh process loads its tables
  (cleaning a line), reads and lays out the file, then cleans it (the book's counts
  and every decision made afresh), timed apart (target: at least 100,000 characters
  a second);
- a reference loop of pure Python (the same work every time, ``run.REFERENCE``): the
  machine's speed at the moment, since it varies by more than two to one from one
  hour to the next; the clean stage's time is printed in those loops too, which
  vary much less between two runs of different hours (bench/README.md).

It prints the figures against the targets, met or MISSED, and writes them to
``bench/out/clean.json``. It asserts nothing.

``--instructions`` counts instead the instructions the clean stage runs (valgrind's
callgrind, which counts the same for the same code and text whatever the machine is
doing, where the seconds above drift by a fifth from one run to the next): the first
``--chars`` characters (40,000 by default: about two minutes under callgrind) read, laid
out and cleaned, less a one-line file's (the start-up), per character. Every module is compiled
to bytecode first: a run that compiles them counts half a billion more.

``--breakdown`` prints instead where the clean stage's time goes, on the same text and
on the same text without its errors (``book.py``'s book made with none): each kind of
decision timed as it is made (the corrector's on unknown and on known words, the
sentence's, joins and splits; a decision taken from a memo is not timed again), and
the rest, the steps' own passes over the tokens and the memos' look-ups. (The timers
add a little to each decision: the total is a few per cent above the stage's.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from book import Seed, make_library  # noqa: E402
from run import REFERENCE, measure_wrapped, run_wrapped  # noqa: E402

TARGET_STAGE_CPS = 100_000  # the clean stage, characters a second, cold, one core
TARGET_PROCESS_S = 3.0  # `academie clean` of the 250 KB book, whole process
CHAPTERS = 40  # of bench/book.py's book, made to hold the text measured

# the clean stage alone, in a fresh process: reading and layout apart, then the clean
STAGE = r"""
import json, sys, time
from pathlib import Path
import pipeline
from pipeline.chapter import laid_out
from pipeline.clean import clean
from pipeline.resources import Resources
res = Resources(Path(sys.argv[2]))
# a line cleaned first loads the tables (start-up, not cleaning); its book's counts are
# its own, so no decision it makes is one the book's cleaning can take
clean(laid_out(Path(sys.argv[3]), res), res)
lay = laid_out(Path(sys.argv[1]), res)
t = time.perf_counter()
clean(lay, res)
print(json.dumps({"clean_s": time.perf_counter() - t, "compiled": pipeline.compiled_modules()}))
from pipeline.cli import end
end(0)
"""


# the clean stage of a fresh process, each kind of decision timed as it is made
BREAKDOWN = r"""
import json, sys, time
from collections import Counter
from pathlib import Path
from pipeline.chapter import laid_out
from pipeline.clean import clean, context, correct
from pipeline.resources import Resources
spent, made = Counter(), Counter()

def timed(cls, name, kind):
    f = getattr(cls, name)
    def g(self, *a):
        t = time.perf_counter()
        try:
            return f(self, *a)
        finally:
            k = kind(self, *a)
            spent[k] += time.perf_counter() - t
            made[k] += 1
    setattr(cls, name, g)

def known(self, printed, *a):
    return "known" if self.lexicon.zipf(printed) >= 1.0 else "unknown"

timed(correct.Corrector, "_decide", lambda self, *a: "the corrector, " + known(self, *a) + " words")
timed(context.ContextReader, "_decide", lambda self, *a: "the sentence, " + known(self, *a) + " words")
timed(context.ContextReader, "_join", lambda self, *a: "the sentence, two words joined")
timed(context.ContextReader, "_split", lambda self, *a: "the sentence, a word parted")
res = Resources(Path(sys.argv[2]))
clean(laid_out(Path(sys.argv[3]), res), res)
spent.clear(), made.clear()
lay = laid_out(Path(sys.argv[1]), res)
t = time.perf_counter()
clean(lay, res)
print(json.dumps({"total_s": time.perf_counter() - t, "spent": spent, "made": made}))
from pipeline.cli import end
end(0)
"""


def made_text(folder: Path, chars: int, errors: bool = True) -> Path:
    seed = None
    if not errors:
        seed = Seed()
        seed.word_error_rate = 0.0
    # (the book is made from the corpus's clean text, so its chapters' lengths move with the
    # engine: 30 chapters held 250,000 characters until 2026-12-07, 244,496 after; the text
    # measured is the first 250,000 characters, whatever number of chapters holds them)
    make_library(folder / "book", 1, CHAPTERS, seed=seed)
    text = "".join(f.read_text(encoding="utf-8") for f in sorted((folder / "book").glob("b00_*.txt")))
    if len(text) < chars:
        raise SystemExit(f"the {CHAPTERS} chapters hold {len(text):,} characters, fewer than --chars {chars:,}")
    path = folder / ("book.txt" if errors else "book-without-errors.txt")
    path.write_text(text[:chars], encoding="utf-8")
    return path


def breakdown(chars: int) -> None:
    """Where the clean stage's time goes, with the book's errors and without (``--breakdown``)."""
    corpus = str(ROOT / "corpus")
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.txt"
        one.write_text("Le jeu.\n", encoding="utf-8")
        for errors in (True, False):
            text = made_text(Path(tmp), chars, errors)
            r = run_wrapped([sys.executable, "-c", BREAKDOWN, str(text), corpus, str(one)])
            if r["rc"] != 0:
                raise SystemExit(f"the clean stage failed: {r['stderr'][-1500:]}")
            got = json.loads(r["stdout"].strip().splitlines()[-1])
            total, spent, made = got["total_s"], got["spent"], got["made"]
            print(f"the clean stage on {chars:,} characters of bench/book.py's book"
                  f"{'' if errors else ', made without OCR errors'}: {total:.2f} s")
            for kind, s in sorted(spent.items(), key=lambda x: -x[1]):
                print(f"  {kind:34s} {s:6.2f} s {100 * s / total:5.1f}%  {made[kind]:6,} made, "
                      f"{1000 * s / made[kind]:5.2f} ms each")
            rest = total - sum(spent.values())
            print(f"  {'the rest (steps, tokens, memos)':34s} {rest:6.2f} s {100 * rest / total:5.1f}%")


def instructions(chars: int) -> None:
    """The clean stage's instructions, counted by callgrind (``--instructions``)."""
    import concurrent.futures
    import re
    import shutil
    import subprocess

    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (Debian's package valgrind)")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "pipeline")], check=True,
                   stdout=subprocess.DEVNULL)
    corpus = str(ROOT / "corpus")
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.txt"
        one.write_text("Le jeu.\n", encoding="utf-8")
        text = made_text(Path(tmp), chars)

        compiled: list[str] = []

        def counted(path: Path) -> int:
            # (one hash seed: a set's order, and so the work, is the same from one count to the next)
            r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.{path.stem}",
                                sys.executable, "-c", STAGE, str(path), corpus, str(one)],
                               cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
            found = re.search(r"Collected : (\d+)", r.stderr)
            if r.returncode != 0 or found is None:
                raise SystemExit(f"callgrind of the clean stage failed: {r.stderr[-1500:]}")
            if path == text:
                compiled[:] = json.loads(r.stdout.strip().splitlines()[-1])["compiled"]
            return int(found.group(1))

        with concurrent.futures.ThreadPoolExecutor(2) as pool:  # (one process a core)
            total, startup = pool.map(counted, [text, one])
    own = total - startup
    results = {"date": time.strftime("%Y-%m-%d %H:%M"), "chars": chars, "instructions": total,
               "startup_instructions": startup, "stage_instructions": own, "per_char": own / chars,
               "compiled": compiled}
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "clean-instructions.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"the clean stage on {chars:,} characters of bench/book.py's book, counted by callgrind: "
          f"{own / 1e9:.2f} G instructions ({total / 1e9:.2f} G less {startup / 1e9:.2f} G of start-up), "
          f"{own / chars:,.0f} a character")
    print(f"  {compiled_line(compiled)}")
    print(f"figures in {out / 'clean-instructions.json'}")


def compiled_line(compiled: list[str]) -> str:
    """Which of the package's modules ran compiled (setup.py), for the figures to say."""
    if not compiled:
        return "no module ran compiled (setup.py: run make install, a C compiler is needed)"
    return f"{len(compiled)} modules ran compiled (setup.py): {', '.join(m.removeprefix('pipeline.') for m in compiled)}"


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chars", type=int, default=None, help="default 250,000 (40,000 with --instructions)")
    ap.add_argument("--breakdown", action="store_true", help="where the clean stage's time goes, instead")
    ap.add_argument("--instructions", action="store_true",
                    help="the clean stage's instructions, counted by callgrind, instead (--chars default 40,000)")
    args = ap.parse_args()
    if args.chars is None:
        args.chars = 40_000 if args.instructions else 250_000
    if args.breakdown:
        breakdown(args.chars)
        return 0
    if args.instructions:
        instructions(args.chars)
        return 0
    academie = str(Path(sys.executable).parent / "academie")
    corpus = str(ROOT / "corpus")
    with tempfile.TemporaryDirectory() as tmp:
        text = made_text(Path(tmp), args.chars)
        one = Path(tmp) / "one.txt"
        one.write_text("Le jeu.\n", encoding="utf-8")
        got = measure_wrapped({
            "reference": ([sys.executable, "-c", REFERENCE], None),
            "one line": ([academie, "clean", str(one)], None),
            "whole": ([academie, "clean", str(text)], None),
            "whole -j 2": ([academie, "clean", "-j", "2", str(text)], None),
        }, args.runs)
        stage = []
        for _ in range(args.runs):
            r = run_wrapped([sys.executable, "-c", STAGE, str(text), corpus, str(one)])
            if r["rc"] != 0:
                raise SystemExit(f"the clean stage failed: {r['stderr'][-1500:]}")
            ran = json.loads(r["stdout"].strip().splitlines()[-1])
            stage.append(ran["clean_s"])
    for name, r in got.items():
        if r["rc"] != 0:
            raise SystemExit(f"{name} failed (exit {r['rc']})")
    reference = json.loads(got["reference"]["stdout"].splitlines()[-1])["reference_s"]
    whole, parallel, startup = (got[k]["wall_s"] for k in ("whole", "whole -j 2", "one line"))
    stage_s = statistics.median(stage)
    cps = args.chars / stage_s
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M"), "chars": args.chars, "runs": args.runs,
        "reference_loop_s": reference, "startup_s": startup,
        "whole_s": whole, "whole_runs_s": got["whole"]["wall_runs_s"], "whole_j2_s": parallel,
        "stage_s": stage_s, "stage_runs_s": stage, "stage_chars_per_s": cps, "stage_in_reference_loops": stage_s / reference,
        "peak_mb": got["whole"]["maxrss_mb"], "compiled": ran["compiled"],
        "targets": {"stage_chars_per_s": TARGET_STAGE_CPS, "whole_s": TARGET_PROCESS_S},
    }
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "clean.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"academie clean on {args.chars:,} characters of bench/book.py's book, median of {args.runs} "
          f"(the machine's reference loop {reference:.2f} s now)")
    print(f"  clean stage, cold, one core: {stage_s:.2f} s ({stage_s / reference:.1f} reference loops), "
          f"{cps:,.0f} characters a second  "
          f"vs target ≥ {TARGET_STAGE_CPS:,}: {verdict(cps >= TARGET_STAGE_CPS)} ({cps / TARGET_STAGE_CPS:.2f}×)")
    print(f"  whole process: {whole:.2f} s (start-up {startup:.2f} s, peak {got['whole']['maxrss_mb']:.0f} MB)  "
          f"vs target < {TARGET_PROCESS_S:g} s: {verdict(whole < TARGET_PROCESS_S)}")
    print(f"  whole process, -j 2: {parallel:.2f} s ({whole / parallel:.2f}× one process)")
    print(f"  {compiled_line(ran['compiled'])}")
    print(f"figures in {out / 'clean.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
