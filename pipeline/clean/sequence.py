"""The sequence model: how likely a word is between its neighbours, in the French of
the period.

Word bigrams, smoothed by interpolated absolute discounting (the lower order of
Kneser–Ney, without its continuation counts):

    P(w | v) = max(c(v w) − D, 0) / c(v) + D · N(v •) / c(v) · P(w)

where c(v w) counts the pair, c(v) the pairs that start with v, N(v •) the different
words seen after v, and P(w) the unigram: the same counts' unigram mixed with
wordfreq's French frequency (so a word the counts never saw still has its French
likelihood). The book's counts enter without a discount per follower (see
``BookSequence``): its pair counts b(v w) and word counts b(v), weighted by β, with a
share γ of each word's count given to the unigram:

    P(w | v) = (max(c(v w) − D, 0) + β(1 − γ) b(v w) + (D · N(v •) + βγ b(v)) · P(w)) / (c(v) + β b(v))

The counts come from two places:

- the Littré (Émile Littré's *Dictionnaire de la langue française*, 1863–1877, in
  François Gannaz's XMLittré, Debian's package ``stardict-xmlittre``): its
  definitions and its 290,000 citations of the authors of the 17th–19th centuries,
  8.4 million words, without the etymologies and the old French of its
  "historique" sections;
- the book itself: the corpus's chapters (their raw text), other than the one being
  cleaned, each pair counted ``book_weight`` times.

The Littré's counts are derived once and kept on disk (``cache_dir()``), under a
key made of the source file's size and date and the derivation's version, so that a
process loads them in a few milliseconds; the model is loaded only when a chapter
is cleaned. Without the Littré (the package not installed) the model keeps the
book's counts and wordfreq, and says so once.
"""

from __future__ import annotations

import bisect
import gzip
import hashlib
import heapq
import math
import mmap
import os
import struct
import zlib
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import unicodedata

from array import array

import regex

from .. import derived
from .. import memos
from ..files import temporary
from ..resources import _OPEN, Consulted, looked_up
from .settings import CleanSettings, SequenceSettings


FORMAT = 3  # the derivation's version and its file's: part of the cache key, raise it when either changes

# what the model reads as a token: a word (with the apostrophe of an elision: "qu'",
# "l'"), the ampersand, a number, a mark of punctuation
_TOKEN = regex.compile(r"\p{L}+(?:['’](?=\p{L}))?|&|\d+|[.;:!?,]")
_MARKS = {"!": ".", "?": ".", ":": ";", "&": "et"}
_FOLD = str.maketrans({"’": "'", "œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae"})
NUMBER = "<n>"
# a probability is at most 1, its log at most 0: but for the rounding of the formula's sums
_ROUNDING = 1e-9
BOOK_TOTAL = 1_000_000  # the book's counts' total without the Littré: a long book's words
_SHIFT = 21  # a pair is one integer: first word's id << _SHIFT | second word's id
_BATCH = 48  # a word's candidates more than this many: their probabilities after one word made on arrays
# letters without their accents, for tokens the Littré spells with others
_ACCENTS = str.maketrans({c: unicodedata.normalize("NFD", c)[0] for c in map(chr, range(0xC0, 0x250))
                          if unicodedata.normalize("NFD", c)[0] != c and unicodedata.normalize("NFD", c)[0].isascii()})


def _unaccented(w: str) -> str:
    # the table maps letters beyond ASCII only, and a dict table is read letter by letter
    return w if w.isascii() else w.translate(_ACCENTS)


def normal(token: str) -> str:
    """A token as the model counts it: lower case, œ as oe, a number as one token."""
    if token.isdigit():
        return NUMBER
    t = _MARKS.get(token)
    if t is not None:
        return t
    low = token.lower()
    return low if low.isascii() else low.translate(_FOLD)  # the table maps no ASCII letter


_NORMALS: dict[str, str] = {}  # a book's few thousand tokens, each read a hundred times


def normal_of(token: str) -> str:
    """``normal(token)``, kept for the process (its first 200,000 tokens: a book's words,
    its sentences' candidates)."""
    hit = _NORMALS.get(token)
    if hit is None:
        hit = normal(token)
        if len(_NORMALS) < 200_000:
            _NORMALS[token] = hit
    return hit


try:
    from ._tokens import token_spans as _compiled_spans  # setup.py: built at install where a compiler is
except ImportError:
    _compiled_spans = None


