"""The correction engine: a noisy channel between the OCR and the lexicon.

A word the OCR printed is compared with the words the book could have had: those
that look alike to the OCR (same glyph-shape skeleton, or one edit away from it),
found through an index of the lexicon. Each candidate is scored as

    prior(candidate) − weight × cost(printed → candidate)

where the prior is the word's frequency in French (wordfreq, Zipf scale) plus what
the book itself says (a word the corpus uses often is likely here), and the cost comes
from the weighted confusion table (data: confusions.toml). A word the lexicon does
not know is replaced by its best candidate when that one is cheap, frequent and
clearly ahead of the next; a word the lexicon knows (a real-word error: 'porte' for
'perte', 'louche' for 'bouche') only when the candidate is far more likely. Below
the threshold nothing changes, and the best candidate is kept as a suggestion.
"""

from __future__ import annotations

import bisect
import heapq
import math
import statistics
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from operator import itemgetter
from typing import Iterable, Iterator
from weakref import WeakKeyDictionary

import regex
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from .. import data, derived
from .. import memos
from ..files import uncollected
from ..lexicon import Lexicon
from ..resources import Consulted, depends, noted, replayed, underlying
from ..text import base_letter, fold_letters
from .settings import CleanSettings, CorrectorSettings

_INF = float("inf")
_MARGIN = 1e-9  # a search stopped above a limit is stopped this far above it: no rounding decides
# the keys a bucket of the index is recorded under (``CandidateIndex.buckets_of``)
_EXACT, _DELETED, _ABOVE = "=", "-", ">"
_ELIDABLE = frozenset("aeiouyhéèêëàâîïôûœAEIOUYHÉÈÊÀÂÎÔ")  # the letters an elided article comes before
_LOG2_MAX = 100_000
_LOG2 = [math.log2(1 + n) for n in range(_LOG2_MAX + 1)]
_SORTED_MAX = 300  # candidates sorted whole up to this many (``Corrector._scored``)
_PLAIN_MOST = 3  # the plain edits a candidate the channel costs is at most from the print (``Corrector._close``)
_PLAIN_VOWELS = frozenset("aeiouy")  # the letters a speck over them makes accented
_WORD = regex.compile(r"\p{L}[\p{L}&^|!015]*\p{L}|\p{L}")
_LETTERS = regex.compile(r"[\p{L}]+")


