"""Whist: what a game and a rubber are worth, in fiches.

A game is ten points. Won, it is worth one fiche (simple) if the losers have five
points or more, two (double) if they have one to four, three (triple) if they have
none. The winners of a rubber (two games) are paid their games and a consolation,
ordinarily two fiches, less what the losers were paid for a game they won between
them. A vole (every trick) is paid as the best rubber, two triple games.
"""

from __future__ import annotations

import re

from pipeline.link.checks import Unreadable, check, figure, figures, number

from ._cards import pack

SIMPLE, DOUBLE, TRIPLE = 1, 2, 3
GAME = 10  # points
ORDINARY_CONSOLATION = 2
PLAYERS = 4


def game_value(losers_points: int) -> int:
    """Fiches a won game is worth, by the points the losers have."""
    if losers_points >= 5:
        return SIMPLE
    if losers_points >= 1:
        return DOUBLE
    return TRIPLE


def rubber(games: tuple[int, ...], consolation: int = ORDINARY_CONSOLATION, losers_game: int = 0) -> int:
    """Fiches the winners of a rubber gain: their games and the consolation, less the
    game the losers won."""
    return sum(games) + consolation - losers_game


def vole(consolation: int = ORDINARY_CONSOLATION) -> int:
    return rubber((TRIPLE, TRIPLE), consolation)


def _losers_points(text: str) -> int:
    if re.search(r"n['’]ont aucun point", text):
        return 0
    return figure(text, r"ont ([\w'’-]+) points")


@check("aduj:whist.p405.4", "a game is paid one, two or three fiches, by the points the losers have")
def one_two_or_three_fiches(text: str) -> tuple[list[int], list[int]]:
    m = re.search(r"se paye ((?:[\w'’-]+(?:, | ou ))+[\w'’-]+) fiches", text)
    if m is None:
        raise Unreadable("the text gives no list of fiches a game is paid")
    return [number(w) for w in re.split(r", | ou ", m[1])], sorted({game_value(p) for p in range(GAME)})


@check("aduj:whist.p405.5", "a game is simple, one fiche, when the losers have five points or more")
def simple_at_five(text: str) -> tuple[int, int]:
    return figure(text, r"([\w'’-]+) fiche\b"), game_value(_losers_points(text))


@check("aduj:whist.p405.6", "a game is double, two fiches, when the losers have four points or fewer")
def double_at_four(text: str) -> tuple[int, int]:
    return figure(text, r"en vaut ([\w'’-]+)"), game_value(_losers_points(text))


@check("aduj:whist.p405.7",
       "the text says a game is also triple, three fiches, when the losers have four points or fewer",
       note="disagreement: the text gives two values for a game won when the losers have four points, double "
            "in the sentence before and triple here; with the next sentence (triple when they have none) it "
            "cannot be both: the printed 'quatre' is probably a misprint")
def triple_at_four(text: str) -> tuple[int, int]:
    return figure(text, r"([\w'’-]+) fiches"), game_value(_losers_points(text))


@check("aduj:whist.p405.8", "a game is triple, three fiches, when the losers have no point")
def triple_at_none(text: str) -> tuple[int, int]:
    return figure(text, r"([\w'’-]+) fiches"), game_value(_losers_points(text))


@check("aduj:whist.p405.11", "a rubber of a triple and a double game, with a consolation of two: seven fiches")
def rubber_of_seven(text: str) -> tuple[int, int]:
    return figure(text, r"gagnent ([\w'’-]+) fiches"), rubber((TRIPLE, DOUBLE))


@check("aduj:whist.p405.11", "the same rubber with the consolation the text gives (four): nine fiches")
def rubber_of_nine(text: str) -> tuple[int, int]:
    fiches, consolation = figures(text, r"en gagnent ([\w'’-]+),.*? serait de ([\w'’-]+) fiches")
    return fiches, rubber((TRIPLE, DOUBLE), consolation)


@check("aduj:whist.p405.12",
       "the same rubber when the losers won the third game, a simple one: six fiches")
def rubber_of_six(text: str) -> tuple[int, int]:
    return figure(text, r"réduit à ([\w'’-]+) fiches"), rubber((TRIPLE, DOUBLE), losers_game=SIMPLE)


@check("aduj:whist.p405.13", "a vole, paid as two triple games, with the consolation the text gives (two): eight fiches")
def vole_of_eight(text: str) -> tuple[int, int]:
    fiches, consolation = figures(text, r"ils gagnent ([\w'’-]+), si la consolation est de ([\w'’-]+) fiches")
    return fiches, vole(consolation)


@check("aduj:whist.p405.13", "a vole with the consolation the text gives (four): ten fiches")
def vole_of_ten(text: str) -> tuple[int, int]:
    fiches, consolation = figures(text, r"ils en gagnent ([\w'’-]+), s['’]il a été convenu qu['’]elle serait de ([\w'’-]+)")
    return fiches, vole(consolation)


@check("aduj:whist.15", "the whole pack dealt to four players gives each thirteen cards")
def thirteen_cards_each(text: str) -> tuple[int, int]:
    return figure(text, r"donne ([\w'’-]+) cartes"), len(pack()) // PLAYERS