def tokens(text: str) -> list[str]:
    if _compiled_spans is not None:
        return _compiled_spans(text, _NORMALS, normal_of, False)
    return [normal_of(t) for t in _TOKEN.findall(text)]


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """(token as counted, start, end) of each token of a text (not to be changed: the
    last text's are kept, for the steps that read a paragraph one after the other, most
    often as the one before left it). ``_TOKEN``'s, found by the compiled
    ``_tokens.token_spans`` where it was built (the same, tests/test_sequence.py)."""
    global _LAST_SPANS
    last, spans = _LAST_SPANS  # (one tuple, read and replaced whole: threads may share it)
    if text != last:
        if _compiled_spans is not None:
            spans = _compiled_spans(text, _NORMALS, normal_of)
        else:
            spans = [(normal_of(m.group()), *m.span()) for m in _TOKEN.finditer(text)]
        _LAST_SPANS = (text, spans)
    return spans


_LAST_SPANS: tuple = (None, [])


def _by(table: dict[int, dict], less: int) -> dict:
    """``table[less]``, made empty where first asked for."""
    by = table.get(less)
    if by is None:
        by = table[less] = {}
    return by


# -- the Littré --------------------------------------------------------------------------------

# In the stardict export each article is HTML-like markup: the pronunciation and
# part of speech in <i><small>, the citations in blue spans followed by their
# author (red) and work (green), then sections headed <b><big>…</big></b>.
_OLD_SECTIONS = regex.compile(r"<b><big>(?:ÉTYMOLOGIE|HISTORIQUE)</big></b>.*?(?=<i><small>|\Z)", regex.S)
_HEAD = regex.compile(r"<i><small>.*?</small></i>", regex.S)
_SOURCE = regex.compile(r"</span>\s*,\s*<span foreground=\"#B22222\">.*?</span>\s*,\s*"
                        r"<span foreground=\"#556B2F\">.*?</span>\s*\.?", regex.S)
_TAG = regex.compile(r"<[^>]*>")


