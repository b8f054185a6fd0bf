"""How many chapters one edit redoes, over many edits: `python bench/edits.py CORPUS CACHE`.

``bench/scale.py`` times a rebuild after one OCR error corrected and one word replaced;
whether those two redo one chapter or forty depends on the words they touch (the
counts of the book every other chapter looked up). This takes many such edits of a
corpus already built (its cache of chapter entries) and asks the build's own check
(``ChapterCache.validity``, against the book's counts with the edit made) which
chapters' entries would no longer hold: the chapters an incremental build would clean
again, besides the edited one. Nothing is built; an edit costs a count of the book.

Edits: an OCR error corrected to the word it was made from (``errors``: each chapter's
misreadings, as ``bench/book.py`` records them, printed once in the chapter); a word
replaced by 'jeton', a word of the games that the book prints already (a whitespace
token of the chapter, away from its opening and end); and a word replaced by a word of
French the book never prints (``new_words``: its count goes from none to one, and every
chapter whose decisions weighed it as a candidate read that count).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable

import regex

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class Edit:
    kind: str  # "ocr error" or "word"
    chapter: str
    before: str
    after: str
    redone: int  # other chapters whose entries no longer hold


def _whole(word: str) -> regex.Pattern:
    return regex.compile(rf"(?<!\w){regex.escape(word)}(?!\w)")


# words of French an editor may bring into a book of games; the first the book does not print is used
NEW_WORDS = ("pion", "échiquier", "damier", "domino", "billard", "dés", "croupier", "manille")


def new_words(texts: Iterable[str]) -> list[str]:
    """Those of ``NEW_WORDS`` that none of the texts prints."""
    printed = set(regex.findall(r"\w+", " ".join(texts).lower()))
    return [w for w in NEW_WORDS if w not in printed]


def edits_of(texts: dict[str, str], errors: dict[str, list], n_ocr: int, n_word: int,
             seed: int = 1, n_new: int = 0) -> list[tuple[str, str, str, str, str]]:
    """(kind, chapter, before, after, the chapter's text edited) of the edits drawn."""
    rng = random.Random(seed)
    names = sorted(texts)
    out: list[tuple[str, str, str, str, str]] = []
    tries = 0
    while sum(e[0] == "ocr error" for e in out) < n_ocr and tries < 100 * max(n_ocr, 1):
        tries += 1
        name = rng.choice(names)
        text = texts[name]
        once = [(p, m) for p, m in errors.get(name, []) if len(_whole(p).findall(text)) == 1]
        if once:
            printed, meant = rng.choice(once)
            out.append(("ocr error", name, printed, meant, _whole(printed).sub(meant, text)))
    while sum(e[0] == "word" for e in out) < n_word:
        name = rng.choice(names)
        text = texts[name]
        words = text.split()
        word = words[rng.randrange(40, max(41, len(words) - 40))]
        if f" {word} " in text:
            out.append(("word", name, word, "jeton", text.replace(f" {word} ", " jeton ", 1)))
    fresh = new_words(texts.values()) if n_new else []
    while fresh and sum(e[0] == "new word" for e in out) < n_new:
        name = rng.choice(names)
        text = texts[name]
        words = text.split()
        word = words[rng.randrange(40, max(41, len(words) - 40))]
        new = fresh[sum(e[0] == "new word" for e in out) % len(fresh)]
        if f" {word} " in text:
            out.append(("new word", name, word, new, text.replace(f" {word} ", f" {new} ", 1)))
    return out


def spread(corpus: Path, cache: Path, errors: dict[str, list], n_ocr: int = 40, n_word: int = 20,
           seed: int = 1, n_new: int = 0) -> list[Edit]:
    """Each edit drawn, with the number of other chapters it redoes."""
    from pipeline.cache import ChapterCache, pipeline_version
    from pipeline.clean.book import book_buckets, book_evidence, book_mappings, count_corpus
    from pipeline.corpus import chapter_files
    from pipeline.ingest import ingest
    from pipeline.resources import Resources

    res = Resources(corpus)
    raws = {p.name: ingest(p) for p in chapter_files(corpus)}
    store = ChapterCache(cache, pipeline_version(res))
    keys = {name: store.key(raw, res.proof_text(name)) for name, raw in raws.items()}
    entries = {name: store.summary(key) for name, key in keys.items()}
    missing = [name for name, e in entries.items() if e is None]
    if missing:
        raise SystemExit(f"{cache}: no entry of {len(missing)} chapters (first {missing[0]}): build {corpus} first")
    out = []
    for kind, name, before, after, text in edits_of({n: r.text for n, r in raws.items()}, errors, n_ocr, n_word, seed,
                                                    n_new):
        edited = Resources(corpus)
        count_corpus(edited, [replace(r, text=text) if n == name else r for n, r in raws.items()], corpus)
        holds = store.validity(*book_evidence(edited), book_mappings(edited), buckets=lambda: book_buckets(edited))
        redone = sum(not holds(entries[n][0], keys[n]) for n in raws if n != name)
        out.append(Edit(kind, name, before, after, redone))
    return out


def summary(edits: list[Edit], chapters: int) -> list[str]:
    """A line per kind of edit: the other chapters redone, mean, median and most, and
    the share of edits that redo at most a tenth of the book."""
    lines = []
    for kind in ("ocr error", "word", "new word"):
        n = [e.redone for e in edits if e.kind == kind]
        if not n:
            continue
        within = sum(1 + k <= chapters / 10 for k in n)
        lines.append(f"{kind + ' edits':<16} {len(n):3d}: other chapters redone mean {statistics.mean(n):.1f}, "
                     f"median {statistics.median(n):.0f}, most {max(n)}; {within} of {len(n)} redo a tenth "
                     f"of the {chapters} chapters or less")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("cache", type=Path, help="the cache folder of a build of the corpus")
    ap.add_argument("--errors", type=Path, help="each chapter's misreadings, JSON (bench/book.py's)")
    ap.add_argument("--ocr", type=int, default=40, help="OCR errors corrected (default 40)")
    ap.add_argument("--words", type=int, default=20, help="words replaced by 'jeton' (default 20)")
    ap.add_argument("--new", type=int, default=10, help="words replaced by a word new to the book (default 10)")
    a = ap.parse_args()
    errors = json.loads(a.errors.read_text(encoding="utf-8")) if a.errors else {}
    edits = spread(a.corpus, a.cache, errors, a.ocr if errors else 0, a.words, n_new=a.new)
    for e in edits:
        print(f"{e.kind:<10} {e.chapter}: {e.before!r} → {e.after!r}: {e.redone} other chapters")
    from pipeline.corpus import chapter_files

    print("\n".join(summary(edits, len(chapter_files(a.corpus)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
