"""The cleaning on a book it was never tuned on: `.venv/bin/python bench/heldout.py FILE.jsonl`.

FILE is aligned paragraphs of another book, one JSON object a line with its ``ocr`` and
its ``proofread`` text (the shared folder's Lelasseux trictrac, 1852: 549 paragraphs,
about 132,000 characters, whose OCR misreads few words). The project does not keep
that text (its transcription states no licence), so the path is given; without it this
script says so and stops.

The OCR paragraphs of each book are cleaned as one text, a paragraph a line, as
``academie clean`` cleans any file (with the corpus's games and vocabulary), and each
side is scored with
``pipeline.clean.evaluate.score`` against the proofread paragraphs: CER, wrong words
fixed, and right words broken, which on a book this clean is what the figures mostly
say. The proofread side is not a diplomatic transcription (it modernises a little and
moves punctuation), so a "broken" word may be the proofreader's; ``--broken`` lists
them to read, and ``--left`` the words the cleaning left wrong (what a rule may be made from).

FILE may instead be a folder of the ICDAR 2017 (or 2019) post-OCR competition's files (its
evaluation set's ``fr_monograph``: French books of 1755 to 1944 from the BnF, each
file an ``[OCR_toInput]`` line, then the OCR and its gold standard aligned character
by character, ``@`` for a gap and ``#`` where the gold is unknown). ``--dates`` keeps
the books of those years (the folder's ``eval_metadata.csv``, or the competition's
``metadata.csv``, beside or above it); the files of one year, a book, are cleaned as a
text of its own (until 2026-12-07 all those asked for were cleaned as one: a book printed
with the long s was judged with the f-words of books printed without); with ``--chapters
N``, as texts of about N characters each, as a book's chapters would be cleaned, each
alone as ``academie clean`` cleans it; with ``--as-corpus``, as the chapters of a corpus
of these books, each headed as an export heads a chapter with its book's name: the
book's counts are theirs (not the project's corpus's), and a book's chapters are judged
together (a long-s printing by their evidence pooled). The aligned texts are cut into paragraphs of
some 600 characters at spaces both sides share, those with a ``#`` left out; where the
OCR has a hyphen between two letters and the gold a space, a hyphen, or a hyphen and a
space with a small letter after it, the gold's word is made one word: these books' gold
standards keep a line end's break as the printed line had it ('pou ces', 'Aca-démie',
'pei- gnoir'), where a reading text has the word ('pouces'). So is a gold's word broken
at a space before a small letter where the export lost the hyphen too ('seu lement', as
the newspapers have hundreds), if the pieces run together are a word (the Littré prints
it thrice, or the web knows it) and one piece is none (not both printed 50 times in the
Littré and common on the web): 'en tendre' stays two words (until 2026-12-07 all stayed
two, and a reading of 'seulement' counted two right words broken). A hyphen of the gold between
two words of the period's language (each printed 50 times in the Littré) that run
together make none (the Littré prints it fewer than 3 times, the web's is rare) is a compound's and is kept ('lui-même', 'demi-figure'; until
2026-12-07 these were made one word too, 'luimême', which no reading text has: 170 of
the half read's words "left wrong" were such). With ``--learn``, the books are cleaned with the channel ``academie learn --corpus``
would learn from them: the project's aligned word pairs (without the book measured, if
it is one of them) and the books' own fixes of high confidence, cleaned again round after
round; their gold is never read, so this measures what a library's owner gets by
learning the channel from their own books. The ICDAR 2019 files (e.g. its French ``FR2``, 50 pages of
printed books of the 16th to the 19th century) mark a line end's hyphen with a
non-breaking hyphen (U+2011), the line's break after it kept as a space ('contien‑
ne'): the word is made one. The data is not in the project (the BnF's condition of
use is non-commercial); it is public, e.g. in the repository
impresso/llm-transcript-postcorrection, data/datasets/ocr/original/icdar-2017.
"""

from __future__ import annotations