class ChannelModel:
    """The OCR's habits: glyph classes and weighted confusions.

    The hand table (confusions.toml) is the prior; the table `academie learn` writes
    (confusions_learned.tsv, pipeline/clean/learn.py) gives the cost of each confusion
    it has seen, learned from aligned words and shrunk towards the prior, and overrides
    the hand cost of that confusion: a substitution, a merge ('rn' for 'm'), a split, a
    glyph lost or added. A confusion of two glyphs for one that neither table lists
    costs what the cheapest listed one of the same glyph classes costs, plus
    ``class_merge_backoff`` ('tf' for 'u' as 'ii' for 'n'): the channel generalises
    from glyph shapes, never from words."""

    def __init__(self, data: dict, learned: Iterable[tuple[str, str, float]] = ()):
        sk = data["skeleton"]
        self.groups = [(a, b) for a, b in sk["groups"]]
        self.class_of: dict[str, str] = {}
        for cls in sk["classes"]:
            for ch in cls:
                self.class_of.setdefault(ch, cls[0])
        c = data["confusions"]
        self.long_s = tuple(c["long_s"])
        self.long_s_cheap = float(c["long_s_cost_in_long_s_chapters"])
        self.long_s_dear = float(c["long_s_cost_elsewhere"])
        self.long_s_also = frozenset(c["long_s_also"])
        self.long_s_also_cost = float(c["long_s_also_cost"])
        self.substitution = float(c["substitution"])
        self.accent_or_case = float(c["accent_or_case"])
        self.insertion = float(c["insertion"])
        self.deletion = float(c["deletion"])
        self.debris = set(c["debris"])
        self.debris_deletion = float(c["debris_deletion"])
        self.debris_blot = tuple(float(x) for x in c["debris_blot"])  # a speck read as 1, 2 … letters it hides
        self.class_merge_backoff = float(c["class_merge_backoff"])
        self.prior: dict[tuple[str, str], float] = {}  # the hand table alone
        for a, b, cost in c["pairs"]:
            self.prior[(a, b)] = min(cost, self.prior.get((a, b), 9.0))
        self.pairs = dict(self.prior)
        # a glyph lost (nothing printed for it) or added (printed for nothing), when learned
        self.insert_cost: dict[str, float] = {}
        self.delete_cost: dict[str, float] = {}
        self.learned = 0
        for a, b, cost in learned:
            if a == b or self.long_s_event(a, b):
                continue
            self.learned += 1
            if not a:
                self.insert_cost[b] = cost
            elif not b:
                self.delete_cost[a] = cost
            else:
                self.pairs[(a, b)] = cost
        self._multi = [(a, b, c) for (a, b), c in self.pairs.items()
                       if (len(a) > 1 or len(b) > 1) and a and b]
        self._multi += [(a, "", c) for a, c in self.delete_cost.items() if len(a) > 1]
        self._inserts = [(b, c) for b, c in self.insert_cost.items() if len(b) > 1]
        # glyphs printed for an elided article ('T' for "l'"): (glyphs, article)
        self.elisions = sorted((a, b) for (a, b) in self.pairs
                               if len(b) >= 2 and b[-1] in "'’" and b[:-1].isalpha() and a.isalpha())
        # capitals the tables know as misreadings of other letters ('L' for 'b', 'T' for "l'")
        self.capitals = sorted((a, b) for (a, b) in self.pairs if a[:1].isupper() and a[:1].lower() != b[:1])
        # two glyphs for one, by glyph class: (class, class) → {class meant: cost}
        self.class_merges: dict[tuple[str, str], dict[str, float]] = {}
        for (a, b), cost in self.pairs.items():
            if len(a) == 2 and len(b) == 1 and a.isalpha() and b.isalpha():
                key = (self.glyph_class(a[0]), self.glyph_class(a[1]))
                meant = self.class_merges.setdefault(key, {})
                z = self.glyph_class(b)
                meant[z] = min(meant.get(z, 9.0), cost + self.class_merge_backoff)
        self._inserts_by_first: dict[str, list[tuple[str, float]]] = {}
        for b, c in self._inserts:
            self._inserts_by_first.setdefault(b[0], []).append((b, c))
        self._multi_by_first: dict[str, list[tuple[str, str, float]]] = {}
        for a, b, c in self._multi:
            self._multi_by_first.setdefault(a[0], []).append((a, b, c))
        # the most rows a confusion skips (glyphs read as one letter, two glyphs merged):
        # every explanation passes through one of that many rows after the last searched
        self._span = max([2] + [len(a) for a, _, _ in self._multi])
        self._cost_cache: dict = {}
        self._above_cache: dict = {}  # (printed, word, long_s) → a cost the search found it dearer than
        self._groups_cache: dict = {}
        self._word_cache: dict = {}
        self._sub_rows: dict[tuple[str, bool], _SubRow] = {}  # (glyph, long-s chapter) → letter → cost
        # the compiled search's (``_search.dp``): (glyph, long-s chapter) → its ``_SubRow`` with
        # an array beside it; (printed, long-s chapter) → those of each glyph of the print
        self._glyph_rows: dict = {}
        self._printed_rows: dict = {}
        # the skeleton as str.translate tables (C speed: the lexicon's 100,000 words are
        # skeletonised at start-up): debris dropped, each glyph by its class; a class's
        # first letter stands for it, and is its own class, so a second pass changes nothing
        self._by_class = {ord(ch): cls for ch, cls in self.class_of.items()}
        self._by_class.update({ord(ch): None for ch in self.debris})
        # what the skeleton depends on: models that share it share the lexicon's index
        self.skeleton_key = (tuple(self.groups), tuple(sorted(self.class_of.items())), tuple(sorted(self.debris)))
        lc = data["long_s_context"]
        self.long_s_margin = float(lc["margin"])
        self.long_s_weight = float(lc["weight"])
        self.s_next_words = frozenset(lc["s_reading_next_words"])
        self.s_next_endings = tuple(lc["s_reading_next_endings"])
        self.f_next_words = frozenset(lc["f_reading_next_words"])
        self.f_next_endings = tuple(lc["f_reading_next_endings"])
        self.long_s_printing = LongSPrinting(**data["long_s_printing"])

    def glyph_class(self, ch: str) -> str:
        """The shape class of a glyph, as the skeleton writes it ('t' → 'i', 'u' → 'n')."""
        low = ch.lower()
        return self.class_of.get(low, low)

    def misread_capital(self, printed: str, word: str) -> bool:
        """Whether the print's first glyph, a capital, is one the tables know as a misreading
        of the word's first letters. Inside a sentence a capital is most often a name's: read
        as another letter only where the OCR is known to print that capital for it, not at the
        price of its small letter's confusions ('B' is no 'h' as 'b' may be)."""
        return any(printed.startswith(a) and word.startswith(b) for a, b in self.capitals)

    def long_s_cue(self, next_word: str) -> int:
        """+1 if the next word calls for the s reading of a long-s word, −1 for the f one.
        Asked in a long-s printing only, where the next word may itself print its s as f
        ('font fuivre'): its s reading is looked up too."""
        w = next_word.lower()
        if not w:
            return 0
        for reading in (w, w.replace("f", "s")) if "f" in w else (w,):
            if reading in self.s_next_words or (len(reading) > 3 and reading.endswith(self.s_next_endings)):
                return 1
        if w in self.f_next_words or (len(w) > 3 and w.endswith(self.f_next_endings)):
            return -1
        return 0

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "ChannelModel":
        """The hand table and, when there is one, the learned table beside it."""
        from .learned import load_default

        return cls(data.load("confusions"), load_default())

    def skeleton(self, word: str, fold_groups: bool = True, capitals: bool = False) -> str:
        """The word's letters by glyph class. With ``capitals``, a capital keeps its own
        class (an 'L' looks like a 'b', an 'l' does not)."""
        w = word
        if fold_groups:
            for a, b in self.groups:
                if a in w:
                    w = w.replace(a, b)
        table = self._by_class
        if capitals:
            # a glyph of a class as it is ('L' with 'b'), the others as their lower case
            w = w.translate(table)
        return w.lower().translate(table)

    def skeletons(self, printed: str) -> set[str]:
        """A printed word's skeletons: its glyph groups ('li') read as one letter ('h')
        or as the two letters they may also be ('autre' printed 'aulie'); its capitals
        as capitals ('Loule' for 'boule') or as the lower case they may stand for."""
        out = {self.skeleton(printed, g) for g in (True, False)}
        if printed != printed.lower():
            out |= {self.skeleton(printed, g, capitals=True) for g in (True, False)}
        return out

    def merged_readings(self, printed: str) -> list[str]:
        """The printed word with one pair of its glyphs read as the one glyph the channel
        says they may stand for ('rnoitié' → 'moitié', 'tiers' read 'ters'):
        each a key for the skeleton index, so that a word with a merge and another
        confusion is still found."""
        out = []
        for i in range(len(printed) - 1):
            meant = self.class_merges.get((self.glyph_class(printed[i]), self.glyph_class(printed[i + 1])))
            if meant and printed[i].isalpha() and printed[i + 1].isalpha():
                for z in meant:
                    out.append(printed[:i] + z + printed[i + 2 :])
        return out

    def cost(self, printed: str, word: str, long_s: bool, limit: float = _INF) -> float:
        """The channel cost of reading the print as the word; with a ``limit``, inf
        for a cost above it (the search stops as soon as it is sure)."""
        return _channel_cost(self, printed, word, long_s, limit)

    def delete_at(self, printed: str) -> list[float]:
        """The cost of dropping each glyph of a printed word (debris is cheap)."""
        dc = self.delete_cost
        return [dc.get(a, self.debris_deletion if a in self.debris else self.deletion) for a in printed]

    def groups_at(self, printed: str) -> list[list[tuple[int, str, float]]]:
        """For each position of a printed word, the confusions of more than one glyph
        that can start there: (glyphs read, what they stand for, cost)."""
        return self.printed_info(printed)[0]

    def printed_info(self, printed: str) -> tuple:
        """What the channel cost needs of a printed word, made once per word: at each
        position the confusions of more than one glyph starting there, the classes two
        glyphs starting there may stand for, the cost of dropping the glyph, its letter."""
        hit = self._groups_cache.get(printed)
        if hit is None:
            by_first = self._multi_by_first
            groups = [[(len(a), b, c) for a, b, c in by_first.get(ch, ()) if printed.startswith(a, i)]
                      for i, ch in enumerate(printed)]
            if len(self._groups_cache) > 100_000:
                self._groups_cache.clear()
            hit = self._groups_cache[printed] = (
                groups, self.merges_at(printed), self.delete_at(printed), [base_letter(c) for c in printed])
        return hit

    def word_info(self, word: str) -> tuple[list[float], list[str], bool]:
        """A candidate's cost of each letter lost by the OCR, their glyph classes, and
        whether any letters lost together may start in it."""
        hit = self._word_cache.get(word)
        if hit is None:
            if len(self._word_cache) > 100_000:
                self._word_cache.clear()
            ins, insertion, class_of = self.insert_cost, self.insertion, self.class_of
            # (``glyph_class`` of each letter, without a call each)
            hit = self._word_cache[word] = ([ins.get(c, insertion) for c in word],
                                            [class_of.get(low, low) for low in map(str.lower, word)],
                                            any(c in self._inserts_by_first for c in word))
        return hit

    def merges_at(self, printed: str) -> list[dict[str, float] | None]:
        """For each position, the classes two glyphs starting there may stand for."""
        cm, class_of = self.class_merges, self.class_of
        classes = [class_of.get(low, low) for low in map(str.lower, printed)]  # (``glyph_class`` of each, once)
        out: list[dict[str, float] | None] = []
        for i in range(len(printed)):
            if i + 1 < len(printed) and printed[i].isalpha() and printed[i + 1].isalpha():
                out.append(cm.get((classes[i], classes[i + 1])))
            else:
                out.append(None)
        return out

    def long_s_event(self, a: str, b: str) -> bool:
        """Whether reading the glyph ``a`` as ``b`` may be a long s misread: the printing's
        (priced by whether the chapter is a long-s printing), not a confusion of the channel
        to learn."""
        return (a, b) == self.long_s or (b == "s" and a in self.long_s_also)

    def step_cost(self, a: str, b: str, long_s: bool) -> float:
        """The cost of reading the printed glyph ``a`` as the letter ``b``."""
        if a == b:
            return 0.0
        if (a, b) == self.long_s:
            return self.long_s_cheap if long_s else self.long_s_dear
        if base_letter(a) == base_letter(b):
            return self.accent_or_case
        listed = self.pairs.get((a, b)) or self.pairs.get((a.lower(), b))
        if long_s and self.long_s_event(a, b):  # (the long s read as an f is priced above)
            return min(listed, self.long_s_also_cost) if listed else self.long_s_also_cost
        if listed:
            return listed
        bare, printed_bare = base_letter(b), base_letter(a)
        if bare != b or (printed_bare != a.lower() and printed_bare in _PLAIN_VOWELS):
            # a glyph the tables know for a letter, one of them with an accent the other
            # lacks ('c' for 'è' as 'c' for 'e', 'é' for 'c' as 'e' for 'c'): the
            # confusion and the accent, each paid (an accent the print adds is a speck
            # over a vowel; a cedilla is the letter's own: 'ç' is no misread 'e')
            bare_cost = self.pairs.get((printed_bare, bare))
            if bare_cost:
                return min(bare_cost + self.accent_or_case, self.substitution)
        return self.substitution

    def align(self, printed: str, word: str, long_s: bool = False) -> list[tuple[str, str]]:
        """The cheapest explanation of the print as the word misread: its steps, each
        (glyphs printed, letters meant), matches included ('tahle', 'table' →
        t a (h, b) l e). The same costs as ``cost``, with the path kept (for
        learning; ``cost`` is the fast one)."""
        n, m = len(printed), len(word)
        inf = float("inf")
        dp = [[inf] * (m + 1) for _ in range(n + 1)]
        back: list[list[tuple[int, int] | None]] = [[None] * (m + 1) for _ in range(n + 1)]
        dp[0][0] = 0.0
        groups, merges, drops = self.groups_at(printed), self.merges_at(printed), self.delete_at(printed)
        wclass = [self.glyph_class(ch) for ch in word]
        ins = self.insert_cost

        def relax(i, j, ii, jj, c):
            if dp[i][j] + c < dp[ii][jj] - 1e-12:
                dp[ii][jj] = dp[i][j] + c
                back[ii][jj] = (i, j)

        for i in range(n + 1):
            for j in range(m + 1):
                if dp[i][j] == inf:
                    continue
                if j < m:
                    relax(i, j, i, j + 1, ins.get(word[j], self.insertion))
                    for target, c in self._inserts:
                        if word.startswith(target, j):
                            relax(i, j, i, j + len(target), c)
                if i < n:
                    relax(i, j, i + 1, j, drops[i])
                    if j < m:
                        relax(i, j, i + 1, j + 1, self.step_cost(printed[i], word[j], long_s))
                    for la, target, c in groups[i]:
                        if word.startswith(target, j):
                            relax(i, j, i + la, j + len(target), c)
                    if merges[i] and j < m and wclass[j] in merges[i]:
                        relax(i, j, i + 2, j + 1, merges[i][wclass[j]])
        steps = []
        i, j = n, m
        while (i, j) != (0, 0):
            pi, pj = back[i][j]
            steps.append((printed[pi:i], word[pj:j]))
            i, j = pi, pj
        return steps[::-1]


