"""The steps of the clean stage: each finds edits in the current text, every edit
under a registered fix (pipeline/fixes.py), as in ftfy's ``fix_and_explain``.

First the layer that makes the text readable enough for its structure to be found
(typography, letter spacing, bracket debris, stray marks, digits, spacing); then the
steps that read a word from its neighbours (numbers in lists, elisions, cut and
joined words); last the correction engine, word by word (clean/correct.py).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Iterable, Mapping

import regex

from ..markers import number_marker, roman_marker
from ..numbers import DIGITS
from ..resources import Resources
from ..text import Edit, fold_letters
from .context import ContextDecision, ContextReader, capital_elision, one_word
from .correct import BookContext, Corrector, OcrConfidence
from .sequence import SequenceModel, normal, token_spans
from .settings import CleanSettings


@dataclass
class CleanContext:
    """What the steps may know besides the text: the resources, the corrector, what
    the book and the chapter say (word counts, long-s printing, topic), and the
    settings. Suggestions below the corrector's threshold are collected here."""

    res: Resources
    corrector: Corrector
    book: BookContext = field(default_factory=BookContext)
    settings: CleanSettings = field(default_factory=CleanSettings.default)
    suggestions: list[Suggestion] = field(default_factory=list)
    raw_of: Callable[[int, int], tuple[int, int]] | None = None
    reader: ContextReader | None = None  # the words read between their neighbours (context.py)
    ocr: OcrConfidence | None = None  # how sure the OCR was of each word, where its file says (ALTO)
    # how often the chapter itself prints each word (small letters), its reads recorded
    # in a build (``book.CHAPTER_COUNTS``)
    chapter: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Suggestion:
    """A fix the corrector considered and did not apply: an editor's worklist."""

    start: int  # raw span of the word
    end: int
    before: str
    suggestion: str
    fix: str
    confidence: float


@dataclass(frozen=True)
class Step:
    """One step of cleaning: ``find`` returns the edits it makes in a text, each under
    one of ``fixes``."""

    fixes: tuple[str, ...]
    find: Callable[[str, CleanContext], Iterable[Edit]]


# -- the first layer -------------------------------------------------------------------------------

# Unicode's format characters (\p{Cf}): zero-width spaces and joiners, bidirectional
# marks and isolates, the byte-order mark inside a text, the soft hyphen. They print
# nothing, so the page has none; left in, they split words for search and the lexicon.
_INVISIBLE = regex.compile(r"\p{Cf}+")


