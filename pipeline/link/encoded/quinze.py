"""Quinze, hand-encoded articles (Académie des jeux, adj)."""

import re

from pipeline.link.model import Effect, Event, Table, encodes

_SHOWN = re.compile(r"^\s*(\d+)\s+stronger\s*,\s*(not\s+)?shown\s*$")
_FAULT = re.compile(r"^\s*fault\s+(\S+?)\s*(,\s*known\s*)?$")


@encodes("adj:quinze.65")
def must_show_fifteen(table: Table, event: Event) -> list[Effect]:
    """'Un joueur suivi de deux plus forts doit montrer quinze, sinon il est mis hors
    du coup.'

    The event's actor holds fifteen. Its kind says how many of the players after him
    are stronger (plus forts) and whether he showed his fifteen:

    - ``"2 stronger, not shown"``: he is followed by two stronger and did not show
      it; he is out of the hand (exclude);
    - ``"2 stronger, shown"``: he showed it; nothing happens;
    - ``"1 stronger, not shown"``: fewer than two stronger follow him; the article
      does not bind him, nothing happens.

    Three or more stronger count as 'two stronger' (our reading: they include two).
    Anything else is not an event this article can read (ValueError).
    """
    m = _SHOWN.match(event.kind)
    if not m:
        raise ValueError(f"adj:quinze.65: cannot read the event {event.kind!r}: say how many stronger players "
                         "follow the actor and whether he showed his fifteen ('2 stronger, not shown', '2 stronger, shown')")
    stronger, shown = int(m[1]), m[2] is None
    if stronger >= 2 and not shown:
        return [Effect("exclude", event.actor, citation="adj:quinze.65")]
    return []


@encodes("adj:quinze.69")
def burnt_card(table: Table, event: Event) -> list[Effect]:
    """'Si la carte d'un joueur, non connue, se trouve brûlée par sa faute ou son
    [fait], il perd ce qui est engagé.'

    The event's actor is the player whose card was burnt. Its kind names the player
    whose fault it was, and says whether the card was known:

    - ``"fault C"`` with C the actor: his own card, unknown, burnt by his fault; he
      loses his stake (lose, amount 'stake');
    - ``"fault A"`` with A another player: not his fault; this article gives nothing;
    - ``"fault C, known"``: the card was known; the article, which speaks of a card
      'non connue', gives nothing.

    A name not at the table, or anything else, is not an event this article can read
    (ValueError).
    """
    m = _FAULT.match(event.kind)
    if not m:
        raise ValueError(f"adj:quinze.69: cannot read the event {event.kind!r}: name the player whose fault the "
                         "burnt card was, and add ', known' if the card was known ('fault C', 'fault C, known')")
    who, known = m[1], m[2] is not None
    if who not in table.names:
        raise ValueError(f"adj:quinze.69: {who!r}, whose fault the event says it was, is not at the table "
                         f"({', '.join(table.names)})")
    if who == event.actor and not known:
        return [Effect("lose", event.actor, None, "stake", None, "adj:quinze.69")]
    return []
