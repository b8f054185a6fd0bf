"""Reading each article's structure (modality, bearer, condition,
consequences), ready to become an executable rule stub.

spaCy's French model tokenises the clean text (and is loaded once per process, here
only); its Matcher finds the patterns of ``pipeline/data/rules.toml``: the turns of
phrase that say a rule binds, forbids, allows, punishes or scores, the roles it
binds, the clauses that trigger it, and the effects it has with their amounts, units
and recipients. Every part keeps its character offsets in ``text_clean`` so that a
reader can see where it was found.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Iterable

from .. import data
from ..records import Passage

MODEL = data.load("rules")["model"]["name"]


def components_needed(patterns: Iterable[list[dict]]) -> tuple[str, ...]:
    """The model's components the patterns' token attributes need (rules.toml
    [model.needs]), in the model's order; () when the tokenizer is enough."""
    needs = data.load("rules")["model"]["needs"]
    wanted = {c for attr in attributes_read(patterns) for c in needs.get(attr, ())}
    return tuple(c for c in model_components() if c in wanted)


def attributes_read(patterns: Iterable[list[dict]]) -> frozenset[str]:
    """The token attributes the patterns read ('LOWER', 'LEMMA' …)."""
    return frozenset(attr.upper() for pattern in patterns for tok in pattern for attr in tok if attr != "OP")


@lru_cache(maxsize=1)
def model_components() -> tuple[str, ...]:
    """Every component of the installed model, from its package's meta.json (read
    without loading the model)."""
    import spacy.util

    return tuple(spacy.util.get_model_meta(_model_path())["components"])


def _model_path():
    import spacy.util

    package = spacy.util.get_package_path(MODEL)
    return next(p for p in package.iterdir() if p.is_dir() and p.name.startswith(f"{MODEL}-"))


def model_version() -> str:
    import spacy

    return f"spacy {spacy.__version__}, {MODEL} {spacy.util.get_model_meta(_model_path())['version']}"


@lru_cache(maxsize=4)
def load_model(components: tuple[str, ...] = (), text_only: bool = False):
    """spaCy's French model with only these components besides its tokenizer, loaded
    once per process (the whole model takes seconds) and shared by every extractor,
    which only reads texts with it. With no component, for patterns that read only the
    tokens' text (``text_only``), its tokenizer alone, built without spaCy's French
    language class, whose import costs seconds (pipeline/link/tokenizer.py)."""
    if not components and text_only:
        from .tokenizer import load_tokenizer

        return load_tokenizer(_model_path())
    import spacy

    return spacy.load(MODEL, exclude=[c for c in model_components() if c not in components])


@dataclass(frozen=True)
class Consequence:
    kind: str  # pay, score, lose, forfeit, redeal, exclude
    amount: int | str | None = None
    unit: str | None = None
    to: str | None = None
    start: int = 0  # offsets in text_clean
    end: int = 0

    def spec(self) -> dict:
        return {k: v for k, v in (("kind", self.kind), ("amount", self.amount), ("unit", self.unit), ("to", self.to))
                if v is not None}


@dataclass(frozen=True)
class RuleRecord:
    passage_seq: int
    modality: str
    bearer: str | None
    condition: str | None
    consequences: tuple[Consequence, ...]
    confidence: float
    spans: dict = field(default_factory=dict)  # part → [start, end] in text_clean
    missing: tuple[str, ...] = ()  # what keeps the stub from having a real body

    @property
    def complete(self) -> bool:
        return not self.missing


def _fixed_words(pattern: list[dict]) -> list[list[str]] | None:
    """The words each token of a Matcher pattern must be, lower-cased (a list of
    choices per token), if the pattern says only that; else None."""
    words = []
    for tok in pattern:
        value = tok.get("LOWER") if set(tok) == {"LOWER"} else None
        choices = [value] if isinstance(value, str) else value.get("IN") if isinstance(value, dict) and set(value) == {"IN"} else None
        # the phrase matcher lower-cases the phrase, the Matcher compares as written: they agree on lower case only
        if not choices or any(not isinstance(w, str) or w != w.lower() for w in choices):
            return None
        words.append(choices)
    return words


def _words_needed(pattern: list[dict]) -> list[list[str]]:
    """For each token of a Matcher pattern that must be one of some words (and is not
    optional), those words lower-cased: a text lacking all of one list cannot match."""
    needed = []
    for tok in pattern:
        words = _fixed_words([{k: v for k, v in tok.items() if k != "OP"}]) if tok.get("OP", "1") in ("1", "+") else None
        if words is not None:
            needed += words
    return needed


