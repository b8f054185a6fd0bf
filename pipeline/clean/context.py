"""Decisions in context: which of the words that look alike to the OCR the sentence
calls for.

The correction engine (correct.py) judges a word alone: a known word is changed only
for a far likelier one. But 'celle' and 'cette', 'lour' and 'tour', 'on' and 'ou'
are all words; only the sentence tells which was printed. Here each word is weighed
against the words it could be misread from (the same glyph skeleton, one edit away,
or a word the previous one is often followed by and that looks like it), each
scored as

    log10 P(word | previous) + log10 P(next | word) − weight × cost(printed → word)

with the sequence model (sequence.py) and the channel's costs (confusions.toml). A
known word is replaced when a candidate fits its neighbours ``realword_margin``
better, its channel cost paid; a word no lexicon knows, which the engine left
because no single cheap confusion explained it ('pelite', 'tonles'), when a candidate
explained by several confusions fits ``nonword_margin`` better than an unknown word
would (``unknown_logp``). A change of accents only is never made (period spelling:
'dés que'), nor is a capitalised word inside a sentence (a name, a player) touched.
"""

from __future__ import annotations

import itertools
import math

from dataclasses import dataclass
from operator import itemgetter
from typing import Mapping
from weakref import WeakKeyDictionary

import rapidfuzz
import regex
from rapidfuzz.distance import Levenshtein

from ..lexicon import Lexicon
from .. import derived, memos
from ..resources import remembered, underlying
from ..text import fold_letters
from .correct import (ChannelModel, Corrector, _cased, _lexicon_index, _long_s_reading, kept_choices, long_s_makes_a_word,
                      period_as_printed, period_kept, within)
from .sequence import BookSequence, SequenceModel, normal_of
from .settings import CleanSettings, ContextSettings, SegmentationSettings


@dataclass(frozen=True)
class ContextDecision:
    word: str  # cased like the printed word
    cost: float
    confidence: float
    applied: bool  # at or above the margin: an edit; below it: a suggestion
    fix: str


