"""Stage 4, segment: ``Layout`` → ``Segmented``.

Gives every paragraph its kind and splits those that hold several units: a game's
dictionary heading and its first paragraph, a run-in section title and its text,
several glossary entries. Then settles, for the chapter as a whole:

- the game of each passage: a heading names it; a running head that names exactly
  one game switches to it on a page without a heading; a chapter that opens inside
  a game takes it from its running heads or from a title that names it, else none;
- the numbers of the articles, decoded jointly by a Viterbi search over their OCR
  readings, so that the sequence corrects each reading ('78.' between 72 and 74);
  ordinal list items ('1°.', OCR'd 'jo.' for '2°.') are told apart in the same search;
- the footnotes' calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import regex

from .games import fold, slugify
from .markers import (
    Marker,
    heading_marker,
    note_calls,
    note_marker,
    number_marker,
    roman_marker,
    word_article_marker,
)
from .numbers import DIGITS, Reading, best_path
from .records import Diagnostic, Game, Layout, Passage, Segmented
from .resources import Resources
from .text import Edit, MappedText

_SENTENCE_END = regex.compile(r"[.!?](?=\s+[\p{Lu}«\"(]|\s*$)")
_WORD = regex.compile(r"[\p{L}'’]+")
ROMAN_NUMERALS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                  (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


@dataclass
class _Draft:
    kind: str
    text: MappedText
    page_seq: int
    markers: list[Marker] = field(default_factory=list)  # number readings to decide
    roman_value: int | None = None
    word_value: int | None = None
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


def segment(layout: Layout, res: Resources) -> Segmented:
    name = layout.chapter.source_file
    diagnostics: list[Diagnostic] = []
    drafts: list[_Draft] = []
    in_glossary = False
    for block in layout.blocks:
        if block.footnote is not None:
            drafts.append(_Draft("footnote", block.text, block.page_seq, note=block.footnote))
            continue
        for d in _split_block(block.text, block.page_seq, in_glossary, res):
            if d.kind == "heading":
                in_glossary = False
            elif d.kind == "section":
                in_glossary = d.glossary
            drafts.append(d)
    drafts = _join_article_headings(drafts, res)
    for d in drafts:
        d.page_seq = _page_at(layout, d.text.raw_start)

    games = _assign_games(drafts, layout, res)
    _decode_numbers(drafts, res)
    _attach_notes(drafts, diagnostics, name)
    passages = _passages(drafts, layout, res)
    passages = _give_suggestions(passages, [s for b in layout.blocks for s in b.suggestions])

    n_articles = sum(p.kind == "article" for p in passages)
    if not passages:
        diagnostics.append(Diagnostic(name, "warning", "no structure: no paragraph could be read"))
    elif not n_articles and not games and all(p.page is None for p in passages) and not any(
        p.kind in ("heading", "section") for p in passages
    ):
        diagnostics.append(Diagnostic(name, "warning", "no structure found: no running heads, games, sections or articles"))
    return Segmented(layout, tuple(passages), tuple(games), tuple(diagnostics))


# -- kinds -------------------------------------------------------------------------------

def _split_block(text: MappedText, page_seq: int, in_glossary: bool, res: Resources) -> list[_Draft]:
    t = text.text
    heading = heading_marker(t)
    if heading:
        head, rest = text.split(heading.end)
        slug = res.catalogue.match_name(heading.name) or (
            res.catalogue.match_name(heading.alternative) if heading.alternative else None
        )
        d = _Draft("heading", head.strip(), page_seq, game=slug or slugify(heading.name), game_name=heading.name)
        if not slug:
            d.game_name = heading.name.title()
        out = [d]
        rest = rest.strip()
        if rest.text:
            out += _split_block(rest, page_seq, False, res)
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
    if roman or word or number:
        d = _Draft("article", text, page_seq)
        if number:
            d.markers.append(number)
        if roman:
            d.markers.append(roman)
            d.roman_value = roman.value
        if word:
            d.markers.append(word)
            d.word_value = word.value
        return [d]

    title_end = _section_title_end(t, res)
    if title_end is not None:
        return _section_and_rest(text, title_end, page_seq, res)

    if in_glossary:
        glosses = _split_glosses(text, page_seq, res)
        if glosses:
            return glosses
    return [_Draft("paragraph", text, page_seq)]


def _section_and_rest(text: MappedText, cut: int, page_seq: int, res: Resources, **number) -> list[_Draft]:
    """A section title ending at ``cut``, and the drafts of the text it runs into."""
    section, rest = text.split(cut)
    d = _Draft("section", section.strip(), page_seq, **number)
    d.glossary = _is_glossary_title(section.text, res)
    d.mentions = res.catalogue.mentioned_game(section.text, res.vocabulary.game_mention_markers)
    out = [d]
    rest = rest.strip()
    if rest.text:
        out += _split_block(rest, page_seq, d.glossary, res)
    return out


def _join_article_headings(drafts: list[_Draft], res: Resources) -> list[_Draft]:
    """'ARTICLE SIXIÈME.' on a line of its own numbers the paragraph after it."""
    out: list[_Draft] = []
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
    letters = [c for c in after[:60] if c.isalpha()]
    all_caps = letters and sum(c.isupper() for c in letters) / len(letters) > 0.8
    if first not in res.vocabulary.numbered_title_openers and not all_caps:
        return None
    end = _title_sentence_end(after, res, limit=140)
    return end


def _title_sentence_end(text: str, res: Resources, limit: int) -> int | None:
    """The end of a title at the start of ``text``: its full stop, or the word that
    starts the text it runs into; None if the title would be longer than ``limit``."""
    m = _SENTENCE_END.search(text)
    end = m.end() if m else len(text)
    for w in regex.finditer(r"(?<=\p{Ll}[,]?\s)(\p{Lu}[\p{L}'’]*)", text[:end]):
        if w.group(1).lower().replace("’", "'") in res.vocabulary.sentence_openers and w.start() > 10:
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
    end = _title_sentence_end(t, res, limit=300)
    if end is None:
        return None
    if end >= len(t.rstrip()) - 1:
        return len(t)  # the whole paragraph is the title
    if end > 100:
        return None  # a long first sentence is text, not a run-in title
    return end


def _gloss_re(res: Resources) -> regex.Pattern:
    openers = "|".join(regex.escape(o).replace("'", "['’]") for o in res.vocabulary.gloss_openers)
    return regex.compile(rf"(?P<term>\p{{Lu}}[^.!?]{{0,45}}?)\.\s+(?=(?i:{openers})\b)")


def _split_glosses(text: MappedText, page_seq: int, res: Resources) -> list[_Draft]:
    t = text.text
    pattern = _gloss_re(res)
    m = pattern.match(t)
    if not m or len(m["term"].split()) > 6:
        return []
    starts = [0]
    for s in regex.finditer(r"[.!?]\s+", t):
        pos = s.end()
        g = pattern.match(t, pos)
        if g and len(g["term"].split()) <= 6 and pos > starts[-1]:
            starts.append(pos)
    out = []
    for a, b in zip(starts, starts[1:] + [len(t)]):
        part = text.slice(a, b).strip()
        term = pattern.match(part.text)
        out.append(_Draft("gloss", part, page_seq, term=term["term"].strip() if term else None))
    return out


# -- games ---------------------------------------------------------------------------------

def _assign_games(drafts: list[_Draft], layout: Layout, res: Resources) -> list[Game]:
    pages = layout.pages
    heading_pages = {d.page_seq for d in drafts if d.kind == "heading"}
    unset = object()
    current: object = unset
    pending: list[_Draft] = []  # drafts before any game is known
    seen: dict[str, Game] = {}
    for d in drafts:
        if d.kind == "heading":
            if current is unset:
                _settle_prefix(pending, res)
            current = d.game
            seen.setdefault(d.game, Game(d.game, res.catalogue.get(d.game).name if res.catalogue.get(d.game) else d.game_name))
            d.barrier = True
            continue
        head_game = pages[d.page_seq].head_game if d.page_seq < len(pages) else None
        if head_game and head_game != current and d.page_seq not in heading_pages:
            if current is unset:
                for p in pending:
                    p.game = head_game
                pending = []
            current = head_game
            d.barrier = True
        if current is unset:
            pending.append(d)
        else:
            d.game = current  # type: ignore[assignment]
    if current is unset:
        _settle_prefix(pending, res)
    for d in drafts:
        if d.game and d.game not in seen:
            seen[d.game] = res.catalogue.game(d.game)
    order = []
    for d in drafts:
        if d.game and d.game not in order:
            order.append(d.game)
    return [seen[g] for g in order]


def _settle_prefix(pending: list[_Draft], res: Resources) -> None:
    """A chapter that opens inside a game: name it from a title that names it."""
    named = {d.mentions for d in pending if d.kind == "section" and d.mentions}
    game = next(iter(named)) if len(named) == 1 else None
    for d in pending:
        d.game = game
    pending.clear()


# -- numbers -------------------------------------------------------------------------------

def _readings(d: _Draft, res: Resources) -> list[Reading]:
    digits = res.digits
    out: dict[tuple[str, int], float] = {}

    def add(kind: str, value: int, cost: float) -> None:
        if value and value > 0 and cost < out.get((kind, value), 99.0):
            out[(kind, value)] = cost

    none_cost = 1.2
    for m in d.markers:
        if m.kind == "number":
            glyphs = m.token.replace(" ", "")
            real = sum(c in DIGITS for c in glyphs)
            none_cost = max(none_cost, 3.0 if real == len(glyphs) else 1.5 if real else 1.2)
            for v, c in digits.readings(m.token, max_cost=3.0).items():
                add("article", v, c)
            if glyphs.endswith(("o", "O")) and len(glyphs) > 1:
                # 'jo.' can be '2°.': the degree sign read as an o
                for v, c in digits.readings(glyphs[:-1], max_cost=2.0).items():
                    add("ordinal", v, c + 0.8)
        elif m.kind == "ordinal":
            none_cost = 2.0
            for v, c in digits.readings(m.token, max_cost=3.0).items():
                add("ordinal", v, c)
        elif m.kind == "roman":
            none_cost = max(none_cost, 1.5)
            add("article", m.value, 0.3)
        elif m.kind == "word":
            none_cost = 3.0
            add("article", m.value, 0.0)
    readings = [Reading(kind, v, c) for (kind, v), c in out.items()]
    readings.append(Reading("none", None, none_cost))
    return readings


def _decode_numbers(drafts: list[_Draft], res: Resources) -> None:
    """Choose every numbered paragraph's reading at once, by Viterbi over the sequence."""
    items: list[_Draft] = []
    barriers: set[int] = set()  # indices of items a new game starts before
    for d in drafts:
        if d.barrier:
            barriers.add(len(items))
        if d.kind == "article":
            items.append(d)
    if not items:
        return
    base = [_readings(d, res) for d in items]
    # readings the neighbours imply: '78' between 72 and 74 can be 73
    for k, d in enumerate(items):
        number = next((m for m in d.markers if m.kind == "number"), None)
        if number is None:
            continue
        have = {(r.kind, r.value) for r in base[k]}
        extra = []
        for j in range(max(0, k - 2), min(len(items), k + 3)):
            if j == k or any(b for b in barriers if min(j, k) < b <= max(j, k)):
                continue
            for r in base[j]:
                if r.kind != "article" or r.value is None or r.cost > 2.0:
                    continue
                implied = r.value + (k - j)
                if implied > 0 and ("article", implied) not in have:
                    c = res.digits.cost(number.token, implied)
                    if c <= 4.5:
                        extra.append(Reading("article", implied, c))
                        have.add(("article", implied))
        base[k] = base[k] + extra

    def step(state, reading, index):
        last_art, last_ord = state
        if index in barriers:
            last_art, last_ord = None, None
        if reading.kind == "none":
            return (last_art, last_ord), 0.0
        v = reading.value
        if reading.kind == "ordinal":
            if last_ord is None:
                cost = 0.0 if v == 1 else 1.5
            else:
                cost = 0.0 if v == last_ord + 1 else 2.5
            return (last_art, v), cost
        if last_art is None:
            cost = 0.0 if v == 1 else 0.3
        elif v == last_art + 1:
            cost = 0.0
        elif v == 1:
            cost = 1.0
        elif last_art + 1 < v <= last_art + 30:
            cost = 2.0 + 0.05 * (v - last_art - 2)  # articles lost with a page, or misread
        else:
            cost = 4.0
        return (v, None), cost

    path = best_path(base, (None, None), step)
    for d, reading in zip(items, path):
        d.decided = reading
        if reading.kind == "article":
            d.number = reading.value
        elif reading.kind == "ordinal":
            d.kind = "paragraph"
        else:
            d.kind = "paragraph"