def _compile(pattern: list) -> list[dict]:
    """Compact patterns of rules.toml → spaCy Matcher patterns."""
    out = []
    for tok in pattern:
        if isinstance(tok, dict):  # a spaCy token specification, as it is
            out.append(tok)
        elif tok == "*":
            out.append({})
        elif tok == "*?":
            out.append({"OP": "?"})
        elif isinstance(tok, list):
            out.append({"LOWER": {"IN": tok}})
        else:
            out.append({"LOWER": tok})
    return out


class Extractor:
    """Loads spaCy once (the components its patterns need) and reads rules from texts."""

    def __init__(self, nlp=None):
        self._nlp = nlp
        self.data = data.load("rules")

    @cached_property
    def patterns(self) -> dict[str, list[list[dict]]]:
        """Matcher label → its patterns, compiled from rules.toml."""
        d = self.data
        out = {f"MOD_{name}": [_compile(p) for p in patterns] for name, patterns in d["modality"]["patterns"].items()}
        out["COND"] = [_compile(p) for p in d["condition"]["openers"]]
        out |= {f"ROLE_{role}": [_compile(p) for p in patterns] for role, patterns in d["roles"].items()
                if role != "priority"}
        out |= {f"EFF_{kind}": [_compile(p) for p in patterns] for kind, patterns in d["effects"].items()}
        out |= {f"AMT_{symbol['symbol']}": [_compile(symbol["words"])] for symbol in d["amounts"]["symbols"]}
        out |= {f"TO_{to}": [_compile(p) for p in patterns] for to, patterns in d["recipients"].items()}
        return out

    @cached_property
    def components(self) -> tuple[str, ...]:
        """The model's components the patterns need besides the tokenizer."""
        return components_needed(p for patterns in self.patterns.values() for p in patterns)

    @cached_property
    def nlp(self):
        """What reads a text into tokens: a spaCy ``Language``, or its tokenizer alone
        when the patterns read only the tokens' text (both called and ``pipe``d alike)."""
        if self._nlp is None:
            from .tokenizer import TEXT_ATTRS

            patterns = [p for patterns in self.patterns.values() for p in patterns]
            self._nlp = load_model(self.components, attributes_read(patterns) <= TEXT_ATTRS)
        return self._nlp

    @cached_property
    def matchers(self):
        """spaCy's PhraseMatcher on LOWER for the patterns made of fixed words (a choice
        among words standing for one phrase per combination), its Matcher for the
        others (a wildcard, another attribute), with the words each of those needs
        somewhere in a text to match it. Both find the same spans; the phrase matcher
        walks each document once through a trie, where the Matcher tries every pattern
        at every token, and calls Python for each choice among words (on the 130-chapter
        book of bench/book.py: 18.5 s for the Matcher, 1.1 s for the two, under load)."""
        from spacy.matcher import Matcher, PhraseMatcher
        from spacy.tokens import Doc

        vocab = self.nlp.vocab
        phrases, others, needs = PhraseMatcher(vocab, attr="LOWER"), Matcher(vocab), []
        for label, patterns in self.patterns.items():
            words = [_fixed_words(p) for p in patterns]
            fixed = [Doc(vocab, words=list(ws)) for w in words if w is not None for ws in itertools.product(*w)]
            if fixed:
                phrases.add(label, fixed)
            rest = [p for p, w in zip(patterns, words) if w is None]
            if rest:
                others.add(label, rest)
            needs += [[{vocab.strings.add(w) for w in choices} for choices in _words_needed(p)] for p in rest]
        return phrases, others, needs

    def matches(self, doc) -> list[tuple[str, int, int]]:
        """(label, start, end) of each span a pattern finds in ``doc``, once, in the
        order the reading relies on (which of two roles, effects or recipients at one
        place is taken): by end, then start, then the label's place in ``patterns``,
        the order spaCy's Matcher gives them. The Matcher runs only on a text that has
        the words one of its patterns needs."""
        from spacy.attrs import LOWER

        phrases, others, needs = self.matchers
        found = set(phrases(doc))
        if needs:
            lowers = set(doc.to_array(LOWER).tolist())
            if any(all(lowers & choices for choices in need) for need in needs):
                found |= set(others(doc))
        strings, rank = self.nlp.vocab.strings, self._rank
        return sorted(((strings[m], s, e) for m, s, e in found), key=lambda m: (m[2], m[1], rank[m[0]]))

    @cached_property
    def _rank(self) -> dict[str, int]:
        return {label: k for k, label in enumerate(self.patterns)}

    def extract_many(self, passages: list[Passage]) -> list[RuleRecord]:
        windows = [self._window(p.text.text) for p in passages]
        return [self._read(p.seq, doc, len(w), len(p.text.text))
                for p, w, doc in zip(passages, windows, self.nlp.pipe(windows))]

    def extract(self, text: str, seq: int = 0) -> RuleRecord:
        window = self._window(text)
        return self._read(seq, self.nlp(window), len(window), len(text))

    def _window(self, text: str) -> str:
        """The part of a passage that is read: all of it, or up to the last sentence end
        before the limit (rules.toml [limits])."""
        limit = self.data["limits"]["max_chars"]
        if len(text) <= limit:
            return text
        cut = max(text.rfind(". ", 0, limit), text.rfind("; ", 0, limit))
        return text[: cut + 1 if cut > 0 else limit]

    # -- reading one rule -------------------------------------------------------------------

    def _read(self, seq: int, doc, read: int, length: int) -> RuleRecord:
        """The rule of a passage of ``length`` characters, of which the first ``read`` are
        tokenised in ``doc`` (its ``doc.text``, not asked of it: a join of every token)."""
        matches = self.matches(doc)
        body_start = _after_number(doc)
        conditions = self._conditions(doc, matches, body_start)

        def inside_condition(s: int) -> bool:
            return any(a <= s < b for a, b in conditions)

        spans: dict[str, list[int]] = {}
        mod = self.data["modality"]
        order = mod["order"]
        cancelled = set(mod["cancelled_by"])
        found = []
        for label, s, e in matches:
            if not label.startswith("MOD_") or s < body_start or inside_condition(s):
                continue
            name = label[4:]
            if name == "penalty" and s > 0 and doc[s - 1].lower_ in cancelled:
                continue  # 'se paye' is a value, 'sans faire la bête' no penalty, 'celui qui perd' a condition
            norm = name in mod["norms"]
            if name in ("permission", "obligation") and _followed_by(doc, e, mod["scoring_verbs"]):
                name = "scoring"  # 'sont en droit de compter trois points': a norm about scores
            found.append((s, order.index(name), name, e, norm))
        found.sort()
        penalty = [f for f in found if f[2] == "penalty"]
        norms = [f for f in found if f[4]]
        others = sorted(found, key=lambda f: (f[1], f[0]))
        chosen = (penalty or norms or others or [None])[0]
        modality = chosen[2] if chosen else "procedure"
        if chosen:
            s, _, _, e, _ = chosen
            spans["modality"] = [doc[s].idx, doc[e - 1].idx + len(doc[e - 1])]
        bearer, bearer_span = self._bearer(doc, matches, conditions, body_start, chosen[0] if chosen else None)
        if bearer_span:
            spans["bearer"] = bearer_span
        condition = None
        if conditions:
            a, b = conditions[0]
            condition = doc[a:b].text.strip(" ,;:")
            spans["condition"] = [doc[a].idx, doc[b - 1].idx + len(doc[b - 1])]
        consequences = tuple(self._consequences(doc, matches, conditions, body_start))
        if bearer is None and any(c.kind == "redeal" for c in consequences):
            bearer = "dealer"  # 'il faut redonner': the one who deals, deals again
        missing = self._missing(modality, bearer, consequences)
        if read < length:
            missing += (f"the text after character {read} of {length} (not read: too long for an article)",)
        sure = self.data["confidence"]
        confidence = sure["complete"] if not missing else (sure["partial"] if modality != "procedure" else sure["procedure"])
        return RuleRecord(seq, modality, bearer, condition, consequences, confidence, spans, missing)

    def _conditions(self, doc, matches, body_start: int) -> list[tuple[int, int]]:
        """The clauses that trigger the rule: from an opener to the comma, semicolon
        or main verb that ends them."""
        effect_starts = sorted(s for label, s, _ in matches if label.startswith(("MOD_", "EFF_")))
        out = []
        for label, s, e in sorted(matches, key=lambda m: m[1]):
            if label != "COND" or s < body_start or any(a <= s < b for a, b in out):
                continue
            relative = doc[s].lower_ in ("celui", "ceux", "celle", "quiconque")
            end = len(doc)
            for k in range(e, len(doc)):
                if doc[k].text in (",", ";", ":", ".") and not relative:
                    end = k
                    break
                if relative and k in effect_starts:
                    end = k
                    break
                if relative and doc[k].text in (";", ":", "."):
                    end = k
                    break
            out.append((s, end))
        return out

    def _bearer(self, doc, matches, conditions, body_start: int, verb: int | None) -> tuple[str | None, list[int] | None]:
        """Who the rule binds: the role named nearest before its modal verb (its
        subject); the role after an impersonal 'il est libre aux …', 'il dépend de …';
        for a pronoun subject ('il peut'), the role named last before it."""
        roles = self.data["roles"]
        priority = roles["priority"]
        pronouns = set(roles["pronouns"])

        def rank(role: str) -> int:
            return priority.index(role) if role in priority else len(priority)

        # among roles starting at one place, the most specific ('celui qui donne' is the dealer)
        by_start: dict[int, tuple[int, str]] = {}
        for label, s, e in matches:
            if label.startswith("ROLE_") and s >= body_start:
                role = label[5:]
                if s not in by_start or rank(role) < rank(by_start[s][1]):
                    by_start[s] = (e, role)
        starts = sorted(by_start)

        def pick(s: int) -> tuple[str, list[int]]:
            e, role = by_start[s]
            return role, [doc[s].idx, doc[e - 1].idx + len(doc[e - 1])]

        if verb is None:
            verb = len(doc)
        if verb < len(doc) and doc[verb].lower_ == "il":
            after = [s for s in starts if s > verb]
            if after:
                return pick(after[0])
        subject = _subject_before(doc, verb, body_start)
        if subject is not None and doc[subject].lower_ in pronouns:
            last = [s for s in starts if by_start[s][0] <= subject]
            if last:
                return pick(last[-1])
        before = [s for s in starts if s <= verb and not _in_plain_condition(s, conditions, doc)]
        if before:
            return pick(before[-1])
        return None, None

    def _consequences(self, doc, matches, conditions, body_start: int):
        amounts = self.data["amounts"]
        words, units = amounts["words"], amounts["units"]
        symbols = [(s, e, label[4:]) for label, s, e in matches if label.startswith("AMT_")]
        recipients = [(s, e, label[3:]) for label, s, e in matches if label.startswith("TO_")]
        seen = set()
        for label, s, e in sorted(matches, key=lambda m: m[1]):
            if not label.startswith("EFF_") or s < body_start or any(a <= s < b for a, b in conditions):
                continue
            kind = label[4:]
            if kind == "forfeit" and not _negated(doc, s):
                continue  # 'ne peut plus compter', 'ne pourrait exiger': a right lost
            if kind in ("score", "pay", "lose") and _negated(doc, s):
                continue  # 'il n'est payé ni du sans-prendre': no payment
            if s > 0 and doc[s - 1].lower_ == "qui":
                continue  # 'suivant celui qui marque le plus': a relative clause, not an effect
            if (kind, s) in seen:
                continue
            seen.add((kind, s))
            amount = unit = to = None
            end = e
            window_end = min(len(doc), e + 8)
            relative = False
            for k in range(e, window_end):
                tok = doc[k]
                if tok.text in (",", ";", ":", "."):
                    break
                if tok.lower_ in ("qu'", "qu’", "que", "qui", "dont"):
                    relative = True  # 'ce qu'il a de perte au jeu': no recipient inside a relative clause
                sym = next((x for x in symbols if x[0] == k), None)
                if amount is None and sym:
                    amount, end = sym[2], sym[1]
                    continue
                if amount is None and (tok.lower_ in words or tok.text.isdigit()):
                    amount = words.get(tok.lower_) if tok.lower_ in words else int(tok.text)
                    end = k + 1
                    continue
                if amount is not None and unit is None and tok.lower_ in units:
                    unit = units[tok.lower_]
                    end = k + 1
                    continue
                rec = next((x for x in recipients if x[0] == k), None)
                if rec and to is None and not relative:
                    to, end = rec[2], rec[1]
            if kind in ("redeal", "exclude"):
                amount = unit = to = None
            start_char = doc[s].idx
            end_tok = doc[max(end, e) - 1]
            yield Consequence(kind, amount, unit, to, start_char, end_tok.idx + len(end_tok))

    def _missing(self, modality: str, bearer: str | None, consequences) -> tuple[str, ...]:
        missing = []
        if not consequences:
            missing.append(f"no effect found in a rule of modality '{modality}'")
        if bearer is None:
            missing.append("who the rule binds (no role found)")
        for c in consequences:
            if c.kind in ("pay", "score", "lose") and c.amount is None:
                missing.append(f"the amount of '{c.kind}'")
            if c.kind == "pay" and c.to is None:
                missing.append("who is paid")
        return tuple(missing)