def _channel_cost(model: ChannelModel, printed: str, word: str, long_s: bool, limit: float = _INF) -> float:
    """Weighted edit distance from what the OCR printed to a word: the cheapest way to
    explain the print as the word misread, through the confusion table."""
    key = (printed, word, long_s)
    hit = model._cost_cache.get(key)
    if hit is not None:
        return hit if hit <= limit else _INF
    if limit < _INF:
        above = model._above_cache.get(key)
        if above is not None and above >= limit:
            return _INF
    result = _SEARCH(model, printed, word, long_s, limit)
    if result == _INF:  # (every print has a finite cost: inf is the search stopped above the limit)
        if len(model._above_cache) > 300_000:
            model._above_cache.clear()
        model._above_cache[key] = max(limit, model._above_cache.get(key, limit))
        return _INF
    if len(model._cost_cache) > 300_000:
        model._cost_cache.clear()
    model._cost_cache[key] = result
    return result if result <= limit else _INF


def _dp(model: ChannelModel, printed: str, word: str, long_s: bool, limit: float = _INF) -> float:
    """The search itself: dp[i][j], the cheapest explanation of printed[:i] as
    word[:j], in a band around the diagonal. What depends on one word alone (its
    confusions of several glyphs, merges, drops, insertions) is made once per word.
    Inf as soon as every explanation costs more than ``limit``: each passes through
    one of the ``_span`` rows after the last searched, and costs no less than the
    cheapest of them (no step has a negative cost)."""
    n, m = len(printed), len(word)
    inf = _INF
    dp = [[inf] * (m + 1) for _ in range(n + 1)]
    dp[0][0] = 0.0
    groups, merges, drops = model.printed_info(printed)[:3]
    wins, wclass, inserted = model.word_info(word)
    inserts = model._inserts_by_first  # letters lost together, by their first letter
    sub_rows = model._sub_rows
    span = model._span
    band = 3 + abs(n - m)
    for i in range(n + 1):
        row = dp[i]
        lo = i - band if i > band else 0
        hi = i + band if i + band < m else m
        if i == n:  # the last glyph read: only letters the OCR lost remain
            for j in range(lo, hi):
                cur = row[j]
                if cur != inf:
                    v = cur + wins[j]
                    if v < row[j + 1]:
                        row[j + 1] = v
                    for target, c in inserts.get(word[j], ()):
                        if word.startswith(target, j):
                            jj = j + len(target)
                            if jj <= m and cur + c < row[jj]:
                                row[jj] = cur + c
            break
        nxt = dp[i + 1]
        a = printed[i]
        drop = drops[i]
        merge = merges[i]
        group = groups[i]
        sub = sub_rows.get((a, long_s))
        if sub is None:
            sub = sub_rows[(a, long_s)] = _SubRow(model, a, long_s)
        for j in range(lo, hi + 1):
            cur = row[j]
            if cur == inf:
                continue
            v = cur + drop
            if v < nxt[j]:
                nxt[j] = v
            if j == m:
                continue
            v = cur + wins[j]
            if v < row[j + 1]:
                row[j + 1] = v
            b = word[j]
            if inserted and b in inserts:
                for target, c in inserts[b]:
                    if word.startswith(target, j):
                        jj = j + len(target)
                        if jj <= m and cur + c < row[jj]:
                            row[jj] = cur + c
            v = cur + sub[b]
            if v < nxt[j + 1]:
                nxt[j + 1] = v
            if group:
                for la, target, pc in group:
                    if word.startswith(target, j):
                        jj = j + len(target)
                        if cur + pc < dp[i + la][jj]:
                            dp[i + la][jj] = cur + pc
            if merge is not None:
                mc = merge.get(wclass[j])
                if mc is not None and cur + mc < dp[i + 2][j + 1]:
                    dp[i + 2][j + 1] = cur + mc
        if limit < inf and min(nxt) > limit and all(min(r) > limit for r in dp[i + 2 : i + 1 + span]):
            return inf
    return dp[n][m]


class _SubRow(dict):
    """letter → the cost of reading one printed glyph as it, each made when first asked
    for (read as ``row[letter]``: the search asks millions of times a book)."""

    def __init__(self, model: ChannelModel, glyph: str, long_s: bool):
        super().__init__()
        self.model, self.glyph, self.long_s = model, glyph, long_s

    def __missing__(self, letter: str) -> float:
        cost = self[letter] = self.model.step_cost(self.glyph, letter, self.long_s)
        return cost


try:
    from . import _search  # the same search compiled (setup.py: built at install where a compiler is)
except ImportError:
    _search = None


def _compiled_search(model: ChannelModel, printed: str, word: str, long_s: bool, limit: float = _INF) -> float:
    return _search.dp(model, printed, word, long_s, limit, _SubRow)


# the search the channel's costs are made by: the compiled one where it was built
# (13.7% fewer instructions for the whole clean stage), ``_dp`` where not; they agree
# to the last bit (tests/test_correct.py)
_SEARCH = _compiled_search if _search is not None else _dp


try:
    # setup.py: built at install where a compiler is
    from ._within import Choices as _Choices, within as _compiled_within
except ImportError:
    _Choices = _compiled_within = None
try:
    from ._within import Buckets as _Buckets, set_fold_table
except ImportError:
    _Buckets = None
else:
    # the letter each code point below 0x180 folds to where ``base_letter`` makes it one
    # (all of them), 0 where not: ``fold_letters`` of a word, letter by letter, in C
    set_fold_table([ord(b) if len(b := base_letter(chr(k))) == 1 and b != "\0" else 0 for k in range(0x180)])


def within(word: str, choices: list[str], most: int) -> list[tuple[int, int]]:
    """(distance, k) of each ``choices[k]`` at most ``most`` plain edits (Levenshtein)
    from ``word``, nearest first, then in the choices' order: what rapidfuzz's
    ``process.extract`` finds, by the compiled ``_within.within`` where it was built
    (an unknown word's candidates are hundreds, most of them far: no Python object is
    made for one not kept; tests/test_correct.py holds the two the same)."""
    if _compiled_within is not None:
        hit = choices.within(word, most) if type(choices) is _Choices else _compiled_within(word, choices, most)
        if hit is not None:
            return hit
    strings = choices.strings if type(choices) is _Choices else choices
    return [(d, k) for _, d, k in process.extract(word, strings, scorer=Levenshtein.distance, score_cutoff=most,
                                                  limit=None)]


def kept_choices(strings: list[str]):
    """Choices asked of ``within`` again and again, kept as it reads them fastest: in one
    run of memory (the compiled ``_within.Choices``) where it was built."""
    return strings if _Choices is None else _Choices(strings)


class _Folded(dict):
    """word → its letters folded (``fold_letters``), each made when first asked for."""

    def __missing__(self, word: str) -> str:
        folded = self[word] = fold_letters(word)
        return folded


class BookBuckets(dict):
    """The buckets of the index the book's words are added to (``CandidateIndex.buckets_of``):
    key → those words. A key with a floor (``_ABOVE`` and a zipf: '=baiic>1.25') gives
    those as frequent as it only, None for none."""

    def __init__(self, buckets: dict[str, tuple[str, ...]], zipf: dict[str, float]):
        super().__init__(buckets)
        self.zipf = zipf

    def get(self, key: str, default=None):
        bucket, above, floor = key.partition(_ABOVE)
        found = dict.get(self, bucket)
        if above and found is not None:
            least = float(floor)
            found = tuple(w for w in found if self.zipf[w] >= least) or None
        return default if found is None else found


try:
    from . import _edits  # setup.py: built at install where a compiler is
except ImportError:
    _edits = None

