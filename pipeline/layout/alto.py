"""The layout of an ALTO chapter: its pages, blocks and lines come from the XML, so
nothing of them is guessed from the text.

What a block is comes from its zone type where the file tags it (SegmOnto:
``RunningTitleZone``, ``NumberingZone`` … are furniture, the printed page number is
read from the numbering zone) or from the page margin it lies in; an untagged page's
running head is found among its first lines as in a text chapter. Paragraphs are
rebuilt from the lines: a line indented from its block's left edge, a line that
opens an article or a heading, starts one; the plain text's rules decide the rest,
and join paragraphs across blocks and pages when they end mid-sentence.
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from ..records import AltoChapter, AltoLine, Block, Furniture, Page, RawChapter
from ..resources import Resources
from . import pages as _pages, paragraphs as _paragraphs
from .lines import Line, split_lines
from .settings import LayoutSettings

TOKEN_DEBRIS = _pages.TOKEN_DEBRIS


def alto_layout(chapter: RawChapter, res: Resources, s: LayoutSettings) -> tuple:
    """(pages, furniture, blocks) of an ALTO chapter."""
    alto: AltoChapter = chapter.alto
    raw = chapter.text
    lines = split_lines(raw)
    for line in lines:
        if not line.stripped:
            line.kind = "blank"
    at = {line.start: line for line in lines}
    furniture: list[Furniture] = []
    tokens: list[str | None] = []
    heads: list[tuple[str | None, str | None, int | None]] = []  # (running head, title, end) per page
    starts: list[int] = []
    for page in alto.pages:
        starts.append(page.blocks[0].lines[0].start)
        if alto.tagged:
            token, head = _tagged_head(page, at, s, furniture)
            if head[0] is None:  # the tags name no head on this page: it may still print one
                token, head = _first_lines_head(page, at, res, s, furniture)
        else:
            token, head = _untagged_head(page, at, res, s, furniture)
        tokens.append(token)
        heads.append(head)
    numbers = _pages.read_page_numbers(tokens, res.digits, s.page_numbers)
    pages = []
    for seq, (start, token, (head, title, end), (number, status)) in enumerate(zip(starts, tokens, heads, numbers)):
        pages.append(Page(seq, start, number, token, status, head, title or None,
                          res.catalogue.head_game(title) if title else None, end))

    hyphenated = {line.end - 1: line.words[-1].whole for p in alto.pages for line in p.lines
                  if line.words and line.words[-1].whole and raw[line.end - 1 : line.end] in "-¬"}
    units = _units(raw, alto, at, res, s, hyphenated)
    joins = _paragraphs.decide_joins(units, lines, res)
    page_starts = [p.start for p in pages[1:]]
    joins = [replace(j, kind="page_break" if any(j.gap_start < x <= j.gap_end for x in page_starts) else "continued")
             for j in joins]
    blocks: list[Block] = _paragraphs.blocks(units, joins, pages, res.lexicon, s.hyphens, hyphenated)
    return pages, sorted(furniture, key=lambda f: f.start), blocks


def _furniture_kind(zone: str | None, s: LayoutSettings) -> str | None:
    return s.alto.furniture.get(zone) if zone else None


def _furniture_lines(page, at: dict[int, Line], s: LayoutSettings, furniture: list[Furniture]):
    """The lines of the page's furniture blocks, marked and recorded as furniture:
    (zone, its line, its furniture kind)."""
    for block in page.blocks:
        kind = _furniture_kind(block.zone, s)
        if kind is None:
            continue
        for aline in block.lines:
            line = at[aline.start]
            line.kind = "head"
            furniture.append(Furniture(kind, line.start, line.end, line.text))
            yield block.zone, aline, kind


def _tagged_head(page, at: dict[int, Line], s: LayoutSettings, furniture: list[Furniture]):
    """The zone types say which lines are furniture, and which one holds the page number."""
    token = None
    head_lines: list[AltoLine] = []
    title_parts: list[str] = []
    for zone, aline, kind in _furniture_lines(page, at, s, furniture):
        text = at[aline.start].stripped
        if zone in s.alto.number_zones:
            head_lines.append(aline)
            token = token or _number_token(text)
        elif kind == "running_head":
            head_lines.append(aline)
            title_parts.append(text)
    return token, _head(page, head_lines, at, " ".join(title_parts))


def _first_lines_head(page, at: dict[int, Line], res: Resources, s: LayoutSettings, furniture: list[Furniture]):
    """The page's first lines, when they read as a running head (a short title with a
    page number, a bare page number), as in a text chapter."""
    token, head_lines, title = None, [], ""
    body = [l for b in page.blocks if _furniture_kind(b.zone, s) is None for l in b.lines]
    for aline in body[: s.alto.head_lines]:
        line = at[aline.start]
        h = _pages.parse_head(line, res, s.heads)
        if h is None:
            break
        line.kind = "head"
        furniture.append(Furniture("running_head", line.start, line.end, line.text))
        head_lines.append(aline)
        token = token or h.token
        title = title or h.title
    return token, _head(page, head_lines, at, title)


def _number_token(text: str) -> str | None:
    words = [t.strip(TOKEN_DEBRIS) for t in text.split()]
    words = [w for w in words if w]
    return words[-1] if words else None


def _head(page, head_lines: list[AltoLine], at: dict[int, Line], title: str):
    """(the head as printed, its title, where it ends) of a page's head lines. The
    head ends where the page's last head line before its first other line ends: None
    when the file puts the head lines elsewhere (a running title after the text), so
    that raw_text[page start:head end] is never more than the head."""
    if not head_lines:
        return None, None, None
    head_lines = sorted(head_lines, key=lambda l: l.start)
    ids = {l.start for l in head_lines}
    end = None
    for line in sorted(page.lines, key=lambda l: l.start):
        if line.start not in ids:
            break
        end = line.end
    return " ".join(at[l.start].stripped for l in head_lines), title, end


def _untagged_head(page, at: dict[int, Line], res: Resources, s: LayoutSettings, furniture: list[Furniture]):
    """No zone types: the blocks in the page's margins are furniture, a head among
    them gives the page number; else the page's first lines may be its head."""
    token, head_lines, title = None, [], ""
    for _, aline, _ in _furniture_lines(page, at, s, furniture):
        h = _pages.parse_head(at[aline.start], res, s.heads)
        if h is not None and not head_lines:
            token, title = h.token, h.title
            head_lines.append(aline)
    if not head_lines:
        return _first_lines_head(page, at, res, s, furniture)
    return token, _head(page, head_lines, at, title)


