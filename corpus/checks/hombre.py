"""Hombre for two: the deal and the talon.

Hombre is played with the pack of forty, a whole pack without its eights, nines and
tens; for two players one red suit is taken out, and each gets eight cards.
"""

from __future__ import annotations

from pipeline.link.checks import check, figure, figures

from ._cards import pack

# one red suit out: which one does not change the count
PACK_FOR_TWO = pack(without_ranks=("8", "9", "10"), without_suits=("carreau",))
HAND = 8


@check("aduj:hombre.77", "a hand of eight cards, dealt by twice three and once two: the packets add up to the hand")
def eight_cards_in_three_packets(text: str) -> tuple[int, int]:
    times_a, packet_a, times_b, packet_b = figures(
        text, r"par ([\w'’-]+) fois ([\w'’-]+) et ([\w'’-]+) fois ([\w'’-]+)")
    return figure(text, r"avec ([\w'’-]+) cartes"), times_a * packet_a + times_b * packet_b


@check("aduj:hombre.78", "the pack of forty without a red suit, less two hands of eight, leaves a talon of fourteen")
def talon_of_fourteen(text: str) -> tuple[int, int]:
    return figure(text, r"composé de ([\w'’-]+) cartes"), len(PACK_FOR_TWO) - 2 * HAND
