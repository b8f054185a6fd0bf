"""Guinguette: the short pack for three or four players.

With three or four players the small cards are taken out up to the fives; the aces
stay, as the lowest cards.
"""

from __future__ import annotations

from pipeline.link.checks import check, figure

from ._cards import pack

SHORT_PACK = pack(without_ranks=("2", "3", "4", "5"))


@check("aduj:guinguette.p160.2", "without the twos, threes, fours and fives, the pack has thirty-six cards")
def thirty_six_cards(text: str) -> tuple[int, int]:
    return figure(text, r"qu['’]avec ([\w'’-]+) cartes"), len(SHORT_PACK)
