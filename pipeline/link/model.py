"""The small typed world the rule stubs run in: a table of seated players, an event
with its actor, and the effects a rule produces.

A stub is called as ``rule(table, event)``: the event is what the article's
condition describes ('deals wrongly', 'renounces'), done by ``event.actor``; the
stub returns the effects the article attaches to it. Effects are plain values, so
scenario tests compare them with ``==``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

# -- the table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    name: str
    team: int | None = None  # players of one team are partners


@dataclass(frozen=True)
class Table:
    players: tuple[Player, ...]
    dealer: str | None = None
    banker: str | None = None
    hombre: str | None = None  # at hombre: the player who plays against the others

    @classmethod
    def seated(cls, names: Iterable[str], partnerships: bool | None = None, **roles: str | None) -> "Table":
        """Players in their seating order. With four players and ``partnerships``
        (the default for four), those facing each other are partners: A and C, B and D."""
        names = list(names)
        if len(set(names)) != len(names) or not names:
            raise ValueError(f"players must be distinct names, not {names!r}")
        teamed = len(names) == 4 if partnerships is None else partnerships
        players = tuple(Player(n, i % 2 if teamed else None) for i, n in enumerate(names))
        for role, who in roles.items():
            if who is not None and who not in names:
                raise ValueError(f"the {role} {who!r} is not at the table ({', '.join(names)})")
        return cls(players, **roles)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def player(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise ValueError(f"{name!r} is not at the table ({', '.join(self.names)})")

    def others(self, name: str) -> list[str]:
        self.player(name)
        return [n for n in self.names if n != name]

    def partner(self, name: str) -> str | None:
        me = self.player(name)
        if me.team is None:
            return None
        mates = [p.name for p in self.players if p.team == me.team and p.name != name]
        return mates[0] if mates else None

    def adversaries(self, name: str) -> list[str]:
        me = self.player(name)
        if me.team is None:
            return self.others(name)
        return [p.name for p in self.players if p.team != me.team]

    def resolve(self, role: str, event: "Event") -> list[str]:
        """The players a role names, when ``event`` has happened."""
        actor = event.actor
        if role in ("player", "any_player", "actor"):
            return [actor]
        if role == "dealer":
            return [self.dealer or actor]
        if role == "banker":
            return [self.banker or actor]
        if role == "hombre":
            return [self.hombre or actor]
        if role == "partner":
            mate = self.partner(actor)
            return [mate] if mate else []
        if role == "adversaries":
            return self.adversaries(actor)
        if role in ("each_player", "everyone"):
            return self.names
        if role in ("each_other_player", "others", "defenders", "pontes"):
            return self.others(self.banker if role == "pontes" and self.banker else actor)
        raise ValueError(f"no such role: {role!r}")


@dataclass(frozen=True)
class Event:
    actor: str  # who did what the article's condition describes
    kind: str = ""  # in the article's words, for the record


# -- effects ---------------------------------------------------------------------------------

EFFECT_KINDS = ("pay", "score", "lose", "forfeit", "redeal", "exclude")


@dataclass(frozen=True)
class Effect:
    kind: str  # pay, score, lose, forfeit, redeal, exclude
    actor: str  # who pays, scores, loses, deals again …
    to: str | None = None  # who receives a payment
    amount: int | str | None = None  # a number, or what the text names: 'double', 'stake', 'pot' …
    unit: str | None = None  # jeton, fiche, point, partie …
    citation: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in EFFECT_KINDS:
            raise ValueError(f"unknown effect {self.kind!r}: one of {', '.join(EFFECT_KINDS)}")

    def __str__(self) -> str:
        what = {"pay": "pays", "score": "scores", "lose": "loses", "forfeit": "forfeits",
                "redeal": "deals again", "exclude": "is out of the hand"}[self.kind]
        amount = "" if self.amount is None else f" {self.amount}"
        unit = f" {self.unit}" + ("s" if isinstance(self.amount, int) and self.amount > 1 else "") if self.unit else ""
        to = f" to {self.to}" if self.to else ""
        cite = f"  [{self.citation}]" if self.citation else ""
        return f"{self.actor} {what}{amount}{unit}{to}{cite}"


def recipients(table: Table, to: str | None, payer: str, event: Event) -> list[str | None]:
    if to is None:
        return [None]
    if to == "each_other_player":
        return [n for n in table.names if n != payer]
    if to == "adversaries":
        return table.adversaries(payer)
    if to in ("pot", "winner"):
        return [to]
    if to == "each_defender":
        return [n for n in table.names if n != payer]
    return [n for n in table.resolve(to, event) if n != payer]


def effects(table: Table, event: Event, bearer: str, spec: list[dict], citation: str) -> list[Effect]:
    """The effects of a rule whose consequences are ``spec`` (as extracted: kind,
    amount, unit, to), borne by the players ``bearer`` names."""
    out: list[Effect] = []
    for actor in table.resolve(bearer, event):
        for c in spec:
            for to in recipients(table, c.get("to"), actor, event) if c["kind"] == "pay" else [c.get("to")]:
                out.append(Effect(c["kind"], actor, to, c.get("amount"), c.get("unit"), citation))
    return out


# -- hand-encoded rules ----------------------------------------------------------------------

Rule = Callable[[Table, Event], list[Effect]]
ENCODED: dict[str, Rule] = {}


def encodes(citation: str) -> Callable[[Rule], Rule]:
    """Mark a function as the hand encoding of the article cited: it replaces the
    generated stub of that article."""

    def mark(fn: Rule) -> Rule:
        if citation in ENCODED and ENCODED[citation] is not fn:
            raise ValueError(f"{citation} is encoded twice")
        ENCODED[citation] = fn
        fn.citation = citation  # type: ignore[attr-defined]
        return fn

    return mark
