"""Stage 3, clean: named, explainable fixes of the OCR, each a recorded edit.

Like ftfy, cleaning is a list of rules applied in order; each rule finds edits in
the current text and says why it makes them. ``fix_and_explain`` returns the clean
text with the list of what was done. The rules here are the first layer, enough for
the structure to be read (typography, letter spacing, bracket debris, spacing,
numbers); the correction engine adds its rules to the same list, and the
``corrections`` table records every edit whatever rule made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import regex

from .correct import BookContext, Domain, book_counts, is_long_s_printing
from .markers import number_marker, roman_marker
from .numbers import DIGITS
from .records import Block, Layout
from .resources import Resources
from .text import Correction, Edit, MappedText


@dataclass(frozen=True)
class Rule:
    name: str
    explanation: str
    find: Callable[[str, "CleanContext"], Iterable[Edit]]


@dataclass
class CleanContext:
    """What the rules may know besides the text: the resources, and what the book and
    the chapter say (word counts, long-s printing). Suggestions below the threshold of
    a rule are collected here."""

    res: Resources
    book: BookContext = field(default_factory=BookContext)
    suggestions: list[Suggestion] = field(default_factory=list)
    raw_of: Callable[[int, int], tuple[int, int]] | None = None


@dataclass(frozen=True)
class Suggestion:
    start: int  # raw span of the word
    end: int
    before: str
    suggestion: str
    rule: str
    confidence: float


# -- the rules -------------------------------------------------------------------------------

_LIGATURES = {"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st", "ſ": "s"}


def _typography(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in regex.finditer(r"[ﬁﬂﬀﬃﬄﬅﬆſ]", text):
        yield Edit(m.start(), m.end(), _LIGATURES[m.group()], "clean.typography", 1.0)


_SPACED_CAPITALS = regex.compile(r"(?<![\p{L}\d])(?:\p{Lu} ){2,}\p{Lu}(?![\p{L}\d])")


def _letter_spacing(text: str, ctx: CleanContext) -> Iterable[Edit]:
    # 'T R E I Z E': capitals spaced out for display, one word
    for m in _SPACED_CAPITALS.finditer(text):
        yield Edit(m.start(), m.end(), m.group().replace(" ", ""), "clean.letter_spacing", 0.95)


# Glyph debris the OCR makes of a 'p' ('trom[)erie', 'ap|>ar…', 'j)ar') and of a 'q'
# ('«juatre', '<|ue', '(|ui'), recognised only inside a word.
_P_DEBRIS = regex.compile(r"(?<=\p{L}|^|[\s'’])(?:\[\)|\|\)|\|>|\]\)|\{\)|\[i(?=\p{Ll})|j\)(?=\p{L}))(?=\p{L})")
_Q_DEBRIS = regex.compile(r"(?<=^|[\s'’])(?:«j|«\[|<\||\(\||\(\[)(?=[uü]\p{L}|[uü]['’])")


def _bracket_p(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _P_DEBRIS.finditer(text):
        yield Edit(m.start(), m.end(), "p", "clean.bracket_p", 0.9)


def _bracket_q(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _Q_DEBRIS.finditer(text):
        yield Edit(m.start(), m.end(), "q", "clean.bracket_q", 0.85)


_STRAY_MARK = regex.compile(r"(?<=\s|^)[■\\^£$|¦~`]+(?=\s|$)|(?<=[.,;:!?])\s+[*■\\^]+\s*$")


def _stray_marks(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _STRAY_MARK.finditer(text):
        start, end = m.start(), m.end()
        if start > 0 and text[start - 1] == " " and m.group()[0] != " ":
            start -= 1
        yield Edit(start, end, "", "clean.stray_mark", 0.9)


# One space between words; none before , . ) ; : ! ? or after ( (the gold convention).
_SPACE_BEFORE = regex.compile(r"(?<=\S)[ \t]+(?=[,.;:!?)](?:\s|$|[,.;:!?)\"»]))")
_SPACE_AFTER = regex.compile(r"(?<=\()[ \t]+")
_MULTI_SPACE = regex.compile(r"[ \t]{2,}")


def _spacing(text: str, ctx: CleanContext) -> Iterable[Edit]:
    edits = {}
    for pattern, after in ((_SPACE_BEFORE, ""), (_SPACE_AFTER, ""), (_MULTI_SPACE, " ")):
        for m in pattern.finditer(text):
            if m.start() in edits:
                continue
            if pattern is _SPACE_BEFORE and m.end() < len(text) and text[m.end()] == "." and text[m.start() - 1] in DIGITS + ".":
                continue  # '7 1 .': a number's own spacing is the number's business
            edits[m.start()] = Edit(m.start(), m.end(), after, "clean.spacing", 1.0)
    return sorted(edits.values(), key=lambda e: e.start)


# A number with letters for some digits: '3i' → 31, '3o3' → 303. Only a token that
# has a real digit and whose other glyphs are near-certain digit confusions.
_MIXED_NUMBER = regex.compile(r"(?<![\p{L}\d])(?=[\doOilI]*\d)[\doOilI]{2,4}(?![\p{L}\d])")
_CERTAIN = {"o": "0", "O": "0", "i": "1", "l": "1", "I": "1"}


def _digits_in_numbers(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _MIXED_NUMBER.finditer(text):
        if m.start() == 0:
            continue  # a paragraph's own number is read with its sequence (segment)
        token = m.group()
        if all(c in DIGITS for c in token):
            continue
        fixed = "".join(_CERTAIN.get(c, c) for c in token)
        yield Edit(m.start(), m.end(), fixed, "clean.digits_in_number", 0.9)


# a word, with the debris and the digits the OCR may have put inside it ('de5' for 'des')
_TOKEN = regex.compile(r"\p{L}[\p{L}&^|!0158]*[\p{L}0158]|\p{L}")
_SENTENCE_END = ".!?"


def _words(text: str, ctx: CleanContext) -> Iterable[Edit]:
    corrector = ctx.res.corrector
    skip_until = _marker_end(text, ctx)
    tokens = list(_TOKEN.finditer(text))
    for k, m in enumerate(tokens):
        if m.start() < skip_until:
            continue
        word = m.group()
        if len(word) < 2:
            continue
        before = text[: m.start()].rstrip(" «\"'(")
        sentence_start = not before or before[-1] in _SENTENCE_END
        start = m.start()
        if start > 0 and text[start - 1] in "([" and ")" not in text[m.end() : m.end() + 60].split(".")[0]:
            # an opening bracket with no closing one is a glyph of the word: '(lèche' for 'flèche'
            d = corrector.decide(text[start - 1] + word, ctx.book, sentence_start)
            if d is not None and d.applied:
                yield Edit(start - 1, m.end(), d.word, f"correct.{d.reason}", d.confidence)
                continue
        following = tokens[k + 1].group() if k + 1 < len(tokens) else ""
        d = corrector.decide(word, ctx.book, sentence_start, following)
        if d is None or d.word == word:
            continue
        if d.applied:
            yield Edit(m.start(), m.end(), d.word, f"correct.{d.reason}", d.confidence)
        elif ctx.raw_of is not None:
            a, b = ctx.raw_of(m.start(), m.end())
            ctx.suggestions.append(Suggestion(a, b, word, d.word, f"correct.{d.reason}", d.confidence))


def _marker_end(text: str, ctx: CleanContext) -> int:
    """A number opening the paragraph is the segmenter's to read, not the speller's."""
    m = number_marker(text, ctx.res.digits) or roman_marker(text)
    return m.end if m else 0


# -- context rules ---------------------------------------------------------------------------

_LIST_TOKEN = regex.compile(r"[^\s,;.]+")
_LIST_GLUE = {"et", "ou", "par", "à", "de", "des", "les", "le", "&"}


def _numbers_in_lists(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """'par lo, 9 et 8': among numbers, a token that reads as one is one ('lo' → 10)."""
    tokens = list(_LIST_TOKEN.finditer(text))
    is_number = [t.group().isdigit() for t in tokens]
    for k, t in enumerate(tokens):
        word = t.group()
        if is_number[k] or len(word) > 3 or sum(is_number[max(0, k - 10) : k + 11]) < 2:
            continue
        if k == 0 and _marker_end(text, ctx):
            continue
        readings = ctx.res.digits.readings(word, max_cost=0.6)
        if not readings or ctx.res.lexicon.zipf(word) >= 4.5 and len(word) > 1:
            continue
        # neighbours in the same clause: a ';' or a '.' ends the list
        neighbours = [
            tokens[j].group().lower() for j in (k - 1, k + 1)
            if 0 <= j < len(tokens) and not any(c in ";." for c in text[min(t.end(), tokens[j].end()) : max(t.start(), tokens[j].start())])
        ]
        if not all(n.isdigit() or n in _LIST_GLUE or ctx.res.digits.readings(n, max_cost=0.6) for n in neighbours):
            continue
        value = min(readings, key=readings.get)
        yield Edit(t.start(), t.end(), str(value), "correct.number_in_list", round(0.95 - readings[value] / 2, 3))


# 'n ont', 'qu il', 'd aboid', 's^il': the apostrophe of an elided word, lost or misread
_ELIDED = regex.compile(
    r"(?<![\p{L}\d'’])([ldnjmcLDNJMC]|[Qq]u|[Jj]usqu|[Ll]orsqu|[Pp]uisqu|[Qq]uoiqu|s(?=\s*\W?\s*(?:ils?|y|en)\b))"
    r"(\s+|\s*[\^`´]\s*|\s+['’]\s*|['’]\s+)"
    r"(?=[aeiouyhéèêëàâîïôûœAEIOUYHÉÈÊÀÂÎÔ])"
)


def _elision(text: str, ctx: CleanContext) -> Iterable[Edit]:
    apostrophe = "’" if text.count("’") > text.count("'") else "'"
    for m in _ELIDED.finditer(text):
        if m.group(1)[0].isupper() and len(m.group(1)) == 1:
            # a capital alone is an elision only where a sentence starts ('C est …');
            # inside one it names a player ('D est en droit')
            before = text[: m.start()].rstrip(" «\"(")
            if before and before[-1] not in _SENTENCE_END:
                continue
        yield Edit(m.start(2), m.end(2), apostrophe, "correct.elision", 0.9)


_PAIR = regex.compile(r"(?<![\p{L}'’])(\p{L}+) (\p{L}+)(?![\p{L}'’])")
_REAL_LETTERS = {"a", "à", "y", "ô", "o", "A", "À", "Y", "Ô", "O"}


def _split_words(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """'N ommant', 'j oue', 'S i': a word the OCR cut in two, when neither half is a word."""
    lex = ctx.res.lexicon

    def fragment(x: str) -> bool:
        return x not in _REAL_LETTERS if len(x) == 1 else lex.best_zipf(x) < 3.0

    pos = 0
    while True:
        m = _PAIR.search(text, pos)
        if not m:
            return
        a, b = m.group(1), m.group(2)
        joined = a + b
        za = 0.0 if len(a) == 1 else lex.best_zipf(a)
        zb = 0.0 if len(b) == 1 else lex.best_zipf(b)
        if (fragment(a) and fragment(b) and not joined.isupper()
                and lex.best_zipf(joined) >= max(3.5, za + 1.0, zb + 1.0)):
            yield Edit(m.start(), m.end(), joined, "correct.split_word", 0.8)
            pos = m.end()
        else:
            pos = m.start(2)


def _joined_words(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """'amènepour', 'ditde', 'quigagnera': two words the OCR ran together."""
    lex = ctx.res.lexicon
    small = ctx.res.vocabulary.function_words

    def part(x: str) -> bool:
        return x.lower() in small or (len(x) >= 3 and lex.best_zipf(x) >= 4.0)

    for m in _TOKEN.finditer(text):
        word = m.group()
        compound = _lost_hyphen(text, m, lex)
        if compound is not None:
            yield Edit(m.start(), m.end(), compound, "correct.joined_words", 0.85)
            continue
        if len(word) < 5 or not word.isalpha() or lex.best_zipf(word) >= 2.0:
            continue  # (wordfreq knows some run-together typos, rarely: 'ilfaut')
        splits = []
        for k in range(2, len(word) - 1):
            a, b = word[:k], word[k:]
            if part(a) and part(b) and (a.lower() in small or b.lower() in small or min(len(a), len(b)) >= 4):
                splits.append((min(lex.best_zipf(a), lex.best_zipf(b)), k))
        if not splits:
            continue
        # a misread single word is the corrector's, not two words
        d = ctx.res.corrector.decide(word, ctx.book)
        if d is not None and d.cost <= 1.0:
            continue
        k = max(splits)[1]
        # a compound whose hyphen was lost ('visà-vis', 'vingtun') gets it back
        joiner = "-" if lex.hyphen_is_real(word[:k], word[k:]) else " "
        yield Edit(m.start(), m.end(), f"{word[:k]}{joiner}{word[k:]}", "correct.joined_words", 0.8)


_HYPHENATED = regex.compile(r"[\p{L}'’]+(?:-[\p{L}'’]+)+")


def _lost_hyphen(text: str, m, lex) -> str | None:
    """'visà-vis', 'c'està-dire': a listed compound with one of its hyphens lost."""
    span = None
    for h in _HYPHENATED.finditer(text, max(0, m.start() - 20), min(len(text), m.end() + 20)):
        if h.start() <= m.start() and h.end() >= m.end():
            span = h
            break
    if span is None:
        return None
    word = m.group()
    for k in range(1, len(word)):
        fixed = text[span.start() : m.start()] + word[:k] + "-" + word[k:] + text[m.end() : span.end()]
        if fixed.lower().replace("’", "'") in lex.compounds:
            return word[:k] + "-" + word[k:]
    return None


