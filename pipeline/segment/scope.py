"""The game of each passage: a heading names it; a running head that names exactly
one game switches to it on a page without a heading; a chapter that opens inside a
game takes it from its running heads or from a title that names it, else none."""

from __future__ import annotations

from ..records import Game, Layout
from ..resources import Resources
from .kinds import Draft


def assign_games(drafts: list[Draft], layout: Layout, res: Resources) -> list[Game]:
    pages = layout.pages
    heading_pages = {d.page_seq for d in drafts if d.kind == "heading"}
    unset = object()
    current: object = unset
    pending: list[Draft] = []  # drafts before any game is known
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


def _settle_prefix(pending: list[Draft], res: Resources) -> None:
    """A chapter that opens inside a game: name it from a title that names it."""
    named = {d.mentions for d in pending if d.kind == "section" and d.mentions}
    game = next(iter(named)) if len(named) == 1 else None
    for d in pending:
        d.game = game
    pending.clear()
