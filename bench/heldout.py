"""The cleaning on a book it was never tuned on: `.venv/bin/python bench/heldout.py FILE.jsonl`.

FILE is aligned paragraphs of another book, one JSON object a line with its ``ocr`` and
its ``proofread`` text (the shared folder's Lelasseux trictrac, 1852: 549 paragraphs,
about 132,000 characters, whose OCR misreads few words). The project does not keep
that text (its transcription states no licence), so the path is given; without it this
script says so and stops.

The OCR paragraphs are cleaned as one text, a paragraph a line, as ``academie clean``
cleans any file (with the corpus's games and vocabulary), and each side is scored with
``pipeline.clean.evaluate.score`` against the proofread paragraphs: CER, wrong words
fixed, and right words broken, which on a book this clean is what the figures mostly
say. The proofread side is not a diplomatic transcription (it modernises a little and
moves punctuation), so a "broken" word may be the proofreader's; ``--broken`` lists
them to read.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("aligned", type=Path, nargs="?", default=ROOT.parent / "shared/aligned/lelasseux1852_t1_pairs.jsonl")
    ap.add_argument("--corpus", type=Path, default=ROOT / "corpus")
    ap.add_argument("--broken", action="store_true", help="list the words broken, and those fixed")
    args = ap.parse_args()
    if not args.aligned.exists():
        sys.exit(f"{args.aligned}: no such file (aligned paragraphs of another book; see this script's docstring)")

    from pipeline.build import clean_file
    from pipeline.clean.evaluate import _right_with_hyp, normalise, score, words
    from pipeline.resources import Resources

    pairs = [json.loads(line) for line in args.aligned.read_text(encoding="utf-8").splitlines() if line.strip()]
    ocr = "\n".join(" ".join(p["ocr"].split()) for p in pairs)
    proof = "\n".join(" ".join(p["proofread"].split()) for p in pairs)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / args.aligned.with_suffix(".txt").name
        path.write_text(ocr + "\n", encoding="utf-8")
        t0 = time.perf_counter()
        lay = clean_file(path, Resources(args.corpus))
        seconds = time.perf_counter() - t0
    clean = "\n".join(b.text.text for b in lay.blocks)
    s = score(args.aligned.name, ocr, clean, proof)
    print(f"{args.aligned.name}: {len(pairs)} paragraphs, {len(ocr):,} characters, cleaned in {seconds:.1f} s")
    print(f"CER raw {s.cer_raw:.2%}, clean {s.cer_clean:.2%} (reduced {s.reduction:.1%}); "
          f"words {s.words:,}: wrong in the OCR {s.wrong_raw}, fixed {s.fixed}, "
          f"broken {s.broken} ({s.broken_rate:.3%} of the right ones)")
    if args.broken:
        g = words(normalise(proof))
        raw_right, raw_seen = _right_with_hyp(words(normalise(ocr)), g)
        clean_right, clean_seen = _right_with_hyp(words(normalise(clean)), g)
        for j, word in enumerate(g):
            if raw_right[j] != clean_right[j]:
                what = "fixed " if clean_right[j] else "BROKEN"
                print(f"  {what} {raw_seen[j]!r} → {clean_seen[j]!r} (proofread {word!r}): "
                      f"{' '.join(g[max(0, j - 4):j + 5])}")


if __name__ == "__main__":
    main()