def _invisible(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _INVISIBLE.finditer(text):
        yield Edit(m.start(), m.end(), "", "clean.invisible", ctx.settings.confidence.invisible)


_LIGATURES = {"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st", "ſ": "s"}
_LIGATURE = regex.compile(r"[ﬁﬂﬀﬃﬄﬅﬆſ]")


def _typography(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _LIGATURE.finditer(text):
        yield Edit(m.start(), m.end(), _LIGATURES[m.group()], "clean.typography", ctx.settings.confidence.typography)


_SPACED_CAPITALS = regex.compile(r"(?<![\p{L}\d])(?:\p{Lu} ){2,}\p{Lu}(?![\p{L}\d])")


def _letter_spacing(text: str, ctx: CleanContext) -> Iterable[Edit]:
    # 'Q U A D R I L L E': capitals spaced out for display, one word
    for m in _SPACED_CAPITALS.finditer(text):
        yield Edit(m.start(), m.end(), m.group().replace(" ", ""), "clean.letter_spacing", ctx.settings.confidence.letter_spacing)


# Glyph debris the OCR makes of a 'p' ('cou[)er', 'ap|>el', 'j)lus') and of a 'q'
# ('«juatre', '<|ue', '(|ui'), recognised only inside a word.
_P_DEBRIS = regex.compile(r"(?<=\p{L}|^|[\s'’])(?:\[\)|\|\)|\|>|\]\)|\{\)|\[i(?=\p{Ll})|\[['’](?=\p{Ll})|j\)(?=\p{L}))(?=\p{L})")
_Q_DEBRIS = regex.compile(r"(?<=^|[\s'’])(?:«j|«\[|<\||\(\||\(\[)(?=[uü]\p{L}|[uü]['’])")


def _bracket_p(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _P_DEBRIS.finditer(text):
        yield Edit(m.start(), m.end(), "p", "clean.bracket_p", ctx.settings.confidence.bracket_p)


def _bracket_q(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _Q_DEBRIS.finditer(text):
        yield Edit(m.start(), m.end(), "q", "clean.bracket_q", ctx.settings.confidence.bracket_q)


_STRAY_MARK = regex.compile(r"(?<=\s|^)[■\\^£$|¦~`]+(?=\s|$)|(?<=[.,;:!?])\s+[*■\\^]+\s*$")


def _stray_marks(text: str, ctx: CleanContext) -> Iterable[Edit]:
    for m in _STRAY_MARK.finditer(text):
        start, end = m.start(), m.end()
        if start > 0 and text[start - 1] == " " and m.group()[0] != " ":
            start -= 1
        yield Edit(start, end, "", "clean.stray_mark", ctx.settings.confidence.stray_mark)


# A mark the OCR made of a comma: '»' closing no '«' of its paragraph, after a whole word
# and before the next one (detached, or run into a word it cannot belong to); and
# specks ('^', '£') run into a word's end, or between two words.
_CLOSING_GUILLEMET = regex.compile(r"(?<=(\p{L}+))( ?)»(?= \p{Ll})")
# a full stop after a word, before another ('ses. voisins', 'vont.de')
_SPECK_STOP = regex.compile(r"(?<=(?:^|[\s(])(\p{L}+))\.(?=( ?)(\p{L}))")
# … or run into the word after it ('et .Pierre', 'la .dame'): no word opens with a full stop
_SPECK_BEFORE = regex.compile(r"(?<=(\p{L}+) )\.(?=(\p{L}))")
_WHOLE_WORD = 4  # letters of a word before a full stop run into the next one, which no abbreviation has
_GUILLEMET_LETTERS = ("e", "s")  # the letters the OCR reads as '»' at a word's end ('tabl»', 'moin»')
_SPECK = regex.compile(r"(?<=(\p{L}+)['’]?)[\^£](?=([\s,.;:!?]|$|\p{L}{3,}))")


def _debris_marks(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """'ensuite» il' → 'ensuite, il', 'le roi^ et' → 'le roi et', 'son^partenaire'
    → 'son partenaire'."""
    lex = ctx.res.lexicon
    conf = ctx.settings.confidence
    opened = text.find("«")  # (the first: a copy of the text before each mark made this quadratic)
    for m in _CLOSING_GUILLEMET.finditer(text):
        word = m.group(1)
        if 0 <= opened < m.start():
            continue  # a quotation closed
        if not m.group(2):
            # run into the word: a letter the OCR read as '»' ('tabl»' for 'table'), when the
            # word it makes is far commoner than the word without it
            z = lex.best_zipf(word)
            letters = sorted((lex.best_zipf(word + x), x) for x in _GUILLEMET_LETTERS)
            if letters[-1][0] >= max(z + 1.0, 3.0):
                yield Edit(m.start(), m.end(), letters[-1][1], "clean.debris_mark", conf.debris_mark)
                continue
            if z < 3.0:
                continue  # no word, with it or without: the corrector's
        yield Edit(m.start(), m.end(), ",", "clean.debris_mark", conf.debris_mark)
    never_last = ctx.res.vocabulary.never_last
    for m in _SPECK_STOP.finditer(text):
        word = m.group(1)
        if m.group(3).isupper():
            continue  # a capital may open the next sentence (the word before it a misreading: 'ta.' for 'va.')
        if word.lower() in never_last:  # 'ses. voisins': no sentence ends on 'ses'
            yield Edit(m.start(), m.end(), "" if m.group(2) else " ", "clean.debris_mark", conf.debris_mark)
        elif not m.group(2) and len(word) >= _WHOLE_WORD and lex.known(word, 4.0):
            # 'vont.de': no sentence starts small, and a whole word is no abbreviation ('etc.')
            after = _LETTER_RUN.match(text, m.end())
            if after is not None and lex.known(after.group(), 4.0):
                yield Edit(m.start(), m.end(), " ", "clean.debris_mark", conf.debris_mark)
    for m in _SPECK_BEFORE.finditer(text):
        if m.group(2).islower() or m.group(1).lower() in never_last:  # else a sentence's stop, misplaced
            yield Edit(m.start(), m.end(), "", "clean.debris_mark", conf.debris_mark)
    for m in _SPECK.finditer(text):
        following = m.group(2)
        if following[:1].isalpha():
            if len(m.group(1)) < 3 or not lex.known(m.group(1), 4.0):
                continue  # inside a word the OCR broke ('rnan^er', 'jou^er'): the corrector's
            yield Edit(m.start(), m.end(), " ", "clean.debris_mark", conf.debris_mark)
        else:
            yield Edit(m.start(), m.end(), "", "clean.debris_mark", conf.debris_mark)


# One space between words; none before , . ) ; : ! ? or after (, one before ( (the gold convention).
_SPACE_BEFORE = regex.compile(r"(?<=\S)[ \t]+(?=[,.;:!?)](?:\s|$|[,.;:!?)\"»]))")
_SPACE_AFTER = regex.compile(r"(?<=\()[ \t]+")
_MULTI_SPACE = regex.compile(r"[ \t]{2,}")
_NO_SPACE_AFTER = regex.compile(r"(?<=\p{Ll})[,;](?=\p{Ll})")  # 'jouer,dans'; not '1,5'
# a note's call run into its word: 'la main(1).', 'la main(^i),'; not debris ('roi(ni')
_NO_SPACE_BEFORE = regex.compile(r"(?<=\p{L})\((?=[^\s()]{1,3}\)(?:[\s,.;:!?]|$))")


def _spacing(text: str, ctx: CleanContext) -> Iterable[Edit]:
    edits = {}
    for pattern, after in ((_SPACE_BEFORE, ""), (_SPACE_AFTER, ""), (_MULTI_SPACE, " ")):
        for m in pattern.finditer(text):
            if m.start() in edits:
                continue
            if pattern is _SPACE_BEFORE and m.end() < len(text) and text[m.end()] == "." and text[m.start() - 1] in DIGITS + ".":
                continue  # '7 1 .': a number's own spacing is the number's business
            edits[m.start()] = Edit(m.start(), m.end(), after, "clean.spacing", ctx.settings.confidence.spacing)
    for m in _NO_SPACE_AFTER.finditer(text):
        edits.setdefault(m.start(), Edit(m.start(), m.end(), m.group() + " ", "clean.spacing", ctx.settings.confidence.spacing))
    for m in _NO_SPACE_BEFORE.finditer(text):
        edits.setdefault(m.start(), Edit(m.start(), m.end(), " (", "clean.spacing", ctx.settings.confidence.spacing))
    return sorted(edits.values(), key=lambda e: e.start)


# A number with letters for some digits: '2i' → 21, '1o5' → 105. Only a token that
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
        yield Edit(m.start(), m.end(), fixed, "clean.digits_in_number", ctx.settings.confidence.digits_in_number)


# a word, with the debris and the digits the OCR may have put inside it ('de5' for 'des')
_TOKEN = regex.compile(r"\p{L}[\p{L}&^|!0158]*[\p{L}0158]|\p{L}")
_SENTENCE_END = ".!?"

try:
    from ._tokens import word_spans as _compiled_words  # setup.py: built at install where a compiler is
except ImportError:
    _compiled_words = None


def _word_spans(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) of each ``_TOKEN`` of a text, found by the compiled
    ``_tokens.word_spans`` where it was built (the same, tests/test_sequence.py)."""
    if _compiled_words is not None:
        return _compiled_words(text)
    return [(m.group(), *m.span()) for m in _TOKEN.finditer(text)]


def _words(text: str, ctx: CleanContext) -> Iterable[Edit]:
    corrector = ctx.corrector
    titles = ctx.res.lexicon.titles
    skip_until = _marker_end(text, ctx)
    tokens = _word_spans(text)
    neighbours = None  # the sequence model's tokens, read only when a real word is to be changed
    for k, (word, start, end) in enumerate(tokens):
        if start < skip_until:
            continue
        if len(word) < 2:
            continue
        sentence_start = _opens_sentence(text, start, titles)
        if start > 0 and text[start - 1] in "([" and ")" not in text[end : end + 60].split(".")[0]:
            # an opening bracket with no closing one is a glyph of the word: '(lèche' for 'flèche'
            d = corrector.decide(text[start - 1] + word, ctx.book, sentence_start)
            if d is not None and d.applied:
                yield Edit(start - 1, end, d.word, d.fix, d.confidence)
                continue
        following = tokens[k + 1][0] if k + 1 < len(tokens) else ""
        ocr_factor = ctx.ocr.factor(ctx.raw_of(start, end)[0]) if ctx.ocr and ctx.raw_of else 1.0
        d = corrector.decide(word, ctx.book, sentence_start, following, ocr_factor)
        if d is None or d.word == word:
            continue
        if d.applied and d.fix in ("clean.non_word", "clean.real_word") and _piece_of_a_broken_word(text, tokens, k, ctx):
            d = replace(d, applied=False)
        if d.applied and d.fix == "clean.non_word" and ctx.reader is not None:
            littre = ctx.reader.littre_reading(word)
            if littre is not None and littre[1] < d.cost and fold_letters(littre[0]) != fold_letters(d.word.lower()):
                # a word of the period the lexicon lacks, its accents misread ('mélàt' for
                # 'mêlât', not 'métal'): the sentence's to weigh (_in_context)
                continue
        if d.applied and d.fix == "clean.real_word" and ctx.reader is not None:
            if neighbours is None:
                neighbours = _Neighbours(text)
            prev, nxt = neighbours.around(start)
            if ctx.reader.vetoes(word, d.word, prev, nxt):
                d = replace(d, applied=False)  # the sentence says the print: an editor's to decide
            elif _chapter_word(ctx, word, d.word):
                said = ctx.reader.decide(word, prev, nxt, sentence_start)
                if said is None or not said.applied or said.word != d.word:
                    d = replace(d, applied=False)  # the chapter's own word: the sentence does not call for the reading
            else:  # (an unknown word's readings are the context step's to weigh: hundreds each)
                d = ctx.reader.rereads(word, d.word, prev, nxt, sentence_start) or d
        if d.applied:
            yield Edit(start, end, d.word, d.fix, d.confidence)
        elif ctx.raw_of is not None:
            a, b = ctx.raw_of(start, end)
            ctx.suggestions.append(Suggestion(a, b, word, d.word, d.fix, d.confidence))


def _chapter_word(ctx: CleanContext, word: str, reading: str) -> bool:
    """Whether the chapter prints the word so often, and so much more often than the
    reading, that it is its own word, not a misreading (``[context] chapter_word_count``)."""
    st = ctx.settings.context
    n = ctx.chapter.get(word.lower(), 0)
    return n >= st.chapter_word_count and n >= st.chapter_word_ratio * ctx.chapter.get(reading.lower(), 0)


# specks of debris between two pieces of a word, as _SEPARATOR's (an apostrophe elides: 'jusqu'à')
_SPECKS_BETWEEN = regex.compile(r"[.,^*|»«]+")


def _piece_of_a_broken_word(text: str, tokens: list[tuple[str, int, int]], k: int, ctx: CleanContext) -> bool:
    """Whether the k-th token is most likely a piece of one word the OCR broke, not to be
    made a word alone: run into its neighbour by a speck of debris, the two a word or a
    spelling of the period without it ('pouvo.it', pouvoit, whose 'it' is not 'il': the
    segmentation joins them; in 'ii.reco…' the speck is a space, and 'ii' is 'il'), or
    joined by a hyphen to a piece that is no word and that the engine cannot read as one
    ('prèfëi-eDce', préférence, whose first piece is not 'préfet'), or a space apart from
    a piece it makes a word with, as the lexicon knows it (not by its variants: 'II y' is
    no word): 'Car dinal', whose 'dinal' is no 'final'; 'ci toyens', which the sentence joins."""
    word, start, end = tokens[k]
    lex = ctx.corrector.lexicon
    if _hyphened_piece(text, start, end, lex):
        return True
    if _joins_a_neighbour(text, tokens, k, lex.zipf, ctx.settings.joined_words.neighbour_zipf, _SPACE):
        return True
    for a, b in ((k, k + 1), (k - 1, k)):
        if a >= 0 and b < len(tokens) and tokens[b][0][0].islower() \
                and _SPECKS_BETWEEN.fullmatch(text, tokens[a][2], tokens[b][1]):
            if one_word(tokens[a][0] + tokens[b][0], lex):
                return True
    partner = _hyphen_partner(text, tokens, k)
    st = ctx.settings.context
    if (partner is None or lex.zipf(partner) >= st.rare_zipf
            or ctx.book.counts.get(partner.lower(), 0) >= st.rare_book_count):
        return False  # (a word the web misspells is no word: wordfreq knows 'edce')
    d = ctx.corrector.decide(partner, ctx.book)
    return d is None or not d.applied


def _hyphen_partner(text: str, tokens: list[tuple[str, int, int]], k: int) -> str | None:
    """The token a hyphen with no space joins the k-th to ('contem-pie'), if any."""
    _, start, end = tokens[k]
    if k + 1 < len(tokens) and text[end:end + 1] == "-" and tokens[k + 1][1] == end + 1:
        return tokens[k + 1][0]
    if k > 0 and start > 0 and text[start - 1] == "-" and tokens[k - 1][2] == start - 1:
        return tokens[k - 1][0]
    return None


def _hyphened_piece(text: str, start: int, end: int, lex) -> bool:
    """Whether the word at text[start:end] is one piece of a word a hyphen parts with no
    space ('Aca-démie', 'ge-noux'), the pieces run together a known word or a spelling of
    the period: a line's end the export lost, or a compound ('tric-trac'). Either way
    the piece is no word of its own to read ('démie' is not 'demie'): the layout mends
    a lost line end, and a compound is as printed."""
    if text[end:end + 1] == "-":
        after = _LETTER_RUN.match(text, end + 1)
        if after is not None and text[start:end].isalpha() and one_word(text[start:end] + after.group(), lex):
            return True
    if start > 1 and text[start - 1] == "-" and text[start - 2].isalpha():
        first = start - 2
        while first > 0 and text[first - 1].isalpha():
            first -= 1
        return text[start:end].isalpha() and one_word(text[first:start - 1] + text[start:end], lex)
    return False


class _Neighbours:
    """The tokens of a paragraph as the sequence model counts them, to find a word's."""

    def __init__(self, text: str):
        self.tokens = token_spans(text)
        self.starts = [a for _, a, _ in self.tokens]

    def around(self, start: int) -> tuple[str, str]:
        """The tokens before and after the one at ``start``."""
        i = bisect.bisect_left(self.starts, start)
        prev = self.tokens[i - 1][0] if i > 0 else "."
        nxt = self.tokens[i + 1][0] if i + 1 < len(self.tokens) else "."
        return prev, nxt


def _opens_sentence(text: str, start: int, titles: frozenset[str] = frozenset()) -> bool:
    """Whether the word at ``start`` opens a sentence: nothing but quotes, brackets and
    spaces before it, or those after a full stop that ends no title of ``titles`` ('M.
    Dupont': lexicon.toml's [names]) (read backwards from the word: the text before it
    copied for each word made long paragraphs quadratic)."""
    i = _mark_before(text, start)
    return i < 0 or text[i] in _SENTENCE_END and not (text[i] == "." and _after_title(text, i, titles))


def _title_before(text: str, start: int, titles: frozenset[str]) -> bool:
    """Whether the word at ``start`` follows a title's full stop ('M. Dupont'): where the
    sequence model's previous token is a full stop, the sentence has not ended there."""
    i = _mark_before(text, start)
    return i >= 0 and text[i] == "." and _after_title(text, i, titles)


def _mark_before(text: str, start: int) -> int:
    """Where the last character before the word at ``start`` is that is not a quote, an
    opening bracket or a space (-1: none)."""
    i = start - 1
    while i >= 0 and text[i] in _OPENING:
        i -= 1
    return i


def _after_title(text: str, stop: int, titles: frozenset[str]) -> bool:
    """Whether the full stop at ``stop`` ends one of ``titles``, a word of its own."""
    j = stop
    while j > 0 and text[j - 1].isalpha():
        j -= 1
    return stop > j and text[j:stop] in titles and (j == 0 or not text[j - 1].isalnum())


_OPENING = frozenset(" «\"'(")
_BEFORE_WORD = frozenset(" \t\n(«\"'’-")
_AFTER_WORD = frozenset(" \t\n,.;:!?)»\"-")


def _reading(text: str, ctx: CleanContext) -> tuple[ContextReader, int, list[tuple[str, int, int]]]:
    """What the steps in context read a paragraph with: the reader, where the number
    opening the paragraph ends (the segmenter's, not theirs), and the tokens."""
    return ctx.reader, _marker_end(text, ctx), token_spans(text)


def _in_context(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """Each word against the words that look like it, as its neighbours decide
    (context.py), left to right: a word decided is the next one's left neighbour."""
    if ctx.reader is None:
        return
    reader, skip_until, toks = _reading(text, ctx)
    titles = ctx.res.lexicon.titles
    spans: list[tuple[str, int, int]] = []  # the paragraph's words, as ``_tie_chosen`` reads them, made when first asked
    starts: list[int] = []
    prev = "."
    for k, (tok, a, b) in enumerate(toks):
        if b <= skip_until:
            continue  # the article's number: its text opens a sentence after it
        word = text[a:b]
        nxt = toks[k + 1][0] if k + 1 < len(toks) else "."
        d = None
        # a word standing clear of debris ('rnan^er' is one word the OCR broke, not 'er')
        # (an elided word is a token before its word: "J'" of "J'officier", its capital the OCR's)
        elision = capital_elision(word)
        clear = (a == 0 or text[a - 1] in _BEFORE_WORD) and (b == len(text) or text[b] in _AFTER_WORD or elision)
        if a >= skip_until and clear and (word[-1].isalpha() or elision) \
                and not _hyphened_piece(text, a, b, ctx.res.lexicon):
            opens = prev == "." and not _title_before(text, a, titles)
            d = reader.decide(word, prev, nxt, sentence_start=opens)
            if (d is None or not d.applied) and word.isalpha() and ctx.corrector.lexicon.zipf(word) < 1.0:
                if not spans:
                    spans[:] = _word_spans(text)
                    starts[:] = [s for _, s, _ in spans]
                d = _tie_chosen(text, a, b, word, prev, nxt, opens, ctx, spans, starts) or d
        if d is None:
            prev = tok
            continue
        span = ctx.raw_of(a, b) if ctx.raw_of is not None else None
        if d.applied:
            yield Edit(a, b, d.word, d.fix, d.confidence)
            prev = normal(d.word)
            # what the engine only suggested for the word, the sentence has decided
            ctx.suggestions[:] = [sg for sg in ctx.suggestions if (sg.start, sg.end) != span]
            continue
        prev = tok
        if span is not None and not any((sg.start, sg.end) == span for sg in ctx.suggestions):
            ctx.suggestions.append(Suggestion(*span, word, d.word, d.fix, d.confidence))


def _tie_chosen(text: str, a: int, b: int, word: str, prev: str, nxt: str, sentence_start: bool,
                ctx: CleanContext, spans: list[tuple[str, int, int]], starts: list[int]) -> ContextDecision | None:
    """An unknown word the engine, judging it alone, found as likely one reading as
    another (``Decision.tied``): the one the sentence favours (``ContextReader.chooses``),
    unless the word is a piece of one the OCR broke. ``spans``: the paragraph's words
    (``_word_spans``), ``starts`` where each starts: made once a paragraph, for a
    paragraph of thousands of unknown words asked at each made it quadratic."""
    k = bisect.bisect_left(starts, a)
    if k == len(starts) or starts[k] != a:
        return None
    following = spans[k + 1][0] if k + 1 < len(spans) else ""
    ocr_factor = ctx.ocr.factor(ctx.raw_of(a, b)[0]) if ctx.ocr and ctx.raw_of else 1.0
    engine = ctx.corrector.decide(word, ctx.book, sentence_start, following, ocr_factor)
    if engine is None or engine.applied or not engine.tied or _piece_of_a_broken_word(text, spans, k, ctx):
        return None
    return ctx.reader.chooses(word, engine.tied, prev, nxt, sentence_start)


# what may part two pieces of one word: a space, specks of debris between two letters
# ('par.tie'), a hyphen whose line end was lost, with its debris ('mar-^ quer')
_SEPARATOR = r" (?=\p{L})|[.,'’^*|»«]+(?=\p{Ll})|-[^\w\s]*\s(?=\p{Ll})|-(?=\p{Ll})"
# … and the letters after it (in one match: a letter follows each kind of separator)
_SEPARATED = regex.compile(rf"(?:{_SEPARATOR})(\p{{L}}+)")
_LETTER_RUN = regex.compile(r"\p{L}+")
_PARTS = regex.compile(r"[ '-]")  # the words of a reading made of several


def _segmentation(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """Spaces the OCR added or lost, as the sentence decides (context.py): two words
    joined into the one they make, one word parted into two, left to right."""
    if ctx.reader is None:
        return
    reader, skip_until, toks = _reading(text, ctx)
    titles = ctx.res.lexicon.titles
    prev = "."
    k = 0
    while k < len(toks):
        tok, a, b = toks[k]
        word = text[a:b]
        clear = (a == 0 or text[a - 1] in _BEFORE_WORD) and (b == len(text) or text[b] in _AFTER_WORD_OR_DEBRIS)
        if a < skip_until or not clear or not word.isalpha():
            prev, k = tok, k + 1
            continue
        start = prev == "." and not _title_before(text, a, titles)
        second = _SEPARATED.match(text, b)
        if second is not None and (second.end() == len(text) or text[second.end()] in _AFTER_WORD):
            j = k + 1
            while j < len(toks) and toks[j][1] < second.end():
                j += 1
            after = toks[j][0] if j < len(toks) else "."
            d = reader.join(word, second.group(1), prev, after, start, text[b:second.start(1)])
            if d is not None and d.applied:
                yield Edit(a, second.end(), d.word, d.fix, d.confidence)
                prev, k = normal(d.word), j
                continue
        if b == len(text) or text[b] in _AFTER_WORD:
            nxt = toks[k + 1][0] if k + 1 < len(toks) else "."
            d = reader.split(word, prev, nxt, start)
            if d is not None and d.applied:
                yield Edit(a, b, d.word, d.fix, d.confidence)
                prev, k = normal(_PARTS.split(d.word)[-1]), k + 1
                continue
        prev, k = tok, k + 1


_DEBRIS = frozenset(".,'’^*|»«")
_AFTER_WORD_OR_DEBRIS = _AFTER_WORD | _DEBRIS


def _marker_end(text: str, ctx: CleanContext) -> int:
    """A number opening the paragraph is the segmenter's to read, not the speller's
    (the last paragraph's kept: three steps ask, most often of the same text)."""
    global _LAST_MARKER
    last, digits, end = _LAST_MARKER  # (one tuple, read and replaced whole: threads may share it)
    if text != last or digits is not ctx.res.digits:
        digits = ctx.res.digits
        m = number_marker(text, digits) or roman_marker(text)
        end = m.end if m else 0
        _LAST_MARKER = (text, digits, end)
    return end


_LAST_MARKER: tuple = (None, None, 0)


# -- words read from their neighbours ---------------------------------------------------------------------------

_LIST_TOKEN = regex.compile(r"[^\s,;.]+")
_LIST_GLUE = {"et", "ou", "par", "à", "de", "des", "les", "le", "&"}


def _numbers_in_lists(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """'par lo, 9 et 8': among numbers, a token that reads as one is one ('lo' → 10)."""
    ns = ctx.settings.number_in_list
    tokens = list(_LIST_TOKEN.finditer(text))
    is_number = [t.group().isdigit() for t in tokens]
    for k, t in enumerate(tokens):
        word = t.group()
        if is_number[k] or len(word) > 3 or sum(is_number[max(0, k - ns.window) : k + ns.window + 1]) < ns.min_numbers:
            continue
        if k == 0 and _marker_end(text, ctx):
            continue
        readings = ctx.res.digits.readings(word, max_cost=ns.max_cost)
        if not readings or ctx.res.lexicon.zipf(word) >= ns.word_zipf and len(word) > 1:
            continue
        # neighbours in the same clause: a ';' or a '.' ends the list
        neighbours = [
            tokens[j].group().lower() for j in (k - 1, k + 1)
            if 0 <= j < len(tokens) and not any(c in ";." for c in text[min(t.end(), tokens[j].end()) : max(t.start(), tokens[j].start())])
        ]
        if not neighbours or not all(n.isdigit() or n in _LIST_GLUE or ctx.res.digits.readings(n, max_cost=ns.max_cost)
                                     for n in neighbours):
            continue  # (a token the clause's stops cut off from both sides is no list's: 'Août. S. aux')
        value = min(readings, key=readings.get)
        yield Edit(t.start(), t.end(), str(value), "clean.number_in_list", round(ns.confidence - readings[value] / 2, 3))


# 'n ont', 'qu il', 'd aboid', 's^il': the apostrophe of an elided word, lost or misread
_CARET = "^"  # (the one speck the sentence reads words through, ``_SEPARATOR``)
_ELIDED = regex.compile(
    r"(?<![\p{L}\d'’])([ldnjmcLDNJMC]|[Qq]u|[Jj]usqu|[Ll]orsqu|[Pp]uisqu|[Qq]uoiqu|s(?=\s*\W?\s*(?:ils?|y|en)\b))"
    r"(\s+|\s*[\^`´]\s*|\s+['’]\s*|['’]\s+)"
    r"(?=[aeiouyhéèêëàâîïôûœAEIOUYHÉÈÊÀÂÎÔ])"
)


def _elision(text: str, ctx: CleanContext) -> Iterable[Edit]:
    apostrophe = "’" if text.count("’") > text.count("'") else "'"
    toks = starts = None  # the sequence model's tokens, read only where a speck may be a word's
    for m in _ELIDED.finditer(text):
        if ctx.reader is not None and m.group(2) == _CARET and m.group(1).islower():
            # a speck with no space about it may also be a glyph the OCR added inside one
            # word ('la m^ain') or a blot over its letters ('la m^in'): where the sentence
            # calls for such a word rather than for the elision, it is left to the steps after
            rest = _LETTER_RUN.match(text, m.end())
            if rest is not None:
                if toks is None:
                    toks = token_spans(text)
                    starts = [a for _, a, _ in toks]
                k = bisect.bisect_left(starts, m.start())
                j = bisect.bisect_left(starts, rest.end())
                prev = toks[k - 1][0] if k > 0 else "."
                nxt = toks[j][0] if j < len(toks) else "."
                d = ctx.reader.join(m.group(1), rest.group(), prev, nxt,
                                    prev == "." and not _title_before(text, m.start(), ctx.res.lexicon.titles), _CARET)
                if d is not None and d.applied:
                    continue
        if ctx.reader is not None:
            after = _LETTER_RUN.match(text, m.end())
            together = ctx.reader.sequence.model.together(m.group(1).lower() + "'", after.group().lower()) \
                if after is not None else None
            if together is not None and together < ctx.settings.segmentation.elision_together:
                continue  # no elision French prints ("j il": not "j'il")
        if m.group(1)[0].isupper() and len(m.group(1)) == 1:
            # a capital alone is an elision only where a sentence starts ('C est …');
            # inside one it names a player ('D est en droit')
            j = _stripped_end(text, m.start(), " «\"(")
            if j and text[j - 1] not in _SENTENCE_END:
                continue
        yield Edit(m.start(2), m.end(2), apostrophe, "clean.elision", ctx.settings.confidence.elision)


_PAIR = regex.compile(r"(?<![\p{L}'’])(\p{L}+) (\p{L}+)(?![\p{L}'’])")
_REAL_LETTERS = {"a", "à", "y", "ô", "o", "A", "À", "Y", "Ô", "O"}


# an apostrophe that elides nothing: after a space (the elided word's, "l ’on", joined
# before this step), or after a word's last e, where the OCR printed an é's accent apart
_LEADING_APOSTROPHE = regex.compile(r"(?<=^|[\s(«])['’](?=\p{Ll})")
_LONE_APOSTROPHE = regex.compile(r"(?<=\p{L}[,;]? )['’] (?=\p{L})")  # 'de même ' de tous'
_ACCENT_APART = regex.compile(r"(?<=\p{L})e['’](?=[\s,.;:!?»)]|$)")
_ELIDED_WORDS = frozenset(["l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu",
                           "quelqu", "presqu", "entr", "grand"])
_LONGEST_ELIDED = max(map(len, _ELIDED_WORDS)) + 1  # (a longer run of letters is none of them)
_LAST_LETTERS = regex.compile(r"\p{L}+$")


def _stripped_end(text: str, end: int, chars: str | None = None) -> int:
    """``len(text[:end].rstrip(chars))``, without the copy."""
    j = end
    if chars is None:
        while j > 0 and text[j - 1].isspace():
            j -= 1
    else:
        while j > 0 and text[j - 1] in chars:
            j -= 1
    return j


def _stray_apostrophes(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """"un 'atout" → 'un atout', 'il est donne'' → 'il est donné'."""
    lex = ctx.res.lexicon
    confidence = ctx.settings.confidence.stray_apostrophe
    for m in _LEADING_APOSTROPHE.finditer(text):
        # (the text before the mark read in place: copies of it, and a search of it, made
        # the step quadratic in a paragraph's length)
        j = _stripped_end(text, m.start())
        last = _LAST_LETTERS.search(text, max(0, j - _LONGEST_ELIDED), j)
        if last is not None and last.group().lower() in _ELIDED_WORDS and j == _stripped_end(text, m.start() - 1):
            continue  # "l 'on": an elision with a space in it
        if regex.search(r"\p{L}['’](?:[\s,.;:!?»)]|$)", text[m.end(): m.end() + 80].split(".")[0]):
            continue  # a quotation closed further on
        yield Edit(m.start(), m.end(), "", "clean.stray_apostrophe", confidence)
    for m in _LONE_APOSTROPHE.finditer(text):
        yield Edit(m.start(), m.end(), "", "clean.stray_apostrophe", confidence)
    for m in _ACCENT_APART.finditer(text):
        w = regex.search(r"\p{L}+$", text[max(0, m.start() - 40): m.start()])
        if w is None or text[max(0, m.start() - len(w.group()) - 1): m.start() - len(w.group())] in ("'", "’"):
            continue  # "'aime'": a word in quotation marks
        word = w.group() + "é"
        if len(word) > 2 and lex.known(word, 3.0) and w.group().lower() not in _ELIDED_WORDS:
            yield Edit(m.start(), m.end(), "é", "clean.stray_apostrophe", confidence)


def _split_words(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """'N ommant', 'j oue', 'S i': a word the OCR cut in two, when neither half is a word."""
    lex = ctx.res.lexicon
    sw = ctx.settings.split_word
    least = sw.fragment_zipf
    pos = 0
    for a_start, a_end, b_start, b_end in _word_pairs(text):
        if a_start < pos:
            continue  # (the second word of a pair just joined)
        a, b = text[a_start:a_end], text[b_start:b_end]
        joined = a + b
        za = 0.0 if len(a) == 1 else lex.best_zipf(a)
        zb = 0.0 if len(b) == 1 else lex.best_zipf(b)
        if (_fragment(a, lex, least) and _fragment(b, lex, least) and (joined[1:].islower() or _cut_in_capitals(a, b, ctx))
                and lex.best_zipf(joined) >= max(sw.joined_zipf, za + sw.joined_gain, zb + sw.joined_gain)):
            yield Edit(a_start, b_end, joined, "clean.split_word", ctx.settings.confidence.split_word)
            pos = b_end


def _cut_in_capitals(a: str, b: str, ctx: CleanContext) -> bool:
    """Two pieces in capitals of a word the OCR cut in two ('REMAR QUES', a heading's),
    each of two letters or more (single capitals are labels: 'la bande B C'), whose word
    is a common word of the period's language (a heading's word in capitals is a name's
    as often)."""
    return (len(a) > 1 and len(b) > 1 and a.isupper() and b.isupper()
            and ctx.corrector is not None and ctx.corrector.common_word((a + b).lower()))


# (the steps' helpers are functions of the module, not closures made in a step: a
# compiled generator holding a closure of its own is a cycle of references, garbage for
# the collector at each paragraph, which the clean stage is to leave none of)
def _fragment(x: str, lex, least: float) -> bool:
    """A piece that is no word of its own: a letter that is no word alone, or a word
    rarer than ``least``."""
    return x not in _REAL_LETTERS if len(x) == 1 else lex.best_zipf(x) < least


try:
    from ._tokens import word_pairs as _compiled_pairs  # setup.py: built at install where a compiler is
except ImportError:
    _compiled_pairs = None


def _word_pairs(text: str) -> list[tuple[int, int, int, int]]:
    """The spans of the two words of each ``_PAIR`` of a text, searched for from each
    pair's second word on (so each word that may be joined to the next is), found by
    the compiled ``_tokens.word_pairs`` where it was built (the same, tests/test_sequence.py)."""
    if _compiled_pairs is not None:
        return _compiled_pairs(text)
    out, pos = [], 0
    while (m := _PAIR.search(text, pos)) is not None:
        out.append((*m.span(1), *m.span(2)))
        pos = m.start(2)
    return out


def _joined_words(text: str, ctx: CleanContext) -> Iterable[Edit]:
    """'quitde', 'celuiqui': two words the OCR ran together."""
    lex = ctx.res.lexicon
    small = ctx.res.vocabulary.function_words
    js = ctx.settings.joined_words
    part = partial(_is_part, small, lex, js.part_min_length, js.part_zipf)
    pair = partial(_may_pair, small, js.both_min_length)
    littre = ctx.reader.sequence.model if ctx.reader is not None else SequenceModel.default()
    together = partial(_printed_together, littre, js.three_part_together, js.three_part_littre)
    longest = ctx.settings.corrector.longest_token
    tokens = _word_spans(text)
    for k, (word, start, end) in enumerate(tokens):
        compound = _lost_hyphen(text, word, start, end, lex)
        if compound is not None:
            yield Edit(start, end, compound, "clean.joined_words", ctx.settings.confidence.lost_hyphen)
            continue
        if not js.min_length <= len(word) <= longest or not word.isalpha() or lex.best_zipf(word) >= js.word_zipf:
            continue
        if ctx.book.counts.get(word.lower(), 0) >= js.book_min_count:
            continue  # the book's own word, a term no lexicon knows ('a surcase' in a book on trictrac)
        if word.isupper() or word[0].isupper() and word[1:].islower() and not _opens_sentence(text, start, lex.titles):
            continue  # a name inside a sentence ('de Lepeintre des Roches'), not 'Le peintre', or in capitals
        low = word.lower()
        if any(littre.count(v) >= js.littre_min_count for v in (low, *lex.period_modern(low))):
            # a word of the language the lexicon knows too little ('artistement'), or the
            # period's spelling of one ('croissoit'; wordfreq's 'laloi', a typo of the web
            # the Littré never prints, keeps no 'laloy' whole)
            continue
        if _joins_a_neighbour(text, tokens, k, lex.best_zipf, js.neighbour_zipf) or _hyphened_piece(text, start, end, lex):
            continue  # 'l'ad versaire': the first half of a word parted, not 'vers aire'
        partner = _hyphen_partner(text, tokens, k)
        if partner is not None and not one_word(partner, lex):
            continue  # a piece of one word misread across a hyphen ('sculp-tcurs'): the segmentation's to read
        parts = _parted(word, part, pair, lex.best_zipf, js.three_part_zipf, together)
        if parts is None or any(p[1:] != p[1:].lower() for p in parts):
            continue  # a capital inside a part is debris, not a word's ('maîtressesI': not 'maîtresse sI')
        if parts[0].lower() in lex.bound_prefixes or lex.verb_form(word):
            continue  # a prefix and its word ('antifrançaise'), a verb's form the lexicon lacks ('repasseront'): one word
        # a misread single word is the corrector's, not two words
        d = ctx.corrector.decide(word, ctx.book)
        if d is not None and d.cost <= js.corrector_max_cost:
            continue
        # a compound whose hyphen was lost ('peutêtre', 'vingtun') gets it back
        out = parts[0]
        for a, b in zip(parts, parts[1:]):
            out += ("-" if lex.hyphen_joins(a, b) else " ") + b
        yield Edit(start, end, out, "clean.joined_words", ctx.settings.confidence.joined_words)


def _is_part(small: frozenset[str], lex, min_length: int, least: float, x: str, floor: float | None = None) -> bool:
    """A piece of a token run together that may be a word of its own: a function word,
    or a word of ``min_length`` letters or more at least ``floor`` (else ``least``) common."""
    return x.lower() in small or (len(x) >= min_length and lex.best_zipf(x) >= (least if floor is None else floor))


def _printed_together(littre: SequenceModel, least: float, min_count: int, a: str, b: str) -> bool:
    """Whether each of a and b is a word the Littré prints at least ``min_count`` times,
    and b after a at least ``least`` of the times chance would pair them
    (``SequenceModel.together``)."""
    na, nb = normal(a), normal(b)
    if littre.count(na) < min_count or littre.count(nb) < min_count:
        return False
    ratio = littre.together(na, nb)
    return ratio is None or ratio >= least


def _may_pair(small: frozenset[str], min_length: int, a: str, b: str) -> bool:
    """Whether two pieces may be two words side by side: one a function word, or both
    of ``min_length`` letters or more."""
    return a.lower() in small or b.lower() in small or min(len(a), len(b)) >= min_length


_SPACE = (" ",)
_SPACE_OR_HYPHEN = (" ", "-")


def _joins_a_neighbour(text: str, tokens: list, k: int, zipf: Callable[[str], float], least: float,
                       between: tuple[str, ...] = _SPACE_OR_HYPHEN) -> bool:
    """Whether token k run together with the word before or after it, ``between`` apart
    (a space, or a hyphen: a line's end the print kept, 'l'ad-versaire'), is a word at
    least ``least`` common, as ``zipf`` (the lexicon's, with or without its variants) says."""
    word, start, end = tokens[k]
    if k > 0:
        before, _, before_end = tokens[k - 1]
        if text[before_end:start] in between and before.isalpha() and zipf(before + word) >= least:
            return True
    if k + 1 < len(tokens):
        after, after_start, _ = tokens[k + 1]
        return text[end:after_start] in between and after.isalpha() and zipf(word + after) >= least
    return False


def _parted(word: str, part: Callable[..., bool], pair: Callable[[str, str], bool],
            zipf: Callable[[str], float], three_zipf: float, printed_together: Callable[[str, str], bool]) -> list[str] | None:
    """The words a token is run together from: two if it can be two, the cut whose rarer
    word is the commonest; else three ('jouesansdire'), each next two as two would be,
    each word at least ``three_zipf`` common, each two side by side as French prints
    them (``printed_together``: 'du ne' is not, and 'dunemanière' no 'du ne manière'). A
    token that is exactly three words is less likely one word misread than one that is
    two, and a cut of it into three words that do not go together is no likelier."""
    two = [(min(zipf(a), zipf(b)), [a, b]) for k in range(2, len(word) - 1)
           for a, b in [(word[:k], word[k:])] if part(a) and part(b) and pair(a, b)]
    if two:
        return max(two)[1]
    if not word.islower():
        return None  # 'Villardin' is a name, not 'Vil lard in'
    three = []
    for k in range(2, len(word) - 3):
        a = word[:k]
        if not part(a, three_zipf):
            continue
        for j in range(k + 2, len(word) - 1):
            b, c = word[k:j], word[j:]
            if (part(b, three_zipf) and part(c, three_zipf) and pair(a, b) and pair(b, c)
                    and printed_together(a, b) and printed_together(b, c)):
                three.append((min(zipf(a), zipf(b), zipf(c)), [a, b, c]))
    return max(three)[1] if three else None


_HYPHENATED = regex.compile(r"[\p{L}'’]+(?:-[\p{L}'’]+)+")


def _lost_hyphen(text: str, word: str, start: int, end: int, lex) -> str | None:
    """'peutêtre', 'c'està-dire': a listed compound with one of its hyphens lost (the
    word at text[start:end])."""
    lo, hi = max(0, start - 20), min(len(text), end + 20)
    if text.find("-", lo, hi) < 0:
        return None  # (most words: no compound is matched without a hyphen)
    span = None
    for h in _HYPHENATED.finditer(text, lo, hi):
        if h.start() <= start and h.end() >= end:
            span = h
            break
    if span is None:
        return None
    for k in range(1, len(word)):
        fixed = text[span.start() : start] + word[:k] + "-" + word[k:] + text[end : span.end()]
        if fixed.lower().replace("’", "'") in lex.compounds:
            return word[:k] + "-" + word[k:]
    return None


STEPS: tuple[Step, ...] = (
    Step(("clean.invisible",), _invisible),
    Step(("clean.typography",), _typography),
    Step(("clean.letter_spacing",), _letter_spacing),
    Step(("clean.bracket_p",), _bracket_p),
    Step(("clean.bracket_q",), _bracket_q),
    Step(("clean.stray_mark",), _stray_marks),
    Step(("clean.debris_mark",), _debris_marks),
    Step(("clean.digits_in_number",), _digits_in_numbers),
    Step(("clean.spacing",), _spacing),
    Step(("clean.number_in_list",), _numbers_in_lists),
    Step(("clean.elision",), _elision),
    Step(("clean.stray_apostrophe",), _stray_apostrophes),
    Step(("clean.split_word",), _split_words),
    Step(("clean.joined_words",), _joined_words),
    Step(("clean.non_word", "clean.real_word", "clean.long_s", "clean.context_reading"), _words),
    Step(("clean.segmentation",), _segmentation),
    Step(("clean.context_word", "clean.context_nonword"), _in_context),
)