RULES: list[Rule] = [
    Rule("clean.typography", "ligatures and the long s written as plain letters", _typography),
    Rule("clean.letter_spacing", "capitals spaced for display joined into their word", _letter_spacing),
    Rule("clean.bracket_p", "bracket debris the OCR made of a p ('trom[)erie' → 'tromperie')", _bracket_p),
    Rule("clean.bracket_q", "bracket debris the OCR made of a q ('«juatre' → 'quatre')", _bracket_q),
    Rule("clean.stray_mark", "marks standing alone that belong to no word", _stray_marks),
    Rule("clean.digits_in_number", "letters read for digits inside a number ('3i' → '31')", _digits_in_numbers),
    Rule("clean.spacing", "one space between words, none before , . ; : ! ? )", _spacing),
    Rule("correct.number_in_list", "letters read for digits in a list of numbers ('par lo et 9' → 'par 10 et 9')", _numbers_in_lists),
    Rule("correct.elision", "the apostrophe of an elided word restored ('n ont' → 'n'ont')", _elision),
    Rule("correct.split_word", "a word cut in two joined again ('N ommant' → 'Nommant')", _split_words),
    Rule("correct.joined_words", "two words run together parted ('ditde' → 'dit de')", _joined_words),
    Rule("correct.words", "words the OCR misread, put right by the noisy-channel corrector", _words),
]


