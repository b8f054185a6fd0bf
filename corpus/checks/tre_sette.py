"""Tre-sette: its pack, its deal and the points the pack holds.

Four players, two against two; the pack of forty, a whole pack without its eights,
nines and tens. Points of play: every ace one point, every three figures one point,
the threes and twos counting as figures with the kings, queens and jacks.
"""

from __future__ import annotations

from pipeline.link.checks import check, figure, figures

from ._cards import Card, pack

PACK = pack(without_ranks=("8", "9", "10"))
PLAYERS = 4
FIGURES = ("3", "2", "roi", "dame", "valet")


def points(cards: list[Card]) -> tuple[int, int]:
    """The points of play the cards make, and the figures left over (fewer than three)."""
    aces = sum(1 for rank, _ in cards if rank == "as")
    pictures = sum(1 for rank, _ in cards if rank in FIGURES)
    return aces + pictures // 3, pictures % 3


@check("aduj:tre-sette.p304.3", "without the eights, nines and tens, the pack has forty cards")
def forty_cards(text: str) -> tuple[int, int]:
    return figure(text, r"reste que ([\w'’-]+) cartes"), len(PACK)


@check("aduj:tre-sette.p305.4", "the pack dealt to four players gives each ten cards")
def ten_cards_each(text: str) -> tuple[int, int]:
    return figure(text, r"([\w'’-]+) cartes à chaque joueur"), len(PACK) // PLAYERS


@check("aduj:tre-sette.p306.2", "the whole pack counts ten points and two figures")
def ten_points_and_two_figures(text: str) -> tuple[tuple[int, ...], tuple[int, int]]:
    return figures(text, r"donne ([\w'’-]+) points et ([\w'’-]+) figures"), points(PACK)