# -- notes ---------------------------------------------------------------------------------

def _attach_notes(drafts: list[_Draft], diagnostics: list[Diagnostic], name: str) -> None:
    for i, d in enumerate(drafts):
        if d.kind != "footnote":
            continue
        for j in range(i - 1, max(-1, i - 40), -1):
            other = drafts[j]
            if other.kind == "footnote" or d.page_seq - other.page_seq > 1:
                continue
            if any(c.value == d.note for c in note_calls(other.text.text)):
                d.note_for = j
                break
        if d.note_for is None:
            diagnostics.append(Diagnostic(name, "info", f"footnote ({d.note}) on page seq {d.page_seq}: its call was not found"))


# -- passages ------------------------------------------------------------------------------

def _page_at(layout: Layout, offset: int) -> int:
    seq = 0
    for p in layout.pages:
        if p.start <= offset:
            seq = p.seq
        else:
            break
    return seq


def _roman(n: int) -> str:
    out = []
    for v, s in ROMAN_NUMERALS:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)


def _normalise_marker(d: _Draft, res: Resources) -> MappedText:
    """Write the decoded number in place of the OCR'd one ('i3.' → '13.')."""
    t = d.text
    if d.kind == "article" and d.decided is not None:
        marker = _chosen_marker(d, res)
        d.number_raw = marker.token
        if marker.kind == "word":
            return t
        new = f"{d.number}." if marker.kind == "number" else f"{_roman(d.number)}."
        conf = round(max(0.5, 1.0 - d.decided.cost / 5.0), 3)
        return t.replace(0, marker.end, new, "segment.article_number", conf)
    if d.kind == "paragraph" and d.decided is not None and d.decided.kind == "ordinal":
        marker = d.markers[0]
        conf = round(max(0.5, 1.0 - d.decided.cost / 5.0), 3)
        return t.replace(0, marker.end, f"{d.decided.value}°.", "segment.ordinal", conf)
    if d.kind == "section" and d.roman_value:
        m = roman_marker(t.text)
        if m:
            d.number = d.roman_value
            return t.replace(m.start, m.end, f"{_roman(d.roman_value)}.", "segment.section_number", 0.9)
    return t