_KEYS: WeakKeyDictionary = WeakKeyDictionary()  # CandidateIndex → its tables' keys hashed (``_keys``)
_BUCKETS: WeakKeyDictionary = WeakKeyDictionary()  # CandidateIndex → its buckets' runs (``_buckets``)


class CandidateIndex:
    """The lexicon by skeleton: the words a misread word could be."""

    DELETE_MIN_ZIPF = 3.0

    def __init__(self, words: Iterable[tuple[str, float]], model: ChannelModel, delete_min_zipf: float = DELETE_MIN_ZIPF):
        self.model = model
        self.delete_min_zipf = delete_min_zipf
        self.exact: dict[str, list[str]] = {}
        self.deletes: dict[str, list[str]] = {}
        self.zipf: dict[str, float] = {}
        self.folded: dict[str, str] = _Folded()  # a word's letters folded, made when first asked
        self.bucket_max: dict[str, float] = {}
        self._extends = False  # made by ``with_words``: its lists are the extended index's until copied
        # while a chapter's reads of the book are recorded: a view (``Resources.consult``) of
        # ``buckets_of`` the words the book adds, each key this index looks in read through it
        self.consulted = None
        self._owned: set[tuple[int, str]] = set()  # (table, key) of the lists copied since
        self._add(words)

    def _bucket(self, table: dict[str, list[str]], key: str) -> list[str]:
        # an index made by ``with_words`` shares its lists with the one it extends:
        # a shared list is copied before it is first added to
        bucket = table.get(key)
        mark = (id(table), key)
        if bucket is None:
            bucket = table[key] = []
            self._owned.add(mark)
        elif mark not in self._owned:
            bucket = table[key] = list(bucket)
            self._owned.add(mark)
        return bucket

    def _add(self, words: Iterable[tuple[str, float]]) -> None:
        if self._extends:
            self._add_shared(words)
            return
        # the lexicon's own index, made at start-up: plain dict operations, no copies
        zipf, exact, deletes, bucket_max = self.zipf, self.exact, self.deletes, self.bucket_max
        skeleton, floor = self.model.skeleton, self.delete_min_zipf
        for word, z in words:
            zipf[word] = z
            sk = skeleton(word)
            bucket = exact.get(sk)
            if bucket is None:
                exact[sk] = [word]
                bucket_max[sk] = max(z, 0.0)
            else:
                bucket.append(word)
                if z > bucket_max[sk]:
                    bucket_max[sk] = z
            if z >= floor and len(sk) >= 3:
                for k in range(len(sk)):
                    d = sk[:k] + sk[k + 1 :]
                    bucket = deletes.get(d)
                    if bucket is None:
                        deletes[d] = [word]
                    else:
                        bucket.append(word)

    def _add_shared(self, words: Iterable[tuple[str, float]]) -> None:
        for word, z in words:
            self.zipf[word] = z
            sk = self.model.skeleton(word)
            if z > self.bucket_max.get(sk, 0.0):
                self.bucket_max[sk] = z
            for table, key in self._places(sk, z):
                self._bucket(table, key).append(word)

    def _places(self, sk: str, z: float) -> Iterator[tuple[dict[str, list[str]], str]]:
        """(table, key) of each bucket a word of skeleton ``sk`` and frequency z is added to
        (the lexicon's own index inlines the same, for speed)."""
        yield self.exact, sk
        if z >= self.delete_min_zipf and len(sk) >= 3:
            for k in range(len(sk)):
                yield self.deletes, sk[:k] + sk[k + 1 :]

    def buckets_of(self, words: Iterable[tuple[str, float]]) -> "BookBuckets":
        """The buckets ``with_words`` would add these words to, each the words it would add
        there, by the key ``consulted`` reads it under (``_EXACT`` or ``_DELETED`` and the
        key): what the candidates found in a bucket owe to these words."""
        out: dict[str, list[str]] = {}
        for word, z in words:
            for table, key in self._places(self.model.skeleton(word), z):
                out.setdefault((_EXACT if table is self.exact else _DELETED) + key, []).append(word)
        return BookBuckets({key: tuple(sorted(found)) for key, found in out.items()}, self.zipf)

    @classmethod
    def from_tables(cls, model: ChannelModel, zipf: dict, exact: dict, deletes: dict, bucket_max: dict) -> "CandidateIndex":
        """The index of these tables (as ``_add`` made them, kept on disk)."""
        new = cls((), model)
        new.zipf, new.exact, new.deletes, new.bucket_max = zipf, exact, deletes, bucket_max
        return new

    def with_words(self, words: Iterable[tuple[str, float]]) -> "CandidateIndex":
        """This index and more words, in a new index; this one is left as it is (the
        lexicon's index is made once per process, each book adds its own words)."""
        new = CandidateIndex((), self.model, self.delete_min_zipf)
        new.exact, new.deletes = dict(self.exact), dict(self.deletes)
        new.zipf, new.folded, new.bucket_max = dict(self.zipf), _Folded(self.folded), dict(self.bucket_max)
        new._extends = True
        new._add_shared(words)
        return new

    def same_skeleton(self, printed: str, floor: float = 0.0) -> set[str]:
        """The words that look like the printed one to the OCR, as frequent as ``floor``."""
        out: set[str] = set()
        seen = self.consulted
        for sk in self.model.skeletons(printed):
            if seen is not None:
                # the book's words there as frequent as the floor only (a misreading of a
                # common word the book prints twice, 'tieu', is no rival of 'lieu'), the
                # floor rounded down: the words above it then and now the same, so are those above the floor
                seen.get(f"{_EXACT}{sk}{_ABOVE}{math.floor(floor * 100) / 100:.2f}")
            if self.bucket_max.get(sk, 0.0) >= floor:
                out.update(w for w in self.exact.get(sk, ()) if self.zipf[w] >= floor)
        return out

    def same_within(self, printed: str, floor: float, most: int,
                    exclude: str | None = None) -> list[tuple[int, str, float | None]]:
        """(plain edits, word, ``zipf.get(word)``) of each of ``same_skeleton(printed,
        floor)`` but ``exclude`` whose letters folded are at most ``most`` plain edits
        from the print's (``within``), nearest first, read from the buckets' runs
        (``near_within``) with the same reads recorded; where they were not built, or
        for a word of more than 64 letters, from ``same_skeleton`` itself."""
        found = None
        if _Buckets is not None:
            seen, keys = self.consulted, []
            for sk in self.model.skeletons(printed):
                if seen is not None:  # (as same_skeleton records it)
                    seen.get(f"{_EXACT}{sk}{_ABOVE}{math.floor(floor * 100) / 100:.2f}")
                if self.bucket_max.get(sk, 0.0) >= floor:
                    keys.append(sk)
            found = self._buckets().within(fold_letters(printed), keys, most, exclude, False, floor)
        if found is None:
            found = self.plain_within(printed, self.same_skeleton(printed, floor) - {exclude}, most)
        return found

    def plain_within(self, printed: str, words: Iterable[str], most: int) -> list[tuple[int, str, float | None]]:
        """(plain edits, word, ``zipf.get(word)``) of each of the words whose letters
        folded are at most ``most`` plain edits from the print's (``within``), nearest
        first: what the buckets' runs give, asked of words in hand."""
        words = list(words)
        return [(d, words[k], self.zipf.get(words[k]))
                for d, k in within(fold_letters(printed), [self.folded[w] for w in words], most)]

    def _buckets(self):
        """The tables' buckets as ``_within.Buckets`` reads them, made when first asked for:
        an index is not added to once made (``with_words`` makes another)."""
        buckets = _BUCKETS.get(self)
        if buckets is None:
            buckets = _BUCKETS[self] = _Buckets(self.exact, self.deletes, self.zipf, self.folded)
        return buckets

    def candidates(self, printed: str, least: float | None = None) -> set[str]:
        """The words within one edit of the print's skeletons, and of the skeletons of
        its readings with two glyphs merged into one ('rnise' read 'mise'), so
        that a merge and another confusion together are found; and, where the channel
        knows a glyph for an elided article, the article with the words near the rest.
        ``least``: those at least this common (zipf) only, as the index knows them."""
        out = self._near(printed, least)
        out.update(self._elided(printed, least))
        return out

    def _elided(self, printed: str, least: float | None = None) -> set[str]:
        """An elided article printed as one glyph ('Tenvoie' for "l'envoie", as the
        learned channel says 'T' may be "l'"): the article and the words near the rest."""
        out: set[str] = set()
        for glyphs, article in self.model.elisions:
            rest = printed[len(glyphs) :]
            if printed.startswith(glyphs) and len(rest) >= 2:
                elided = (article + w for w in self._near(rest) if w[:1] in _ELIDABLE)
                out.update(elided if least is None else (c for c in elided if self.zipf.get(c, 0.0) >= least))
        return out

    def near_within(self, printed: str, most: int) -> list[tuple[int, str, float | None]] | None:
        """(plain edits, word, ``zipf.get(word)``) of each of ``candidates(printed)`` but
        the print itself in small letters whose letters folded are at most ``most`` plain
        edits from the print's (``within``), nearest first: the words of the buckets weighed where they
        lie (the compiled ``_within.Buckets``, each bucket read from memory of its own
        once it has been asked for), no set of them made first (an unknown word's
        buckets hold hundreds of words, four in five of them further).
        None where that was not built. The keys looked in are recorded as ``candidates``
        records them."""
        if _Buckets is None:
            return None
        folded, lower = fold_letters(printed), printed.lower()
        found = self._buckets().within(folded, self._looked_in(printed), most, lower)
        if found is None:
            return None
        elided = self._elided(printed)
        if elided:
            elided.difference_update(w for _, w, _ in found)
            elided.discard(lower)
            found += self.plain_within(printed, sorted(elided), most)
            found.sort(key=itemgetter(0))
        return found

    def _skeletons_of(self, printed: str) -> set[str]:
        """The skeletons of the print and of its readings with two glyphs merged."""
        skeletons = set()
        for reading in (printed, *self.model.merged_readings(printed)):
            skeletons |= self.model.skeletons(reading)
        return skeletons

    def _near(self, printed: str, least: float | None = None) -> set[str]:
        exact, deletes = self.exact, self.deletes
        keys = self._looked_in(printed)
        # (in one call: a word has a hundred keys, most of them empty)
        if least is None:
            return set().union(*filter(None, map(exact.get, keys)), *filter(None, map(deletes.get, keys)))
        # those at least ``least`` common: read from the buckets' runs where they were
        # built; or a bucket's commonest word says whether any of its words is, and a
        # deleted skeleton's words are all ``delete_min_zipf`` common
        if _Buckets is not None:
            return set(self._buckets().common(keys, least))
        zipf, bucket_max = self.zipf, self.bucket_max
        out = {w for key in keys if bucket_max.get(key, 0.0) >= least for w in exact.get(key, ())
               if zipf.get(w, 0.0) >= least}
        found = filter(None, map(deletes.get, keys))
        if self.delete_min_zipf >= least:
            return out.union(*found)
        out.update(w for bucket in found for w in bucket if zipf.get(w, 0.0) >= least)
        return out

    def _looked_in(self, printed: str) -> set[str]:
        """The keys the print's candidates are found under in both tables, each key read
        recorded while a chapter's reads are (``consulted``): the skeletons and, for one
        edit of any kind besides the confusions within glyph classes, each skeleton less
        each glyph, each key looked up once (the skeletons of a word's readings share
        most of theirs)."""
        skeletons = self._skeletons_of(printed)
        seen = self.consulted
        if seen is None and _edits is not None:
            # (the keys neither table has, most of them, never made: ``_edits.one_less_in``)
            return _edits.one_less_in(skeletons, self._keys())
        keys = set(skeletons)
        for sk in skeletons:
            keys.update(sk[:k] + sk[k + 1 :] for k in range(len(sk)))
        if seen is not None:  # (each key looked in recorded, those empty too: the book may fill them)
            seen.get_many([x for key in keys for x in (_EXACT + key, _DELETED + key)])
        return keys

    def _keys(self):
        """Both tables' keys hashed (``_edits.Keys``), made when first asked for: an index
        is not added to once made (``with_words`` makes another)."""
        keys = _KEYS.get(self)
        if keys is None:
            keys = _KEYS[self] = _edits.Keys(self.exact, self.deletes)
        return keys

    def for_model(self, model: ChannelModel) -> "CandidateIndex":
        """This index with another channel model of the same skeleton (a learned one),
        sharing its tables."""
        new = CandidateIndex((), model, self.delete_min_zipf)
        new.exact, new.deletes, new.zipf, new.folded, new.bucket_max = (
            self.exact, self.deletes, self.zipf, self.folded, self.bucket_max)
        return new