def _units(raw: str, alto: AltoChapter, at: dict[int, Line], res: Resources, s: LayoutSettings,
           hyphenated: dict[int, str]) -> list[_paragraphs.Unit]:
    """The lines grouped as paragraphs within each block; a drop capital joined to the
    text it opens."""
    body = [l for l in at.values() if l.kind == "text"]
    width = statistics.median(len(l.stripped) for l in body) if body else 0
    units: list[_paragraphs.Unit] = []
    drop: _paragraphs.Unit | None = None
    for page in alto.pages:
        for block in page.blocks:
            text_lines = [l for l in block.lines if at[l.start].kind == "text"]
            if not text_lines:
                continue
            groups = _groups(text_lines, at, width, res, s)
            for group in groups:
                unit = _paragraphs.unit_from_lines(raw, [at[l.start] for l in group], res, s.hyphens, hyphenated)
                if drop is not None:
                    unit = replace(unit, text=drop.text.concat(unit.text, "", "layout.drop_capital"), first=drop.first)
                    drop = None
                if block.zone in s.alto.drop_capital_zones:
                    drop = unit
                    continue
                units.append(unit)
    if drop is not None:
        units.append(drop)
    return units


def _groups(lines: list[AltoLine], at: dict[int, Line], width: float, res: Resources, s: LayoutSettings) -> list[list[AltoLine]]:
    heights = [l.height for l in lines if l.height]
    lefts = [l.hpos for l in lines if l.hpos is not None]
    left = min(lefts) if lefts else None
    indent = s.alto.indent * statistics.median(heights) if heights else None
    groups: list[list[AltoLine]] = []
    for aline in lines:
        indented = (indent is not None and left is not None and aline.hpos is not None
                    and aline.hpos - left >= indent)
        if groups and not indented and not _paragraphs.ends_paragraph(
                at[groups[-1][-1].start], at[aline.start], width, res, s.paragraphs):
            groups[-1].append(aline)
        else:
            groups.append([aline])
    return groups