def _after_number(doc) -> int:
    """The token after an article's number ('13.'), where its text starts."""
    if len(doc) > 1 and doc[0].text.rstrip(".").isdigit():
        return 2 if doc[1].text == "." else 1
    if len(doc) > 1 and doc[0].text.endswith(".") and doc[0].text[:-1].isalpha() and doc[0].text[:-1].isupper():
        return 1  # a Roman numeral
    return 0


def _followed_by(doc, end: int, verbs: list[str]) -> bool:
    """'en droit de compter': the modal phrase governs one of these verbs."""
    for k in range(end, min(len(doc), end + 3)):
        if doc[k].lower_ in verbs:
            return True
    return False


def _in_plain_condition(s: int, conditions, doc) -> bool:
    """Inside a 'si …' or 'lorsque …' clause (a relative 'celui qui …' names its subject)."""
    for a, b in conditions:
        if a <= s < b and doc[a].lower_ not in ("celui", "ceux", "celle", "quiconque"):
            return True
        if a <= s < b and s != a:
            return True
    return False


def _subject_before(doc, verb: int, body_start: int) -> int | None:
    """The token just before the verb group that can be its subject ('il ne peut')."""
    k = verb - 1
    while k >= body_start and doc[k].lower_ in ("ne", "n'", "n’", "lui", "leur", "les", "le", "la", "l'", "l’", "y", "en", "se", "s'", "s’"):
        k -= 1
    return k if k >= body_start else None


