"""A realistic benchmark corpus: books of 130 chapters whose texts and OCR errors all
differ (`python bench/book.py OUT --books N`).

The text is the seed corpus's clean reading (its passages as the pipeline cleans
them), recombined: each chapter a game's heading paragraph and numbered articles made
of sentences drawn at random, its length drawn from the seed's chapter lengths. The
OCR noise is fresh, drawn from the correction engine's own channel model
(pipeline/data/confusions.toml) in reverse: a letter the engine reads back from a
glyph is printed as that glyph, likelier the cheaper the confusion, at the seed's rate
of misread words (its spelling corrections per word). Pages carry running heads and
page numbers as the seed's do, the numbers misread as the seed's are (o for 0, i or l
for 1). Each chapter opens with the export header the manifest matches its book by.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import sys
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import data  # noqa: E402
from pipeline.build import process_chapter  # noqa: E402
from pipeline.corpus import chapter_files  # noqa: E402
from pipeline.resources import Resources  # noqa: E402

CORPUS = ROOT / "corpus"
CHAPTERS = 130
PAGE_CHARS = 1800  # characters of text between two running heads, as in the seed
_SENTENCE = regex.compile(r"(?<=[.;!?])\s+(?=\p{Lu})")
_WORD = regex.compile(r"\p{L}+")
_NUMBERED = regex.compile(r"^\d+\s*°?\.\s*")


class Seed:
    """What the books are made of, read once from the seed corpus."""

    def __init__(self, corpus: Path = CORPUS):
        res = Resources(corpus)
        segs = [process_chapter(f, res) for f in chapter_files(corpus)]
        self.sentences = [s for seg in segs for p in seg.passages if p.kind in ("article", "paragraph")
                          for s in _SENTENCE.split(_NUMBERED.sub("", p.text.text)) if len(s) > 20]
        self.lengths = [len(seg.layout.chapter.text) for seg in segs]
        self.games = [e.name for e in res.catalogue.entries]
        words = sum(len(_WORD.findall(p.text.text)) for seg in segs for p in seg.passages)
        misread = sum(1 for seg in segs for p in seg.passages for c in p.text.corrections()
                      if c.fix.startswith("clean.") and c.fix != "clean.layout")
        self.word_error_rate = misread / max(words, 1)
        pairs = data.load("confusions")["confusions"]["pairs"]
        # (letters meant, glyphs printed, weight): the cheaper to read back, the likelier
        self.confusions = [(meant, printed, math.exp(-2 * cost)) for printed, meant, cost in pairs
                           if meant.isalpha() and printed.strip()]
        self.digit_misreadings = {"0": "o", "1": "i", "5": "s"}


def noisy(text: str, seed: Seed, rng: random.Random, errors: list[tuple[str, str]] | None = None) -> str:
    """``text`` misread; with ``errors``, each misreading (printed, meant) added to it."""

    def misread(m: regex.Match) -> str:
        word = m.group(0)
        if rng.random() >= seed.word_error_rate:
            return word
        options = [(meant, printed, w) for meant, printed, w in seed.confusions if meant in word]
        if not options:
            return word
        meant, printed, _ = rng.choices(options, weights=[w for *_, w in options])[0]
        at = rng.choice([i for i in range(len(word)) if word.startswith(meant, i)])
        wrong = word[:at] + printed + word[at + len(meant):]
        if errors is not None:
            errors.append((wrong, word))
        return wrong

    return _WORD.sub(misread, text)


def chapter(seed: Seed, rng: random.Random, title: str, number: int, page: int,
            errors: list[tuple[str, str]] | None = None) -> tuple[str, int]:
    """One chapter's file text, and the page it ends on (its misreadings added to ``errors``)."""
    game = rng.choice(seed.games)
    head = game.split(" (")[0].upper()[:12]
    size = rng.choice(seed.lengths) * rng.uniform(0.7, 1.3)
    paragraphs = [f"{game.upper()} (jeu du). " + " ".join(rng.sample(seed.sentences, 3))]
    n, length = 1, len(paragraphs[0])
    while length < size:
        article = f"{n}. " + " ".join(rng.sample(seed.sentences, rng.randint(1, 3)))
        paragraphs.append(article)
        length += len(article)
        n += 1
    out, since = [], 0
    for p in paragraphs:
        out.append(noisy(p, seed, rng, errors))
        since += len(p)
        if since > PAGE_CHARS:
            page += 1
            folio = "".join(seed.digit_misreadings.get(d, d) if rng.random() < seed.word_error_rate * 4 else d
                            for d in str(page))
            out.append(f"{head} {folio}" if page % 2 else f"{folio} {head}")
            since = 0
    header = f"‹ {title}Chapitre {number} sur {CHAPTERS} · {head} · texte numérisé non relu"
    return "\n\n".join([header, head, *out]) + "\n", page


def make_library(out: Path, books: int, chapters: int = CHAPTERS, seed: Seed | None = None,
                 errors: dict[str, list[tuple[str, str]]] | None = None) -> int:
    """``books`` books of ``chapters`` chapters each in the corpus folder ``out``, one
    edition each; the characters written. With ``errors``, each chapter file's
    misreadings (printed, meant), by file name."""
    seed = seed or Seed()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copyfile(CORPUS / "games.toml", out / "games.toml")
    manifest, written = [], 0
    for b in range(books):
        rng = random.Random(b)
        title = f"Académie des jeux, livre {b:02d}"
        manifest += ["[[editions]]", f'id = "b{b:02d}"', f'title = "{title}"', f'header_title = "{title}"',
                     f"chapters = {CHAPTERS}", 'source = "made by bench/book.py from the seed corpus"', ""]
        page = 1
        for c in range(1, chapters + 1):
            name = f"b{b:02d}_{c:03d}.txt"
            text, page = chapter(seed, rng, title, c, page, None if errors is None else errors.setdefault(name, []))
            (out / name).write_text(text, encoding="utf-8")
            written += len(text)
    (out / "manifest.toml").write_text("\n".join(manifest), encoding="utf-8")
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--books", type=int, default=1)
    ap.add_argument("--chapters", type=int, default=CHAPTERS)
    a = ap.parse_args()
    print(f"{make_library(a.out, a.books, a.chapters):,} characters in {a.out}")


if __name__ == "__main__":
    main()