def _chosen_marker(d: _Draft, res: Resources) -> Marker:
    """The marker the decided number was read from: an article word, a Roman
    numeral read as such ('IV.'), or an arabic number however damaged."""
    kinds = {m.kind: m for m in d.markers}
    if "word" in kinds:
        return kinds["word"]
    roman, number = kinds.get("roman"), kinds.get("number")
    if roman and roman.value == d.number and (number is None or res.digits.cost(number.token, d.number) > 0.5):
        return roman
    return number or roman or d.markers[0]


def _normalise_notes(d: _Draft) -> MappedText:
    t = d.text
    edits = []
    if d.kind == "footnote":
        m = note_marker(t.text)
        if m:
            mark = t.text[m.start : m.end].rstrip()
            want = f"({m.value})"
            if mark != want:
                edits.append(Edit(m.start, m.start + len(mark), want, "segment.note_mark", 0.9))
    else:
        for c in note_calls(t.text):
            want = f"({c.value})"
            if c.token != want:
                edits.append(Edit(c.start, c.end, want, "segment.note_mark", 0.9))
    return t.apply(edits) if edits else t


def _give_suggestions(passages: list[Passage], suggestions: list) -> list[Passage]:
    """Each suggestion to the passage whose text holds its word (the innermost one)."""
    if not suggestions:
        return passages
    held: dict[int, list] = {}
    for s in suggestions:
        owners = [p for p in passages if p.text.raw_start <= s.start and s.end <= p.text.raw_end]
        if owners:
            owner = min(owners, key=lambda p: p.text.raw_end - p.text.raw_start)
            held.setdefault(owner.seq, []).append(s)
    return [replace(p, suggestions=tuple(held.get(p.seq, ()))) for p in passages]


def _passages(drafts: list[_Draft], layout: Layout, res: Resources) -> list[Passage]:
    out = []
    for seq, d in enumerate(drafts):
        text = _normalise_marker(d, res)
        d.text = text
        text = _normalise_notes(d)
        page = layout.pages[d.page_seq].number if d.page_seq < len(layout.pages) else None
        number = d.number if d.kind in ("article", "section") else None
        out.append(
            Passage(
                seq=seq,
                kind=d.kind,  # type: ignore[arg-type]
                text=text,
                page_seq=d.page_seq,
                page=page,
                game=d.game,
                number=number,
                number_raw=d.number_raw if d.kind in ("article", "section") else None,
                term=d.term,
                note_for=d.note_for,
                note=d.note,
            )
        )
    return out
