"""What can open a paragraph: a number, a Roman numeral, a game's heading, a note mark.

Layout uses these to know where a paragraph cannot be continued, segmentation to
give passages their kind. Each function looks at the start of a text and returns a
``Marker`` (or ``None``); none of them decides alone whether a number is an article:
that is the sequence's job (``segment``).
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from .numbers import DIGITS, DigitModel, parse_roman
from .text import fold

_UP = r"A-ZÀ-ÖØ-ÝŒÆ"


@dataclass(frozen=True)
class Marker:
    kind: str  # 'number', 'ordinal', 'roman', 'word', 'note', 'heading'
    token: str  # as printed
    start: int  # span of the whole marker (token and terminator) in the text
    end: int
    value: int | None = None  # for roman, word and note markers
    name: str | None = None  # for headings: the game's name as printed
    alternative: str | None = None  # 'TRE-SETTE, ou TROIS-SEPT': the second name
    loose: bool = False  # a number whose full stop was lost or read as a comma ('3 Que', 'VII, Celui')


# A number opening a paragraph: glyphs that can be digits, then '.', '..', '-' or '*'.
_NUMBER = regex.compile(
    r"^(?P<lead>[\s'\"‘’`«]*)(?P<tok>[\w;»()\[\]|!/$&^]{1,4}(?: [\w;»]{1,2})?)(?P<space> ?)(?P<term>\.{1,2}[,;]?|-|\*|°\.?|\"\.?|º\.?)(?=\s|$)"
)
_ROMAN = regex.compile(r"^(?P<lead>\s*)(?P<tok>[IVXLCiyl1|]+(?: [IVXLCil|]+){0,5})\s?\.(?=\s)")
_WORD_ARTICLE = regex.compile(r"^\s*(?P<tok>ARTICLE|Article|ART\.|Art\.)\s+(?P<word>[\w-]+)\s*\.?", regex.V1)
# A number whose full stop was lost or read as a comma: only before a capital, since
# '10 livres' and 'VI et VII' are no articles. A Roman one must open with a capital
# (the 'l' of 'Vl' is an I), so that 'Il' and 'y' stay words.
_LOOSE = regex.compile(r"^(?P<tok>[0-9]{1,3}|[IVX][IVXl]{0,5})(?P<term>,?)\s+(?=[«\"]?\p{Lu})")
# Where an article may run on inside a paragraph: after a sentence end.
_SENTENCE_END = regex.compile(r"(?<=[.!?][»\"')]?)\s+(?=\S)")
_DIVISION = regex.compile(r"^\s*(?P<tok>\p{L}+\.?)\s+(?P<word>[\w-]+)\s*\.?")
_NOTE = regex.compile(r"^\s*\(\s*\^?\s*(?P<tok>[0-9ilI|!*]{1,2})\s*\)\s*")
_NOTE_CALL = regex.compile(r"\(\s*\^?\s*(?P<tok>[0-9ilI|!*]{1,2})\s*\)")
_HEADING = regex.compile(
    rf"^(?P<name>[{_UP}](?:[{_UP}'’\-]|[ .,](?=[ .,]*[{_UP}]))*?)"
    rf"(?:\s*,?\s*(?:ou|or|on)\s+(?P<alt>[{_UP}][{_UP}'’ \-]*?))?"
    r"[\s.,]*\(\s*[Jj]eu\s+(?P<art>du|de\s+la|de\s+l['’]|des|de|à)\s*\)\s*\.?",
)


def number_marker(text: str, digits: DigitModel) -> Marker | None:
    """An arabic number (however damaged) or an ordinal ('1°.') opening the text."""
    m = _NUMBER.match(text)
    if not m:
        return None
    tok = m["tok"]
    term = m["term"]
    if term[0] in "°º\"":
        return Marker("ordinal", tok, m.start("tok"), m.end(), value=None)
    glyphs = tok.replace(" ", "")
    if len(glyphs) > 4:
        return None
    real_digits = sum(c in DIGITS for c in glyphs)
    if digits.digit_likeness(tok) < 0.5:
        return None
    if real_digits == 0 and len(glyphs) > 3:
        return None
    if term == "-" and real_digits == 0:
        return None  # 'Si-' is a word broken at a line end, not a number
    return Marker("number", tok, m.start("tok"), m.end())


def loose_marker(text: str) -> Marker | None:
    """A number opening the text whose full stop was lost or read as a comma,
    before a capital: '3 Que quand …', 'VII, Celui …'."""
    m = _LOOSE.match(text)
    if not m:
        return None
    tok = m["tok"]
    if tok.isdigit():
        return Marker("number", tok, 0, m.end("term"), loose=True)
    value = parse_roman(tok)
    if value is None:
        return None
    return Marker("roman", tok, 0, m.end("term"), value=value, loose=True)


def article_markers(text: str, digits: DigitModel, ordinal_words: dict[str, int], loose: bool = True) -> list[Marker]:
    """Every reading of a number opening the text as an article's: an arabic number,
    a Roman numeral, an article word; with ``loose``, also a number that lost its
    full stop. Ordinal list items ('1°.') are not among them."""
    out = []
    number = number_marker(text, digits)
    if number and number.kind == "number":
        out.append(number)
    roman = roman_marker(text)
    if roman:
        out.append(roman)
    word = word_article_marker(text, ordinal_words)
    if word:
        out.append(word)
    if not out and loose:
        m = loose_marker(text)
        if m:
            out.append(m)
    return out


def run_on_articles(text: str, digits: DigitModel, ordinal_words: dict[str, int]) -> list[tuple[int, list[Marker]]]:
    """Numbers inside a text that could open an article run on into the paragraph
    ('… ne les compte pas. IX. Tout …'): after a sentence end, before a capital.
    Each (offset, its markers, relative to the offset); whether it is an article is
    the sequence's decision."""
    out = []
    for m in _SENTENCE_END.finditer(text):
        pos = m.end()
        if text[pos].isalpha() and text[pos].islower():
            continue
        head = text[pos : pos + 60]
        markers = article_markers(head, digits, ordinal_words)
        if not markers:
            continue
        end = max(k.end for k in markers)
        after = head[end:].lstrip(" .")
        if after[:1] in "«\"":
            after = after[1:]
        if after[:1].isupper():
            out.append((pos, markers))
    return out


