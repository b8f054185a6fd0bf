"""The French lexicon: wordfreq's list, the spelling of the period, and hyphens.

``Lexicon.zipf`` gives a word's frequency on the Zipf scale (0 = unknown, 7 = 'de').
A word counts as known when it, a period spelling of a modern word ('avoit'), or
its reading with the long s restored ('fur' → 'sur') is in the list: the lexicon
must never make a correct period word look like an error.
"""

from __future__ import annotations

from . import memos

import importlib.util
import math
from functools import lru_cache
from pathlib import Path

import regex

from . import data, derived

_PLAIN_WORD = regex.compile(r"^\p{L}+$")
_ELISION = regex.compile(r"^(?:[ldjmnstc]|qu|jusqu|lorsqu|puisqu|quoiqu|quelqu)['’]", regex.I)
_HYPHEN_PARTS = regex.compile(r"[-']")  # a compound's parts, and an elided word's


FORMAT = 1  # the lexicon's derivation (the list as read, the candidate words): raise it when it changes


def _wordfreq_dict() -> dict[str, float]:
    import wordfreq

    return wordfreq.get_frequency_dict("fr")


def _wordfreq_identity() -> str | None:
    """wordfreq's version and its French lists' files, found without importing it
    (None if it cannot be found: nothing is kept on disk then)."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent
    files = sorted((folder / "data").glob("*_fr.msgpack.gz"))
    return "|".join([derived.file_identity(Path(spec.origin))] + [derived.file_identity(f) for f in files])


def _backwards(rule: list[str]):
    """A period rewrite (pattern → modern) backwards (modern → period, and the letters
    the period's spelling has that the modern one lacks), for a pattern of
    plain letters with at most a start anchor, an end anchor or one lookahead after
    them; None for another (there is none in lexicon.toml today)."""
    pattern, modern = rule
    m = regex.fullmatch(r"(\^?)([^\\()\[\]{}.*+?|^$]+)(\$|\(\?=.*\))?", pattern)
    if m is None or not modern.isalpha():
        return None
    start, letters, after = m.groups()
    # (the letters of the period's spelling the modern one lacks: a print without them is no misreading of it)
    return regex.compile(start + regex.escape(modern) + (after or "")), letters, frozenset(letters) - frozenset(modern)


class Lexicon:
    def __init__(self, frequencies: dict[str, float], data: dict, identity: str | None = None):
        self._freq = frequencies
        # what names the sources (list and data), for what is derived from them to be
        # kept on disk (the candidate index); None: derived afresh in each process
        self.identity = identity
        period = data["period"]
        self._rewrites = [(regex.compile(a), b) for a, b in period["rewrites"]]
        # whether any rewrite applies, in one search: most words are no period form, and
        # thirty substitutions a word were most of the time asking for them
        # (the patterns as alternatives: their groups would be renumbered, so none may have any)
        self._any_rewrite = regex.compile("|".join(f"(?:{a})" for a, _ in period["rewrites"])) \
            if self._rewrites and not any(p.groups for p, _ in self._rewrites) else None
        self._period_words = {w.lower() for w in period["words"]}
        # each rewrite backwards, the modern spelling to the period's ('ait' at the end →
        # 'oit'), for the spellings of the period a modern word has (``period_spellings``)
        self._rewrite_rules = period["rewrites"]
        self._backwards: list | None = None  # (compiled when first asked for: most processes never do)
        self._period_spellings_memo: dict[tuple[str, int], list[str]] = {}
        self._modern_min_zipf = period["modern_min_zipf"]
        self.titles = frozenset(data.get("names", {}).get("titles", ()))  # (a made lexicon may list none)
        hy = data["hyphens"]
        self.hyphen_prefixes = {w.lower() for w in hy["prefixes"]}
        self.prefix_word_zipf = float(hy["prefix_word_zipf"])
        self.hyphen_suffixes = {w.lower() for w in hy["suffixes"]}
        self.hyphen_always = {w.lower() for w in hy["always"]}
        self.hyphen_after_pronouns = {w.lower() for w in hy["after_pronouns"]}
        self.pronouns = {w.lower() for w in hy["pronouns"]}
        self.hyphen_linking = {w.lower() for w in hy["linking"]}
        self.compounds = {w.lower().replace("’", "'") for w in hy["compounds"]}
        verbs = data.get("verbs", {})  # (a made lexicon may have none)
        # longest first: 'donnèrent' ends in 'èrent', not in a stem 'donnèren' and 't'
        self._printed_endings = sorted(verbs.get("printed_endings", ()), key=len, reverse=True)
        self._read_endings = frozenset(verbs.get("read_endings", ()))
        self._printed_last = frozenset(e[-1] for e in self._printed_endings)
        self._conjugation = sorted(verbs.get("conjugation", ()), key=len, reverse=True)
        self.bound_prefixes = frozenset(w.lower() for w in data.get("prefixes", {}).get("bound", ()))
        self._infinitive_zipf = float(verbs.get("infinitive_zipf", 0.0))
        self._reading_above_infinitive = float(verbs.get("reading_above_infinitive", 0.0))
        self._period_memo: dict[str, bool] = {}
        self._best_memo: dict[str, float] = {}
        self._zipf_memo: dict[str, float] = {}
        self._modern_memo: dict[str, list[str]] = {}  # some thirty rewrites a word, asked for again and again

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "Lexicon":
        source = _wordfreq_identity()
        # wordfreq's list as a dict, kept on disk: importing wordfreq and building the
        # dict took a fifth of a second at each start
        freq = derived.cached("wordfreq-fr", derived.key_of(FORMAT, source), _wordfreq_dict,
                              lambda v: isinstance(v, dict)) if source else _wordfreq_dict()
        lexicon_data = data.load("lexicon")
        identity = derived.key_of(FORMAT, source, lexicon_data) if source else None
        return cls(freq, lexicon_data, identity)

    def zipf(self, word: str) -> float:
        hit = self._zipf_memo.get(word)
        if hit is None:
            hit = self._zipf_memo[word] = self._zipf(word)
        return hit

    def _zipf(self, word: str) -> float:
        # (memoised by ``zipf``: a word is asked for again and again, and most are not
        # the list's as written, which costs a search for an elided article and a logarithm)
        w = word.lower().replace("’", "'")
        f = self._freq.get(w)
        if f is None and "'" in w:  # (an elision has its apostrophe: the expression not run on every other word)
            m = _ELISION.match(w)
            if m and len(w) > m.end():
                f = self._freq.get(w[m.end() :])
        if not f:
            return 0.0
        return round(math.log10(f * 1e9), 2)

    def frequency(self, word: str) -> float:
        """The word's frequency in French (a share of all words), as known as ``best_zipf``
        knows it (a period spelling as its modern word): 0 if unknown."""
        z = self.best_zipf(word)
        return 10 ** (z - 9) if z > 0 else 0.0

    def remember(self, zipfs: dict[str, tuple[float, float]]) -> None:
        """Put in ``zipf``'s and ``best_zipf``'s memos what they were found to give,
        word → (zipf, best zipf) (for words whose readings are kept on disk: clean/context.py)."""
        self._zipf_memo.update((w, z) for w, (z, _) in zipfs.items())
        self._best_memo.update((w, b) for w, (_, b) in zipfs.items())

    def trim(self) -> None:
        """Its memos kept to a size (pipeline/memos.py)."""
        memos.trim(self._best_memo, self._modern_memo, self._zipf_memo, self._period_spellings_memo)

    def another_tense(self, printed: str, reading: str) -> bool:
        """Whether ``printed`` is the passé simple or the future of a first-group verb
        the lexicon knows and ``reading`` that verb's present or infinitive ('rapprocha',
        'rapproche'; 'attachera', 'attacher'): two tenses of one verb, which only the
        narrative tells apart (lexicon.toml, [verbs])."""
        p, r = printed.lower(), reading.lower()
        if p[:1] != r[:1] or p[-1:] not in self._printed_last:
            return False  # (asked of each reading of each known word: most are no two forms of one verb)
        stem = self._verb_stem(p, self._printed_endings)
        if stem is None or not r.startswith(stem) or r[len(stem):] not in self._read_endings:
            return False
        infinitive = self.zipf(stem + "er")
        return infinitive >= self._infinitive_zipf and self.zipf(r) <= infinitive + self._reading_above_infinitive

    def verb_form(self, word: str) -> bool:
        """Whether the word is a form of a first-group verb the lexicon knows, a stem and
        an ending of its conjugation ('repasseront', 'constataient'), though the lexicon
        may lack the form itself (lexicon.toml, [verbs])."""
        stem = self._verb_stem(word.lower(), self._conjugation)
        return stem is not None and self.zipf(stem + "er") >= self._infinitive_zipf

    @staticmethod
    def _verb_stem(word: str, endings: list[str]) -> str | None:
        """The stem of a first-group verb the word is, with the first of ``endings`` (the
        longest first) it ends in: the stem as its infinitive spells it, whose c is a
        ç and whose g is a ge before a and o ('commença', 'mangeait')."""
        for ending in endings:
            if word.endswith(ending) and len(word) > len(ending) + 1:
                stem = word[: -len(ending)]
                break
        else:
            return None
        if stem.endswith("ç"):
            return stem[:-1] + "c"
        if stem.endswith("ge") and ending[0] in "aâo":
            return stem[:-1]
        return stem

    def known(self, word: str, min_zipf: float = 1.0) -> bool:
        """Known as written, as a period spelling, or with its long s restored."""
        return self.best_zipf(word) >= min_zipf

    def best_zipf(self, word: str) -> float:
        hit = self._best_memo.get(word)
        if hit is None:
            hit = self._best_memo[word] = self._best_zipf(word)
        return hit

    def _best_zipf(self, word: str) -> float:
        w = word.lower().replace("’", "'")
        if w in self._period_words or w in self.compounds:
            # as likely as its modern spelling, a little less ('sçavoir': 'savoir')
            return max([3.0] + [self.zipf(v) - 0.5 for v in self.period_modern(w)])
        best = self.zipf(w)
        if best >= 3.0:
            return best
        for variant in self._variants(w):
            best = max(best, self.zipf(variant))
        return best

    def _variants(self, w: str) -> list[str]:
        out = self.period_modern(w)
        for v in self.long_s_variants(w):
            out.append(v)
            out.extend(self.period_modern(v))
        return out

    def period_modern(self, w: str) -> list[str]:
        """The modern spellings a period form may stand for ('avoit' → 'avait',
        'connoissoient' → 'connaissaient': each rule alone, then all together)."""
        hit = self._modern_memo.get(w)
        if hit is None:
            hit = self._modern_memo[w] = self._period_modern(w)
        return list(hit)  # a copy: callers extend it

    def _period_modern(self, w: str) -> list[str]:
        if self._any_rewrite is not None and self._any_rewrite.search(w) is None:
            return []
        out = []
        together = w
        for pattern, repl in self._rewrites:
            v = pattern.sub(repl, w)
            if v != w:
                out.append(v)
            # while no rewrite has changed it, the word so far is w: its rewrite is v
            together = v if together == w else pattern.sub(repl, together)
        if together != w and together not in out:
            out.append(together)
        return out

    def period_spellings(self, w: str, printed: str | None = None) -> list[str]:
        """The spellings of the period of a modern word ('avait' → 'avoit', 'savoir' →
        'sçavoir', 'troisième' → 'troisiéme'): each rule backwards, alone, where the
        rules forwards make the word again of what it makes. With ``printed``, only
        those whose period letters it holds (an 'o' for 'oit', a 'ç' for 'sç')."""
        if self._backwards is None:
            self._backwards = [b for b in map(_backwards, self._rewrite_rules) if b is not None]
        mask = -1
        if printed is not None:
            held = set(printed)
            mask = sum(1 << k for k, (_, _, needs) in enumerate(self._backwards) if needs <= held)
        hit = self._period_spellings_memo.get((w, mask))
        if hit is None:
            out = []
            for k, (pattern, repl, _) in enumerate(self._backwards):
                if mask >> k & 1:
                    v = pattern.sub(repl, w)
                    if v != w and v not in out and w in self.period_modern(v):
                        out.append(v)
            hit = self._period_spellings_memo[(w, mask)] = out
        return list(hit)

    def long_s_variants(self, w: str) -> list[str]:
        """The word with some of its f read as a long s ('fuffit' → 'suffit', 'fuffit' …)."""
        n = w.count("f")
        if not 0 < n <= 4:
            return []
        positions = [i for i, c in enumerate(w) if c == "f"]
        out = []
        for mask in range(1, 1 << n):
            chars = list(w)
            for k, pos in enumerate(positions):
                if mask >> k & 1:
                    chars[pos] = "s"
            out.append("".join(chars))
        return out

    def is_period_form(self, w: str) -> bool:
        """A spelling of the period for a modern word: correct as printed ('avoit', 'tems')."""
        hit = self._period_memo.get(w)
        if hit is None:
            hit = self._period_memo[w] = self._is_period_form(w)
        return hit

    def _is_period_form(self, w: str) -> bool:
        w = w.lower().replace("’", "'")
        if w in self._period_words:
            return True
        return any(self.zipf(v) >= self._modern_min_zipf for v in self.period_modern(w))

    def candidate_words(self, min_zipf: float = 2.0):
        """(word, zipf) of the words a misread word may be corrected to."""
        rarest = 10 ** (min_zipf - 9) * 0.999  # below this frequency, no word is zipf min_zipf (skipped unlogged)
        for w, f in self._freq.items():
            if f < rarest:
                continue
            z = math.log10(f * 1e9)
            if z >= min_zipf and len(w) >= 2 and _PLAIN_WORD.match(w):
                yield w, z
        for w in self._period_words:
            if _PLAIN_WORD.match(w):
                yield w, self.best_zipf(w)

    def hyphen_is_real(self, left: str, right: str) -> bool:
        """Whether the hyphen of 'left-right' is the word's own ('très-facilement'); a
        suffix that links two parts is so only with a part after it ('vis-à-vis', not
        'donner lieu-à des')."""
        l, r = left.lower().replace("’", "'"), right.lower().replace("’", "'")
        last = _HYPHEN_PARTS.split(l)[-1]
        parts = r.split("-")
        first = parts[0]
        if last in self.hyphen_prefixes or l in self.hyphen_prefixes:
            # ('mi-chemin', but 'mi-neur' is 'mineur' broken at a line end: 'neur' is no word)
            return self.best_zipf(first) >= self.prefix_word_zipf or not self.known(l + r)
        return first in self.hyphen_suffixes and (len(parts) > 1 or first not in self.hyphen_linking)

    def hyphen_joins(self, left: str, right: str) -> bool:
        """Whether two words the OCR ran together, with no mark between them, are written
        'left-right'. Stricter than a hyphen printed at a line end, where the question is
        only whether to keep it: here either side alone proves nothing ('peut faire' and
        'peut-être', 'met le roi' and 'mets-le'), so both must say so ('vingt-un'), or the
        second be a word that is always hyphened to the one before ('celui-ci'), or to the
        personal pronoun before ('lui-même', not 'la-même')."""
        l, r = left.lower().replace("’", "'"), right.lower().replace("’", "'")
        last = _HYPHEN_PARTS.split(l)[-1]
        first = r.split("-")[0]
        return (first in self.hyphen_always or (first in self.hyphen_after_pronouns and last in self.pronouns)
                or ((last in self.hyphen_prefixes or l in self.hyphen_prefixes) and first in self.hyphen_suffixes))
