"""Stage 3, clean: named, explainable fixes of the OCR, each a recorded edit.

Like ftfy, cleaning is a list of rules applied in order; each rule finds edits in
the current text and says why it makes them. ``fix_and_explain`` returns the clean
text with the list of what was done. The rules here are the first layer, enough for
the structure to be read (typography, letter spacing, bracket debris, spacing,
numbers); the correction engine adds its rules to the same list, and the
``corrections`` table records every edit whatever rule made it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

import regex

from .numbers import DIGITS
from .records import Block, Layout
from .resources import Resources
from .text import Correction, Edit, MappedText


@dataclass(frozen=True)
class Rule:
    name: str
    explanation: str
    find: Callable[[str, Resources], Iterable[Edit]]


# -- the rules -------------------------------------------------------------------------------

_LIGATURES = {"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st", "ſ": "s"}


def _typography(text: str, res: Resources) -> Iterable[Edit]:
    for m in regex.finditer(r"[ﬁﬂﬀﬃﬄﬅﬆſ]", text):
        yield Edit(m.start(), m.end(), _LIGATURES[m.group()], "clean.typography", 1.0)


_SPACED_CAPITALS = regex.compile(r"(?<![\p{L}\d])(?:\p{Lu} ){2,}\p{Lu}(?![\p{L}\d])")


def _letter_spacing(text: str, res: Resources) -> Iterable[Edit]:
    # 'T R E I Z E': capitals spaced out for display, one word
    for m in _SPACED_CAPITALS.finditer(text):
        yield Edit(m.start(), m.end(), m.group().replace(" ", ""), "clean.letter_spacing", 0.95)


# Glyph debris the OCR makes of a 'p' ('trom[)erie', 'ap|>ar…', 'j)ar') and of a 'q'
# ('«juatre', '<|ue', '(|ui'), recognised only inside a word.
_P_DEBRIS = regex.compile(r"(?<=\p{L}|^|[\s'’])(?:\[\)|\|\)|\|>|\]\)|\{\)|\[i(?=\p{Ll})|j\)(?=\p{L}))(?=\p{L})")
_Q_DEBRIS = regex.compile(r"(?<=^|[\s'’])(?:«j|«\[|<\||\(\||\(\[)(?=[uü]\p{L}|[uü]['’])")


def _bracket_p(text: str, res: Resources) -> Iterable[Edit]:
    for m in _P_DEBRIS.finditer(text):
        yield Edit(m.start(), m.end(), "p", "clean.bracket_p", 0.9)


def _bracket_q(text: str, res: Resources) -> Iterable[Edit]:
    for m in _Q_DEBRIS.finditer(text):
        yield Edit(m.start(), m.end(), "q", "clean.bracket_q", 0.85)


_STRAY_MARK = regex.compile(r"(?<=\s|^)[■\\^£$|¦~`]+(?=\s|$)|(?<=[.,;:!?])\s+[*■\\^]+\s*$")


def _stray_marks(text: str, res: Resources) -> Iterable[Edit]:
    for m in _STRAY_MARK.finditer(text):
        start, end = m.start(), m.end()
        if start > 0 and text[start - 1] == " " and m.group()[0] != " ":
            start -= 1
        yield Edit(start, end, "", "clean.stray_mark", 0.9)


# One space between words; none before , . ) ; : ! ? or after ( (the gold convention).
_SPACE_BEFORE = regex.compile(r"(?<=\S)[ \t]+(?=[,.;:!?)](?:\s|$|[,.;:!?)\"»]))")
_SPACE_AFTER = regex.compile(r"(?<=\()[ \t]+")
_MULTI_SPACE = regex.compile(r"[ \t]{2,}")


def _spacing(text: str, res: Resources) -> Iterable[Edit]:
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


def _digits_in_numbers(text: str, res: Resources) -> Iterable[Edit]:
    for m in _MIXED_NUMBER.finditer(text):
        if m.start() == 0:
            continue  # a paragraph's own number is read with its sequence (segment)
        token = m.group()
        if all(c in DIGITS for c in token):
            continue
        fixed = "".join(_CERTAIN.get(c, c) for c in token)
        yield Edit(m.start(), m.end(), fixed, "clean.digits_in_number", 0.9)


RULES: list[Rule] = [
    Rule("clean.typography", "ligatures and the long s written as plain letters", _typography),
    Rule("clean.letter_spacing", "capitals spaced for display joined into their word", _letter_spacing),
    Rule("clean.bracket_p", "bracket debris the OCR made of a p ('trom[)erie' → 'tromperie')", _bracket_p),
    Rule("clean.bracket_q", "bracket debris the OCR made of a q ('«juatre' → 'quatre')", _bracket_q),
    Rule("clean.stray_mark", "marks standing alone that belong to no word", _stray_marks),
    Rule("clean.digits_in_number", "letters read for digits inside a number ('3i' → '31')", _digits_in_numbers),
    Rule("clean.spacing", "one space between words, none before , . ; : ! ? )", _spacing),
]


def clean_text(text: MappedText, res: Resources, rules: list[Rule] | None = None) -> MappedText:
    for rule in rules if rules is not None else RULES:
        edits = list(rule.find(text.text, res))
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


def clean(layout: Layout, res: Resources) -> Layout:
    blocks = tuple(replace(b, text=clean_text(b.text, res)) for b in layout.blocks)
    return replace(layout, blocks=blocks)


def fix_and_explain(text: str, res: Resources, rules: list[Rule] | None = None) -> tuple[str, list[Correction]]:
    """Clean a text and say what was done, each edit with its rule and confidence."""
    mt = clean_text(MappedText.from_raw(text, 0, len(text)), res, rules)
    return mt.text, mt.corrections()