import argparse
import itertools
import csv
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
    ap.add_argument("--left", action="store_true", help="list the words the cleaning left wrong")
    ap.add_argument("--dates", help="of an ICDAR 2017 folder, the books of these years only (e.g. 1755,1858)")
    ap.add_argument("--chapters", type=int, default=0, metavar="N",
                    help="clean each book as texts of about N characters each, as chapters (default: whole)")
    ap.add_argument("--as-corpus", action="store_true",
                    help="clean them as the chapters of a corpus of these books (each headed with its book's "
                         "name, as an export heads them): its counts the book's, a book's chapters judged together")
    ap.add_argument("--learn", action="store_true",
                    help="clean with a channel learned from the project's aligned word pairs and these books' own "
                         "fixes of high confidence, round after round (`academie learn --corpus` of them; no gold)")
    args = ap.parse_args()
    if not args.aligned.exists():
        sys.exit(f"{args.aligned}: no such file (aligned paragraphs of another book; see this script's docstring)")

    from pipeline.build import clean_file
    from pipeline.clean.evaluate import _right_with_hyp, normalise, score, words
    from pipeline.resources import Resources

    if args.aligned.is_dir():
        pairs = icdar_pairs(args.aligned, args.dates.split(",") if args.dates else None)
        if not pairs:
            sys.exit(f"{args.aligned}: no ICDAR 2017 file{' of ' + args.dates if args.dates else ''} in it")
    else:
        pairs = [json.loads(line) for line in args.aligned.read_text(encoding="utf-8").splitlines() if line.strip()]
    # a book's paragraphs together, the books in the order they come (a year's files need not follow each other)
    first = {}
    for p in pairs:
        first.setdefault(p.get("book", ""), len(first))
    pairs.sort(key=lambda p: first[p.get("book", "")])
    ocr = "\n".join(" ".join(p["ocr"].split()) for p in pairs)
    proof = "\n".join(" ".join(p["proofread"].split()) for p in pairs)
    cleaned = []
    seconds = 0.0
    books = []  # (book, its paragraphs, its clean paragraphs, whether each text was taken for a long-s printing)
    grouped = [(book or str(k), list(group)) for k, (book, group)
               in enumerate(itertools.groupby(pairs, key=lambda p: p.get("book", "")))]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        # each book (of a year: one printing) cleaned as a text of its own, as its chapters would
        # be: whether it is printed with the long s, and the book's word counts, are its own; with
        # --chapters, cut into texts of about that many characters, each cleaned alone (outside a
        # corpus: a chapter is told the long s by its own text) or, --as-corpus, as a corpus's
        texts, count = {}, {}
        for book, group in grouped:
            parts = _chapters(group, args.chapters)
            count[book] = len(parts)
            for n, part in enumerate(parts, 1):
                body = "\n".join(" ".join(p["ocr"].split()) for p in part) + "\n"
                head = f"‹ Livre de {book}Chapitre {n} sur {len(parts)} · {book} · texte numérisé non relu\n\n"
                texts[(book, n)] = (head if args.as_corpus else "") + body
                (folder / f"{book}-{n:03d}.txt").write_text(texts[(book, n)], encoding="utf-8")
        res = Resources(folder if args.as_corpus else args.corpus)
        from pipeline.clean.book import chapter_context

        if args.learn:
            learned = learned_channel(folder, exclude=args.aligned.stem)
            print(f"learned from {', '.join(learned.notes)}")
            from pipeline.clean.book import corrector
            from pipeline.clean.correct import ChannelModel
            from pipeline import data

            corrector(res, ChannelModel(data.load("confusions"), learned.costs()))

        for book, group in grouped:
            its_clean, taken = [], []
            for n in range(1, count[book] + 1):
                path = folder / f"{book}-{n:03d}.txt"
                t0 = time.perf_counter()
                lay = clean_file(path, res)
                seconds += time.perf_counter() - t0
                its_clean += [b.text.text for b in lay.blocks]
                taken.append(chapter_context(texts[(book, n)], res, path.name if args.as_corpus else None).book.long_s)
            cleaned += its_clean
            books.append((book, group, its_clean, taken))
    clean = "\n".join(cleaned)
    s = score(args.aligned.name, ocr, clean, proof)
    print(f"{args.aligned.name}: {len(pairs)} paragraphs, {len(ocr):,} characters, cleaned in {seconds:.1f} s")
    if len(books) > 1:
        for book, group, its_clean, taken in books:
            b = score(book, "\n".join(" ".join(p["ocr"].split()) for p in group), "\n".join(its_clean),
                      "\n".join(" ".join(p["proofread"].split()) for p in group))
            long_s = ("" if not any(taken) else ", the long s" if len(taken) == 1
                      else f", the long s {sum(taken)}/{len(taken)}")
            print(f"  {book or '(no year)':10s} {len(group):4d} paragraphs{long_s:16s}  "
                  f"CER {b.cer_raw:.2%} → {b.cer_clean:.2%} ({b.reduction:+.1%}); wrong {b.wrong_raw}, "
                  f"fixed {b.fixed}, broken {b.broken}")
    g = words(normalise(proof))
    raw_right, raw_seen = _right_with_hyp(words(normalise(ocr)), g)
    clean_right, clean_seen = _right_with_hyp(words(normalise(clean)), g)
    long_s = sum(1 for j, word in enumerate(g) if raw_right[j] and not clean_right[j] and gold_long_s(word, clean_seen[j]))
    print(f"CER raw {s.cer_raw:.2%}, clean {s.cer_clean:.2%} (reduced {s.reduction:.1%}); "
          f"words {s.words:,}: wrong in the OCR {s.wrong_raw}, fixed {s.fixed}, "
          f"broken {s.broken} ({s.broken_rate:.3%} of the right ones)"
          + (f", of which {long_s} read with an s where the gold keeps an f" if long_s else ""))
    if args.broken or args.left:
        for j, word in enumerate(g):
            if (args.broken and raw_right[j] != clean_right[j]) or (args.left and not raw_right[j] and not clean_right[j]):
                what = "left  " if raw_right[j] == clean_right[j] else "fixed " if clean_right[j] else "BROKEN"
                print(f"  {what} {raw_seen[j]!r} → {clean_seen[j]!r} (proofread {word!r}): "
                      f"{' '.join(g[max(0, j - 4):j + 5])}")