@dataclass
class Decision:
    word: str  # the candidate, cased like the printed word
    cost: float  # channel cost
    confidence: float
    applied: bool  # above the threshold: an edit; below it: a suggestion
    fix: str  # 'clean.non_word', 'clean.real_word' or 'clean.long_s'
    # an unknown word's readings left for want of a lead only, each (word, cost, whether
    # it may be made): as near to one another as the engine can tell, the sentence's to
    # choose between (``ContextReader.chooses``)
    tied: tuple[tuple[str, float, bool], ...] = ()


@dataclass(frozen=True)
class BookContext:
    """What the corpus and the chapter say about words, and how the chapter was printed
    (frozen: the corrector keeps the memo of the context it was last asked about)."""

    counts: Counter = field(default_factory=Counter)
    long_s: bool = False
    terms: frozenset[str] = frozenset()  # the technical words of the games the chapter is about
    term_bonus: float = 0.0
    # while the chapter's reads of the book are recorded: its views (``Resources.consulted``)
    views: dict | None = field(default=None, compare=False, repr=False)


class Domain:
    """The treatise's technical vocabulary by family of games (data: domain.toml)."""

    def __init__(self, data: dict):
        self.min_terms = int(data["min_terms"])
        self.bonus = float(data["bonus"])
        self.families = {name: frozenset(words) for name, words in data["families"].items()}

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "Domain":
        return cls(data.load("domain"))

    def terms_of(self, counts: Counter) -> frozenset[str]:
        """The terms of every family the text uses enough of its words to be about."""
        out: set[str] = set()
        for words in self.families.values():
            if sum(1 for w in words if counts.get(w, 0)) >= self.min_terms:
                out |= words
        return frozenset(out)


_LEXICON_INDEXES: dict[tuple, tuple[Lexicon, CandidateIndex]] = {}


def _lexicon_index(lexicon: Lexicon, model: ChannelModel) -> CandidateIndex:
    """The lexicon's words by skeleton: the dear part of the index, made once per process
    for each lexicon and skeleton (channel models that differ only in their costs, as
    learning makes them, share it)."""
    key = (id(lexicon), model.skeleton_key)
    hit = _LEXICON_INDEXES.get(key)
    if hit is None or hit[0] is not lexicon:
        if len(_LEXICON_INDEXES) >= 4:
            _LEXICON_INDEXES.clear()
        # some 300,000 lists and strings made at once, kept to the process's end
        with uncollected(lasting=True):
            hit = _LEXICON_INDEXES[key] = (lexicon, _kept_index(lexicon, model))
    index = hit[1]
    return index if index.model is model else index.for_model(model)


INDEX_FORMAT = 1  # the index's derivation (skeletons, buckets): raise it when the code making it changes


def _kept_index(lexicon: Lexicon, model: ChannelModel) -> CandidateIndex:
    """The lexicon's index, from the disk when it was made before from the same lexicon
    and skeleton (a second at start-up otherwise); a lexicon that cannot say what it
    is made of (``identity`` None) is indexed afresh."""
    if lexicon.identity is None:
        return CandidateIndex(dict(lexicon.candidate_words()).items(), model)
    key = derived.key_of(INDEX_FORMAT, lexicon.identity, model.skeleton_key, CandidateIndex.DELETE_MIN_ZIPF)

    def make() -> tuple:
        index = CandidateIndex(dict(lexicon.candidate_words()).items(), model)
        return index.zipf, index.exact, index.deletes, index.bucket_max

    tables = derived.cached("candidate-index", key, make,
                            lambda v: isinstance(v, tuple) and len(v) == 4 and all(isinstance(t, dict) for t in v))
    return CandidateIndex.from_tables(model, *tables)