class ContextReader:
    """Reads each word of a chapter between its neighbours (one per chapter: its
    sequence model carries the book's counts). Its decisions are the book's: kept for
    the chapters read with the same counts (``views``: the chapter's recorded reads of
    them, ``resources.remembered``)."""

    def __init__(self, corrector: Corrector, sequence: BookSequence, settings: ContextSettings,
                 segmentation: SegmentationSettings, long_s: bool = False, book: Mapping[str, int] | None = None,
                 views: dict | None = None):
        self.corrector = corrector
        self.book = book if book is not None else {}  # how often the book prints each word (lower case)
        self.views = views
        self.lexicon: Lexicon = corrector.lexicon
        self.sequence = sequence
        self.settings = settings
        self.segmentation = segmentation
        self.long_s = long_s
        # a word's candidates do not depend on the chapter: shared by the chapters of a
        # process that share the index and the way they were printed
        # (the lexicon's own index: candidates are at least min_zipf common, and the
        # words a book adds to its index are rarer)
        self.index = _lexicon_index(corrector.lexicon, corrector.model)
        shared = self._shared = _SHARED.setdefault(self.index, {})
        self._candidates: dict[str, list[tuple[str, float]]] = shared.setdefault(("known", long_s), {})
        self._index_candidates: dict[str, list[str]] = shared.setdefault("unknown", {})
        self._unknown: dict = shared.setdefault(("unknown", long_s), {})
        counts = sequence.book
        self._decided = memos.book_memo(shared.setdefault("decided", {}),
                                        (corrector, settings, segmentation, underlying(self.book),
                                         underlying(counts.unigrams), underlying(counts.pairs)),
                                        (long_s, views is not None))
        self._joined: dict = shared.setdefault("joined", {})
        self._blotted: dict = shared.setdefault("blotted", {})
        self._folded_followers: dict = shared.setdefault("folded followers", {})  # prev → ``kept_choices``
        self._pieces: dict = shared.setdefault("pieces", {})
        self._skeletons: dict[str, str] = shared.setdefault("skeletons", {})
        self._split_readings: dict[str, list] = shared.setdefault(("split", long_s), {})
        self._word_readings: dict[str, list] = shared.setdefault(("readings", long_s), {})
        self._words: dict = shared.setdefault(("words", long_s), {})
        self._littre_readings: dict = shared.setdefault(("littre", long_s), {})
        read = shared.setdefault("commonest", {})  # printed with the long s or not → the table's key, None for none
        if long_s not in read:
            read[long_s] = self._commonest_key()
            if read[long_s] is not None:
                self._read_commonest()

    # -- the commonest words' readings, derived once ----------------------------------------

    def _commonest_key(self) -> str | None:
        """What names the commonest words' readings (``_read_commonest``): the code and
        data of the package, the lexicon's and the Littré's identities, the libraries
        the readings are made with; None if this reader's engine is not the default
        one made from them (a channel learned in the process, settings of a test), or
        it cannot say what it is made of. A book printed with the long s has a table of
        its own (its words' candidates and costs are others)."""
        clean = CleanSettings.default()
        if (self.lexicon.identity is None or self.sequence.model.identity is None
                or self.corrector.model is not ChannelModel.default() or self.sequence.model is not SequenceModel.default()
                or self.settings != clean.context or self.segmentation != clean.segmentation
                or self.corrector.settings != clean.corrector):
            return None
        return derived.key_of(COMMONEST_FORMAT, COMMONEST, self.long_s, derived.code_digest(), self.lexicon.identity,
                              self.sequence.model.identity, regex.__version__, rapidfuzz.__version__)

    def _read_commonest(self) -> None:
        """The readings of the ``COMMONEST`` commonest words of the index, in lower case,
        put in the memos of the books printed as this one (with the long s or without,
        a table each): each word's candidates as a known word, what its decisions share
        wherever it stands, its parts as two words, its id in the Littré, its frequency
        in the lexicon. They depend on the word alone, and every book prints most of
        them: a process would otherwise work them out afresh, 8-11% of a cold clean
        stage's instructions (bench/README.md). Derived once (2-3 s, the first time),
        then read from the disk (``derived``, 2.9 MB, 25 ms); each is the value the memo
        would be given, so no decision changes (tests/test_correct.py)."""
        known, words, splits, ids, aliases, zipfs = self.commonest_readings()
        self._candidates.update(known)
        self._words.update((w, _PERIOD if v is None else v) for w, v in words.items())
        self._split_readings.update(splits)
        self.sequence.model.remember(ids, aliases)
        self.lexicon.remember(zipfs)

    def commonest_readings(self) -> tuple[dict, dict, dict, dict, dict, dict]:
        """The table ``_read_commonest`` reads: (word → its candidates as a known word,
        word → ``_word``'s tuple, None for a spelling of the period, word → its parts as
        two words, word → its id in the Littré, word → ``alias``'s token for a word the
        Littré does not count, word → its zipf and its best zipf in the lexicon)."""
        key = self._commonest_key()
        if key is None:
            raise ValueError("this reader's engine is not the default one: no table of its readings is kept")
        return derived.cached("commonest-readings", key, self._commonest_table,
                              lambda v: isinstance(v, tuple) and len(v) == 6 and all(isinstance(t, dict) for t in v))

    def _commonest_table(self) -> tuple[dict, dict, dict, dict, dict, dict]:
        """``_read_commonest``'s readings, worked out (in marshal's types: ``_PERIOD`` as None)."""
        zipf = self.index.zipf
        commonest = sorted(zipf, key=lambda w: (-zipf[w], w))[:COMMONEST]
        known, words, splits, ids, aliases, zipfs = {}, {}, {}, {}, {}, {}
        model, lexicon = self.sequence.model, self.lexicon
        for w in commonest:
            zipfs[w] = (lexicon.zipf(w), lexicon.best_zipf(w))
            if len(w) > 1:
                known[w] = self.known_candidates(w)
            word = self._word(w)
            words[w] = None if word is _PERIOD else word
            if len(w) > 2:
                splits[w] = self._two_words(w)
            ids[w] = model.id_of(w)
            if w not in model.ids:
                aliases[w] = model.alias(w)
        return known, words, splits, ids, aliases, zipfs

    @staticmethod
    def trim(index) -> None:
        """The memos the readers of an index share kept to a size (pipeline/memos.py)."""
        # (not the tables made once, not memos: the index's words by their folded letters, their keys
        # hashed, those alone there)
        shared = _SHARED.get(index, {})
        memos.trim(*(memo for key, memo in shared.items()
                     if key not in ("by_fold", "by_fold keys", "alone", "decided", "commonest")),
                   *shared.get("decided", {}).values())

    def _cost(self, printed: str, c: str, limit: float = math.inf) -> float:
        return self.corrector.reading_cost(printed, c, self.long_s, limit)

    def known_candidates(self, printed: str) -> list[tuple[str, float]]:
        """The words a known word may have been misread from, (word, cost): the common
        words of its glyph skeleton (two letters apart at most) and those one letter
        away, which a sentence could make likelier than the printed one (their
        frequency less the channel's cost no more than ``reach`` below its own). Up to
        ``rival_max_cost``: a dearer reading is never made, but it can stand in the way
        of a cheaper one ('fe trompe': 'te' is cheap, 'se' as likely). Memoised."""
        hit = self._candidates.get(printed)
        if hit is None:
            st = self.settings
            index = self.index
            lower = printed.lower()
            folded = fold_letters(lower)
            z = self.lexicon.zipf(printed)
            floor = max(st.min_zipf, z - st.reach)
            cands = {w for _, w, _ in index.same_within(printed, floor, 2)}
            by_fold = self._by_fold()
            zipf = index.zipf
            # the few hundred strings one letter away matched against the folded words
            # at once (in C), rather than looked up one by one
            for e in _edits1_in(folded, by_fold, self._by_fold_keys()):
                for c in by_fold[e]:
                    if zipf[c] >= floor:
                        cands.add(c)
            # (sorted: which of two as frequent is kept, and in what order they are weighed,
            # must not hang on the order of a set, which changes with the process's hash seed)
            # (accents alone: period spelling; a verb's passé simple no misread present, lexicon.toml [verbs])
            tense = self.lexicon.another_tense
            cands = [c for c in _commonest_spellings(sorted(cands), index, self.sequence.model.alias, self._alone())
                     if c != lower and index.folded[c] != folded and not tense(lower, c)]
            # the channel's cost is dear to compute: only for the likeliest few, ranked
            # by frequency less a cost per letter changed
            if len(cands) > st.max_candidates:
                cands = sorted(cands, key=lambda c: index.zipf[c] - st.weight * st.letter_cost
                               * Levenshtein.distance(index.folded[c], folded), reverse=True)[:st.max_candidates]
            hit = []
            for c in cands:
                cost = self._cost(printed, c, min(st.rival_max_cost, (index.zipf[c] - z + st.reach) / st.weight))
                if cost <= st.rival_max_cost and index.zipf[c] - st.weight * cost >= z - st.reach:
                    hit.append((c, cost))
            self._candidates[printed] = hit
        return hit

    def _unaccented(self, lower: str) -> str | None:
        """The printed word without its accents, if a common word ('dé' → 'de', 'à' → 'a'):
        the only change of accents a sentence may make, for a speck above a letter reads
        as an accent, while the period spelled with other accents, not with more ('dés
        que' for 'dès que' stays)."""
        bare = fold_letters(lower)
        return bare if bare != lower and self._own_word(bare) else None

    def _own_word(self, w: str) -> bool:
        """Whether w is a common word the sequence model counts as its own: 'regle' is
        counted as the Littré's 'règle', no word of its own to a sentence."""
        if self.lexicon.zipf(w) < self.settings.min_zipf:
            return False
        return not self.sequence.model.ids or normal_of(w) in self.sequence.model.ids

    def _word(self, printed: str) -> tuple | object:
        """What a word's decisions share wherever it stands, but what the book's counts
        say (``_accented_by_book``): ``_PERIOD`` for a spelling of the period, else
        (lower case, zipf, the word without its accents if a common word, the readings a
        known word's sentence may call for with their costs, the word with an acute or
        grave accent if one of its own and that reading's cost)."""
        lower = printed.lower()
        if period_as_printed(self.lexicon, lower, self.long_s):
            return _PERIOD
        zipf = self.lexicon.zipf(printed)
        if zipf < 1.0:
            return lower, zipf, None, {}, None, 0.0
        bare = self._unaccented(lower)
        costs = dict(self.known_candidates(printed)) if len(printed) > 1 else {}
        if bare is not None:
            costs[bare] = self._cost(printed, bare)
        acute = self._acute_form(lower) if len(printed) > 2 else _GRAVE.get(lower)
        return lower, zipf, bare, costs, acute, (0.0 if acute is None else self._cost(printed, acute))

    def _acute(self, lower: str) -> str | None:
        """The printed word with the acute accent of a final é ('joue' → 'joué', 'donnes'
        → 'donnés'), if a common word of its own: the accent the OCR loses most often,
        and which only the sentence tells ('il joue', 'il a joué'). Not for a word the
        book prints often and never with the accent: a term of its games, a noun."""
        acute = self._acute_form(lower)
        return acute if acute is not None and self._accented_by_book(lower, acute) else None

    def _acute_form(self, lower: str) -> str | None:
        """``_acute`` but for what the book prints: the same wherever the word stands."""
        if lower.endswith("e"):
            acute = lower[:-1] + "é"
        elif lower.endswith("es"):
            acute = lower[:-2] + "és"
        else:
            return None
        return acute if self._own_word(acute) else None

    def _accented_by_book(self, lower: str, acute: str) -> bool:
        """Whether the book lets a word take the accent of ``_acute``: not one it prints
        often and never with the accent ('faire la vole')."""
        return self.book.get(lower, 0) < self.settings.rare_book_count or bool(self.book.get(acute, 0))

    def littre_reading(self, printed: str) -> tuple[str, float] | None:
        """For a word the lexicon does not know, the word the Littré prints that it is but
        for its accents, if a rare word to the lexicon (below ``rare_zipf``), and what
        reading it so costs: an inflection of the period the modern lexicon lacks or
        hardly knows ('mêlât', 'gagnât', 'perdît'), printed as it is or with its accents
        misread ('mélàt'). None if the Littré prints no such word, or too seldom to tell
        it from a foreign word or a name of its citations (``littre_min_count``); None
        too for a common word ('eù': 'eu'), which the engine weighs already, as it weighs
        'où'."""
        lower = printed.lower()
        hit = self._littre_readings.get(lower, _UNSEEN)
        if hit is _UNSEEN:
            form = self.sequence.model.form_of(lower, self.settings.littre_min_count)
            hit = None if form is None or self.lexicon.zipf(form) >= self.settings.rare_zipf else (
                form, 0.0 if form == lower else self._cost(lower, form))
            self._littre_readings[lower] = hit
        return hit

    def unknown_candidates(self, printed: str, prev: str) -> list[str]:
        """The words an unknown word may have been misread from: those the index finds,
        and the words that follow the previous one in the counts, near in spelling
        (memoised)."""
        key = (printed, prev)
        hit = self._unknown.get(key)
        if hit is not None:
            return hit
        index = self.index
        st = self.settings
        lower = printed.lower()
        folded = fold_letters(lower)
        indexed = self._index_words(printed)
        extra: set[str] = set()
        followers = self.sequence.followers_of(prev, st.max_followers)
        if followers:
            limit = max(2, len(folded) // 3)
            # letters folded on both sides: 'prefermce' is two letters from 'préférence', not four
            folded_followers = self._folded_followers.get(prev)
            if folded_followers is None:
                folded_followers = self._folded_followers[prev] = kept_choices([index.folded[f] for f in followers])
            near = within(folded, folded_followers, limit)
            extra = {followers[k] for _, k in near if index.zipf.get(followers[k], 0.0) >= st.min_zipf}
        # the index's words (sorted) and the followers it lacks, sorted as one: two runs
        # that the sort merges in one pass
        cands = [c for c in indexed if c != lower]
        if extra:
            extra.difference_update(indexed)
            extra.discard(lower)
            cands += sorted(extra)
            cands.sort()
        # (those spelt as printed but for accents are ``_by_fold``'s under its letters:
        # every candidate is a word of the index at least min_zipf common)
        same = self._by_fold().get(folded, ())
        hit = self._unknown[key] = [c for c in _commonest_spellings(cands, index, self.sequence.model.alias,
                                                                    self._alone())
                                    if c not in same]
        return hit

    def decide(self, printed: str, prev: str, nxt: str, sentence_start: bool) -> ContextDecision | None:
        """What the printed word should be between ``prev`` and ``nxt`` (tokens as the
        sequence model counts them), if something else (memoised: a book repeats its
        phrases)."""
        if len(printed) > self.corrector.settings.longest_token:
            return None  # no word (``Corrector.decide``)
        word = self._words.get(printed)
        if word is not None and (word is _PERIOD or (word[1] >= 1.0 and not word[3] and word[4] is None)) \
                and printed[0].islower() and len(printed) > 1 and printed.isalpha():
            # a spelling of the period, or a known word no sentence may read as another
            # (four words in ten): ``_decide`` would say None wherever it stands, having
            # read nothing of the book, so no memo's entry is made for each of its places
            return None
        return remembered(self._decided, (printed, prev, nxt, sentence_start), self._decide, self.views,
                          printed, prev, nxt, sentence_start)

    def _decide(self, printed: str, prev: str, nxt: str, sentence_start: bool) -> ContextDecision | None:
        if capital_elision(printed) and not sentence_start:
            return self._capital_elision_read(printed, prev, nxt)
        if not printed.isalpha() or (len(printed) > 1 and printed.isupper()):
            return None
        if len(printed) < 2 and (printed.isupper() or (self._unaccented(printed) is None and printed not in _GRAVE)):
            return None  # a letter alone ('C', a player) is read as another only for its accent ('a' for 'à', 'à' for 'a')
        if printed[0].isupper() and not sentence_start:
            # a name, a player ('C', 'Pierre'): not the sentence's to decide, unless the
            # capital is an elided article the OCR ran into one glyph ('Tor' for "l'or")
            return self._capital_read(printed, prev, nxt)
        word = self._words.get(printed)
        if word is None:
            word = self._words[printed] = self._word(printed)
        if word is _PERIOD:
            return None
        lower, zipf, bare, costs, acute, acute_cost = word
        known = zipf >= 1.0
        st = self.settings
        seq = self.sequence
        if known:
            if acute is not None and (len(printed) < 3 or self._accented_by_book(lower, acute)):
                costs = dict(costs)
                costs[acute] = acute_cost
            if not costs:
                return None
            base = seq.around(prev, normal_of(lower), nxt, printed=True)
            margin, lead, max_cost, rival_cost = st.realword_margin, st.realword_lead, st.realword_max_cost, st.rival_max_cost
            if zipf < st.rare_zipf and self.book.get(lower, 0) < st.rare_book_count:
                # a "word" a few times in a hundred million ('xq', a typo the web repeats),
                # and not the book's: weighed as a misreading is, its rarity in its fit
                margin, lead, max_cost = st.nonword_margin, st.nonword_lead, st.rare_max_cost
        else:
            costs = {}
            cands = self.unknown_candidates(printed, prev)
            if not cands:
                return None
            # a capital after a word's first letter ('advcrSaire') is a glyph no book prints there
            inner = any(a.islower() and b.isupper() for a, b in zip(printed, printed[1:]))  # not 'XVIIIe
            base = seq.around_unknown(prev, nxt, st.unknown_logp) + (st.inner_capital_logp if inner else 0.0)
            littre = self.littre_reading(printed)
            if littre is not None:
                # the print may be a word of the period, its accents misread: the print's
                # own reading, which a candidate must fit better than
                form, form_cost = littre
                base = max(base, seq.around(prev, normal_of(form), nxt) - st.weight * form_cost)
            margin, lead, max_cost = st.nonword_margin, st.nonword_lead, st.nonword_max_cost
            rival_cost = max_cost
        scored = self._scored(printed, list(costs or cands), costs, prev, nxt, base, lead, rival_cost)
        if not scored:
            return None
        score, best, cost = scored[0]
        # how far the reading is ahead of the print, and of the next reading or the print,
        # whichever is nearer: what it is applied by and how sure it is
        gain = score - base
        ahead = score - max(scored[1][0], base) if len(scored) > 1 else gain
        accent = bare is not None and best == bare
        if accent:
            margin = st.accent_margin  # an accent the print has and the sentence refuses: a speck, or the period's
        elif known and self.long_s and _long_s_reading(lower, best) == best != "":
            # in a long-s printing an f is most often an s: a real word whose s reading the
            # sentence calls for is that reading ('connu fous le nom'), as the corrector reads one
            # whose s reading is commoner (its margin), and the book's repeating the f-word is
            # no evidence for it, the OCR's misreading repeated
            margin = st.long_s_margin
        applied = gain >= margin and ahead >= lead and cost <= max_cost
        if not applied and (gain < st.suggestion_margin or cost > max_cost or accent):
            return None  # (an accent below the margin is most often the period's: not even suggested)
        confidence = max(0.05, min(0.99, 0.5 + 0.1 * (gain - margin) + 0.1 * min(ahead, 3.0)))
        fix = "clean.context_word" if known else "clean.context_nonword"
        best, cost = period_kept(self.corrector, printed, best, cost, self.long_s)
        return ContextDecision(_cased(best, printed, sentence_start), cost, round(confidence, 3), applied, fix)

    def _scored(self, printed: str, words: list[str], costs: dict[str, float], prev: str, nxt: str, base: float,
                lead: float, rival_cost: float) -> list[tuple[float, str, float]]:
        """(fit less weight × cost, word, cost) of the best of the words between prev and
        nxt, best first: the best two for sure, each costed (``costs``, or the channel's)
        up to ``rival_cost``; none that fits below ``base`` by the suggestion margin unless
        within ``lead`` of the best."""
        st = self.settings
        # branch and bound: a candidate scores at most how well it fits (its cost is
        # not negative), so once the fits left are below the second best score, or
        # below what could be suggested, no candidate left can matter
        # (the loop reads no more than the max_candidates best)
        ranked = self.sequence.best_fits(prev, [normal_of(c) for c in words], words, nxt, st.max_candidates)
        scored: list[tuple[float, str, float]] = []
        for k, (fit, c) in enumerate(ranked):
            if len(scored) >= 2 and fit <= scored[1][0]:
                break
            if fit < base + st.suggestion_margin and (not scored or fit <= scored[0][0] - lead):
                break
            if k >= st.max_candidates:
                break  # the channel's cost is dear: the best fitting few only
            # (only the best two count: a reading dear enough to score below the second is not costed to the end)
            cost = costs[c] if c in costs else self._cost(
                printed, c, rival_cost if len(scored) < 2 else min(rival_cost, (fit - scored[1][0]) / st.weight))
            if cost > rival_cost:
                continue
            scored.append((fit - st.weight * cost, c, cost))
            scored.sort(reverse=True)
        return scored

    def vetoes(self, printed: str, reading: str, prev: str, nxt: str) -> bool:
        """Whether the sentence says the printed word and not the reading the engine, which
        judges a word alone, would make of it: the neighbours favour the print by
        ``realword_veto`` ('V. no 46', 'no' the numéro, not 'ne'). What each word's own
        frequency says the engine has weighed already: only what the neighbours add to it
        counts (each fit less the word's log-probability alone). A word of the period's
        language (``littre_word_count``) is vetoed at ``littre_word_veto``."""
        seq = self.sequence
        st = self.settings
        p, r = normal_of(printed), normal_of(reading)
        worse = (seq.around(prev, p, nxt, printed=True) - math.log10(seq.unigram(p))
                 - seq.around(prev, r, nxt) + math.log10(seq.unigram(r)))
        if len(p) >= st.littre_word_length and seq.model.count(p) >= st.littre_word_count:
            return worse >= st.littre_word_veto
        return worse >= st.realword_veto

    def rereads(self, printed: str, reading: str, prev: str, nxt: str, sentence_start: bool) -> ContextDecision | None:
        """Another of the print's readings, for a real word the engine, judging it alone, changes
        anyway: the one its neighbours favour by ``reread_lead``, its own cost paid (a
        misread 'pas' after 'il ne faut', which alone reads cheaper as 'par'). The print is
        not weighed: the engine has already judged it wrong. Memoised."""
        return remembered(self._decided, ("reread", printed, reading, prev, nxt, sentence_start), self._reread,
                          self.views, printed, reading, prev, nxt, sentence_start)

    def _reread(self, printed: str, reading: str, prev: str, nxt: str, sentence_start: bool) -> ContextDecision | None:
        if not printed.isalpha() or not reading.isalpha() or (printed[0].isupper() and not sentence_start):
            return None
        st = self.settings
        own = reading.lower()
        costs = {c: cost for c, cost in self.known_candidates(printed) if c != own and cost <= st.rival_max_cost}
        if not costs:
            return None
        chosen = self.sequence.around(prev, normal_of(own), nxt) - st.weight * self._cost(printed, own)
        words = list(costs)
        ranked = self.sequence.best_fits(prev, [normal_of(c) for c in words], words, nxt, st.max_candidates)
        best = max(((fit - st.weight * costs[c], c) for fit, c in ranked if fit - chosen >= st.reread_lead),
                   default=None)  # a candidate scores at most its fit
        if best is None or best[0] - chosen < st.reread_lead:
            return None
        score, c = best
        confidence = max(0.05, min(0.85, 0.5 + 0.1 * (score - chosen - st.reread_lead)))
        return ContextDecision(_cased(c, printed, sentence_start), costs[c], round(confidence, 3), True,
                               "clean.context_reading")

    def chooses(self, printed: str, tied: tuple[tuple[str, float, bool], ...], prev: str, nxt: str,
                sentence_start: bool) -> ContextDecision | None:
        """Of an unknown word's readings the engine found as likely as one another (``Decision.tied``:
        each word, its cost, whether it may be made), the one its neighbours favour by
        ``nonword_lead`` over the next, its cost paid ('une dangereue maladie': 'dangereuse',
        not 'dangereux'). The print is not weighed: the engine has judged it a misreading
        of one of them. Memoised."""
        return remembered(self._decided, ("choose", printed, tied, prev, nxt, sentence_start), self._choose_tied,
                          self.views, printed, tied, prev, nxt, sentence_start)

    def _choose_tied(self, printed: str, tied: tuple[tuple[str, float, bool], ...], prev: str, nxt: str,
                     sentence_start: bool) -> ContextDecision | None:
        if len(tied) < 2 or not printed.isalpha() or self.littre_reading(printed) is not None:
            return None  # (a word of the period the lexicon lacks: the sentence weighs it against the print)
        if long_s_makes_a_word(self.lexicon, printed.lower()) and len({fold_letters(w.lower()) for w, _, _ in tied}) > 1:
            # its f a long s ('fçu', the period's 'sçu'): a reading the engine's tie does not weigh,
            # unless its readings differ only by their accents ('confervé': 'conservé', 'conserve')
            return None
        st = self.settings
        # the engine's readings and the sentence's own candidates, each a rival: the engine
        # costs only the best two of its own, the sentence may favour a third
        costs = {w.lower(): cost for w, cost, _ in tied}
        words = sorted(set(costs).union(self.unknown_candidates(printed, prev)))
        scored = self._scored(printed, words, costs, prev, nxt, -math.inf, st.nonword_lead, st.nonword_max_cost)
        if not scored:
            return None
        score, best, cost = scored[0]
        runner_up = scored[1][0] if len(scored) > 1 else -math.inf
        if not any(may and w.lower() == best for w, _, may in tied):
            return None
        cap = 0.85
        if score - runner_up < st.nonword_lead:
            # the sentence may doubt only the accents of letters it is sure of ('confervé':
            # 'conservé' or 'conserve'): its best reading, if it leads every reading of
            # other letters, is a word nearer the print than the print is to any
            folded = fold_letters(best)
            if fold_letters(scored[1][1]) != folded or fold_letters(printed.lower()) == folded:
                return None  # (a print that differs only by its accents: the printer's, or the period's)
            others = [w for w in words if w == best or fold_letters(w) != folded]
            scored = self._scored(printed, others, costs, prev, nxt, -math.inf, st.nonword_lead, st.nonword_max_cost)
            runner_up = scored[1][0] if len(scored) > 1 else -math.inf
            if scored[0][1] != best or score - runner_up < st.nonword_lead:
                return None
            cap = st.accent_doubt_confidence
        confidence = max(0.05, min(cap, 0.5 + 0.1 * (min(score - runner_up, 4.0) - st.nonword_lead)))
        return ContextDecision(_cased(best, printed, sentence_start), cost, round(confidence, 3), True,
                               "clean.context_nonword")

    def _capital_read(self, printed: str, prev: str, nxt: str) -> ContextDecision | None:
        """A capitalised word inside a sentence whose capital is a misread small glyph:
        read as "l'" and a word ("l'or" printed 'Tor': the l and its apostrophe seen as
        one capital), or as the word its first letter makes in small ('les' printed
        'Ies', 'bien' printed 'Lien'), when the sentence calls for them rather than for
        the print, as a name or as the word it spells. Only a capital inside a sentence
        is suspect, and only it: the rest of the word is read as printed."""
        rest = printed[1:]
        if not rest or not rest.islower():
            return None
        st, sg, model = self.settings, self.segmentation, self.corrector.model
        options = []
        if len(rest) >= 2 and rest[0] in _VOWELS and self.index.zipf.get(rest, 0.0) >= st.min_zipf:
            reading = "l'" + rest
            cost = model.cost(printed, reading, self.long_s)
            if cost <= sg.max_cost + sg.apostrophe:
                options.append((self._chain(["l'", normal_of(rest)], prev, nxt, False) - st.weight * cost, reading, cost))
        first = fold_letters(printed[0].lower())
        for letter in _SMALL_FIRST:
            reading = letter + rest
            # (the capital's own letter, accented or not, is its case: 'Etat' is not misread 'état')
            if fold_letters(letter) == first or self.index.zipf.get(reading, 0.0) < st.capital_small_zipf:
                continue
            cost = model.cost(printed, reading, self.long_s)
            if cost <= sg.max_cost:
                options.append((self.sequence.around(prev, normal_of(reading), nxt) - st.weight * cost, reading, cost))
        if not options:
            return None
        # kept as printed: a name, or the word it spells, whose capital must then be explained too
        keep = max(self.sequence.around_unknown(prev, nxt, st.unknown_logp),
                   self.sequence.around(prev, normal_of(printed.lower()), nxt, printed=True)
                   - st.weight * model.accent_or_case)
        return self._small_reading(options, keep, printed)

    def _small_reading(self, options: list, keep: float, printed: str) -> ContextDecision | None:
        """The best of ``options`` against keeping the print (``_choose``), in small
        letters as read: the capital was the misreading, not the word's."""
        d = self._choose(options, keep, self.segmentation.margin, "clean.context_word", printed, False)
        return d if d is None else ContextDecision(options[0][1], d.cost, d.confidence, d.applied, d.fix)

    def _capital_elision_read(self, printed: str, prev: str, nxt: str) -> ContextDecision | None:
        """An elided word printed with a capital inside a sentence ("J'officier"): no
        sentence prints one there, so its capital is a misread small glyph, read as the
        elided word the sentence calls for ("l'") rather than as the print in small ("j'"),
        before a word the index knows (a piece of a broken word, "J'é crascrai", tells nothing)."""
        st, model = self.settings, self.corrector.model
        if len(nxt) < 2 or self.index.zipf.get(nxt, 0.0) < st.min_zipf:
            return None
        apostrophe = printed[1]
        first = printed[0].lower()
        options = []
        for letter in sorted(_ELIDED):
            if len(letter) != 1 or letter == first:
                continue
            cost = model.cost(printed[0], letter, self.long_s)
            if cost <= self.segmentation.max_cost:
                options.append((self.sequence.around(prev, letter + "'", nxt) - st.weight * cost, letter + apostrophe, cost))
        if not options:
            return None
        if first in _ELIDED:
            keep = self.sequence.around(prev, first + "'", nxt, printed=True) - st.weight * model.accent_or_case
        else:
            keep = self.sequence.around_unknown(prev, nxt, st.unknown_logp)
        return self._small_reading(options, keep, printed)

    # -- words joined and parted ------------------------------------------------------------

    def _chain(self, words: list[str], prev: str, nxt: str, printed: bool) -> float:
        """log10 P(words, nxt | prev): a word no count knows as likely as ``unknown_logp``;
        ``printed``: the words as printed there, whose own pairs do not count."""
        seq = self.sequence
        unknown = 10 ** self.settings.unknown_logp
        less = 1 if printed else 0
        total, v = 0.0, prev
        for w in words:
            total += seq.logp(w, v, less, low=max(seq.unigram(w), unknown))
            v = w
        return total + seq.logp(nxt, v, less)

    def _choose(self, options, keep: float, margin: float, fix: str, printed: str,
                sentence_start: bool) -> ContextDecision | None:
        """The best of ``options`` ((score, reading, cost)) against keeping the print."""
        if not options:
            return None
        options.sort(reverse=True)
        score, best, cost = options[0]
        gain = score - keep
        ahead = score - max(options[1][0], keep) if len(options) > 1 else gain  # (as ``_decide`` weighs it)
        applied = gain >= margin and ahead >= self.settings.realword_lead
        if not applied and gain < self.settings.suggestion_margin:
            return None
        confidence = max(0.05, min(0.99, 0.5 + 0.1 * (gain - margin) + 0.1 * min(ahead, 3.0)))
        return ContextDecision(_cased(best, printed, sentence_start), cost, round(confidence, 3), applied, fix)

    def join(self, a: str, b: str, prev: str, nxt: str, sentence_start: bool,
             between: str = " ") -> ContextDecision | None:
        """Two printed words as one, when the sentence calls for the word they make
        ('par tie' → 'partie', 'car tes' → 'cartes'), at the cost of what
        parts them (a space, a lost line end's hyphen; specks of debris at the channel's
        price) and of the confusions that explain the print. Memoised."""
        if len(a) + len(b) > self.corrector.settings.longest_token:
            return None
        if not self._joined.get((a, b), True) and not _speck(between):
            # nothing they may make run together (known already: it depends on them alone), and no speck
            # between whose blot could hide letters: no sentence decides otherwise, nothing of the book read
            return None
        return remembered(self._decided, ("join", a, b, prev, nxt, sentence_start, between), self._join,
                          self.views, a, b, prev, nxt, sentence_start, between)

    def _join(self, a: str, b: str, prev: str, nxt: str, sentence_start: bool, between: str) -> ContextDecision | None:
        if not (a.isalpha() and b.isalpha()) or a.isupper() or b.isupper() or b[0].isupper():
            return None
        if a[0].isupper() and not sentence_start:
            return None
        key = (a, b)
        cands = self._joined.get(key, _UNSEEN)
        if cands is _UNSEEN:  # what a and b may be run together depends on them alone, not on the sentence
            cands = self._joined[key] = self._joined_candidates(a, b)
        if between == "-":
            # a hyphen inside the line: a compound's as printed ('tric-trac', 'peut-être'), or a
            # line end's the export kept ('contem-ple'), which the layout mends where the
            # pieces run together are a word; here only a word misread across it, a piece
            # no word ('contem-pie' for 'contemple')
            lex = self.lexicon
            if one_word(a + b, lex) or (one_word(a, lex) and one_word(b, lex)):
                return None  # (run together a word: the layout's to join or keep as printed, 'cou-pable')
        model = self.corrector.model
        speck = _speck(between)
        st, sg = self.settings, self.segmentation
        gap = model.debris_deletion * len(between) if speck else sg.space
        gaps = dict.fromkeys(cands, gap)
        if speck:
            # or the speck hides letters of the word: read in their place, at the blot's cost
            cands = dict(cands)
            for c, hidden in self._blotted_words(a, b).items():
                cands[c], gaps[c] = model.debris_blot[hidden - 1], 0.0
        if not cands:
            return None
        joined = a + b
        na, nb = normal_of(a), normal_of(b)
        keep = self._chain([na, nb], prev, nxt, printed=True)
        fits = {c: self._chain([normal_of(c)], prev, nxt, False) - st.weight * gaps[c] for c in cands}
        if max(fits.values()) < keep + st.suggestion_margin:
            return None  # even at no cost, no joined word fits as well as the print
        # the print kept, or read with one word misread: a join must beat them all
        # ('il v a plusieurs' is 'il y a', not 'il va')
        for x, cost in self._readings(a):
            keep = max(keep, self._chain([normal_of(x), nb], prev, nxt, False) - st.weight * cost)
        for x, cost in self._readings(b):
            keep = max(keep, self._chain([na, normal_of(x)], prev, nxt, False) - st.weight * cost)
        if between in _APOSTROPHE_SPECKS and a.lower() in _ELIDED and b[0] in _VOWELS:
            # or the speck is an elided word's apostrophe ("l^as de pique"), as the elision step reads it
            keep = max(keep, self._chain([normal_of(a + "'"), nb], prev, nxt, False) - st.weight * sg.apostrophe)
        options = []
        for c, cost in cands.items():
            if fits[c] < keep + st.suggestion_margin:
                continue
            cost = cost if cost is not None else self._cost(joined, c)
            if cost <= sg.max_cost:
                options.append((fits[c] - st.weight * cost, c, cost))
        return self._choose(options, keep, sg.margin, "clean.segmentation", a, sentence_start)

    def _joined_candidates(self, a: str, b: str) -> dict[str, float | None]:
        """The common words a and b run together may be: the joined print itself, or words
        within two letters of it (their cost None: costed only if the sentence calls for them)."""
        st, index = self.settings, self.index
        joined = a + b
        lower = joined.lower()
        known_a, known_b = self.lexicon.known(a), self.lexicon.known(b)
        if known_a and known_b and self.lexicon.zipf(lower) < st.min_zipf and not self._may_be_one(a, b):
            return {}  # two words, and nothing common looks like them run together
        cands: dict[str, float | None] = {}
        if self.lexicon.is_period_form(lower):
            cands[lower] = 0.0  # 'pouvo.it': a word of the period, read as printed
        elif self.lexicon.zipf(lower) >= st.min_zipf:
            cands[lower] = 0.0
        if not self.lexicon.is_period_form(lower) and (not (known_a and known_b) or not cands):
            # (nearest first, then in the words' order)
            found = index.same_within(joined, st.min_zipf, 2) if known_a and known_b \
                else index.plain_within(joined, self._index_words(joined), 2)
            for _, w, _ in sorted(found, key=_EDITS_THEN_WORD):
                cands.setdefault(w, None)
        return cands

    def _blotted_words(self, a: str, b: str) -> dict[str, int]:
        """The common words a speck between a and b may be a blot in: a, then as many
        letters as the channel prices a blot of (``debris_blot``), then b ('pr^ier':
        'premier', two letters hidden), each with the number of letters it hides (memoised)."""
        key = (a, b)
        hit = self._blotted.get(key)
        if hit is None:
            by_fold = self._by_fold()
            fa, fb = fold_letters(a.lower()), fold_letters(b.lower())
            hit = {}
            for hidden in range(1, len(self.corrector.model.debris_blot) + 1):
                # (the strings matched against the folded words at once, as ``known_candidates`` does)
                spelt = {fa + "".join(letters) + fb for letters in itertools.product(_LETTERS, repeat=hidden)}
                for f in sorted(by_fold.keys() & spelt):
                    hit.update(dict.fromkeys(by_fold[f], hidden))
            self._blotted[key] = hit
        return hit

    def _may_be_one(self, a: str, b: str) -> bool:
        """Whether some common word has the skeleton of a and b run together (a quick
        look, before the skeletons of the joined print are all computed)."""
        sk = self._skeletons
        ka = sk.get(a)
        if ka is None:
            ka = sk[a] = self.index.model.skeleton(a)
        kb = sk.get(b)
        if kb is None:
            kb = sk[b] = self.index.model.skeleton(b)
        return self.index.bucket_max.get(ka + kb, 0.0) >= self.settings.min_zipf \
            or not self.index.model.skeleton(a[-1:] + b[:1]) == ka[-1:] + kb[:1]  # a glyph group across the gap

    def _readings(self, printed: str) -> list[tuple[str, float]]:
        """Other words a printed word may be read as, cheaply: a letter alone as one of
        the words of one letter, a known word as its candidates a sentence may call for."""
        hit = self._word_readings.get(printed)
        if hit is None:
            hit = self._word_readings[printed] = self._readings_of(printed)
        return hit

    def _readings_of(self, printed: str) -> list[tuple[str, float]]:
        st = self.settings
        if len(printed) == 1:
            low = printed.lower()
            return [(c, cost) for c in _ONE_LETTER_WORDS if c != low
                    for cost in [self._cost(printed, c)] if cost <= st.realword_max_cost]
        if not printed.isalpha() or self.lexicon.zipf(printed) < 1.0:
            return []
        return [(c, cost) for c, cost in self.known_candidates(printed) if cost <= st.realword_max_cost]

    def _index_words(self, printed: str) -> list[str]:
        """The index's candidates of a printed word at least ``min_zipf`` common, sorted
        (memoised). The index also offers an elided article with a word ("l'enclave" for
        'Tenclave'), no word of its own to the sequence model: the corrector decides those."""
        hit = self._index_candidates.get(printed)
        if hit is None:
            # (filtered before sorted: the same list, fewer strings compared)
            hit = self._index_candidates[printed] = sorted(self.index.candidates(printed, self.settings.min_zipf))
        return hit

    def split(self, w: str, prev: str, nxt: str, sentence_start: bool) -> ContextDecision | None:
        """A printed word as two, when the sentence calls for them ('depeu' → 'de peu',
        'dune' → 'd'une'), at the cost of the space (or apostrophe) and of a change of
        accents. Memoised."""
        if len(w) < 3 or len(w) > self.corrector.settings.longest_token or not w.isalpha() or w.isupper() \
                or (w[0].isupper() and not sentence_start):
            return None  # (a third of the words: not worth a memo's entry)
        if self._split_readings.get(w if w.islower() else w.lower()) == []:
            return None  # nothing it may be parted into (``_split``'s first answer): no memo's entry either
        return remembered(self._decided, ("split", w, prev, nxt, sentence_start), self._split, self.views,
                          w, prev, nxt, sentence_start)

    def _split(self, w: str, prev: str, nxt: str, sentence_start: bool) -> ContextDecision | None:
        st, sg = self.settings, self.segmentation
        lower = w.lower()
        readings = self._split_readings.get(lower)
        if readings is None:  # what the word may be parted into depends on it alone, not on the sentence
            readings = self._split_readings[lower] = self._two_words(lower)
        if not readings:
            return None
        options = [(self._chain([na, nb], prev, nxt, False) - st.weight * cost, reading, cost)
                   for na, nb, reading, cost in readings]
        keep = self._chain([normal_of(lower)], prev, nxt, printed=True)
        return self._choose(options, keep, sg.margin, "clean.segmentation", w, sentence_start)

    def _two_words(self, lower: str) -> list[tuple[str, str, str, float]]:
        """The ways a printed word may be two words, (first, second as the model counts
        them, the reading, its cost)."""
        sg = self.segmentation
        if self.lexicon.is_period_form(lower) or self.lexicon.zipf(lower) >= sg.split_max_zipf:
            return []
        out = []
        for k in range(1, len(lower)):
            firsts = self._parts(lower[:k], lower[k])
            if not firsts:
                continue
            for b, cb in self._parts(lower[k:], None):
                for a, ca in firsts:
                    cost = ca + cb + (sg.apostrophe if a.endswith("'") else sg.space)
                    joiner = "" if a.endswith("'") else "-" if self.lexicon.hyphen_joins(a, b) else " "
                    out.append((normal_of(a), normal_of(b), f"{a}{joiner}{b}", cost))
        return out

    def _parts(self, x: str, following: str | None) -> list[tuple[str, float]]:
        """What a piece of a printed word may be as a word of its own: itself if a common
        word, a common word with other accents ('dé' → 'de'), and before a vowel an
        elided word given its apostrophe back ('d' → "d'")."""
        key = (x, following in _VOWELS if following else None, self.long_s)
        hit = self._pieces.get(key)
        if hit is None:
            st = self.settings
            hit = []
            if len(x) == 1:
                if x in _ONE_LETTER_WORDS:
                    hit.append((x, 0.0))
            else:
                by_fold = self._by_fold()
                for v in by_fold.get(fold_letters(x), ()):
                    if self.index.zipf[v] >= st.min_zipf:
                        hit.append((v, 0.0 if v == x else self._cost(x, v)))
            if following is not None and following in _VOWELS and x in _ELIDED:
                hit.append((x + "'", 0.0))
            self._pieces[key] = hit
        return hit

    def _by_fold(self) -> dict[str, list[str]]:
        by_fold = self._shared.get("by_fold")
        if by_fold is None:
            by_fold = self._shared["by_fold"] = _by_fold(self.index, self.settings.min_zipf)
        return by_fold

    def _by_fold_keys(self):
        """``_by_fold``'s keys hashed for ``_edits1_in`` (None where it is not compiled)."""
        keys = self._shared.get("by_fold keys", _UNSEEN)
        if keys is _UNSEEN:
            keys = self._shared["by_fold keys"] = _Keys(self._by_fold()) if _Keys is not None else None
        return keys

    def _alone(self) -> frozenset[str]:
        """The words of ``_by_fold`` no other is spelt like but for accents."""
        alone = self._shared.get("alone")
        if alone is None:
            alone = self._shared["alone"] = frozenset(g[0] for g in self._by_fold().values() if len(g) == 1)
        return alone


# the words whose readings are derived once (``ContextReader._read_commonest``): ten
# thousand save 8% of a cold clean stage, twenty 10%, forty 11% (bench/README.md)
COMMONEST = 20_000
COMMONEST_FORMAT = 3  # what the table holds: raise it when that changes

_EDITS_THEN_WORD = itemgetter(0, 1)
_UNSEEN = object()
_PERIOD = object()  # (``ContextReader._word``: a spelling of the period, left as printed)


def capital_elision(token: str) -> bool:
    """Whether a token is an elided word printed with a capital ("J'" of "J'officier"):
    inside a sentence its capital is the OCR's (``ContextReader._capital_elision_read``)."""
    return len(token) == 2 and token[0].isupper() and token[1] in "'’"


_VOWELS = frozenset("aeiouyhéèêëàâîïôûœ")
# the small letters a word may open with, each tried for a capital misread inside a sentence
_SMALL_FIRST = "abcdefghijlmnopqrstuvyzàâçéêîô"
_APOSTROPHE_SPECKS = frozenset(["^", "'", "’"])  # what parts an elided word from the next, misread or not
_ELIDED = frozenset(["l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"])
_ONE_LETTER_WORDS = frozenset("aày")  # 'ô', 'o' are interjections, too rare to part a word for

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_SHARED: WeakKeyDictionary = WeakKeyDictionary()


def one_word(joined: str, lex) -> bool:
    """Whether a printed token (or pieces run together) is a known word or a spelling of the period."""
    return lex.known(joined) or lex.is_period_form(joined.lower())


def _speck(between: str) -> bool:
    """Whether what parts two printed words is a speck of debris, not a space or a
    line end's hyphen."""
    return not (between.strip() in ("", "-") or between.endswith(" "))


def _edits1(word: str) -> set[str]:
    """The strings one letter away from a word folded to plain letters."""
    splits = [(word[:k], word[k:]) for k in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS if c != b[0]}
    out |= {a + c + b for a, b in splits for c in _LETTERS}
    return out


try:
    # setup.py: built at install where a compiler is
    from ._edits import Keys as _Keys, edits1_in as _compiled_edits1_in
except ImportError:
    _Keys = _compiled_edits1_in = None


def _edits1_in(word: str, table: dict, keys=None) -> set[str]:
    """``table.keys() & _edits1(word)``: the strings one letter away from a folded word
    that the table has, found by the compiled ``_edits.edits1_in`` where it was built
    (a word of ASCII letters: each string made in one buffer, not a few hundred kept
    in a set first, and with ``keys``, the table's ``_edits.Keys``, only those hashed
    like one of its keys; tests/test_correct.py holds them the same)."""
    if _compiled_edits1_in is not None:
        hit = _compiled_edits1_in(word, table, keys)
        if hit is not None:
            return hit
    return table.keys() & _edits1(word)


def _by_fold(index, min_zipf: float) -> dict[str, list[str]]:
    """The index's words at least ``min_zipf`` common, by their letters without accents."""
    out: dict[str, list[str]] = {}
    folded = index.folded  # made as asked for: the words are the zipf table's
    for w, z in index.zipf.items():
        if z >= min_zipf:
            out.setdefault(folded[w], []).append(w)
    return out


_GRAVE = {"a": "à"}  # the letter alone the OCR reads without its accent: 'il joue a pique'


def _commonest_spellings(cands, index, alias, alone: frozenset[str] = frozenset()) -> list[str]:
    """Of candidates the sequence model counts as one word ('être', and 'etre', which
    the Littré does not print), the commonest: a change of accents is not the
    sentence's to decide. ``alone``: words no other word of the index is spelt like
    but for accents (``_alone``), each kept where it stands without a look at the rest."""
    groups: dict[str, list[str]] = {}
    placed: list = []  # each word alone, or the group of its spelling at its first word's place
    folded = index.folded
    for c in cands:
        if c in alone:
            placed.append(c)
            continue
        f = folded[c]
        group = groups.get(f)
        if group is None:
            group = groups[f] = [c]
            placed.append(group)
        else:
            group.append(c)
    out = []
    for group in placed:
        if type(group) is str:
            out.append(group)
            continue
        if len(group) == 1:
            out.extend(group)
            continue
        best: dict[str, str] = {}
        for c in group:
            f = alias(normal_of(c))
            if f not in best or index.zipf[c] > index.zipf[best[f]]:
                best[f] = c
        out.extend(best.values())
    return out
