"""Stage 2, layout: ``RawChapter`` → ``Layout``.

Finds what on the page is not reading text (the export's header and footer, the
running heads with their page numbers), reads the page numbers against their
sequence, and rebuilds the paragraphs: hard-wrapped lines are reflowed, a paragraph
broken by a line end or a page break is joined again, a word hyphenated across the
break is mended, footnotes are set apart. Every join is an edit of a ``MappedText``,
so each paragraph still maps back, character by character, to the raw text.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace

import regex

from .markers import heading_marker, note_marker, number_marker, opens_structure, roman_marker
from .numbers import DIGITS, DigitModel, Reading, best_path
from .records import Block, Diagnostic, Furniture, Header, Layout, Page, RawChapter
from .resources import Resources
from .text import Edit, MappedText

HEADER_RE = regex.compile(
    r"^‹\s*(?P<title>.*?)\s*Chapitre\s+(?P<number>\d+)\s+sur\s+(?P<total>\d+)\s*·\s*(?P<heading>.*?)\s*·\s*(?P<note>[^·]*?)\s*$"
)
FOOTER_RE = regex.compile(r"^\s*Page\s+\d+\s*$")
_TERMINAL = ".!?:;"
_TOKEN_DEBRIS = ".,»«'\"*\\·:;-—–()[]"
_TRAILING_GARBAGE = " *'\"\\^`_|»«"
_LETTER = regex.compile(r"\p{L}")
_WORD_AT_END = regex.compile(r"([\p{L}'’]+)-$")
_WORD_AT_START = regex.compile(r"^[^\s,.;:!?]+")
_INLINE_BREAK = regex.compile(r"(?<=\p{L})([\p{L}'’]*)- (?=[\p{L}^])")


@dataclass
class _Line:
    index: int
    start: int
    end: int
    text: str
    kind: str = "text"  # text, blank, header, footer, head

    @property
    def stripped(self) -> str:
        return self.text.strip()


@dataclass
class _Head:
    line: _Line
    title: str
    token: str | None


@dataclass
class _Unit:
    text: MappedText
    first: int  # line indices
    last: int
    note: int | None = None


@dataclass
class _Join:
    """A decision to continue a paragraph across the raw between two units."""

    left: int  # unit indices
    right: int
    kind: str  # 'page_break' or 'continued'
    gap_start: int
    gap_end: int


def layout(chapter: RawChapter, res: Resources) -> Layout:
    raw = chapter.text
    name = chapter.source_file
    diagnostics: list[Diagnostic] = []
    lines = _split_lines(raw)

    header = _parse_header(lines)
    for line in lines:
        if not line.stripped:
            line.kind = "blank"
        elif FOOTER_RE.match(line.text):
            line.kind = "footer"

    heads = _find_heads(lines, res)
    for h in heads:
        h.line.kind = "head"
    numbers = _read_page_numbers([h.token for h in heads], res.digits)

    text_lines = [l for l in lines if l.kind == "text"]
    form = _form(lines, text_lines)
    units = _units(raw, lines, form, res)
    joins = _decide_joins(units, lines, res)

    pages = _pages(lines, heads, numbers, res)
    pages, lost = _infer_lost_pages(pages, joins, form)
    for p, missing in lost:
        diagnostics.append(Diagnostic(name, "warning", f"page {missing} has no running head; "
                                      f"its start is placed at the paragraph break nearest to it"))
    for page in pages:
        if page.running_head is not None and page.number_status == "inferred" and page.number_raw:
            diagnostics.append(Diagnostic(name, "info", f"page head {page.running_head!r}: number "
                                          f"unreadable, {page.number} inferred from the sequence"))
    for a, b in zip(pages, pages[1:]):
        if a.number is not None and b.number is not None and b.number != a.number + 1 and b.number_status != "inferred":
            diagnostics.append(Diagnostic(name, "warning", f"page {b.number} follows page {a.number}: "
                                          "pages are missing or a head is misread"))

    blocks = _blocks(units, joins, lines, pages, res)
    furniture = _furniture(lines, header)
    if not blocks:
        diagnostics.append(Diagnostic(name, "warning", "no reading text found"))
    return Layout(
        chapter=chapter,
        header=header,
        pages=tuple(pages),
        furniture=tuple(furniture),
        blocks=tuple(blocks),
        form=form,
        diagnostics=tuple(diagnostics),
    )


# -- lines, header, footer ------------------------------------------------------------

def _split_lines(raw: str) -> list[_Line]:
    out = []
    pos = 0
    for i, text in enumerate(raw.split("\n")):
        out.append(_Line(i, pos, pos + len(text), text))
        pos += len(text) + 1
    return out


def _parse_header(lines: list[_Line]) -> Header | None:
    first = next((l for l in lines if l.stripped), None)
    if first is None:
        return None
    m = HEADER_RE.match(first.text.strip())
    if not m:
        return None
    first.kind = "header"
    return Header(
        edition_title=m["title"].strip(),
        number=int(m["number"]),
        total=int(m["total"]),
        heading=m["heading"].strip(),
        note=m["note"].strip(),
        start=first.start,
        end=first.end,
    )


def _furniture(lines: list[_Line], header: Header | None) -> list[Furniture]:
    kinds = {"header": "export_header", "footer": "export_footer", "head": "running_head"}
    return [Furniture(kinds[l.kind], l.start, l.end, l.text) for l in lines if l.kind in kinds]


# -- running heads and page numbers -----------------------------------------------------

def _upper_ratio(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(c.isupper() for c in letters) / len(letters)


def _number_token(tok: str, digits: DigitModel) -> bool:
    t = tok.strip(_TOKEN_DEBRIS)
    if not t or len(t) > 4 or len(t) < 1:
        return False
    real = sum(c in DIGITS for c in t)
    likeness = digits.digit_likeness(t)
    if real and likeness >= 0.6:
        return True
    return len(t) >= 2 and likeness >= 0.6 and real == 0


def _parse_head(line: _Line, res: Resources) -> _Head | None:
    """A line that reads as a running head: a short title and a page number, either order."""
    s = line.stripped
    if len(s) > 45 or heading_marker(s):
        return None
    tokens = [t for t in s.split() if t.strip(_TOKEN_DEBRIS)]
    if not tokens or len(tokens) > 7:
        return None
    digits = res.digits
    for side in (-1, 0):
        tok = tokens[side]
        if not _number_token(tok, digits):
            continue
        rest = tokens[:-1] if side == -1 else tokens[1:]
        title = " ".join(rest)
        clean_tok = tok.strip(_TOKEN_DEBRIS)
        real = sum(c in DIGITS for c in clean_tok)
        if not rest:
            if real == len(clean_tok) and len(clean_tok) >= 1:
                return _Head(line, "", clean_tok)  # a bare page number
            continue
        letters = sum(c.isalpha() for c in title)
        if letters > 20 or len(rest) > 5:
            continue
        names_game = bool(res.catalogue.head_games(title))
        if _upper_ratio(title) >= 0.5 or names_game:
            if not real and _upper_ratio(title) < 0.7 and not names_game:
                continue
            return _Head(line, title, clean_tok)
    return None


def _find_heads(lines: list[_Line], res: Resources) -> list[_Head]:
    candidates = [l for l in lines if l.kind == "text"]
    heads = {}
    for line in candidates:
        h = _parse_head(line, res)
        if h:
            heads[line.index] = h
    titles = {_title_key(h.title) for h in heads.values() if h.title}
    body = [l for l in candidates]
    for pos, line in enumerate(body):
        if line.index in heads:
            continue
        s = line.stripped
        words = s.split()
        if len(words) > 3 or len(s) > 25 or s.endswith(".") or _upper_ratio(s) < 0.8 or heading_marker(s):
            continue
        if pos == 0 or _title_key(s) in titles:
            heads[line.index] = _Head(line, s, None)
    return [heads[i] for i in sorted(heads)]


def _title_key(title: str) -> str:
    return regex.sub(r"[^\p{L}]", "", title).upper()


def _read_page_numbers(tokens: list[str | None], digits: DigitModel) -> list[tuple[int | None, str | None]]:
    """Decode the page numbers of a chapter's heads together, as a sequence."""
    if not tokens:
        return []
    base = [digits.readings(t, max_cost=3.0) if t else {} for t in tokens]
    candidates: list[list[Reading]] = []
    for k, tok in enumerate(tokens):
        if tok is None:
            candidates.append([Reading("none", None, 0.0)])
            continue
        options = dict(base[k])
        for j in range(max(0, k - 2), min(len(tokens), k + 3)):
            if j == k:
                continue
            for v in base[j]:
                implied = v + (k - j)
                if implied > 0 and implied not in options:
                    c = digits.cost(tok, implied)
                    if c <= 4.5:
                        options[implied] = c
        readings = [Reading("page", v, c) for v, c in options.items()]
        readings.append(Reading("none", None, 2.0))
        candidates.append(readings)

    def step(state, reading, index):
        if reading.kind == "none":
            return (state + 1 if state is not None else None), 0.0
        v = reading.value
        if state is None:
            return v + 1, 0.3
        if v == state:
            return v + 1, 0.0
        if state < v <= state + 3:
            return v + 1, 1.0 * (v - state)
        return v + 1, 5.0

    path = best_path(candidates, None, step)
    values: list[int | None] = [r.value for r in path]
    statuses: list[str | None] = []
    for tok, r in zip(tokens, path):
        if r.value is None:
            statuses.append(None)
        elif tok and all(c in DIGITS for c in tok) and int(tok) == r.value:
            statuses.append("read")
        else:
            statuses.append("decoded")
    # fill unreadable numbers from their neighbours
    for k in range(len(values)):
        if values[k] is None:
            prev = next(((j, values[j]) for j in range(k - 1, -1, -1) if values[j] is not None and statuses[j] != "inferred"), None)
            nxt = next(((j, values[j]) for j in range(k + 1, len(values)) if values[j] is not None and statuses[j] != "inferred"), None)
            if prev:
                values[k] = prev[1] + (k - prev[0])
            elif nxt:
                values[k] = nxt[1] - (nxt[0] - k)
            if values[k] is not None and values[k] > 0:
                statuses[k] = "inferred"
            else:
                values[k] = None
    return list(zip(values, statuses))


