"""The treatise's own numbers, computed by code and compared with what the text says.

Each check names the passage it checks (by a phrase of its clean text, so that it
finds the passage whatever its citation), what the text claims, and what the code
computes from the rules of the game. Where they disagree the check says so: the
database records every check (table ``checks``), a checked edition, not a silent one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Check:
    game: str
    anchor: str  # a phrase of the passage checked, as the clean text has it
    claim: str  # what is checked, in words
    text_says: object  # the figure the text gives
    code_says: object  # the figure computed
    note: str = ""

    @property
    def agrees(self) -> bool:
        return self.text_says == self.code_says


CHECKS: list[Callable[[], list[Check]]] = []


def check(fn: Callable[[], list[Check]]) -> Callable[[], list[Check]]:
    CHECKS.append(fn)
    return fn


def all_checks() -> list[Check]:
    return [c for fn in CHECKS for c in fn()]


# -- trente-et-quarante --------------------------------------------------------------------

RANK_VALUES = {"as": 1, **{str(n): n for n in range(2, 11)}, "valet": 10, "dame": 10, "roi": 10}


def ways_to_make(point: int) -> int:
    """How many ranks can be the last card that brings a count from 30 or less to
    ``point``: the card of value v can, if point − v ≤ 30."""
    return sum(1 for v in RANK_VALUES.values() if point - v <= 30 and v <= point)


@check
def trente_et_quarante() -> list[Check]:
    text = {31: 13, 32: 12, 33: 11, 34: 10, 35: 9, 36: 8, 37: 7, 38: 6, 39: 5, 40: 4}  # 'treize fois … quatre fois'
    out = [
        Check("trente-et-quarante", "arrivera treize fois", f"the point of {p} can be made in {n} ways", n, ways_to_make(p))
        for p, n in text.items()
    ]
    total = sum(ways_to_make(p) for p in range(31, 41))
    out.append(Check("trente-et-quarante", "à 85, le carré", "the ways of making the points 31 to 40 add up to 85", 85, total))
    out.append(Check("trente-et-quarante", "le carré de cette somme",
                     "two points make a coup: the events are the square of that sum, 85 × 85", 85 * 85, total * total))
    return out


# -- tre-sette -------------------------------------------------------------------------------

TRE_SETTE_ORDER = ["3", "2", "as", "roi", "dame", "valet", "7", "6", "5", "4"]  # high to low, as the text gives it
SUITS = ["cœur", "carreau", "trèfle", "pique"]


def tre_sette_deck() -> list[tuple[str, str]]:
    """A whole pack of 52 without its eights, nines and tens."""
    ranks = ["as", *map(str, range(2, 11)), "valet", "dame", "roi"]
    return [(r, s) for s in SUITS for r in ranks if r not in ("8", "9", "10")]


def tre_sette_points(cards: list[tuple[str, str]]) -> tuple[int, int]:
    """Points and figures left over: every ace one point; three figures (3, 2, roi,
    dame, valet) one point."""
    aces = sum(1 for r, _ in cards if r == "as")
    figures = sum(1 for r, _ in cards if r in ("3", "2", "roi", "dame", "valet"))
    return aces + figures // 3, figures % 3


@check
def tre_sette() -> list[Check]:
    deck = tre_sette_deck()
    points, figures = tre_sette_points(deck)
    return [
        Check("tre-sette", "il ne reste que quarante", "without the eights, nines and tens, the pack has 40 cards", 40, len(deck)),
        Check("tre-sette", "le trois est supérieur au deux",
              "the order of the cards, from the three down to the four", ["3", "2", "as", "roi", "dame", "valet", "7", "6", "5", "4"],
              TRE_SETTE_ORDER),
        Check("tre-sette", "dix points et deux figures",
              "the whole pack counts ten points and two figures", (10, 2), (points, figures)),
        Check("tre-sette", "La dernière levée fait seule un point",
              "with the last trick, eleven points are to be made in a deal", 11, points + 1),
    ]


# -- whist -----------------------------------------------------------------------------------

def whist_game_value(adversaries_points: int) -> int:
    """Fiches a won game is worth, by the points the losers have (of ten): simple if
    they have five or more, double if one to four, triple if none."""
    if adversaries_points >= 5:
        return 1
    if adversaries_points >= 1:
        return 2
    return 3


def whist_rubber(games: list[int], consolation: int = 2, third_lost: int | None = None) -> int:
    """Fiches of a rubber won with games worth ``games``, plus the consolation; a
    third game won by the losers is deducted."""
    return sum(games) + consolation - (third_lost or 0)


@check
def whist() -> list[Check]:
    return [
        Check("whist", "ne vaut qu'une fiche, lorsqu'ils ont cinq points",
              "a game is simple (1 fiche) when the losers have five points or more", 1, whist_game_value(5)),
        Check("whist", "Elle est double et en vaut deux", "a game is double (2 fiches) when the losers have four points", 2,
              whist_game_value(4)),
        Check("whist", "Elle est triple et se paye trois fiches, quand ils ont quatre points",
              "the text says a game is also triple when the losers have four points or fewer: with the preceding "
              "sentence (double at four or fewer) and the next (triple when they have none) it cannot be; the "
              "printed 'quatre' is probably a misprint", 3, whist_game_value(4),
              note="disagreement: the text gives two values for a game won when the losers have four points"),
        Check("whist", "lorsque les adversaires n'ont aucun point",
              "a game is triple (3 fiches) when the losers have no point", 3, whist_game_value(0)),
        Check("whist", "gagnent sept fiches", "a triple and a double game with a consolation of two: seven fiches", 7,
              whist_rubber([3, 2])),
        Check("whist", "ils en gagnent neuf", "the same with a consolation of four: nine fiches", 9,
              whist_rubber([3, 2], consolation=4)),
        Check("whist", "réduit à six fiches", "the same when the losers won the third game, a simple one: six fiches", 6,
              whist_rubber([3, 2], third_lost=1)),
        Check("whist", "ils gagnent huit", "the vole counts as two triple games: eight fiches with a consolation of two", 8,
              whist_rubber([3, 3])),
        Check("whist", "ils en gagnent dix", "and ten with a consolation of four", 10, whist_rubber([3, 3], consolation=4)),
    ]


# -- hombre for two --------------------------------------------------------------------------

def hombre_pack() -> list[tuple[str, str]]:
    """The hombre pack: forty cards, a whole pack without its eights, nines and tens."""
    return tre_sette_deck()


@check
def hombre_for_two() -> list[Check]:
    red = {"cœur", "carreau"}
    pack = [c for c in hombre_pack() if c[1] != "carreau"]  # one red suit removed
    hand = sum([3, 3, 2])
    talon = len(pack) - 2 * hand
    return [
        Check("hombre", "il faut ôter une couleur rouge", "for two, one red suit is taken out: 30 cards remain", 30,
              len(pack), note=f"the red suits are {', '.join(sorted(red))}"),
        Check("hombre", "deux fois trois et une fois deux", "each player gets eight cards, by three, three and two", 8, hand),
        Check("hombre", "composé de quatorze cartes", "the talon is what the two hands leave: fourteen cards", 14, talon),
    ]


# -- trictrac --------------------------------------------------------------------------------

DOUBLETS = {1: "bezet", 2: None, 3: "terne", 4: "carmes", 5: "quine", 6: "sonnez"}


@check
def trictrac() -> list[Check]:
    names = {n: DOUBLETS[n] for n in range(1, 7)}
    out = [
        Check("trictrac", "le seul qui n'en ait point", "the double two is the only doublet without a name", [2],
              [n for n, name in names.items() if name is None]),
    ]
    for n, name in names.items():
        if name:
            out.append(Check("trictrac", f"{n} {name}" if n != 1 else "s'appelle hezet",
                             f"the double {n} is called {name}", name, DOUBLETS[n]))
    dice = list(itertools.product(range(1, 7), repeat=2))
    out.append(Check("trictrac", "vient deux", "two dice show the same number in 6 of their 36 throws", 6,
                     sum(1 for a, b in dice if a == b)))
    return out