_VERB_GROUP = {
    "le", "la", "les", "lui", "leur", "y", "en", "se", "s'", "s’", "l'", "l’", "me", "te", "nous", "vous",
    "est", "sont", "a", "ont", "peut", "peuvent", "pourrait", "doit", "doivent", "plus", "pas", "point", "jamais",
}


def _negated(doc, i: int) -> bool:
    """Whether the verb at ``i`` is negated in its own verb group ('ne peut plus
    compter', 'n'est payé'), not by a clause before it ('ne le fait pas, paye')."""
    k = i - 1
    while k >= 0 and doc[k].lower_ in _VERB_GROUP:
        k -= 1
    return k >= 0 and doc[k].lower_ in ("ne", "n'", "n’")


# -- measuring the extractor against hand labels -----------------------------------------------

@dataclass
class RulesScore:
    articles: int = 0
    modality_right: int = 0
    bearer_right: int = 0
    payment_articles: int = 0  # labelled penalties and payments
    consequences_exact: int = 0
    wrong: list = field(default_factory=list)  # (citation, part, expected, found)

    @property
    def modality_accuracy(self) -> float:
        return self.modality_right / max(self.articles, 1)

    @property
    def bearer_accuracy(self) -> float:
        return self.bearer_right / max(self.articles, 1)

    @property
    def consequences_accuracy(self) -> float:
        return self.consequences_exact / max(self.payment_articles, 1)