def clean_text(text: MappedText, ctx: CleanContext, rules: list[Rule] | None = None) -> MappedText:
    for rule in rules if rules is not None else RULES:
        ctx.raw_of = lambda a, b, t=text: (t.to_raw(a), t.to_raw(b - 1) + 1 if b > a else t.to_raw(a))
        edits = list(rule.find(text.text, ctx))
        if edits:
            text = text.apply(_non_overlapping(edits))
    return text


def _non_overlapping(edits: list[Edit]) -> list[Edit]:
    out: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if out and e.start < out[-1].end:
            continue
        out.append(e)
    return out


def chapter_context(text: str, res: Resources, source_file: str | None = None,
                    games: Iterable[str] = ()) -> CleanContext:
    """The context a chapter is cleaned in: the book's word counts, whether the chapter
    was printed with the long s, and the terms of what it is about: the families of
    games its words belong to, and the names of the GAMES (slugs) its running heads name."""
    counts = res.book_counts(source_file, text)
    own = book_counts([text])
    long_s = is_long_s_printing(text, res.lexicon)
    if long_s:  # the chapter's words as they are spelled, to know what it is about
        for w, n in list(own.items()):
            if "f" in w:
                own[w.replace("f", "s")] += n
    domain = Domain.default()
    terms = domain.terms_of(own) | _name_words(res, games)
    return CleanContext(res, BookContext(counts, long_s, terms, domain.bonus))


