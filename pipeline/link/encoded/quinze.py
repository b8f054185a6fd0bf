"""Quinze, hand-encoded articles (Académie des jeux, adj)."""

from pipeline.link.model import Effect, Event, Table, encodes


@encodes("adj:quinze.65")
def must_show_fifteen(table: Table, event: Event) -> list[Effect]:
    """'Un joueur suivi de deux plus forts doit montrer quinze, sinon il est mis hors
    du coup': the player who did not show his fifteen is out of the hand."""
    return [Effect("exclude", event.actor, citation="adj:quinze.65")]


@encodes("adj:quinze.69")
def burnt_card(table: Table, event: Event) -> list[Effect]:
    """'Si la carte d'un joueur … se trouve brûlée par sa faute …, il perd ce qui est
    engagé': he loses his stake."""
    return [Effect("lose", event.actor, None, "stake", None, "adj:quinze.69")]
