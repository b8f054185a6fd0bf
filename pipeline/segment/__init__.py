"""The segment stage: ``Layout`` → ``Segmented``.

Gives every paragraph its kind and splits those that hold several units (``kinds``),
then settles, for the chapter as a whole, the game of each passage (``scope``), the
numbers of the articles (``articles``) and the footnotes' calls (``passages``).
Citations are given once every chapter is segmented (``citations``). Settings:
pipeline/data/segment.toml.
"""

from __future__ import annotations

from ..records import Diagnostic, Layout, Segmented
from ..resources import Resources
from .articles import decode_numbers, end_articles, find_run_ons
from .kinds import Draft, join_article_headings, split_block
from .passages import attach_notes, give_suggestions, passages as make_passages
from .scope import assign_games

__all__ = ["segment"]


def segment(layout: Layout, res: Resources) -> Segmented:
    name = layout.chapter.source_file
    diagnostics: list[Diagnostic] = []
    drafts: list[Draft] = []
    in_glossary = False
    for block in layout.blocks:
        if block.footnote is not None:
            drafts.append(Draft("footnote", block.text, block.page_seq, note=block.footnote))
            continue
        for d in split_block(block.text, block.page_seq, in_glossary, res):
            if d.kind == "heading":
                in_glossary = False
            elif d.kind == "section":
                in_glossary = d.glossary
            drafts.append(d)
    drafts = join_article_headings(drafts, res)
    for d in drafts:
        d.page_seq = layout.page_at(d.text.raw_start)

    games = assign_games(drafts, layout, res)
    find_run_ons(drafts, res)
    drafts = decode_numbers(drafts, res)
    end_articles(drafts)
    for d in drafts:
        d.page_seq = layout.page_at(d.text.raw_start)
    attach_notes(drafts, diagnostics, name)
    passages = make_passages(drafts, layout, res)
    passages = give_suggestions(passages, [s for b in layout.blocks for s in b.suggestions])

    n_articles = sum(p.kind == "article" for p in passages)
    if not passages:
        diagnostics.append(Diagnostic(name, "warning", "no structure: no paragraph could be read"))
    elif not n_articles and not games and all(p.page is None for p in passages) and not any(
        p.kind in ("heading", "section") for p in passages
    ):
        diagnostics.append(Diagnostic(name, "warning", "no structure found: no running heads, games, sections or articles"))
    return Segmented(layout, tuple(passages), tuple(games), tuple(diagnostics))
