"""Trente-et-quarante: in how many ways each point can be made.

The banker turns cards for a colour until their count passes thirty; the point is the
count, 31 to 40. The last card turned makes the point P when the count before it,
P − v, was thirty or less, so a point can be made by as many ranks as have a value v
with P − v ≤ 30. Values are those of the game: the ace one, the figures ten.
"""

from __future__ import annotations

import re

from pipeline.link.checks import Unreadable, check, figure, number

from ._cards import RANKS

VALUE = {"as": 1, **{str(n): n for n in range(2, 11)}, "valet": 10, "dame": 10, "roi": 10}
POINTS = range(31, 41)


def ways_to_make(point: int) -> int:
    """How many ranks can be the last card that makes ``point``."""
    return sum(1 for rank in RANKS if point - VALUE[rank] <= 30)


@check("aduj:trente-et-quarante.p302.2",
       "the points 31 to 40, in the order the text takes them, can be made in as many ways as there are "
       "ranks whose value brings a count of thirty or less to the point")
def ways_of_each_point(text: str) -> tuple[list[int], list[int]]:
    # The counts are read in order, not by the point each clause names: the print
    # gives the points in digits, which the OCR misreads (32 comes out as 82).
    start = re.search(r"\b31\b", text)
    if start is None:
        raise Unreadable("the text never names the point of 31")
    counts = [number(w) for w in re.findall(r"([\w'’-]+) fois\b", text[start.end():])]
    if not counts:
        raise Unreadable("the text gives no number of times after the point of 31")
    return counts, [ways_to_make(p) for p in POINTS]


@check("aduj:trente-et-quarante.p302.3", "the ways of making the points 31 to 40 add up to 85")
def ways_add_up(text: str) -> tuple[int, int]:
    return figure(text, r"\bà (\d+)"), sum(ways_to_make(p) for p in POINTS)
