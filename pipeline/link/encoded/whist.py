"""Whist, hand-encoded articles (Académie universelle des jeux, aduj)."""

from pipeline.link.model import Effect, Event, Table, encodes


@encodes("aduj:whist.3")
def renounce(table: Table, event: Event) -> list[Effect]:
    """'Dès qu'on renonce, les adversaires sont en droit de compter trois points; et
    ceux qui ont renoncé … doivent rester à neuf': the renouncers' adversaries, as a
    side, score three points."""
    side = "+".join(table.adversaries(event.actor))
    return [Effect("score", side, None, 3, "point", "aduj:whist.3")]