def _canonical(consequences) -> list[tuple]:
    # a field may be missing from one consequence and not another: None sorts first
    return sorted(
        ((c.get("kind"), c.get("amount"), c.get("unit"), c.get("to")) for c in consequences),
        key=lambda t: tuple((x is not None, str(x)) for x in t),
    )


def score_rules(found: dict[str, dict], gold: list[dict]) -> RulesScore:
    """``found``: citation → {modality, bearer, consequences: [spec …]}."""
    s = RulesScore()
    for g in gold:
        f = found.get(g["citation"])
        if f is None:
            s.wrong.append((g["citation"], "article", "present", "missing"))
            continue
        s.articles += 1
        if f["modality"] == g["modality"]:
            s.modality_right += 1
        else:
            s.wrong.append((g["citation"], "modality", g["modality"], f["modality"]))
        if f["bearer"] == g.get("bearer"):
            s.bearer_right += 1
        else:
            s.wrong.append((g["citation"], "bearer", g.get("bearer"), f["bearer"]))
        expected = g.get("consequences") or []
        if g["modality"] == "penalty" or any(c["kind"] in ("pay", "lose") for c in expected):
            s.payment_articles += 1
            if _canonical(expected) == _canonical(f["consequences"]):
                s.consequences_exact += 1
            else:
                s.wrong.append((g["citation"], "consequences", _canonical(expected), _canonical(f["consequences"])))
    return s