def littre_text(path: Path) -> str:
    """The Littré's French: definitions, examples and citations, one article a line."""
    text = gzip.open(path).read().decode("utf-8")
    text = _OLD_SECTIONS.sub(" ", text)
    text = _HEAD.sub("\n", text)
    text = _SOURCE.sub(" . ", text)  # a citation's author and work: the citation ends there
    text = _TAG.sub(" ", text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@dataclass
class Counts:
    """Word and pair counts of a text, as arrays of machine integers (``array`` or
    ``memoryview``: what the cache holds, read in place)."""

    words: list[str]  # id → word
    unigrams: Sequence[int]  # id → count (uint32)
    pairs: Sequence[int]  # sorted pair keys (first << _SHIFT | second; int64)
    pair_counts: Sequence[int]  # (uint32)

    @classmethod
    def of(cls, toks: list[str]) -> "Counts":
        # (numpy for the derivation alone: a process that reads the counts, every clean,
        # does not import it, a tenth of a second)
        import numpy as np

        ids: dict[str, int] = {}
        seq = np.fromiter((ids.setdefault(t, len(ids)) for t in toks), dtype=np.int64, count=len(toks))
        words = list(ids)
        if len(words) >= 1 << _SHIFT:
            raise ValueError(f"{len(words)} different tokens: more than the model's {1 << _SHIFT}")
        unigrams = np.bincount(seq, minlength=len(words)).astype(np.uint32)
        keys, counts = np.unique((seq[:-1] << _SHIFT) | seq[1:], return_counts=True)
        return cls(words, array("I", unigrams.tobytes()), array("q", keys.astype(np.int64).tobytes()),
                   array("I", counts.astype(np.uint32).tobytes()))

    def save(self, path: Path) -> None:
        """The counts in one file: ``_COUNTS_HEAD`` (its magic, the number of pairs,
        of words and the bytes of their text, the CRC-32 of what follows), the pairs,
        their counts, the words' counts, the words (UTF-8, a line each); the pairs
        first, at an offset a multiple of 8, so each array is read in place, aligned
        (``load``)."""
        words = "\n".join(self.words).encode("utf-8")
        # (each array's bytes as they lie, an ``array`` or a file's ``memoryview`` alike)
        body = [memoryview(part).cast("B") for part in (self.pairs, self.pair_counts, self.unigrams)] + [words]
        crc = 0
        for part in body:
            crc = zlib.crc32(part, crc)
        tmp = temporary(path)  # (a dead writer's removed: derived.prune)
        with open(tmp, "wb") as f:
            f.write(struct.pack(_COUNTS_HEAD, _COUNTS_MAGIC, len(self.pairs), len(self.words), len(words), crc))
            for part in body:
                f.write(part)
        os.replace(tmp, path)  # whole or not at all: a concurrent build never reads half a file

    @classmethod
    def load(cls, path: Path) -> "Counts":
        """The counts ``save`` wrote, the arrays read in place from the file mapped in
        memory (shared by the processes that read it); ValueError if it is not such a
        file, not whole, or altered (its CRC-32: 17 MB checked in a few milliseconds)."""
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < _COUNTS_HEAD_SIZE:
                raise ValueError(f"{path}: not the sequence model's counts")
            view = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
        magic, n_pairs, n_words, text, crc = struct.unpack_from(_COUNTS_HEAD, view)
        at = _COUNTS_HEAD_SIZE
        ends = (at + 8 * n_pairs, at + 12 * n_pairs, at + 12 * n_pairs + 4 * n_words)
        if magic != _COUNTS_MAGIC or size != ends[2] + text:
            raise ValueError(f"{path}: not the sequence model's counts, or not whole")
        if zlib.crc32(view[at:]) != crc:
            raise ValueError(f"{path}: the sequence model's counts, altered")
        words = str(view[ends[2]:], "utf-8").split("\n") if n_words else []
        if len(words) != n_words:
            raise ValueError(f"{path}: {len(words)} words where its head says {n_words}")
        return cls(words, view[ends[1] : ends[2]].cast("I"), view[at : ends[0]].cast("q"),
                   view[ends[0] : ends[1]].cast("I"))


_COUNTS_MAGIC = b"academie counts\n"
_COUNTS_HEAD = "<16sQQQI4x"  # (40 bytes: the pairs that follow start aligned)
_COUNTS_HEAD_SIZE = struct.calcsize(_COUNTS_HEAD)


def cache_dir() -> Path:
    """Where derived counts are kept: $ACADEMIE_CACHE, else $XDG_CACHE_HOME/academie,
    else ~/.cache/academie."""
    return derived.cache_dir()


def littre_identity(path: Path | None = None) -> str | None:
    """What names the Littré's counts: the derivation's version and the source file's
    place, size and date (None when it is not installed)."""
    path = Path(path or CleanSettings.default().sequence.littre)
    try:
        st = path.stat()
    except OSError:
        return None
    return hashlib.sha256(f"{FORMAT}|{path.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:16]


def littre_counts(path: Path) -> Counts | None:
    """The Littré's counts, from the cache, or derived (about 20 s) and cached. None
    when the Littré is not installed."""
    key = littre_identity(path)
    if key is None:
        return None
    cached = cache_dir() / f"littre-bigrams-{key}.counts"
    if cached.exists():
        try:
            counts = Counts.load(cached)
            derived.used(cached)
            return counts
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is derived again
    counts = Counts.of(tokens(littre_text(path)))
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        counts.save(cached)
    except OSError:
        return counts  # a read-only home: derived again next time
    derived.prune("littre-bigrams", ".counts")
    derived.prune("littre-bigrams", ".npz", keep=0)  # (numpy's files, as the counts were kept until FORMAT 2)
    return counts


def _fill(memo: dict[int, int], pairs: Sequence[int], counts: Sequence[int], keys: list[int]) -> None:
    """Each pair of ``keys`` not in ``memo`` looked up in the sorted ``pairs``: ``memo[key]``
    is its count in ``counts``, 0 if it is not there (``_pairs.fill``, compiled)."""
    keys = [k for k in keys if k not in memo]
    if not keys:
        return
    if not len(pairs):
        memo.update(dict.fromkeys(keys, 0))
        return
    import numpy as np  # (not compiled: found as numpy finds them)

    pairs, counts = np.frombuffer(pairs, dtype=np.int64), np.frombuffer(counts, dtype=np.uint32)
    # sorted, the keys are found in one sweep of the millions of pairs (numpy's search
    # starts each where the last ended), not each from the top, out of the cache
    wanted = np.sort(np.array(keys, dtype=np.int64))
    at = np.minimum(pairs.searchsorted(wanted), len(pairs) - 1)
    found = np.where(pairs[at] == wanted, counts[at], 0)
    memo.update(zip(wanted.tolist(), found.tolist()))


try:
    from . import _pairs  # the same search compiled (setup.py: built at install where a compiler is)
except ImportError:
    _pairs = None


def _first_sums(pairs: Sequence[int], counts: Sequence[int], n: int) -> tuple[list[float], list[int]]:
    """For each word id below n, the sum of the counts of the pairs it begins (a float)
    and their number: c(v) and N(v •) (``_pairs.first_sums``, compiled)."""
    if _pairs is not None:
        return _pairs.first_sums(pairs, counts, _SHIFT, n)
    import numpy as np  # (not compiled: numpy's ``bincount``, the same sums)

    first = np.frombuffer(pairs, dtype=np.int64) >> _SHIFT
    weights = np.frombuffer(counts, dtype=np.uint32)
    return (np.bincount(first, weights=weights, minlength=n).tolist() if n else [],
            np.bincount(first, minlength=n).tolist() if n else [])


def _followers(pairs: Sequence[int], counts: Sequence[int], i: int, min_count: int, most: int | None) -> list[int]:
    """The ids of the words seen after word i at least ``min_count`` times, in the
    pairs' order; the ``most`` commonest if more, of equal counts the first
    (``_pairs.followers``, compiled)."""
    if _pairs is not None:
        return _pairs.followers(pairs, counts, _SHIFT, i, min_count, most)
    lo = bisect.bisect_left(pairs, i << _SHIFT)
    hi = bisect.bisect_left(pairs, (i + 1) << _SHIFT, lo)
    kept = [k for k in range(lo, hi) if counts[k] >= min_count]
    if most is not None and len(kept) > most:
        kept = sorted(heapq.nlargest(most, range(lo, hi), key=counts.__getitem__))
    mask = (1 << _SHIFT) - 1
    return [pairs[k] & mask for k in kept]


# -- the model -----------------------------------------------------------------------------------


class SequenceModel:
    """Bigram probabilities over the Littré's counts (see the module's docstring);
    ``with_book`` adds a book's. Log-probabilities are base 10, as Zipf values are."""

    def __init__(self, counts: Counts | None, settings: SequenceSettings, frequency: Callable[[str], float],
                 modern: Callable[[str], list[str]] | None = None, identity: str | None = None):
        self.settings = settings
        self.identity = identity  # what names the counts (``littre_identity``): what is derived from them is kept
        self.frequency = frequency  # a word's frequency in French (wordfreq), 0 if unknown
        self.modern = modern  # the modern spellings of a period form
        if counts is None:
            counts = Counts([], array("I"), array("q"), array("I"))
        self.counts = counts
        # compiled where it was built: a word's candidates ask for a few dozen pairs at a
        # time, which numpy's set-up for one call costs more than searching them one by one in C
        self._littre = _pairs.PairCounts(counts.pairs, counts.pair_counts) if _pairs is not None else None
        self.ids = {w: i for i, w in enumerate(counts.words)}
        self._aliases: dict[str, str] = {}
        self._pairs: dict[tuple[str, str], int] = {}
        self._id_of: dict[str, int | None] = {}
        self._pair_of: dict[int, int] = {}
        self._by_fold: dict[str, str] | None = None
        self.total = sum(counts.unigrams)
        # c(v) and N(v •): the pairs and the different words that follow each word, as
        # lists (read one at a time, a list is faster than an array)
        self.history, self.followers = _first_sums(counts.pairs, counts.pair_counts, len(counts.words))
        self._followers: dict[str, list[str]] = {}

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "SequenceModel":
        from ..lexicon import Lexicon

        s = CleanSettings.default().sequence
        counts = littre_counts(Path(s.littre))
        if counts is None:
            warnings.warn(f"the Littré ({s.littre}) is not installed: the sequence model has only the book's "
                          "counts (install Debian's package stardict-xmlittre: make install does)", stacklevel=2)
        lexicon = Lexicon.default()
        identity = littre_identity(Path(s.littre)) if counts is not None else None
        return cls(counts, s, lexicon.frequency, lexicon.period_modern, identity)

    def alias(self, w: str) -> str:
        """The token the Littré counts for w: w itself, else its commonest form with other
        accents (the Littré writes 'piége', 'collége'), else the modern spelling of a
        period form ('avoit' → 'avait'), else w."""
        if w in self.ids:
            return w
        hit = self._aliases.get(w)
        if hit is None:
            hit = self.forms().get(_unaccented(w))
            if hit is None and self.modern is not None:
                hit = next((v for v in self.modern(w) if v in self.ids), None)
            hit = self._aliases[w] = hit or w
        return hit

    def count(self, w: str) -> int:
        """How often the Littré prints w, as written (0: never)."""
        i = self.ids.get(w)
        return 0 if i is None else int(self.counts.unigrams[i])

    def form_of(self, w: str, min_count: int = 1) -> str | None:
        """The word the Littré counts that w is but for its accents (its commonest form
        of w's letters), None if it counts none at least ``min_count`` times."""
        form = self.forms().get(_unaccented(w))
        return form if form is not None and self.counts.unigrams[self.ids[form]] >= min_count else None

    def forms(self) -> dict[str, str]:
        """Each of the counts' words without accents → the commonest form it is written in
        (``alias``): loaded when first asked for, or before processes are forked, which
        then share it (``clean.in_processes``)."""
        if self._by_fold is None:
            # a fifth of a second for the Littré's 119,000 words: kept on disk with its counts
            self._by_fold = self._fold_table() if self.identity is None else derived.cached(
                "littre-forms", derived.key_of(FORMAT, self.identity), self._fold_table,
                lambda v: isinstance(v, dict))
        return self._by_fold

    def _fold_table(self) -> dict[str, str]:
        """Each of the counts' words without accents → the commonest form it is written in."""
        by_fold: dict[str, str] = {}
        for word, n in sorted(zip(self.counts.words, self.counts.unigrams), key=lambda x: x[1]):
            by_fold[_unaccented(word)] = word  # the commonest form last, so kept
        return by_fold

    def id_of(self, w: str) -> int | None:
        """The Littré's id of the token it counts for w (``alias``), None if none."""
        hit = self._id_of.get(w, -1)
        if hit == -1:
            hit = self._id_of[w] = self.ids.get(self.alias(w))
        return hit

    def remember(self, ids: Mapping[str, int | None], aliases: Mapping[str, str]) -> None:
        """Put in ``id_of``'s and ``alias``'s memos what they were found to give (for
        words whose readings are kept on disk: clean/context.py)."""
        self._id_of.update(ids)
        self._aliases.update(aliases)

    def pair_of(self, i: int, j: int) -> int:
        """How often the Littré prints word j after word i (memoised for the process)."""
        key = i << _SHIFT | j
        hit = self._pair_of.get(key)
        if hit is None:
            self.prefetch([key])
            hit = self._pair_of[key]
        return hit

    def prefetch(self, keys: list[int]) -> None:
        """Look up the counts of many pairs (keys as ``pair_of`` makes them) at once, into
        ``pair_of``'s memo."""
        if self._littre is not None:
            self._littre.fill(self._pair_of, keys)
        else:
            _fill(self._pair_of, self.counts.pairs, self.counts.pair_counts, keys)

    def together(self, v: str, w: str) -> float | None:
        """How often the Littré prints w after v against how often chance would pair them
        (each count plus one): far below 1 for two words French does not put side by side
        ('du ne': once, where chance would pair them 305 times); None if it does not
        count one of them."""
        i, j = self.ids.get(v), self.ids.get(w)
        if i is None or j is None or not self.total:
            return None
        chance = self.counts.unigrams[i] * self.counts.unigrams[j] / self.total
        return (self.pair(v, w) + 1) / (chance + 1)

    def pair(self, v: str, w: str) -> int:
        """How often the Littré prints w after v (memoised for the process)."""
        hit = self._pairs.get((v, w))
        if hit is None:
            hit = 0
            i, j = self.ids.get(v), self.ids.get(w)
            if i is not None and j is not None:
                key = i << _SHIFT | j
                k = bisect.bisect_left(self.counts.pairs, key)
                if k < len(self.counts.pairs) and self.counts.pairs[k] == key:
                    hit = self.counts.pair_counts[k]
            self._pairs[(v, w)] = hit
        return hit

    def followers_of(self, v: str, most: int | None = None, min_count: int = 2) -> list[str]:
        """The words seen after v at least ``min_count`` times, the ``most`` commonest of
        them if more (memoised)."""
        key = (v, most)
        hit = self._followers.get(key)
        if hit is None:
            i = self.ids.get(v)
            hit = []
            if i is not None:
                words = self.counts.words
                hit = [words[k] for k in _followers(self.counts.pairs, self.counts.pair_counts, i, min_count, most)]
            self._followers[key] = hit
        return hit

    def trim(self) -> None:
        """Its memos kept to a size (pipeline/memos.py)."""
        memos.trim(self._pairs, self._pair_of, self._id_of, self._aliases, self._followers)

    def with_book(self, book: "BookCounts") -> "BookSequence":
        return BookSequence(self, book)


class BookCounts:
    """A book's word and pair counts, as the sequence model adds them (made once per
    corpus). A pair counts only when printed ``min_count`` times: the OCR repeats its
    misreadings ('celle fois' for 'cette fois' in two chapters), a book's own
    usage ('faire la vole') recurs more.

    The model reads of them only the counts of the words and the pair it is asked
    about (no total, no number of a word's followers), so that what a chapter read of
    the book can be recorded lookup by lookup, and a changed word changes what the
    chapters that read it read, not every chapter's."""

    def __init__(self, unigrams: Mapping[str, int], pairs: Mapping[tuple[str, str], int], min_count: int = 1):
        self.unigrams = unigrams
        self.pairs = pairs
        self.min_count = min_count

    @classmethod
    def of(cls, texts: Iterable[str], min_count: int = 1) -> "BookCounts":
        return cls(*book_pairs(texts), min_count=min_count)


class BookSequence:
    """The sequence model with a book's counts added (each ``book_weight`` times): what a
    chapter is cleaned with, memoised (one per chapter).

    The book's counts enter each probability through the counts of its own words
    only: the unigram is normalised by the Littré's total (fixed), not by the book's;
    a word's history in the book is its count (the pairs it starts), of which the
    share ``book_backoff`` goes to the unigram (all of it while the word is printed
    fewer than ``min_count`` times: none of its pairs can count), in place of the
    discount per different follower, which would read every pair the word starts.

    A word's own occurrence is no evidence for itself: when the printed word is
    scored (``around(…, printed=True)``), its two pairs and its count as a history
    are counted once less (and a pair then counts only if printed ``min_count``
    times besides).

    Its memos are the chapter's. A value taken from them is noted, while a computation
    of a decision kept for the book's other chapters runs (``resources.remembered``),
    with the book's counts it was made from, as if read again (``_noted``)."""

    def __init__(self, model: SequenceModel, book: BookCounts):
        self.model = model
        self.book = book
        # the names the chapter's reads of the book's words and pairs are recorded under, if they are
        self._names = ((book.unigrams.name, book.pairs.name)
                       if isinstance(book.unigrams, Consulted) and isinstance(book.pairs, Consulted) else None)
        self.beta = model.settings.book_weight
        # without the Littré, a fixed total: the book's own would tie every probability to every word
        self.total = model.total or BOOK_TOTAL
        # log10 P(w | v) by ``less``, then by v, then by w, and v's ``_history`` by ``less``
        # then by v: dicts in dicts, not keys of tuples (a chapter asks a hundred thousand,
        # each key a tuple made, hashed and left for the collector to walk)
        self._memo: dict[int, dict[str, dict[str, float]]] = {0: {}, 1: {}}
        self._unigram: dict[str, float] = {}
        self._histories: dict[int, dict[str, tuple]] = {0: {}, 1: {}}
        self._discount, self._floor = model.settings.discount, model.settings.floor
        if _pairs is not None:
            # ``_after`` compiled, the same to the bit (tests/test_sequence.py), bound to this book's memos and pairs
            self._after = _pairs.After(model._id_of, model.id_of, model._pair_of, model._littre, _SHIFT, book.pairs,
                                       book.min_count, self._discount, self._floor).after

    def unigram(self, w: str) -> float:
        p = self._unigram.get(w)
        if p is not None:
            if _OPEN and self._names:
                self._noted_word(w)
        else:
            m, s = self.model, self.model.settings
            i = m.id_of(w)
            c = (int(m.counts.unigrams[i]) if i is not None else 0) + self.beta * self.book.unigrams.get(w, 0)
            counted = min(c / self.total, 1.0)
            p = (1 - s.wordfreq_share) * counted + s.wordfreq_share * m.frequency(w)
            p = self._unigram[w] = max(p, s.floor)
        return p

    def logp(self, w: str, v: str, less: int = 0, low: float | None = None) -> float:
        """log10 P(w | v), both tokens as ``normal`` gives them; ``less``: occurrences
        of the pair not to count (the one being judged); ``low``: w's unigram
        probability, if not the counts' (an unknown word's)."""
        noting = _OPEN and self._names
        memo = _by(self._memo, less)
        after_v = memo.get(v)
        histories = _by(self._histories, less)
        if low is None:
            hit = after_v.get(w) if after_v is not None else None
            if hit is not None:
                if noting:
                    self._noted(v, w, histories[v])
                return hit
            p = self._unigram.get(w)
            if p is None:
                p = self.unigram(w)
            elif noting:
                self._noted_word(w)
        else:
            p = low
        history = histories.get(v)
        if history is None:
            history = self._history(v, less)
        elif noting:
            self._noted_word(v)
        lp = self._after(v, w, history, p, less)
        if low is None:
            if after_v is None:
                after_v = memo[v] = {}
            after_v[w] = lp
        return lp

    def _history(self, v: str, less: int) -> tuple:
        """What P(• | v) needs of v, made once per word (a hundred thousand probabilities
        a book, a few thousand histories): its Littré id, its occurrences in the book
        (this one left out), its history h, whether its book pairs can count, and the
        two weights of the formula, multiplied out as the formula multiplies them."""
        m = self.model
        s = m.settings
        i = m.id_of(v)
        hb = self.book.unigrams.get(v, 0) - less  # v's occurrences, this one left out
        if hb < 0:
            hb = 0
        h = (m.history[i] if i is not None else 0.0) + self.beta * hb
        # no pair of v can count: all its book history is the unigram's
        share = 1.0 if hb < self.book.min_count else s.book_backoff
        n = m.followers[i] if i is not None else 0
        history = _by(self._histories, less)[v] = (
            i, h, share == 1.0, self.beta * (1 - share), s.discount * n + self.beta * share * hb)
        return history

    def _noted_word(self, w: str) -> None:
        """Note that a value taken from a memo was made from w's count in the book."""
        _OPEN[-1][self._names[0]].add(w)  # type: ignore[index]

    def _noted(self, v: str, w: str, history: tuple) -> None:
        """Note what log10 P(w | v), taken from a memo, was made from: v's and w's counts
        in the book, and the pair's where it counts (as ``_after`` reads it)."""
        self._noted_after(v, (w,), history)

    def _noted_after(self, v: str, ws, history: tuple) -> None:
        """``_noted`` of each word of ``ws`` after v, at once."""
        top, (words, pairs) = _OPEN[-1], self._names
        read = top[words]
        read.add(v)
        read.update(ws)
        if history[1] > 0 and not history[2]:
            top[pairs].update(zip(repeat(v), ws))

    def _after(self, v: str, w: str, history: tuple, p: float, less: int) -> float:
        """log10 P(w | v) from v's ``_history`` and w's unigram probability p."""
        i, h, pooled, pair_weight, unigram_weight = history
        m = self.model
        if h > 0:
            j = m._id_of.get(w, -1)
            if j == -1:
                j = m.id_of(w)
            if i is not None and j is not None:
                pc = m._pair_of.get(i << _SHIFT | j)
                if pc is None:
                    pc = m.pair_of(i, j)
            else:
                pc = 0
            b = 0
            if not pooled:
                b = self.book.pairs.get((v, w), 0) - less
                if b < self.book.min_count:
                    b = 0
            p = (max(pc - self._discount, 0.0) + pair_weight * b + unigram_weight * p) / h
        return math.log10(max(p, self._floor))

    def around(self, prev: str, w: str, nxt: str, printed: bool = False) -> float:
        """log10 P(w | prev) + log10 P(nxt | w): how well w fits between its neighbours;
        ``printed``: w is the word printed there, whose own two pairs do not count."""
        less = 1 if printed else 0
        return self.logp(w, prev, less) + self.logp(nxt, w, less)

    def fits(self, prev: str, words: list[str], nxt: str) -> list[float]:
        """``around`` of each of the words (not printed there): the candidates of one
        word, their pairs' counts looked up together."""
        second = self._second(nxt)
        return [a + second(w) for a, w in zip(self._firsts(prev, words, nxt), words)]

    def best_fits(self, prev: str, words: list[str], labels: list, nxt: str, n: int) -> list[tuple[float, object]]:
        """``sorted(zip(self.fits(prev, words, nxt), labels), reverse=True)[:n]``, the
        second pair of each word looked up only while it may matter: a word's fit is at
        most its first pair's log-probability (the second's is at most 0), so once n
        fits are above the first pair's of the words left, those words are not among
        the n best (an unknown word has hundreds of candidates, a sentence a few)."""
        if n < 1:
            return []
        firsts = self._firsts(prev, words, nxt)
        second = self._second(nxt)
        found: list[tuple[float, object]] = []
        top: list[float] = []  # the n best fits so far, least first
        for k in sorted(range(len(words)), key=firsts.__getitem__, reverse=True):
            if len(top) == n and firsts[k] + _ROUNDING < top[0]:
                break
            fit = firsts[k] + second(words[k])
            found.append((fit, labels[k]))
            if len(top) < n:
                heapq.heappush(top, fit)
            elif fit > top[0]:
                heapq.heapreplace(top, fit)
        found.sort(reverse=True)
        return found[:n]

    def _firsts(self, prev: str, words: list[str], nxt: str) -> list[float]:
        """log10 P(w | prev) of each word, with the Littré's counts of the pairs of each
        word with both its neighbours looked up at once."""
        m = self.model
        before = self._histories[0].get(prev) or self._history(prev, 0)
        if len(words) > _BATCH:
            # (the second pairs not looked up: of hundreds of words, the few best are asked for them)
            out = self._batch_after(prev, words, before)
        else:
            id_of, known = m.id_of, m._id_of.get
            i, k = id_of(prev), id_of(nxt)
            keys = []
            for w in words:
                j = known(w, -1)
                if j == -1:
                    j = id_of(w)
                if j is not None:
                    if i is not None:
                        keys.append(i << _SHIFT | j)
                    if k is not None:
                        keys.append(j << _SHIFT | k)
            m.prefetch(keys)
            after, unigrams = self._after, self._unigram
            memo = self._memo[0]
            after_prev = memo.get(prev)
            if after_prev is None:
                after_prev = memo[prev] = {}
            out = []
            for w in words:
                a = after_prev.get(w)
                if a is None:
                    a = after_prev[w] = after(prev, w, before, unigrams.get(w) or self.unigram(w), 0)
                out.append(a)
        if _OPEN and self._names and words:
            self._noted_after(prev, words, before)  # each made or taken from the memo: all as if read afresh
        return out

    def _batch_after(self, v: str, words: list[str], history: tuple) -> list[float]:
        """``_after(v, w, …)`` of each of many words (an unknown word's hundreds of
        candidates), the formula's arithmetic on arrays: the same operations in the
        same order, each rounded as Python rounds it, and the logarithm Python's
        (``math.log10``), so that every value is ``_after``'s to the last bit. Not
        memoised: a word's candidates after one word are seldom asked for again.
        Compiled where it was built (``_pairs.batch_after``, the same to the bit)."""
        m = self.model
        i, h, pooled, pair_weight, unigram_weight = history
        b = None
        if h > 0 and not pooled:
            least = self.book.min_count
            b = [x if x >= least else 0 for x in looked_up(self.book.pairs, list(zip(repeat(v), words)), 0)]
        if _pairs is not None:
            return _pairs.batch_after(words, m._id_of, m.id_of, self._unigram, self.unigram, m.counts.pairs,
                                      m.counts.pair_counts, _SHIFT, i, h, b, pair_weight, unigram_weight,
                                      self._discount, self._floor)
        import numpy as np  # (not compiled: on arrays as numpy makes them)

        unigrams, unigram = self._unigram, self.unigram
        p = np.array([unigrams.get(w) or unigram(w) for w in words])
        if h > 0:
            if i is None:
                pc = np.zeros(len(words))
            else:
                m.prefetch([i << _SHIFT | j for j in map(m.id_of, words) if j is not None])
                base, pair_of = i << _SHIFT, m._pair_of
                pc = np.array([0 if j is None else pair_of[base | j] for j in map(m.id_of, words)], dtype=np.int64)
            p = (np.maximum(pc - self._discount, 0.0) + pair_weight * (0 if b is None else np.array(b, dtype=np.int64))
                 + unigram_weight * p) / h
        return list(map(math.log10, np.maximum(p, self._floor).tolist()))

    def _second(self, nxt: str) -> Callable[[str], float]:
        """log10 P(nxt | w) as a function of w (memoised as ``logp``)."""
        memo, after, histories = self._memo[0], self._after, self._histories[0]
        noting = _OPEN and self._names
        p_next = self._unigram.get(nxt)
        if p_next is None:
            p_next = self.unigram(nxt)
        elif noting:
            self._noted_word(nxt)

        def second(w: str) -> float:
            after_w = memo.get(w)
            b = after_w.get(nxt) if after_w is not None else None
            if b is None:
                b = after(w, nxt, histories.get(w) or self._history(w, 0), p_next, 0)
                if after_w is None:
                    after_w = memo[w] = {}
                after_w[nxt] = b
            if noting:
                self._noted(w, nxt, histories[w])
            return b

        return second

    def around_unknown(self, prev: str, nxt: str, logp: float) -> float:
        """``around`` for a word the counts do not know, as likely as 10**logp alone."""
        return self.logp("\x00", prev, low=10 ** logp) + self.logp(nxt, "\x00")

    def followers_of(self, v: str, most: int | None = None) -> list[str]:
        """The words the counts often see after v (the ``most`` commonest): candidates
        the sentence proposes."""
        return self.model.followers_of(v, most)


def book_pairs(texts: Iterable[str]) -> tuple[Counter, Counter]:
    """Unigram and pair counts of texts, tokenised as the model counts."""
    uni: Counter = Counter()
    pairs: Counter = Counter()
    for t in texts:
        toks = tokens(t)
        uni.update(toks)
        pairs.update(zip(toks, toks[1:]))
    return uni, pairs