class Corrector:
    def __init__(
        self,
        lexicon: Lexicon,
        model: ChannelModel | None = None,
        settings: CorrectorSettings | None = None,
        book_words: Iterable[str] = (),
    ):
        self.lexicon = lexicon
        self.model = model or ChannelModel.default()
        self.settings = settings or CleanSettings.default().corrector
        self.book_words = tuple(book_words)
        self._index: CandidateIndex | None = None
        self._memo: dict[tuple, memos.BookMemo] = {}
        self._last: tuple = (None, None)  # (the context last asked about, its memo in ``_memo``)
        self._bonus: tuple = (None, 0.0)  # (the counts, their largest's bonus)

    @property
    def index(self) -> CandidateIndex:
        if self._index is None:
            self._index = _lexicon_index(self.lexicon, self.model).with_words(self.book_candidates().items())
        return self._index

    def book_candidates(self) -> dict[str, float]:
        """The words the book adds to the lexicon's candidates: rarer words it uses
        again ('doublet', 'fichets'), with their frequency."""
        base = _lexicon_index(self.lexicon, self.model)
        return {w: self.lexicon.zipf(w) for w in self.book_words if w not in base.zipf and self.lexicon.zipf(w) >= 1.0}

    def book_buckets(self) -> BookBuckets:
        """The index's buckets the book's words are added to (``CandidateIndex.buckets_of``)."""
        return self.index.buckets_of(self.book_candidates().items())

    def trim(self) -> None:
        """Its memos, its index's and its channel's kept to a size (pipeline/memos.py)."""
        memos.trim(*self._memo.values(), self.index.folded, self.model._cost_cache, self.model._above_cache,
                   self.model._groups_cache, self.model._word_cache, self.model._printed_rows)
        base = _lexicon_index(self.lexicon, self.model)
        memos.trim(base.folded)
        self.lexicon.trim()

    def _max_bonus(self, ctx: BookContext) -> float:
        counts, bonus = self._bonus
        if counts is ctx.counts:  # (the chapter's own view, which has read the largest)
            depends(counts, Consulted.TOP)
            return bonus
        top = max(ctx.counts.values(), default=0)
        self._bonus = (ctx.counts, self.settings.book_weight * math.log2(1 + top))
        return self._bonus[1]

    def prior(self, word: str, ctx: BookContext, capped: bool = False) -> float:
        """How likely the word is here: its frequency in French plus what the book
        says. Capped, the commonest words do not swallow every unknown misreading."""
        return self.priors((word,), ctx, capped)[0]

    def priors(self, words: Iterable[str], ctx: BookContext, capped: bool = False,
               zipfs: Iterable[float | None] | None = None) -> list[float]:
        """``prior`` of each word, in one loop (a word's candidates are dozens). ``zipfs``:
        the index's frequency of each (``index.zipf.get``), where the caller has it."""
        s = self.settings
        zipf, lexicon_zipf = self.index.zipf.get, self.lexicon.zipf
        count, terms, bonus_of = ctx.counts.get, ctx.terms, s.book_weight
        cap, book_cap, term_bonus = s.prior_cap, s.book_cap, ctx.term_bonus
        # the terms a decision asks about, recorded (``_TermsAsked``), read here without a call each
        asked, term_set = (terms.asked, terms.terms) if type(terms) is _TermsAsked else (None, terms)
        words = words if type(words) is list else list(words)
        zs = [z if z is not None else lexicon_zipf(w)
              for z, w in zip(map(zipf, words) if zipfs is None else zipfs, words)]
        counted = None
        if isinstance(ctx.counts, Consulted):
            # the book's counts of the words read at once, each read recorded as one by one (a plain
            # dict is read in the loop: a list of the words made first costs more than it saves)
            counted = iter(ctx.counts.get_many([w if w.islower() else w.lower() for w, z in zip(words, zs) if z > 0], 0))
        return _PRIOR_LOOP(words, zs, counted, count, asked, term_set, _LOG2, bonus_of, cap, book_cap, term_bonus, capped)

    def decide(self, printed: str, ctx: BookContext, sentence_start: bool = False, next_word: str = "",
               ocr_factor: float = 1.0) -> Decision | None:
        """What the printed word should be, if it should be something else.
        ``ocr_factor`` scales the cost of changing it: how sure the OCR was of it
        (``OcrConfidence``)."""
        if len(printed) > self.settings.longest_token:
            return None  # no word: its readings' search grows with the cube of its length
        cue = self.model.long_s_cue(next_word) if ctx.long_s and "f" in printed else 0
        # chapters of one corpus share their book counts: they share their decisions,
        # each recording what the decision read of them (``resources.remembered``), and
        # chapters about other games too, where the words the decision asked about are
        # terms of both or of neither
        memo = self._book_memo(ctx)
        key = (printed, sentence_start, cue, ocr_factor)
        made = memo.get(key)
        if made is None:
            made = memo[key] = []
        terms = ctx.terms
        for made_with, asked, were_terms, entry in made:
            if made_with is terms or all((w in terms) is (w in were_terms) for w in asked):
                return replayed(entry, ctx.views)
        seen = _TermsAsked(terms)
        entry = memo.kept(noted(lambda: self._decide(printed, replace(ctx, terms=seen), sentence_start, cue,
                                                     ocr_factor), ctx.views))
        made.append((terms, tuple(seen.asked), frozenset(w for w, is_term in seen.asked.items() if is_term), entry))
        return replayed(entry, ctx.views)

    def _book_memo(self, ctx: BookContext) -> memos.BookMemo:
        """The memo of the decisions made with ctx's counts and flags (``memos.book_memo``),
        the last context's kept with it while it is in the store: a chapter asks at each
        of its words, with the one context (frozen: what it was made of, it stays)."""
        last, memo = self._last
        if last is ctx:
            for kept in self._memo.values():
                if kept is memo:
                    return memo
        memo = memos.book_memo(self._memo, (underlying(ctx.counts),), (ctx.long_s, ctx.term_bonus, ctx.views is not None))
        self._last = (ctx, memo)
        return memo

    def _decide(self, printed: str, ctx: BookContext, sentence_start: bool, cue: int = 0,
                ocr_factor: float = 1.0) -> Decision | None:
        if len(printed) < 2 or printed.isdigit():
            return None
        lower = printed.lower()
        if period_as_printed(self.lexicon, lower, ctx.long_s):
            return None
        known = self.lexicon.zipf(printed) >= 1.0
        scored = self._scored(printed, self._close(printed, lower, known, ctx), ctx, known)
        if not scored:
            return None
        if known:
            return self._real_word(printed, lower, scored, ctx, sentence_start, cue, ocr_factor)
        return self._non_word(printed, lower, scored, ctx, sentence_start, ocr_factor)

    def _rival_floor(self, printed: str, ctx: BookContext) -> float:
        """How common a word must be to be a known word's rival: so much likelier that
        even the book's largest bonus to the print leaves it worth suggesting."""
        return self.prior(printed, ctx) + self.settings.realword_suggestion - self._max_bonus(ctx)

    def reading_cost(self, printed: str, c: str, long_s: bool, limit: float = _INF) -> float:
        """The channel's cost of reading the print as c, a change of length of a short
        word added; inf if above ``limit`` (``ChannelModel.cost``)."""
        s = self.settings
        extra = s.short_length_change * abs(len(c) - len(printed)) if min(len(c), len(printed)) <= 3 else 0.0
        if _in_capitals(printed):
            c = c.upper()  # (a word printed in capitals is the word in capitals: its case is no misreading)
        return self.model.cost(printed, c, long_s, limit - extra + _MARGIN) + extra

    def _close(self, printed: str, lower: str, known: bool,
               ctx: BookContext) -> list[tuple[int, str, float | None]]:
        """(plain edits, candidate, its frequency in the index) of the words the print
        could be that the weighted channel may cost: for a known word, only far likelier
        words of the same skeleton (a real-word error is a confusion within the glyph
        classes: 'carles', 'Loule'); for an unknown one, those one edit away too. The
        weighted cost is dear to compute, so first those a plain edit distance finds
        close (``within``, at most ``_PLAIN_MOST`` edits), nearest first."""
        if known:
            return self.index.same_within(printed, self._rival_floor(printed, ctx), _PLAIN_MOST, lower)
        found = self.index.near_within(printed, _PLAIN_MOST)
        if found is None:
            found = self.index.plain_within(printed, self.index.candidates(printed) - {lower}, _PLAIN_MOST)
        return found

    def _scored(self, printed: str, near: list[tuple[int, str, float | None]], ctx: BookContext,
                known: bool) -> list[tuple[float, float, str]]:
        """(score, cost, candidate), best first: prior − weight × channel cost, of the
        candidates ``_close`` found, (plain edits, word, its frequency) each."""
        s = self.settings
        if not near:
            return []
        # branch and bound: a candidate scores at most its prior, so once the priors
        # left fall below the second best score, no candidate left can matter
        # (each plain edit costs at least the cheapest confusion: a bound on the score)
        cheapest = s.weight * 0.2
        words = [w for _, w, _ in near]
        priors = self.priors(words, ctx, not known, [z for _, _, z in near])
        bounds = [p - cheapest * d for p, (d, _, _) in zip(priors, near)]
        # the 20 of highest bound: sorted in C (a hundred or fewer most often, where the
        # heap's Python loop costs twice the sort), by a heap where the sort would cost more
        ranked = sorted(zip(bounds, words, priors), reverse=True)[:20] if len(words) <= _SORTED_MAX \
            else heapq.nlargest(20, zip(bounds, words, priors))
        scored: list[tuple[float, float, str]] = []
        for bound, c, prior_c in ranked:
            if len(scored) >= 2 and bound <= scored[1][0]:
                break
            # only the best two count: a candidate dear enough to score below the second
            # (its prior the highest it may be) is not costed to the end
            limit = s.suggestion_max_cost
            if len(scored) >= 2:
                limit = min(limit, (prior_c - scored[1][0]) / s.weight)
            cost = self.reading_cost(printed, c, ctx.long_s, limit)
            if cost > s.suggestion_max_cost:
                continue
            if cost > s.term_max_cost and c in ctx.terms:
                # the chapter's topic decides between close readings, not distant ones
                prior_c = self.prior(c, replace(ctx, terms=frozenset()), capped=not known)
            scored.append((prior_c - s.weight * cost, cost, c))
            scored.sort(reverse=True)
        return scored

    def _real_word(self, printed: str, lower: str, scored, ctx: BookContext, sentence_start: bool,
                   cue: int, ocr_factor: float = 1.0) -> Decision | None:
        """A known word is changed for a far likelier one, never for its own letters
        with other accents ('dés', 'là' are words as printed)."""
        s = self.settings
        score, cost, best = _changing(scored[0], ocr_factor, s.weight)
        runner_up = scored[1][0] + score - scored[0][0] if len(scored) > 1 else -99.0  # the lead stays unscaled
        gain = score - self.prior(printed, ctx)
        long_s = ctx.long_s and "f" in lower and best == _long_s_reading(lower, best)
        if long_s:
            # in a long-s printing an f inside a word is most often an s: the s reading
            # needs no great margin, and the next word can tip it ('font la' / 'font dans')
            gain += self.model.long_s_weight * cue
            margin = self.model.long_s_margin
        else:
            margin = s.realword_margin
        # a capital inside a sentence changed for another letter: as for an unknown word
        name_changed = _name_like(printed, sentence_start) and lower[:1] != best[:1] \
            and not self.model.misread_capital(printed, best)
        ok = (
            cost <= s.realword_max_cost
            and gain >= margin
            and score - runner_up >= s.realword_lead
            and fold_letters(best) != fold_letters(printed)
            and not name_changed
        )
        if not ok and (gain < s.realword_suggestion or fold_letters(best) == fold_letters(printed)):
            return None  # not even worth suggesting: the printed word is likelier
        confidence = _confidence(gain - margin, score - runner_up)
        fix = "clean.long_s" if long_s else "clean.real_word"
        best, cost = period_kept(self, printed, best, cost, ctx.long_s)
        return Decision(_cased(best, printed, sentence_start), cost, round(confidence, 3), ok, fix)

    def _may_be_made(self, printed: str, lower: str, word: str, score: float, cost: float, ctx: BookContext,
                     recurrent: bool, proper_noun: bool) -> bool:
        """Whether an unknown word may be read as this candidate, were it ahead of the rest
        (``_non_word``): cheap and common enough, not the book's own word, a name's capital
        changed only as the tables know it; a capitalised word read with its capital kept
        only as a common word, one cheap confusion away ('un Tableaa', 'la Sculprure': the
        period capitalised its nouns)."""
        s = self.settings
        return (
            not (recurrent and cost > s.recurrent_max_cost and not self._misread_again(lower, word, ctx))
            and cost <= s.nonword_max_cost
            and self.prior(word, ctx, capped=True) >= s.nonword_min_prior
            and score >= s.nonword_min_score
            and (not proper_noun or (lower[:1] != word[:1] and (_only_first_changed(lower, word)
                                                               or self.model.misread_capital(printed, word)))
                 # (its capital kept: a common word, not the name's own accents, 'Caën')
                 or (lower[:1] == word[:1] and not recurrent and cost <= s.capital_word_max_cost
                     and self.common_word(word) and fold_letters(lower) != fold_letters(word)))
            # a word in capitals, a title's or a name's ('JULIART'), as a common word only
            and (not _in_capitals(printed) or self.common_word(word))
        )

    def _misread_again(self, lower: str, word: str, ctx: BookContext) -> bool:
        """Whether an unknown word the book prints again and again is the same misreading
        made again, not a word of the book ('robre'): the Littré never prints it
        (``recurrent_min_littre``), and the book prints the reading ('convena', twice,
        where the book prints *convenu*)."""
        from .sequence import SequenceModel, normal_of

        return (ctx.counts.get(word.lower(), 0) > 0
                and SequenceModel.default().count(normal_of(lower)) < self.settings.recurrent_min_littre)

    def common_word(self, word: str) -> bool:
        """Whether a word is common (``capital_word_min_zipf``) and a word of the period's
        language (the Littré prints it ``capital_word_min_littre`` times): what a
        capitalised or all-capitals word, a name as often as not, may be read as
        ('Sculpture'; not 'Julian', the web's name)."""
        from .sequence import SequenceModel, normal_of

        s = self.settings
        return (self.lexicon.zipf(word) >= s.capital_word_min_zipf
                and SequenceModel.default().count(normal_of(word)) >= s.capital_word_min_littre)

    def _non_word(self, printed: str, lower: str, scored, ctx: BookContext, sentence_start: bool,
                  ocr_factor: float = 1.0) -> Decision | None:
        """An unknown word is replaced by its best candidate when that one is cheap to
        explain, frequent and clearly ahead of the next."""
        s = self.settings
        score, cost, best = _changing(scored[0], ocr_factor, s.weight)
        runner_up = scored[1][0] + score - scored[0][0] if len(scored) > 1 else -99.0
        proper_noun = _name_like(printed, sentence_start)
        if _in_capitals(printed) and fold_letters(best) == fold_letters(lower):
            return None  # ('ECHECS': the printer's capitals go without their accents)
        # an unknown word the book prints again and again is a word of the book
        # ('robre'), unless the OCR's commonest confusions explain it ('pajer')
        recurrent = ctx.counts.get(lower, 0) >= 2
        eligible = self._may_be_made(printed, lower, best, score, cost, ctx, recurrent, proper_noun)
        ok = eligible and score - runner_up >= s.nonword_margin
        tied: tuple = ()
        if eligible and not ok:
            near = [_changing(x, ocr_factor, s.weight) for x in scored if scored[0][0] - x[0] < s.nonword_margin]
            tied = tuple([(w, c, self._may_be_made(printed, lower, w, sc, c, ctx, recurrent, proper_noun))
                          for sc, c, w in near])
        if not ok and score < s.nonword_suggestion:
            return None
        confidence = _confidence(s.nonword_max_cost - cost, score - runner_up)
        fix = "clean.long_s" if ctx.long_s and best == _long_s_reading(lower, best) else "clean.non_word"
        best, cost = period_kept(self, printed, best, cost, ctx.long_s)
        return Decision(_cased(best, printed, sentence_start), cost, round(confidence, 3), ok, fix, tied)


