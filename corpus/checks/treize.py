"""Treize: the whole pack the dealer counts through."""

from __future__ import annotations

from pipeline.link.checks import check, figure

from ._cards import pack


@check("unknown:treize.u1", "the whole pack has fifty-two cards, thirteen ranks in four suits")
def fifty_two_cards(text: str) -> tuple[int, int]:
    return figure(text, r"composé de ([\w'’-]+) cartes"), len(pack())
