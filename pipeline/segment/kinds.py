"""Giving every paragraph its kind, and splitting those that hold several units: a
game's dictionary heading and its first paragraph, a run-in section title and its
text, several glossary entries. A ``Draft`` is a passage before its number, its game
and its citation are settled for the chapter as a whole."""

from __future__ import annotations

from dataclasses import dataclass, field

import regex

from ..games import slugify
from ..markers import Marker, division_marker, heading_marker, loose_marker, number_marker, roman_marker, word_article_marker
from ..numbers import Reading
from ..resources import Resources
from ..text import MappedText, fold
from .settings import SegmentSettings, Titles

_SENTENCE_END = regex.compile(r"[.!?](?=\s+[\p{Lu}«\"(]|\s*$)")
_WORD = regex.compile(r"[\p{L}'’]+")


@dataclass
class Draft:
    kind: str
    text: MappedText
    page_seq: int
    markers: list[Marker] = field(default_factory=list)  # number readings to decide
    roman_value: int | None = None
    number: int | None = None
    number_raw: str | None = None
    term: str | None = None
    note: int | None = None
    game: str | None = None
    game_name: str | None = None
    mentions: str | None = None  # a game named in a title
    glossary: bool = False
    note_for: int | None = None
    decided: Reading | None = None
    barrier: bool = False  # a new game starts here: numbering may start afresh
    run_ons: list[tuple[int, list[Marker]]] = field(default_factory=list)  # numbers inside that may open articles


def split_block(text: MappedText, page_seq: int, in_glossary: bool, res: Resources) -> list[Draft]:
    t = text.text
    heading = heading_marker(t)
    if heading:
        head, rest = text.split(heading.end)
        slug = res.catalogue.match_name(heading.name) or (
            res.catalogue.match_name(heading.alternative) if heading.alternative else None
        )
        d = Draft("heading", head.strip(), page_seq, game=slug or slugify(heading.name), game_name=heading.name)
        if not slug:
            d.game_name = heading.name.title()
        out = [d]
        rest = rest.strip()
        if rest.text:
            out += split_block(rest, page_seq, False, res)
        return out

    roman = roman_marker(t)
    word = word_article_marker(t, res.vocabulary.ordinal_words)
    number = number_marker(t, res.digits)
    if roman:
        after = t[roman.end :].lstrip()
        title_end = _numbered_title_end(after, res)
        if title_end is not None:
            cut = len(t) - len(after) + title_end
            return _section_and_rest(text, cut, page_seq, res, roman_value=roman.value, number_raw=roman.token)
    loose = None if roman or word or number else loose_marker(t)
    if loose:
        return [Draft("article", text, page_seq, markers=[loose])]
    if roman or word or number:
        d = Draft("article", text, page_seq)
        if number:
            d.markers.append(number)
        if roman:
            d.markers.append(roman)
            d.roman_value = roman.value
        if word:
            d.markers.append(word)
        return [d]

    title_end = _section_title_end(t, res)
    if title_end is not None:
        return _section_and_rest(text, title_end, page_seq, res)

    if in_glossary:
        glosses = _split_glosses(text, page_seq, res)
        if glosses:
            return glosses
    return [Draft("paragraph", text, page_seq)]


def _section_and_rest(text: MappedText, cut: int, page_seq: int, res: Resources, **number) -> list[Draft]:
    """A section title ending at ``cut``, and the drafts of the text it runs into."""
    section, rest = text.split(cut)
    d = Draft("section", section.strip(), page_seq, **number)
    division = division_marker(section.text, res.vocabulary.division_words, res.vocabulary.ordinal_words)
    if division and division.value and not number:
        d.number, d.number_raw = division.value, division.token  # 'CHAPITRE SECOND.': section 2
    d.glossary = _is_glossary_title(section.text, res)
    d.mentions = res.catalogue.mentioned_game(section.text, res.vocabulary.game_mention_markers)
    out = [d]
    rest = rest.strip()
    if rest.text:
        out += split_block(rest, page_seq, d.glossary, res)
    return out


