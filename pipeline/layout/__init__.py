"""The layout stage: ``RawChapter`` → ``Layout``.

Finds what on the page is not reading text (the export's header and footer, the
running heads with their page numbers: ``lines``, ``pages``), reads the page numbers
against their sequence, and rebuilds the paragraphs (``paragraphs``); an ALTO
chapter's pages, heads and lines come from its XML (``alto``). Every join is
an edit of a ``MappedText``, so each paragraph still maps back, character by
character, to the raw text. Settings: pipeline/data/layout.toml.
"""

from __future__ import annotations

from ..records import Diagnostic, Layout, RawChapter
from ..resources import Resources
from . import alto as _alto, lines as _lines, pages as _pages, paragraphs as _paragraphs
from .settings import LayoutSettings

__all__ = ["layout", "LayoutSettings"]


def layout(chapter: RawChapter, res: Resources) -> Layout:
    s = LayoutSettings.default()
    if chapter.alto is not None:
        pages, furniture, blocks = _alto.alto_layout(chapter, res, s)
        diagnostics = _pages.page_diagnostics(chapter.source_file, pages)
        return _layout(chapter, None, pages, furniture, blocks, "alto", "pages from the XML", diagnostics)
    raw = chapter.text
    name = chapter.source_file
    diagnostics: list[Diagnostic] = []
    lines = _lines.split_lines(raw)
    header = _lines.mark_export_lines(lines)

    heads = _pages.find_heads(lines, res, s.heads)
    for h in heads:
        h.line.kind = "head"
    form = _paragraphs.form(lines, s.paragraphs)
    inline = _pages.inline_heads(lines, res, s.heads) if form == "run-on" else []
    heads = sorted(heads + inline, key=lambda h: h.line.start)
    numbers = _pages.read_page_numbers([h.token for h in heads], res.digits, s.page_numbers)
    bare = []
    if not heads and "\f" not in raw:  # no head marks the pages: perhaps bare numbers inside the text
        bare, numbers = _pages.inline_page_numbers(lines, res, s.inline_numbers, s.heads)
        heads = bare
    cut = [h.line for h in inline + bare]

    units = _paragraphs.units(raw, lines, form, res, s, cut)
    joins = _paragraphs.decide_joins(units, lines, res)

    pages = _pages.form_feed_pages(_pages.pages(lines, heads, numbers, res), lines)
    if form != "wrapped":  # a wrapped chapter's line ends say nothing of its pages
        breaks = [(j.gap_start, j.gap_end) for j in joins if j.kind == "continued"]
        pages, lost = _pages.infer_lost_pages(pages, breaks)
        for _, missing in lost:
            diagnostics.append(Diagnostic(name, "warning", f"page {missing} has no running head; "
                                          f"its start is placed at the paragraph break nearest to it"))
    diagnostics.extend(_pages.page_diagnostics(name, pages))
    blocks = _paragraphs.blocks(units, joins, pages, res.lexicon, s.hyphens)
    furniture = sorted(_lines.furniture(lines + cut), key=lambda f: f.start)
    return _layout(chapter, header, pages, furniture, blocks, form, _pages.pagination(raw, heads, inline, bare),
                   diagnostics)


def _layout(chapter: RawChapter, header, pages, furniture, blocks, form: str, pagination: str,
            diagnostics: list[Diagnostic]) -> Layout:
    if not blocks:
        diagnostics.append(Diagnostic(chapter.source_file, "warning", "no reading text found"))
    return Layout(
        chapter=chapter,
        header=header,
        pages=tuple(pages),
        furniture=tuple(furniture),
        blocks=tuple(blocks),
        form=form,
        pagination=pagination,
        diagnostics=tuple(diagnostics),
    )
