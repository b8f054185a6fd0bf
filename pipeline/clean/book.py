"""What the book says about words: the corpus's word counts, and the context a
chapter is cleaned in (its book, whether it was printed with the long s, what it is
about).

The corpus's chapters are read through ingest, as the build reads them (same
decoding, same normalisation, same size limit), so a chapter is cleaned the same
whatever the encoding its file was saved in.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Mapping, TypeVar

import regex

from ..corpus import chapter_files
from ..ingest import MAX_CHAPTER_BYTES, ingest
from ..layout.lines import header_of
from ..records import InputError, RawChapter
from ..resources import Resources
from .context import ContextReader
from .correct import (BookContext, ChannelModel, Corrector, Domain, _lexicon_index, book_counts, is_long_s_printing,
                      long_s_evidence)
from .rounded import rounded_counts
from .sequence import BookCounts, BookSequence, SequenceModel, book_pairs
from .settings import CleanSettings
from .steps import CleanContext

T = TypeVar("T")


def corpus_texts(res: Resources) -> dict[str, str]:
    """The text of each chapter of the corpus that ingest can read (the build reports
    the others), by file name."""

    def read() -> dict[str, str]:
        texts = {}
        folder = res.corpus
        for path in chapter_files(folder) if folder.is_dir() else []:
            try:
                raw = ingest(path, max_bytes=res.max_chapter_bytes or MAX_CHAPTER_BYTES)
            except InputError:
                continue
            texts[raw.source_file] = raw.text
        return texts

    return res.cached("clean.corpus_texts", read)


def corpus_counts(res: Resources) -> tuple[Counter, frozenset[str]]:
    """How often the corpus uses each word, and the names of the files counted."""

    def count() -> tuple[Counter, frozenset[str]]:
        texts = corpus_texts(res)
        return book_counts(texts.values()), frozenset(texts)

    return res.cached("clean.corpus_counts", count)


def book_sequence(res: Resources, source_file: str | None, text: str) -> BookSequence:
    """The sequence model with the book's counts: the corpus's words and pairs, and
    the chapter's own when it is not one of the corpus's files."""

    book, names = corpus_pairs(res)
    if source_file not in names:
        words, pairs = book_pairs([text])
        book = BookCounts(book.unigrams + words, book.pairs + pairs, book.min_count)
    book = BookCounts(_rounded(res, "sequence.words", book.unigrams),
                      _rounded(res, "sequence.pairs", book.pairs, book.min_count), book.min_count)
    if res.consulted is not None:
        # what the chapter reads of the book's words and pairs is recorded, as of its counts
        book = BookCounts(res.consult("clean.sequence.words", book.unigrams),
                          res.consult("clean.sequence.pairs", book.pairs), book.min_count)
    return SequenceModel.default().with_book(book)


def corpus_pairs(res: Resources) -> tuple[BookCounts, frozenset[str]]:
    """The corpus's words and pairs as the sequence model counts them, and the names of
    the files counted."""

    def count() -> tuple[BookCounts, frozenset[str]]:
        texts = corpus_texts(res)
        return _book_pairs(texts.values()), frozenset(texts)

    return res.cached("clean.corpus_pairs", count)


def _book_pairs(texts: Iterable[str]) -> BookCounts:
    return BookCounts.of(texts, CleanSettings.default().sequence.book_min_count)


def count_corpus(res: Resources, chapters: Iterable[RawChapter], corpus: Path) -> None:
    """The book's counts, words and pairs, shipped with the resources to workers, which
    may have no corpus folder. When ``corpus`` is the resources' own, from its chapters as
    the build has read them (not read again); resources of another corpus (a made-up
    chapter built as one of the corpus's, as the tests do) keep their own book."""
    if Path(res.corpus).resolve() == Path(corpus).resolve():
        chapters = list(chapters)
        names = frozenset(c.source_file for c in chapters)
        res.ship("clean.corpus_counts", (book_counts(c.text for c in chapters), names))
        res.ship("clean.corpus_pairs", (_book_pairs(c.text for c in chapters), names))
        res.ship(LONG_S_SUMS, _long_s_sums(res, (c.text for c in chapters)))
    else:
        res.ship("clean.corpus_counts", corpus_counts(res))
        res.ship("clean.corpus_pairs", corpus_pairs(res))
        res.ship(LONG_S_SUMS, long_s_sums(res))


def book_evidence(res: Resources) -> tuple[str, Callable[[], str]]:
    """What the book gives every chapter's cleaning besides the counts it looks up
    (recorded lookup by lookup, ``Resources.consult``): the words it adds to the
    candidates. A digest of the words it uses twice (cheap), and a function giving the
    digest of the candidates those words add (the lexicon loaded)."""
    counts, _ = corpus_counts(res)
    # made once for these counts (every chapter asks), made again if they are replaced
    kept = res.cached("clean.book_evidence", lambda: [None, "", None])
    if kept[0] is not counts:
        kept[:] = [counts, _digest(sorted(w for w, n in counts.items() if n >= 2)), None]

    def candidates() -> str:
        if kept[2] is None:
            kept[2] = _digest(sorted(corrector(res).book_candidates()))
        return kept[2]

    return kept[1], candidates


# what a chapter's candidates owe to the words the book adds to the index, as its reads are recorded
BOOK_BUCKETS = "clean.book_buckets"
# the chapter's own counts, as its reads are recorded: they hold while the chapter's text does
# (its key), but a paragraph that read them is cleaned again with the chapter
CHAPTER_COUNTS = "clean.chapter_counts"
# whether each book of the corpus is a long-s printing, its chapters' evidence pooled, as a
# chapter's read is recorded (``long_s_books``); and (resources' key) that evidence, summed
LONG_S_BOOKS = "clean.long_s_books"
LONG_S_SUMS = "clean.long_s_sums"


def book_of(text: str) -> str | None:
    """The book a chapter says it belongs to: the edition its export header names
    (lower case, spaces as one), None without a header. What the chapter's own text
    says, not the manifest: an edit of the manifest changes no chapter's cleaning."""
    header = header_of(text)
    title = " ".join(header.edition_title.lower().split()) if header is not None else ""
    return title or None


def _long_s_sums(res: Resources, texts: Iterable[str]) -> dict[str, tuple[int, int, int]]:
    """``long_s_evidence`` summed over the chapters of each book (``book_of``)."""
    printing = ChannelModel.default().long_s_printing
    sums: dict[str, tuple[int, int, int]] = {}
    for text in texts:
        book = book_of(text)
        if book is not None:
            e = long_s_evidence(text, res.lexicon, printing)
            a, b, c = sums.get(book, _NO_EVIDENCE)
            sums[book] = (a + e[0], b + e[1], c + e[2])
    return sums


def long_s_sums(res: Resources) -> dict[str, tuple[int, int, int]]:
    """The long-s evidence of each book of the corpus, its chapters' summed."""
    return res.cached(LONG_S_SUMS, lambda: _long_s_sums(res, corpus_texts(res).values()))


def long_s_books(res: Resources) -> dict[str, bool]:
    """Whether each book of the corpus is a long-s printing by its chapters' evidence
    pooled: a chapter of 10,000 characters of a book whose OCR read only some long s as
    f holds too few such words to tell alone (confusions.toml's [long_s_printing])."""
    sums = long_s_sums(res)
    printing = ChannelModel.default().long_s_printing
    return _made_for(res, LONG_S_BOOKS, sums, lambda: {b: printing.holds(e) for b, e in sums.items()})


def book_buckets(res: Resources) -> Mapping[str, tuple[str, ...]]:
    """The buckets of the correction engine's index that the book's candidate words are
    added to, each with the words added there (``Corrector.book_buckets``): a chapter
    whose lookups met none of those that changed found the candidates it would find
    now. Made once for the counts (the lexicon loaded), again if they are replaced."""
    counts, _ = corpus_counts(res)
    return _made_for(res, "clean.book_buckets", counts, lambda: corrector(res).book_buckets())


def book_mappings(res: Resources) -> dict[str, Mapping]:
    """The book's counts a chapter's cleaning looks up, by the name its lookups are
    recorded under."""
    counts, _ = corpus_counts(res)
    book, _ = corpus_pairs(res)
    return {"clean.counts": _rounded(res, "counts", counts),
            "clean.sequence.words": _rounded(res, "sequence.words", book.unigrams),
            "clean.sequence.pairs": _rounded(res, "sequence.pairs", book.pairs, book.min_count),
            LONG_S_BOOKS: long_s_books(res)}


def _rounded(res: Resources, name: str, counts: Mapping, least: int = 1) -> dict:
    """The book's counts as the engine reads them (clean/rounded.py), made once for
    each counts (the corrector's decisions are memoised by the counts they read), and
    again when the counts are replaced."""
    return _made_for(res, f"clean.rounded.{name}", counts,
                     lambda: rounded_counts(counts, CleanSettings.default().book.count_bits, least))


def _made_for(res: Resources, key: str, counts: Mapping, make: Callable[[], T]) -> T:
    """``make()``, kept in the resources for these counts: made again when they are replaced."""
    kept = res.cached(key, lambda: [None, None])
    if kept[0] is not counts:
        kept[:] = [counts, make()]
    return kept[1]


def book_delta(before: Iterable[str], after: Iterable[str]) -> dict[str, set]:
    """The keys of each of the book's counts (by ``book_mappings``' names) whose value
    changes when the chapters of texts ``before`` are replaced by those of ``after``:
    each count is a sum over the chapters, so only theirs are counted."""
    return {name: _changed(old, new) for name, (old, new) in _contributions(before, after).items()}


def book_moved(res: Resources, before: Iterable[str], after: Iterable[str]) -> dict[str, set]:
    """``book_delta``'s keys whose count, as the engine reads it (rounded, clean/rounded.py),
    is another in the book now (``res``'s) than it was with the chapters of ``before``:
    a count that changed within its bucket changes nothing any chapter read."""
    counts, _ = corpus_counts(res)
    book, _ = corpus_pairs(res)
    now = {"clean.counts": (counts, 1), "clean.sequence.words": (book.unigrams, 1),
           "clean.sequence.pairs": (book.pairs, book.min_count)}
    bits = CleanSettings.default().book.count_bits
    out = {}
    before, after = list(before), list(after)
    for name, (old, new) in _contributions(before, after).items():
        total, least = now[name]
        out[name] = {k for k in _changed(old, new)
                     if _as_read(total.get(k, 0), bits, least)
                     != _as_read(total.get(k, 0) - new.get(k, 0) + old.get(k, 0), bits, least)}
    # the books whose long-s printing, their chapters' evidence pooled, is another now
    sums, printing = long_s_sums(res), ChannelModel.default().long_s_printing
    old_sums, new_sums = _long_s_sums(res, before), _long_s_sums(res, after)

    def then(b: str) -> tuple[int, int, int]:  # the book's evidence before: less the edited chapters' now, plus theirs then
        return tuple(n - a + o for n, a, o in zip(sums.get(b, _NO_EVIDENCE), new_sums.get(b, _NO_EVIDENCE),
                                                  old_sums.get(b, _NO_EVIDENCE)))  # type: ignore[return-value]

    out[LONG_S_BOOKS] = {b for b in old_sums.keys() | new_sums.keys()
                         if printing.holds(sums.get(b, _NO_EVIDENCE)) != printing.holds(then(b))}
    return out


_NO_EVIDENCE = (0, 0, 0)


def _changed(old: Counter, new: Counter) -> set:
    """The keys whose count differs between two contributions."""
    return {k for k, _ in old.items() ^ new.items()}


def _as_read(n: int, bits: int, least: int) -> int | None:
    """A count as ``rounded_counts`` keeps it (None: left out)."""
    return rounded_counts({"": n}, bits, least).get("")


def _contributions(before: Iterable[str], after: Iterable[str]) -> dict[str, tuple[Counter, Counter]]:
    """What the chapters of texts ``before`` and of ``after`` add to each of the book's counts."""
    before, after = list(before), list(after)
    (words_before, pairs_before), (words_after, pairs_after) = book_pairs(before), book_pairs(after)
    return {"clean.counts": (book_counts(before), book_counts(after)),
            "clean.sequence.words": (words_before, words_after),
            "clean.sequence.pairs": (pairs_before, pairs_after)}


def _digest(words: list[str]) -> str:
    return hashlib.sha256("\n".join(words).encode()).hexdigest()


def corrector(res: Resources, model: ChannelModel | None = None) -> Corrector:
    """The correction engine, with the book's recurring words among its candidates. A
    channel ``model`` other than the default (learning measures one) is given on the
    first call for these resources."""

    def make() -> Corrector:
        counts, _ = corpus_counts(res)
        return Corrector(res.lexicon, model, book_words=[w for w, n in counts.items() if n >= 2])

    return res.cached("clean.corrector", make)


def chapter_counts(res: Resources, source_file: str | None, text: str, own: Counter | None = None) -> dict:
    """How often the book uses each word (rounded, clean/rounded.py): the corpus's
    counts, with the chapter's own (``own``, if counted already) when the chapter is not
    one of the corpus's files."""
    counts, names = corpus_counts(res)
    if source_file not in names:
        counts = counts + (book_counts([text]) if own is None else own)
    return _rounded(res, "counts", counts)


def chapter_context(text: str, res: Resources, source_file: str | None = None,
                    games: Iterable[str] = ()) -> CleanContext:
    """The context a chapter is cleaned in: the book's word counts, whether the chapter
    was printed with the long s, and the terms of what it is about: the families of
    games its words belong to, and the names of the games (slugs) its running heads name."""
    own = book_counts([text])
    counts = chapter_counts(res, source_file, text, own)
    # what earlier chapters left in the process's memos kept to a size (pipeline/memos.py)
    cor = corrector(res)
    cor.trim()
    SequenceModel.default().trim()
    ContextReader.trim(_lexicon_index(cor.lexicon, cor.model))
    if res.consulted is not None:
        # what the chapter reads of the book's counts is recorded, its cached result
        # valid while those hold (a decision another chapter made is read again
        # through this one's views: resources.remembered)
        counts = res.consult("clean.counts", counts)
        # and where its candidates were looked for among the words the book adds
        cor.index.consulted = res.consult(BOOK_BUCKETS, book_buckets(res))
    else:
        cor.index.consulted = None
    chapter = res.consult(CHAPTER_COUNTS, dict(own))
    long_s = is_long_s_printing(text, res.lexicon)
    book = book_of(text)
    if not long_s and book is not None and source_file in corpus_counts(res)[1]:
        # too few of its words tell it alone: its book's, its chapters' evidence pooled (recorded)
        long_s = bool(res.consult(LONG_S_BOOKS, long_s_books(res)).get(book))
    if long_s:  # the chapter's words as they are spelled, to know what it is about
        for w, n in list(own.items()):
            if "f" in w:
                own[w.replace("f", "s")] += n
    domain = Domain.default()
    terms = domain.terms_of(own) | _name_words(res, games)
    settings = CleanSettings.default()
    views = res.consulted
    reader = ContextReader(cor, book_sequence(res, source_file, text), settings.context, settings.segmentation, long_s,
                           counts, views)
    return CleanContext(res, cor, BookContext(counts, long_s, terms, domain.bonus, views), settings, reader=reader,
                        chapter=chapter)


def _name_words(res: Resources, games: Iterable[str]) -> frozenset[str]:
    """The words that name these games ('hombre', 'ombre' for l'hombre): in a chapter
    about a game, its name is far likelier than in French at large."""
    words: set[str] = set()
    for slug in games:
        entry = res.catalogue.get(slug)
        for name in (entry.name, *entry.spellings) if entry else ():
            words.update(w for w in regex.split(r"[\s'’-]+", name.lower()) if len(w) > 3)
    return frozenset(words)