def join_article_headings(drafts: list[Draft], res: Resources) -> list[Draft]:
    """'ARTICLE SIXIÈME.' on a line of its own numbers the paragraph after it."""
    out: list[Draft] = []
    for d in drafts:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == "article"
            and d.kind == "paragraph"
            and prev.markers
            and not prev.text.text[max(m.end for m in prev.markers):].strip(" .")
        ):
            prev.text = prev.text.concat(d.text, " ", "segment.article_heading")
            continue
        out.append(d)
    return out


def _first_word(text: str) -> str:
    m = _WORD.search(text[:40])
    return m.group().lower().replace("’", "'") if m else ""


def _numbered_title_end(after: str, res: Resources) -> int | None:
    """Where the title after a number ends, if what follows the number is a title."""
    words = _WORD.findall(after[:40])
    if not words:
        return None
    first = words[0].lower().replace("’", "'")
    if first.startswith(("d'", "d’")):
        first = "d'"
    s = SegmentSettings.default().titles
    letters = [c for c in after[:60] if c.isalpha()]
    all_caps = letters and sum(c.isupper() for c in letters) / len(letters) > s.all_caps
    if first not in res.vocabulary.numbered_title_openers and not all_caps:
        return None
    return _title_sentence_end(after, res, s.numbered_max, s)


def _title_sentence_end(text: str, res: Resources, limit: int, s: Titles) -> int | None:
    """The end of a title at the start of ``text``: its full stop, or the word that
    starts the text it runs into; None if the title would be longer than ``limit``."""
    m = _SENTENCE_END.search(text)
    end = m.end() if m else len(text)
    for w in regex.finditer(r"(?<=\p{Ll}[,]?\s)(\p{Lu}[\p{L}'’]*)", text[:end]):
        if w.group(1).lower().replace("’", "'") in res.vocabulary.sentence_openers and w.start() > s.opener_min_offset:
            end = w.start()
            break
    if end > limit:
        return None
    return end


def _is_glossary_title(text: str, res: Resources) -> bool:
    f = fold(text[:150])
    return any(w in f for w in res.vocabulary.glossary_title_words)


def _section_title_end(t: str, res: Resources) -> int | None:
    first = _first_word(t)
    if first not in res.vocabulary.section_starters:
        # a title naming a glossary may open with a damaged word ('f^ùcabulnirc
        # explicatif des principaux termes …'), but a sentence ('Il y a des termes …') is no title
        if first in res.vocabulary.sentence_openers or not _is_glossary_title(t[:60], res):
            return None
    s = SegmentSettings.default().titles
    end = _title_sentence_end(t, res, s.alone_max, s)
    if end is None:
        return None
    if end >= len(t.rstrip()) - 1:
        return len(t)  # the whole paragraph is the title
    if end > s.run_in_max:
        return None  # a long first sentence is text, not a run-in title
    return end


def _gloss_re(res: Resources) -> regex.Pattern:
    openers = "|".join(regex.escape(o).replace("'", "['’]") for o in res.vocabulary.gloss_openers)
    return regex.compile(rf"(?P<term>\p{{Lu}}[^.!?]{{0,45}}?)\.\s+(?=(?i:{openers})\b)")


def _split_glosses(text: MappedText, page_seq: int, res: Resources) -> list[Draft]:
    t = text.text
    pattern = _gloss_re(res)
    max_words = SegmentSettings.default().glosses.max_term_words
    m = pattern.match(t)
    if not m or len(m["term"].split()) > max_words:
        return []
    starts = [0]
    for s in regex.finditer(r"[.!?]\s+", t):
        pos = s.end()
        g = pattern.match(t, pos)
        if g and len(g["term"].split()) <= max_words and pos > starts[-1]:
            starts.append(pos)
    out = []
    for a, b in zip(starts, starts[1:] + [len(t)]):
        part = text.slice(a, b).strip()
        term = pattern.match(part.text)
        out.append(Draft("gloss", part, page_seq, term=term["term"].strip() if term else None))
    return out