def _pages(lines: list[_Line], heads: list[_Head], numbers, res: Resources) -> list[Page]:
    body = [l for l in lines if l.kind in ("text", "head")]
    pages: list[Page] = []
    if not body:
        return [Page(0, 0, None, None, None, None, None, None)]
    if not heads or heads[0].line.index != body[0].index:
        # content before the first head: the page the chapter opens on
        first_number = None
        status = None
        if heads and numbers[0][0] is not None:
            first_number = numbers[0][0] - 1 if numbers[0][0] > 1 else None
            status = "inferred" if first_number else None
        pages.append(Page(0, body[0].start, first_number, None, status, None, None, None))
    for h, (number, status) in zip(heads, numbers):
        pages.append(
            Page(
                seq=len(pages),
                start=h.line.start,
                number=number,
                number_raw=h.token,
                number_status=status,
                running_head=h.line.text,
                head_title=h.title or None,
                head_game=res.catalogue.head_game(h.title) if h.title else None,
                head_start=h.line.start,
                head_end=h.line.end,
            )
        )
    return pages


def _infer_lost_pages(pages: list[Page], joins: list[_Join], form: str) -> tuple[list[Page], list]:
    """Place pages whose head the OCR lost: a gap in the numbers and as many
    paragraph breaks in mid-sentence between the two heads as pages missing."""
    if form == "wrapped":
        return pages, []
    out: list[Page] = []
    lost = []
    for k, page in enumerate(pages):
        out.append(page)
        if k + 1 >= len(pages):
            continue
        nxt = pages[k + 1]
        if page.number is None or nxt.number is None:
            continue
        missing = nxt.number - page.number - 1
        if missing < 1:
            continue
        breaks = [j for j in joins if j.kind == "continued" and page.start <= j.gap_start < nxt.start]
        if len(breaks) != missing:
            continue
        for i, j in enumerate(breaks, 1):
            number = page.number + i
            out.append(Page(0, j.gap_end, number, None, "inferred", None, None, None))
            lost.append((page, number))
    return [replace(p, seq=i) for i, p in enumerate(out)], lost