def learned_channel(corpus: Path, exclude: str):
    """The channel ``academie learn --corpus CORPUS`` learns: the project's aligned word
    pairs (but the book measured, if it is one of them: ``exclude``, its file's stem) and
    the corpus's own fixes of high confidence, round after round. The gold of the books
    measured is never read."""
    from pipeline.clean.learn import aligned_source, default_aligned, learn
    from pipeline.clean.settings import CleanSettings

    settings = CleanSettings.default().channel
    sources = [aligned_source(p, settings) for p in default_aligned() if not p.stem.startswith(exclude)]
    return learn(sources, corpus=corpus, settings=settings)


def _chapters(paragraphs: list[dict], size: int) -> list[list[dict]]:
    """The paragraphs in runs of at least ``size`` characters (the last may be shorter),
    or all in one run if ``size`` is 0."""
    if size <= 0:
        return [paragraphs]
    runs: list[list[dict]] = [[]]
    length = 0
    for p in paragraphs:
        if length >= size:
            runs.append([])
            length = 0
        runs[-1].append(p)
        length += len(p["ocr"]) + 1
    return runs


def gold_long_s(gold: str, seen: str | None) -> bool:
    """Whether a word the cleaning made is the gold's but for an s where the gold has an
    f ('sont' for 'font'). The gold standards of the books printed with the long s keep
    some long s as the OCR read them, an f, and not others ('fous la figure' here,
    'sous la figure' there): such a "broken" word is most often a right reading, and
    sometimes a real f read as a long s ('fuite' made 'suite'); ``--broken`` lists them to read."""
    return seen is not None and len(seen) == len(gold) and seen != gold and all(
        a == b or (a, b) == ("f", "s") for a, b in zip(gold.lower(), seen.lower()))