def _prior_loop(words: list[str], zs: list[float], counted, count, asked: dict | None, term_set, log2: list[float],
                bonus_of: float, cap: float, book_cap: float, term_bonus: float, capped: bool) -> list[float]:
    """The loop of ``Corrector.priors``: each word's prior from its frequency ``zs[k]``,
    its count in the book (``count(low, 0)``, or the next of ``counted``), and whether it
    is a term (``asked``, filled as ``_TermsAsked`` fills it, or ``term_set``)."""
    out = []
    for word, z in zip(words, zs):
        if z <= 0:
            out.append(0.0)
            continue
        low = word if word.islower() else word.lower()
        bonus = bonus_of * log2[min(count(low, 0) if counted is None else next(counted), len(log2) - 1)]
        if asked is None:
            is_term = low in term_set
        else:
            is_term = asked.get(low)
            if is_term is None:
                is_term = asked[low] = low in term_set
        if is_term:
            z += term_bonus
        out.append(min(z, cap) + min(bonus, book_cap) if capped else z + bonus)
    return out


try:
    # the same loop on C doubles (setup.py: built at install where a compiler is; the same to the bit)
    from ._priors import prior_loop as _compiled_prior_loop
except ImportError:
    _compiled_prior_loop = None
_PRIOR_LOOP = _compiled_prior_loop or _prior_loop


