"""Paragraphs rebuilt from lines: hard-wrapped lines reflowed, a paragraph broken by
a line end, a blank line or a page break continued when it ends mid-sentence, a word
hyphenated across the break mended, footnotes set apart. Every join is an edit of a
``MappedText`` under a layout fix, so each paragraph still maps back, character by
character, to the raw text."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex

from ..lexicon import Lexicon
from ..markers import heading_marker, note_marker, opens_structure, roman_marker
from ..records import Block, Page, page_at
from ..resources import Resources
from ..text import Edit, MappedText, Piece, fold_letters, merge_unchanged
from .lines import Line
from .settings import Hyphens, LayoutSettings, Paragraphs

_TERMINAL = ".!?:;"
_TRAILING_GARBAGE = " *'\"\\^`_|»«"
_LETTER = regex.compile(r"\p{L}")
_WORD_AT_END = regex.compile(r"([\p{L}'’]+)[-¬]$")  # '¬': the hyphen as eScriptorium transcribes it
_WORD_AT = regex.compile(r"[^\s,.;:!?]+")  # (matched where the word after a hyphen starts)
_WORD_BEFORE = regex.compile(r"[\p{L}'’]+$")  # (searched for up to a hyphen)
_LONGEST_WORD = 100  # no word runs longer (the garbage that does is cut there)
_JOIN_REACH = 120  # what a line's join reads of the text before it: its last 60 characters, its last one
_INLINE_BREAK = regex.compile(r"(?<=\p{L})([\p{L}'’]*)- (?=[\p{L}^])")
# … or, in a paragraph the export ran together, with no space after it: 'Aca-démie'
_HYPHENED_WORD = regex.compile(r"[\p{L}'’]+(?:-[\p{L}'’]+)*")
_INLINE_BREAK_OR_BARE = regex.compile(r"(?<=\p{L})([\p{L}'’]*)-(?: (?=[\p{L}^])|(?=\p{Ll}))")


@dataclass
class Unit:
    """Lines that belong together before paragraphs are joined: one line, or the lines
    of a wrapped paragraph."""

    text: MappedText
    first: int  # line indices
    last: int
    note: int | None = None


@dataclass
class Join:
    """A decision to continue a paragraph across the raw between two units."""

    left: int  # unit indices
    right: int
    kind: str  # 'page_break' or 'continued'
    gap_start: int
    gap_end: int


def form(lines: list[Line], s: Paragraphs) -> str:
    """How the export lays paragraphs out: 'blank-separated', 'line-per-paragraph',
    'wrapped' (one line per printed line) or 'run-on' (no line breaks at all, as
    Google Books gives its text)."""
    text_lines = [l for l in lines if l.kind == "text"]
    if not text_lines:
        return "blank-separated"
    if statistics.median(len(l.stripped) for l in text_lines) > s.run_on_length:
        return "run-on"
    followed_by_blank = 0
    for l in text_lines:
        nxt = lines[l.index + 1] if l.index + 1 < len(lines) else None
        if nxt is None or nxt.kind == "blank":
            followed_by_blank += 1
    if followed_by_blank / len(text_lines) > s.blank_separated:
        return "blank-separated"
    lengths = [len(l.stripped) for l in text_lines]
    open_ended = sum(1 for l in text_lines if _ending(l.stripped)[-1:] not in _TERMINAL) / len(text_lines)
    hyphenated = sum(1 for l in text_lines if _WORD_AT_END.search(l.stripped)) / len(text_lines)
    if statistics.median(lengths) < s.wrapped_median and (open_ended > s.wrapped_open_ended
                                                          or hyphenated > s.wrapped_hyphenated):
        return "wrapped"
    return "line-per-paragraph"


def _ending(text: str) -> str:
    return text.rstrip(_TRAILING_GARBAGE)


def _starts_lower(text: str) -> bool:
    m = _LETTER.search(text[:4])
    return bool(m) and m.group().islower() and not text.lstrip().startswith(("(", "[")) or (
        bool(text) and text[0] in ",;:)"
    )


def _starts_upper(text: str) -> bool:
    m = _LETTER.search(text[:3])
    return bool(m) and m.group().isupper()


def units(raw: str, lines: list[Line], form: str, res: Resources, s: LayoutSettings,
          inline_heads: list[Line] = ()) -> list[Unit]:
    """The chapter's lines grouped into units; ``inline_heads``, the running heads left
    inside a line (a run-on chapter), are cut out of the text they interrupt."""
    groups: list[list[Line]] = []
    if form == "wrapped":
        text_lines = [l for l in lines if l.kind == "text"]
        width = statistics.median(len(l.stripped) for l in text_lines)
        group: list[Line] = []
        for line in lines:
            if line.kind != "text":
                if group:
                    groups.append(group)
                    group = []
                continue
            if group and ends_paragraph(group[-1], line, width, res, s.paragraphs):
                groups.append(group)
                group = []
            group.append(line)
        if group:
            groups.append(group)
    else:
        groups = [[l] for l in lines if l.kind == "text"]
    # a chapter whose export ran each paragraph's lines together kept its line ends'
    # hyphens inside the lines, with no space after them: 'Aca-démie'
    reflowed = form != "wrapped"
    return [unit_from_lines(raw, g, res, s.hyphens, inline_heads=inline_heads, reflowed=reflowed) for g in groups]


def ends_paragraph(prev: Line, nxt: Line, width: float, res: Resources, s: Paragraphs) -> bool:
    p, n = prev.stripped, nxt.stripped
    if _ends_on_function_word(p, res):
        return False  # 'imprimé en' / '1718. On …': a date at a line start opens nothing
    if opens_structure(n, res.digits):
        return True
    ends = _ending(p)
    terminal = ends[-1:] in _TERMINAL
    if terminal and _starts_upper(n) and _indent(nxt) > _indent(prev):
        return True  # an indented first line
    if (roman_marker(p) or heading_marker(p)) and (terminal or len(p) < s.marker_line * width):
        return True
    if terminal and _starts_upper(n) and len(p) < s.full_line * width:
        return True
    if len(p) < s.short_line * width and _starts_upper(n) and not p.endswith("-"):
        return True
    return False


def _indent(line: Line) -> int:
    return len(line.text) - len(line.text.lstrip())


def _ends_on_function_word(text: str, res: Resources) -> bool:
    last_word = regex.findall(r"[\p{L}'’]+", _ending(text)[-30:])
    return bool(last_word) and last_word[-1].lower().replace("’", "'") in res.vocabulary.function_words


def unit_from_lines(raw: str, group: list[Line], res: Resources, s: Hyphens,
                    hyphenated: Mapping[int, str] | None = None, inline_heads: Sequence[Line] = (),
                    reflowed: bool = False) -> Unit:
    first = group[0]
    mt = _line_text(raw, first)
    done: list[Piece] = []  # the paragraph's pieces no later join reads (a join reads its left's end)
    for line in group[1:]:
        mt = join(mt, _line_text(raw, line), [], "layout.reflow", res.lexicon, s, hyphenated)
        # (joined to a paragraph of thousands of lines, each line made the whole text again: only
        # its last pieces, _JOIN_REACH characters or more, go on being joined to)
        pieces, k, length = mt.pieces, len(mt.pieces), 0
        while k > 0 and length < _JOIN_REACH:
            k -= 1
            length += len(pieces[k].text)
        if k > 0:
            done.extend(pieces[:k])
            mt = MappedText(raw, pieces[k:])
    if done:
        mt = MappedText(raw, merge_unchanged([*done, *mt.pieces]))
    # each head and the spaces around it become one space, as at any page break; heads
    # printed side by side go together
    spans: list[list[int]] = []
    for h in inline_heads:
        if mt.raw_start < h.start and h.end < mt.raw_end:
            if spans and spans[-1][1] >= h.start - 1:
                spans[-1][1] = h.end + 1
            else:
                spans.append([h.start - 1, h.end + 1])
    if spans:
        mt = mt.apply([Edit(mt.from_raw_offset(a), mt.from_raw_offset(b), " ", "layout.page_break") for a, b in spans])
    mt = _mend_inline_breaks(mt, res.lexicon, s, _printed_words(raw) if reflowed else None)
    note = note_marker(mt.text)
    return Unit(mt, first.index, group[-1].index, note.value if note else None)


def _line_text(raw: str, line: Line) -> MappedText:
    lead = len(line.text) - len(line.text.lstrip())
    trail = len(line.text.rstrip())
    return MappedText.from_raw(raw, line.start + lead, line.start + trail)


def mend_break(left: str, right: str, lex: Lexicon, s: Hyphens, whole: str | None = None,
               inline: bool = False) -> tuple[str, str, float]:
    """How to mend a word broken by a hyphen at a line end: 'left-' / 'right'.

    Returns the joiner ('' to join, '-' to keep the hyphen, ' ' when the hyphen was a
    stray mark between two words), the fix, and a confidence. ``whole`` is the word
    as the OCR file says it was hyphenated (ALTO's SUBS_CONTENT), when it says.
    ``inline``: the hyphen is inside a line ('de- place'), where a stray mark between
    two words is as likely as a line end the export lost.
    """
    l, r = left.replace("’", "'"), right.replace("’", "'")
    if whole:
        whole = whole.replace("’", "'").strip(".,;:!?«»()[]\"")  # some exports keep the word's punctuation
        if whole == l + r:
            return "", "layout.join_hyphenated", 1.0
        if whole == f"{l}-{r}":
            return "-", "layout.keep_hyphen", 1.0
    if f"{l}-{r}".lower() in lex.compounds:
        return "-", "layout.keep_hyphen", s.compound
    if r[:1].isupper() and not (l.isupper() and r.isupper()):
        # no word goes on in a capital: two names ('Saint-' / 'Germain'), the hyphen theirs
        return "-", "layout.keep_hyphen", s.own_hyphen
    # inside a line, 'pas de- place', 'deux dames- surnuméraires' are two words, not
    # 'deplace' (a misspelling the web repeats) nor a word no one prints; the sentence
    # may still join them, as it joins any two words ('par tie')
    two_words = inline and _two_words_likelier(l, r, lex)
    own = lex.hyphen_is_real(l, r)
    if not two_words and lex.known(l + r, 1.0) and not own:
        return "", "layout.join_hyphenated", s.joined
    if own:
        return "-", "layout.keep_hyphen", s.own_hyphen
    if two_words or (lex.best_zipf(l) >= s.stray_min_zipf and lex.best_zipf(r) >= s.stray_min_zipf and len(l) > 2):
        return " ", "layout.stray_hyphen", s.stray
    return "", "layout.join_hyphenated", s.unknown


def _two_words_likelier(left: str, right: str, lex: Lexicon) -> bool:
    """Whether two known words are likelier than the one they make run together, as
    the lexicon's frequencies say: P(left)·P(right) ≥ P(left + right), a Zipf value
    being log10 of a word's frequency per billion words ('de place': 7.7 + 5.7 − 9 =
    4.4 against 'deplace' 2.4; 'par tie': 7.0 + 2.0 − 9 against 'partie' 5.5), and
    0 a word never seen ('dames surnuméraires' against 'damessurnuméraires')."""
    zl, zr = lex.best_zipf(left), lex.best_zipf(right)
    if min(zl, zr) < 1.0:
        return False
    joined = lex.best_zipf(left + right)
    return joined == 0.0 or zl + zr - 9.0 >= joined


def join(left: MappedText, right: MappedText, notes: list[tuple[int, int]], fix: str, lex: Lexicon,
         s: Hyphens, hyphenated: Mapping[int, str] | None = None) -> MappedText:
    """Continue ``left`` with ``right``; what lies between them in the raw text
    (newlines, blank lines, a running head, footnotes set apart) is replaced by one
    space, or by nothing when a hyphenated word is mended. ``hyphenated``: the raw
    offset of a line-end hyphen → the whole word, where the OCR file says it."""
    joiner, confidence = " ", 1.0
    m = _WORD_AT_END.search(left.text[-60:])
    word_right = _WORD_AT.match(right.text)
    if m and word_right and _LETTER.match(right.text):
        whole = hyphenated.get(left.to_raw(len(left.text) - 1)) if hyphenated else None
        how, hyphen_fix, confidence = mend_break(m.group(1), word_right.group(), lex, s, whole)
        # a reflowed line mends its word alone; a paragraph joined across a break
        # records both fixes on the one gap
        fix = hyphen_fix if fix == "layout.reflow" else f"{fix}+{hyphen_fix}"
        if how == "-" and left.text.endswith("-"):
            joiner = ""  # the hyphen is the word's own: it stays where it is
        else:
            left = left.split(len(left.text) - 1)[0]
            joiner = how
    moved = [(a, b, "layout.footnote_moved") for a, b in notes]
    return left.concat(right, joiner, fix, confidence, moved)


def _mend_inline_breaks(mt: MappedText, lex: Lexicon, s: Hyphens, printed: Counter | None = None) -> MappedText:
    """'l'obli- ger', 'Suppofons- que': a line-end hyphen the export left inside a line;
    in a chapter whose export ran its lines together (``printed``: the chapter's words,
    counted), 'Aca-démie' too: a hyphen with no space after it, mended only where the
    pieces make a known word, the hyphen is not the word's own, and the chapter does not
    print the word so again and again and never whole (a line end falls anywhere in a
    word: 'tric-trac' so printed is the word's spelling)."""
    edits = []
    for m in (_INLINE_BREAK if printed is None else _INLINE_BREAK_OR_BARE).finditer(mt.text):
        # (looked for about the hyphen, not in copies of the text before and after it: a
        # chapter run on in one line has thousands of hyphens)
        left_word = _WORD_BEFORE.search(mt.text, max(0, m.end(1) - _LONGEST_WORD), m.end(1))
        # (within a word's length: a chain of hyphened pieces, "a-a-a-…", was read to its end at each hyphen)
        right_word = _WORD_AT.match(mt.text, m.end(), m.end() + _LONGEST_WORD)
        if not left_word or not right_word:
            continue
        left, right = left_word.group(), right_word.group().lstrip("^")
        hyphen = m.end(1)
        bare = m.end() == hyphen + 1
        if bare:
            right = right.split("-")[0]  # ('l'Hô-tel-de-Ville': 'tel', the piece the hyphen parts)
        how, fix, conf = mend_break(left, right, lex, s, inline=True)
        if bare:  # no space: only the known word the pieces make is mended
            compound = printed[f"{left}-{right}".lower()] >= s.compound_repeats and not printed[(left + right).lower()]
            if how == "-" and _never_paired(left, right, lex, s):
                how, fix, conf = "", "layout.join_hyphenated", s.joined
            if how == "" and lex.known(left + right, 1.0) and not compound:
                edits.append(Edit(hyphen, hyphen + 1, "", fix, conf))
        elif how == "-":
            edits.append(Edit(hyphen, hyphen + 2, "-", "layout.keep_hyphen", conf))
        else:
            edits.append(Edit(hyphen, hyphen + 2, how, fix, conf))
    return mt.apply(edits) if edits else mt


def _never_paired(left: str, right: str, lex: Lexicon, s: Hyphens) -> bool:
    """Whether a hyphen ``mend_break`` keeps as a prefix's or a suffix's ('mi-lieu',
    'meil-leur', 'l'au-tre') is a line end's all the same: the Littré, which prints the
    compounds of the period as two words side by side ('mi chemin', 'sur tout', 'lui
    même'), never prints these two so, and prints them run together ``littre_joined``
    times. (A hyphen a capital follows is the print's, and so is one a listed compound
    has between these letters: 'Au-de' of 'au-dessus' misread, 'a-vis' of 'vis-à-vis'.)"""
    from ..clean.sequence import SequenceModel  # (the Littré's counts: loaded the first time a hyphen asks)

    l = left.rsplit("'", 1)[-1].rsplit("’", 1)[-1].lower()
    r = right.lower()
    if not (l.isalpha() and r.isalpha()) or right[:1].isupper():
        return False
    piece = fold_letters(f"{l}-{r}")
    if any(piece in fold_letters(c) for c in lex.compounds):
        return False
    model = SequenceModel.default()
    return model.pair(l, r) == 0 and model.count(l + r) >= s.littre_joined


@lru_cache(maxsize=2)
def _printed_words(raw: str) -> Counter:
    """How often a chapter prints each word (lower case), a hyphened one both whole and
    by its pieces two by two ('demi-figu-re': 'demi-figu', 'figu-re')."""
    counts: Counter = Counter()
    for m in _HYPHENED_WORD.finditer(raw.lower()):
        parts = m.group().split("-")
        counts.update(parts if len(parts) == 1 else (f"{a}-{b}" for a, b in zip(parts, parts[1:])))
    return counts


def decide_joins(units: list[Unit], lines: list[Line], res: Resources) -> list[Join]:
    """Which units continue the paragraph before them (footnotes aside)."""
    joins: list[Join] = []
    prev: int | None = None
    for i, unit in enumerate(units):
        if unit.note is not None:
            continue
        if prev is not None:
            left = units[prev]
            between = lines[left.last + 1 : unit.first]
            if _continues(left.text.text, unit.text.text, res):
                kind = "page_break" if any(l.kind == "head" for l in between) else "continued"
                joins.append(Join(prev, i, kind, left.text.raw_end, unit.text.raw_start))
        prev = i
    return joins


def _continues(left: str, right: str, res: Resources) -> bool:
    if opens_structure(right, res.digits):
        return False
    heading = heading_marker(left)
    if heading and heading.end >= len(left.rstrip()) - 1:
        return False  # a heading standing alone is complete
    ending = _ending(left)
    if not ending:
        return False
    if ending.endswith(("-", "¬")) and _LETTER.match(right):
        # a word's second half goes on in small letters; a capital after a small-lettered
        # half opens something else (a page lost between them: 'résul-' / 'Pour rendre'),
        # after a name's ('Saint-' / 'Germain') or a word in capitals ('ROU-' / 'LETTE') it goes on
        half = _WORD_AT_END.search(ending)
        return _starts_lower(right) or half is None or not half.group(1)[:1].islower()
    if ending[-1] in _TERMINAL:
        return False
    if _ends_on_function_word(left, res):
        return True
    return _starts_lower(right)


def blocks(units: list[Unit], joins: list[Join], pages: list[Page], lex: Lexicon, s: Hyphens,
           hyphenated: Mapping[int, str] | None = None) -> list[Block]:
    """The paragraphs: units joined as decided, each footnote set apart after the
    paragraph it was printed inside."""
    joined_to = {j.right: j for j in joins}
    out: list[Block] = []
    pending_notes: list[Unit] = []
    current: MappedText | None = None
    current_notes: list[Unit] = []

    def flush():
        nonlocal current, current_notes
        if current is not None:
            out.append(Block(current, page_at(pages, current.raw_start)))
        for n in current_notes:
            out.append(Block(n.text, page_at(pages, n.text.raw_start), footnote=n.note))
        current, current_notes = None, []

    for i, unit in enumerate(units):
        if unit.note is not None:
            if current is None:
                out.append(Block(unit.text, page_at(pages, unit.text.raw_start), footnote=unit.note))
            else:
                pending_notes.append(unit)
            continue
        join_ = joined_to.get(i)
        if join_ is not None and current is not None:
            notes = [(n.text.raw_start, n.text.raw_end) for n in pending_notes]
            fix = "layout.page_break" if join_.kind == "page_break" else "layout.continued"
            current = join(current, unit.text, notes, fix, lex, s, hyphenated)
            current_notes.extend(pending_notes)
            pending_notes = []
            continue
        current_notes.extend(pending_notes)
        pending_notes = []
        flush()
        current = unit.text
    current_notes.extend(pending_notes)
    flush()
    return out