def roman_marker(text: str) -> Marker | None:
    m = _ROMAN.match(text)
    if not m:
        return None
    value = parse_roman(m["tok"])
    if value is None:
        return None
    return Marker("roman", m["tok"], m.start("tok"), m.end(), value=value)


def word_article_marker(text: str, ordinal_words: dict[str, int]) -> Marker | None:
    m = _WORD_ARTICLE.match(text)
    if not m:
        return None
    return _word_number(m, ordinal_words)


def division_marker(text: str, division_words: frozenset[str], ordinal_words: dict[str, int]) -> Marker | None:
    """A division's word and its number opening the text: 'CHAPITRE SECOND.',
    'Section III.'."""
    m = _DIVISION.match(text)
    if not m or fold(m["tok"].rstrip(".")) not in division_words:
        return None
    return _word_number(m, ordinal_words)


def _word_number(m: regex.Match, ordinal_words: dict[str, int]) -> Marker | None:
    word = fold(m["word"])
    value = ordinal_words.get(word)
    if value is None and word.isdigit():
        value = int(word)
    if value is None:
        value = parse_roman(m["word"])
    if value is None:
        return None
    return Marker("word", m.group(0).strip(), m.start("tok"), m.end(), value=value)


def note_value(token: str) -> int | None:
    token = token.replace("^", "")
    if token.isdigit():
        return int(token)
    if len(token) == 1 and token in "ilI|!":
        return 1
    if token == "*":
        return 1
    return None


def note_marker(text: str) -> Marker | None:
    """A footnote's own mark opening its text: '(1) C'est …', OCR'd '(l)', '(i)'."""
    m = _NOTE.match(text)
    if not m:
        return None
    value = note_value(m["tok"])
    if value is None or m.end() >= len(text):
        return None
    return Marker("note", m.group(0), m.start(), m.end(), value=value)


def note_calls(text: str) -> list[Marker]:
    """Calls of footnotes inside a text: 'napolitaine (^i)', 'main(^i).'."""
    out = []
    for m in _NOTE_CALL.finditer(text):
        if m.start() == 0:
            continue
        value = note_value(m["tok"])
        if value is not None:
            out.append(Marker("note", m.group(0), m.start(), m.end(), value=value))
    return out


def heading_marker(text: str) -> Marker | None:
    """A dictionary heading: 'TRICTRAC (jeu du).', 'T R E I Z E . ( Jeu du )'."""
    m = _HEADING.match(text)
    if not m:
        return None
    name = _unspace(m["name"])
    if len(regex.sub(r"[^\w]", "", name)) < 2:
        return None
    alt = _unspace(m["alt"]) if m["alt"] else None
    return Marker("heading", m.group(0), 0, m.end(), name=name, alternative=alt)


def _unspace(name: str) -> str:
    """'T R E I Z E .' → 'TREIZE'; 'TRE-SETTE ,' → 'TRE-SETTE'."""
    name = name.strip(" .,")
    parts = name.split()
    if len(parts) > 2 and all(len(p.strip(".,")) == 1 for p in parts):
        name = "".join(p.strip(".,") for p in parts)
    return regex.sub(r"\s*([-'’])\s*", r"\1", name).strip(" .,")


def opens_structure(text: str, digits: DigitModel) -> bool:
    """Whether a line opens a new unit: a numbered rule, a heading, a note."""
    return bool(
        number_marker(text, digits)
        or roman_marker(text)
        or heading_marker(text)
        or note_marker(text)
        or _WORD_ARTICLE.match(text)
    )