def icdar_pairs(folder: Path, dates: list[str] | None = None, size: int = 600) -> list[dict]:
    """The (ocr, proofread) paragraphs of a folder of ICDAR 2017 files (this script's docstring)."""
    years = {}
    for meta in (folder / "eval_metadata.csv", folder / "metadata.csv", folder.parent / "eval_metadata.csv",
                 folder.parent / "metadata.csv"):
        if meta.exists():
            for row in csv.reader(meta.read_text(encoding="utf-8").splitlines(), delimiter=";"):
                if row:
                    years[row[0].replace("\\", "/").split("/")[-1] if folder.name in row[0] else None] = row[1]
            years.pop(None, None)
            break
    from pipeline.clean.sequence import SequenceModel
    from pipeline.lexicon import Lexicon

    lexicon, littre = Lexicon.default(), SequenceModel.default()

    def compound(g: list[str], i: int) -> bool:
        # the gold's hyphen at i parts two words that run together make none ('lui-même',
        # 'demi-figure'): a compound's, kept, not a line end's
        a = b = i
        while a > 0 and g[a - 1].isalpha():
            a -= 1
        while b + 1 < len(g) and g[b + 1].isalpha():
            b += 1
        left, right = "".join(g[a:i]), "".join(g[i + 1:b + 1])
        # (words of the period's language, each, and together no word of it: the web's
        # frequencies know 'pa', 'mar', 'el' as words, and 'luimême' as a typo; the Littré
        # prints 'discontinuer' and 'payement', never 'luimême')
        joined = (left + right).lower()
        return (littre.count(left.lower()) >= 50 and littre.count(right.lower()) >= 50
                and littre.count(joined) < 3 and lexicon.zipf(joined) < 3.0 and not lexicon.is_period_form(joined))

    def word(w: str) -> bool:
        # a word of the period's language: printed 50 times in the Littré, and common on the
        # web or a spelling of the period (the web alone knows 'por', 'pro', 'ter' as words)
        w = w.lower()
        return littre.count(w) >= 50 and (lexicon.zipf(w) >= 3.0 or lexicon.is_period_form(w))

    def line_break(g: list[str], i: int) -> bool:
        # the gold's space at i parts one word a line's end broke, its hyphen lost in the export
        # ('seu lement', 'nom bre'): run together, the pieces are a word (the Littré prints it
        # thrice, or the web knows it), and one of them is none ('en tendre' stays two words)
        a = b = i
        while a > 0 and (g[a - 1].isalpha() or g[a - 1] == "@"):  # (a gap of the alignment is no letter's end)
            a -= 1
        while b + 1 < len(g) and (g[b + 1].isalpha() or g[b + 1] == "@"):
            b += 1
        left, right = "".join(g[a:i]).replace("@", ""), "".join(g[i + 1:b + 1]).replace("@", "")
        if not left or not right:
            return False
        joined = (left + right).lower()
        return (littre.count(joined) >= 3 or lexicon.zipf(joined) >= 3.0 or lexicon.is_period_form(joined)) \
            and not (word(left) and word(right))

    pairs = []
    for path in sorted(folder.glob("*.txt"), key=lambda p: (len(p.stem), p.stem)):
        if dates is not None and years.get(path.name) not in dates:
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        ocr, gold = lines[1][len("[OCR_aligned] "):], lines[2][len("[ GS_aligned] "):]
        start = 0
        while start < len(ocr):
            end = min(len(ocr), start + size)
            while end < len(ocr) and not (ocr[end] == " " and gold[end] == " "):
                end += 1
            o, g = ocr[start:end], list(gold[start:end])
            for i in range(1, len(o) - 2):
                if o[i] == "-" and o[i - 1].isalpha() and g[i - 1].isalpha():
                    if o[i + 1].isalpha() and g[i] in " -" and g[i + 1].islower() and not (g[i] == "-" and compound(g, i)):
                        g[i] = "@"  # 'pou ces', 'pou-ces' for the OCR's 'pou-ces'
                    elif o[i + 1] == "@" and o[i + 2].isalpha() and g[i:i + 2] == ["-", " "] and g[i + 2].islower():
                        g[i] = g[i + 1] = "@"  # 'pei- gnoir' for the OCR's 'pei-gnoir'
            for i in range(1, len(g) - 1):
                if g[i] == "\u2011" and (g[i - 1].isalpha() or g[i - 1] == "@"):
                    # the ICDAR 2019 files' line end's hyphen (a non-breaking one), the line's
                    # break after it kept as a space ('contien‑ ne'): the word is one
                    g[i] = "@"
                    if g[i + 1] == " " and i + 2 < len(g) and g[i + 2].islower():
                        g[i + 1] = "@"
            for i in range(1, len(g) - 1):
                if g[i] == " " and (g[i - 1].isalpha() or g[i - 1] == "@") and g[i + 1].islower() and line_break(g, i):
                    g[i] = "@"  # 'seu lement': a line's break the export made a space, as the gold keeps it
            if "#" not in g and o.strip():
                pairs.append({"ocr": " ".join(o.replace("@", "").split()),
                              "proofread": " ".join("".join(g).replace("@", "").split()),
                              "book": years.get(path.name, "")})
            start = end + 1
    return pairs


if __name__ == "__main__":
    main()