# -- paragraphs ------------------------------------------------------------------------

def _form(lines: list[_Line], text_lines: list[_Line]) -> str:
    if not text_lines:
        return "blank-separated"
    followed_by_blank = 0
    for l in text_lines:
        nxt = lines[l.index + 1] if l.index + 1 < len(lines) else None
        if nxt is None or nxt.kind == "blank":
            followed_by_blank += 1
    if followed_by_blank / len(text_lines) > 0.5:
        return "blank-separated"
    lengths = [len(l.stripped) for l in text_lines]
    open_ended = sum(1 for l in text_lines if _ending(l.stripped)[-1:] not in _TERMINAL) / len(text_lines)
    if statistics.median(lengths) < 70 and open_ended > 0.5:
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


def _units(raw: str, lines: list[_Line], form: str, res: Resources) -> list[_Unit]:
    groups: list[list[_Line]] = []
    if form == "wrapped":
        text_lines = [l for l in lines if l.kind == "text"]
        width = statistics.median(len(l.stripped) for l in text_lines)
        group: list[_Line] = []
        for line in lines:
            if line.kind != "text":
                if group:
                    groups.append(group)
                    group = []
                continue
            if group and _ends_paragraph(group[-1], line, width, res):
                groups.append(group)
                group = []
            group.append(line)
        if group:
            groups.append(group)
    else:
        groups = [[l] for l in lines if l.kind == "text"]
    return [_unit_from_lines(raw, g, res) for g in groups]