class _TermsAsked:
    """A chapter's terms, remembering which words were asked about (and the answer)."""

    __slots__ = ("terms", "asked")

    def __init__(self, terms: frozenset[str]):
        self.terms = terms
        self.asked: dict[str, bool] = {}

    def __contains__(self, word: str) -> bool:
        hit = self.asked.get(word)
        if hit is None:
            hit = self.asked[word] = word in self.terms
        return hit


class OcrConfidence:
    """How sure the OCR was of each word of a chapter (raw spans → 0–1), as a factor
    on the cost of changing it: above 1 for a word it was surer of than of its
    chapter's typical word, below 1 for one it doubted."""

    def __init__(self, spans: Iterable[tuple[int, int, float]], settings: CorrectorSettings | None = None):
        spans = sorted(spans)
        self.starts = [a for a, _, _ in spans]
        self.ends = [b for _, b, _ in spans]
        self.values = [c for _, _, c in spans]
        self.typical = statistics.median(self.values) if self.values else None
        self.settings = settings or CleanSettings.default().corrector

    def factor(self, raw_start: int) -> float:
        """The factor for the word starting at ``raw_start`` (1 where the OCR said nothing)."""
        k = bisect.bisect_right(self.starts, raw_start) - 1
        if k < 0 or raw_start >= self.ends[k] or self.typical is None:
            return 1.0
        s = self.settings
        shift = s.ocr_weight * (_logit(self.values[k]) - _logit(self.typical))
        bound = math.log(s.ocr_max_factor)
        return round(math.exp(max(-bound, min(bound, shift))), 2)


def _changing(best: tuple[float, float, str], ocr_factor: float, weight: float) -> tuple[float, float, str]:
    """The best candidate's (score, cost, word) with the cost of changing the printed
    word scaled by how sure the OCR was of it. The candidates are ranked unscaled:
    the OCR's confidence says whether to change the word, not which word it is."""
    score, cost, word = best
    return score - weight * cost * (ocr_factor - 1.0), cost * ocr_factor, word


def _logit(p: float) -> float:
    p = min(max(p, 0.001), 0.999)
    return math.log(p / (1 - p))


def period_as_printed(lexicon: Lexicon, lower: str, long_s: bool) -> bool:
    """Whether a word is a spelling of the period, to be left as printed. In a long-s
    printing, not one whose f may be an s that makes a word ('foit', the period's
    'fait' by its oi, is as likely a misread 'soit'): the engine weighs those."""
    if not lexicon.is_period_form(lower):
        return False
    if not long_s or "f" not in lower:
        return True
    return not long_s_makes_a_word(lexicon, lower)


def long_s_makes_a_word(lexicon: Lexicon, lower: str) -> bool:
    """Whether some f of the word read as a long s makes a known word or a spelling of
    the period ('foit': 'soit'; 'fçu': 'sçu')."""
    return any(lexicon.zipf(r) >= 1.0 or lexicon.is_period_form(r) for r in lexicon.long_s_variants(lower))


def period_kept(corrector: "Corrector", printed: str, best: str, cost: float, long_s: bool) -> tuple[str, float]:
    """(reading, its cost): the period's spelling of ``best`` the channel finds the
    print a cheaper misreading of, where there is one, else ``best`` ('avoil' is 'avoit'
    misread, not 'avait'; 'troifiéme' 'troisiéme', not 'troisième': the candidates are
    the lexicon's modern words, and the period's spelling is the printer's, not an error).
    The print must hold the period's letters (fewer plain edits from it: 'ainsj' says
    nothing of 'ainsy' against 'ainsi'), and a spelling that differs by its accents alone
    is read only in a long-s printing: elsewhere an é for an è is the OCR's as often
    (a misread 'quatriéme' of a book of 1820 is 'quatrième')."""
    lower = printed.lower()
    for v in corrector.lexicon.period_spellings(best, lower):
        if (not long_s and fold_letters(v) == fold_letters(best)) \
                or Levenshtein.distance(lower, v) >= Levenshtein.distance(lower, best):
            continue
        c = corrector.reading_cost(printed, v, long_s, cost)
        if c < cost:
            best, cost = v, c
    return best, cost


def _long_s_reading(lower: str, best: str) -> str:
    """``best`` if it is ``lower`` with some f read as s (accents aside), else ''."""
    if len(lower) != len(best) or "f" not in lower:
        return ""
    for a, b in zip(lower, best):
        if a != b and not (a == "f" and b == "s") and base_letter(a) != base_letter(b):
            return ""
    return best if any(a == "f" and b == "s" for a, b in zip(lower, best)) else ""


def _confidence(margin: float, lead: float) -> float:
    return max(0.05, min(0.99, 0.5 + 0.15 * margin + 0.1 * min(lead, 3.0)))


_ROMAN = regex.compile(r"[IVXLCDM]+")


def _in_capitals(printed: str) -> bool:
    """A word of three letters or more printed in capitals ('RÈGLES', 'PIQUFT'), not a
    Roman numeral ('XIV'): read against its candidates in capitals."""
    return len(printed) > 2 and printed.isupper() and _ROMAN.fullmatch(printed) is None


def _name_like(printed: str, sentence_start: bool) -> bool:
    """A capitalised word inside a sentence, as a name is printed ('Pierre')."""
    return printed[:1].isupper() and not sentence_start and printed[1:].islower()


def _only_first_changed(lower: str, word: str) -> bool:
    """Whether the word is the print but for its first glyph or two ('ijonne' for 'bonne',
    'tor' for "l'or"): a capitalised word whose other letters are misread too is more
    likely a name the engine does not know than a common word ('Bontaux' is no 'honteux')."""
    return lower[1:] == word[1:] or lower[2:] == word[1:] or lower[1:] == word[2:]


def _cased(candidate: str, printed: str, sentence_start: bool) -> str:
    if len(printed) > 2 and printed.isupper():
        return candidate.upper()
    # an elided article the OCR ran into one glyph keeps the capital the word after it
    # is printed with ('TAmiral' read "l'Amiral", not "l'amiral"): the word's letters are
    # the print's last ones where the reading did not change its length
    cut = candidate.find("'") + 1
    if 0 < cut <= 3 and cut < len(candidate) and len(candidate) - cut < len(printed) \
            and printed[cut - len(candidate)].isupper():
        candidate = candidate[:cut] + candidate[cut].upper() + candidate[cut + 1:]
    if printed[:1].isupper():
        if printed[:1].lower() == candidate[:1] or sentence_start:
            return candidate[:1].upper() + candidate[1:]
    return candidate


def book_counts(texts: Iterable[str]) -> Counter:
    counts: Counter = Counter()
    for t in texts:
        counts.update(w.lower() for w in _LETTERS.findall(t))
    return counts


@dataclass(frozen=True)
class LongSPrinting:
    """When a text is taken for one printed with the long s (confusions.toml's
    ``[long_s_printing]``, where each is explained)."""

    zipf: float
    lead: float
    share: float
    least: int
    some_share: float
    some_least: int

    def holds(self, evidence: tuple[int, int, int]) -> bool:
        """Whether a text of this evidence (``long_s_evidence``) is a long-s printing."""
        explained, longer, f_words = evidence
        return f_words > 0 and ((explained >= self.least and explained / f_words >= self.share)
                                or (longer >= self.some_least and longer / f_words >= self.some_share))


def long_s_evidence(text: str, lexicon: Lexicon, printing: LongSPrinting) -> tuple[int, int, int]:
    """(the words with an f that are words only with their f read as an s, those of them
    of three letters or more, the words with an f) of a text: sums over a book's chapters
    are the book's."""
    explained = longer = f_words = 0
    for w in _LETTERS.findall(text):
        lw = w.lower()
        if "f" not in lw or len(w) < 2:
            continue
        f_words += 1
        z = lexicon.zipf(lw)
        z_s = max((lexicon.zipf(v) for v in lexicon.long_s_variants(lw)), default=0.0)
        if z_s >= printing.zipf and z_s > z + printing.lead:
            explained += 1
            longer += len(w) > 2
    return explained, longer, f_words


def is_long_s_printing(text: str, lexicon: Lexicon, model: "ChannelModel | None" = None) -> bool:
    """Printed with the long s: many of the words with an f are words only with their f
    read as an s, the OCR having read every long s as an f; or some are, enough to tell,
    the OCR having read most as an s (``ChannelModel.long_s_printing``)."""
    printing = (model or ChannelModel.default()).long_s_printing
    return printing.holds(long_s_evidence(text, lexicon, printing))
