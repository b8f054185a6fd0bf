"""What the OCR's word confidences (ALTO's WC) do to the correction engine.

A made-up ALTO chapter: the lines of the chapters written for the tests
(tests/fixtures/made_up/, tests/alto_helpers.py), each word of three letters or more damaged, with
probability --damage, by one confusion of the channel's table (confusions.toml:
'b' printed 'L', 'm' printed 'rn' …). The same chapter is cleaned three times:

- none: no WC at all (as a text chapter);
- informative: a damaged word gets a WC in [0.30, 0.70], an intact one in [0.80, 0.99];
- noise: the same confidences shuffled across the words, so they say nothing.

For each run: damaged words fixed (cleaned back to the word written), intact words
broken (changed to another). Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import difflib
import random
import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import data  # noqa: E402
from pipeline.clean import clean  # noqa: E402
from pipeline.ingest.alto import alto_chapter  # noqa: E402
from pipeline.layout import layout  # noqa: E402
from pipeline.resources import Resources  # noqa: E402

NS = "http://www.loc.gov/standards/alto/ns-v4#"


# the chapters written for the tests in modern spelling (the long-s ones would count
# the engine's reading of the long s as words broken)
SOURCES = ("boston_piquet.txt", "reversis_lines.txt")


def source_lines() -> list[str]:
    from tests.alto_helpers import as_text

    texts = [(ROOT / "tests" / "fixtures" / "made_up" / f).read_text(encoding="utf-8") for f in SOURCES]
    lines = []
    for text in [*texts, as_text()]:
        for line in text.splitlines():
            if len(line.split()) >= 5 and not line.startswith("‹"):
                lines.append(line.strip())
    return lines


def damage(lines: list[str], rate: float, rng: random.Random):
    """(printed lines as word lists, truth word lists, damaged flags)."""
    pairs = [(printed, meant) for printed, meant, _ in data.load("confusions")["confusions"]["pairs"]
             if meant.isalpha() and printed.isalpha()]
    printed_lines, truth_lines, flags = [], [], []
    for line in lines:
        out, truth, damaged = [], [], []
        for word in line.split():
            truth.append(word)
            core = word.strip(".,;:!?()«»")
            hit = False
            if len(core) >= 3 and core.isalpha() and rng.random() < rate:
                options = [(p, m) for p, m in pairs if m in core]
                if options:
                    p, m = rng.choice(options)
                    k = rng.choice([i for i in range(len(core)) if core.startswith(m, i)])
                    word = word.replace(core, core[:k] + p + core[k + len(m):], 1)
                    hit = True
            out.append(word)
            damaged.append(hit)
        printed_lines.append(out)
        truth_lines.append(truth)
        flags.append(damaged)
    return printed_lines, truth_lines, flags


def alto(printed_lines, confidences) -> bytes:
    out = [f'<?xml version="1.0" encoding="UTF-8"?><alto xmlns="{NS}"><Layout>']
    per_page = 30
    for p in range(0, len(printed_lines), per_page):
        out.append(f'<Page ID="p{p}"><PrintSpace><TextBlock ID="b{p}">')
        for i in range(p, min(p + per_page, len(printed_lines))):
            out.append(f'<TextLine ID="l{i}">')
            for k, word in enumerate(printed_lines[i]):
                wc = confidences[i][k]
                attr = f' WC="{wc:.2f}"' if wc is not None else ""
                out.append(("<SP/>" if k else "") + f'<String ID="w{i}_{k}" CONTENT={quoteattr(word)}{attr}/>')
            out.append("</TextLine>")
        out.append("</TextBlock></PrintSpace></Page>")
    out.append("</Layout></alto>")
    return "".join(out).encode("utf-8")


def score(cleaned: str, printed_lines, truth_lines, flags) -> tuple[int, int, int, int]:
    """(damaged fixed, damaged, intact broken, intact), aligning the clean words with the printed ones."""
    printed = [w for line in printed_lines for w in line]
    truth = [w for line in truth_lines for w in line]
    damaged = [d for line in flags for d in line]
    clean_words = cleaned.split()
    matcher = difflib.SequenceMatcher(None, printed, clean_words, autojunk=False)
    reading = list(printed)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "replace" and a2 - a1 == b2 - b1:
            reading[a1:a2] = clean_words[b1:b2]
        elif op != "equal":
            for i in range(a1, a2):
                reading[i] = None  # joined or split: counted as not the word written
    fixed = sum(1 for r, t, d in zip(reading, truth, damaged) if d and r == t)
    broken = sum(1 for r, t, d in zip(reading, truth, damaged) if not d and r != t)
    return fixed, sum(damaged), broken, len(damaged) - sum(damaged)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--damage", type=float, default=0.15)
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    res = Resources(ROOT / "corpus")
    lines = source_lines()
    totals: dict[str, list[int]] = {}
    for seed in range(args.seeds):
        rng = random.Random(seed)
        printed, truth, flags = damage(lines, args.damage, rng)
        informative = [[rng.uniform(0.30, 0.70) if d else rng.uniform(0.80, 0.99) for d in line] for line in flags]
        flat = [c for line in informative for c in line]
        rng.shuffle(flat)
        it = iter(flat)
        noise = [[next(it) for _ in line] for line in flags]
        for name, conf in (("none", [[None] * len(line) for line in flags]), ("informative", informative),
                           ("noise", noise)):
            chapter = alto_chapter([("bench.xml", alto(printed, conf))], f"bench_{name}.xml")
            lay = clean(layout(chapter, res), res)
            text = " ".join(b.text.text for b in lay.blocks)
            row = totals.setdefault(name, [0, 0, 0, 0])
            for k, v in enumerate(score(text, printed, truth, flags)):
                row[k] += v
    print(f"{len(lines)} lines, damage {args.damage:.0%}, {args.seeds} seeds")
    print(f"{'confidences':<12} {'fixed':>16} {'broken':>16}")
    for name, (fixed, damaged, broken, intact) in totals.items():
        print(f"{name:<12} {fixed:>5}/{damaged:<5} {fixed / damaged:6.1%} {broken:>5}/{intact:<5} {broken / intact:6.1%}")


if __name__ == "__main__":
    main()