def _ends_paragraph(prev: _Line, nxt: _Line, width: float, res: Resources) -> bool:
    p, n = prev.stripped, nxt.stripped
    if opens_structure(n, res.digits):
        return True
    ends = _ending(p)
    terminal = ends[-1:] in _TERMINAL
    if (roman_marker(p) or heading_marker(p)) and (terminal or len(p) < 0.75 * width):
        return True
    if terminal and _starts_upper(n) and len(p) < 0.9 * width:
        return True
    if len(p) < 0.6 * width and _starts_upper(n) and not p.endswith("-"):
        return True
    return False


def _unit_from_lines(raw: str, group: list[_Line], res: Resources) -> _Unit:
    first = group[0]
    mt = _line_text(raw, first)
    for line in group[1:]:
        mt = _join(mt, _line_text(raw, line), [], "layout.reflow", res)
    mt = _mend_inline_breaks(mt, res)
    note = note_marker(mt.text)
    return _Unit(mt, first.index, group[-1].index, note.value if note else None)


def _line_text(raw: str, line: _Line) -> MappedText:
    lead = len(line.text) - len(line.text.lstrip())
    trail = len(line.text.rstrip())
    return MappedText.from_raw(raw, line.start + lead, line.start + trail)


def _join(left: MappedText, right: MappedText, notes: list[tuple[int, int]], rule: str, res: Resources) -> MappedText:
    """Continue ``left`` with ``right``; what lies between them in the raw text
    (newlines, blank lines, a running head, footnotes set apart) is replaced by one
    space, or by nothing when a hyphenated word is mended."""
    joiner, confidence = " ", 1.0
    m = _WORD_AT_END.search(left.text[-60:])
    word_right = _WORD_AT_START.match(right.text)
    if m and word_right and _LETTER.match(right.text):
        how, hy_rule, confidence = res.lexicon.mend_break(m.group(1), word_right.group())
        rule = hy_rule if rule == "layout.reflow" else f"{rule}+{hy_rule}"
        if how == "-":
            joiner = ""  # the hyphen is the word's own: it stays where it is
        else:
            left = left.split(len(left.text) - 1)[0]
            joiner = how
    moved = [(a, b, "layout.footnote_moved") for a, b in notes]
    return left.concat(right, joiner, rule, confidence, moved)