def _name_words(res: Resources, games: Iterable[str]) -> frozenset[str]:
    """The words that name these games ('hombre', 'ombre' for l'hombre): in a chapter
    about a game, its name is far likelier than in French at large."""
    words: set[str] = set()
    for slug in games:
        entry = res.catalogue.get(slug)
        for name in (entry.name, *entry.spellings) if entry else ():
            words.update(w for w in regex.split(r"[\s'’-]+", name.lower()) if len(w) > 3)
    return frozenset(words)


def clean(layout: Layout, res: Resources) -> Layout:
    games = sorted({p.head_game for p in layout.pages if p.head_game})
    ctx = chapter_context(layout.chapter.text, res, layout.chapter.source_file, games)
    blocks = []
    for b in layout.blocks:
        ctx.suggestions = []
        text = clean_text(b.text, ctx)
        blocks.append(replace(b, text=text, suggestions=tuple(ctx.suggestions)))
    return replace(layout, blocks=tuple(blocks))


def fix_and_explain(text: str, res: Resources, rules: list[Rule] | None = None) -> tuple[str, list[Correction]]:
    """Clean a text and say what was done, each edit with its rule and confidence."""
    ctx = chapter_context(text, res)
    mt = clean_text(MappedText.from_raw(text, 0, len(text)), ctx, rules)
    return mt.text, mt.corrections()


def clean_file(path, res: Resources) -> Layout:
    """Any text file, read and cleaned as a chapter: its paragraphs, with what was done."""
    from .ingest import ingest
    from .layout import layout

    return clean(layout(ingest(path), res), res)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of an offset, as editors count them."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
