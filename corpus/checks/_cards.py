"""The French pack of cards, which the checks of the card games share.

Thirteen ranks in four suits, fifty-two cards. The games of the treatise play with
the whole pack or with a short one, the whole pack without some ranks or suits.
"""

from __future__ import annotations

RANKS = ("as", "2", "3", "4", "5", "6", "7", "8", "9", "10", "valet", "dame", "roi")
SUITS = ("cœur", "carreau", "trèfle", "pique")

Card = tuple[str, str]


def pack(without_ranks: tuple[str, ...] = (), without_suits: tuple[str, ...] = ()) -> list[Card]:
    """The whole pack, less the ranks and suits named."""
    return [(r, s) for s in SUITS if s not in without_suits for r in RANKS if r not in without_ranks]