def _mend_inline_breaks(mt: MappedText, res: Resources) -> MappedText:
    """'l'obli- ger', 'Suppofons- que': a line-end hyphen the export left inside a line."""
    edits = []
    for m in _INLINE_BREAK.finditer(mt.text):
        left_word = regex.search(r"[\p{L}'’]+$", mt.text[: m.end(1)])
        right_word = _WORD_AT_START.match(mt.text[m.end() :])
        if not left_word or not right_word:
            continue
        how, rule, conf = res.lexicon.mend_break(left_word.group(), right_word.group().lstrip("^"))
        hyphen = m.end(1)
        if how == "-":
            edits.append(Edit(hyphen, hyphen + 2, "-", "layout.keep_hyphen", conf))
        else:
            edits.append(Edit(hyphen, hyphen + 2, how, rule, conf))
    return mt.apply(edits) if edits else mt


def _decide_joins(units: list[_Unit], lines: list[_Line], res: Resources) -> list[_Join]:
    """Which units continue the paragraph before them (footnotes aside)."""
    joins: list[_Join] = []
    prev: int | None = None
    for i, unit in enumerate(units):
        if unit.note is not None:
            continue
        if prev is not None:
            left = units[prev]
            between = lines[left.last + 1 : unit.first]
            if _continues(left.text.text, unit.text.text, res):
                kind = "page_break" if any(l.kind == "head" for l in between) else "continued"
                joins.append(_Join(prev, i, kind, left.text.raw_end, unit.text.raw_start))
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
    if ending.endswith("-") and _LETTER.match(right):
        return True
    if ending[-1] in _TERMINAL:
        return False
    last_word = regex.findall(r"[\p{L}'’]+", ending[-30:])
    if last_word and last_word[-1].lower().replace("’", "'") in res.vocabulary.function_words:
        return True
    return _starts_lower(right)


def _blocks(units: list[_Unit], joins: list[_Join], lines: list[_Line], pages: list[Page], res: Resources) -> list[Block]:
    joined_to = {j.right: j for j in joins}
    blocks: list[Block] = []
    pending_notes: list[_Unit] = []
    current: MappedText | None = None
    current_notes: list[_Unit] = []

    def flush():
        nonlocal current, current_notes
        if current is not None:
            blocks.append(Block(current, _page_at(pages, current.raw_start)))
        for n in current_notes:
            blocks.append(Block(n.text, _page_at(pages, n.text.raw_start), footnote=n.note))
        current, current_notes = None, []

    for i, unit in enumerate(units):
        if unit.note is not None:
            if current is None:
                blocks.append(Block(unit.text, _page_at(pages, unit.text.raw_start), footnote=unit.note))
            else:
                pending_notes.append(unit)
            continue
        join = joined_to.get(i)
        if join is not None and current is not None:
            notes = [(n.text.raw_start, n.text.raw_end) for n in pending_notes]
            rule = "layout.page_break" if join.kind == "page_break" else "layout.continued"
            current = _join(current, unit.text, notes, rule, res)
            current_notes.extend(pending_notes)
            pending_notes = []
            continue
        current_notes.extend(pending_notes)
        pending_notes = []
        flush()
        current = unit.text
    current_notes.extend(pending_notes)
    flush()
    return blocks


def _page_at(pages: list[Page], offset: int) -> int:
    seq = 0
    for p in pages:
        if p.start <= offset:
            seq = p.seq
        else:
            break
    return seq
