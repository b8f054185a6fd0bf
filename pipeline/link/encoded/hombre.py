"""Hombre, hand-encoded articles (aduj)."""

from pipeline.link.model import Effect, Event, Table, encodes


@encodes("aduj:hombre.61")
def vole(table: Table, event: Event) -> list[Effect]:
    """'Celui qui fait toutes les levées, fait la vole et gagne le double de ce qu'il
    y a au jeu': the player who takes every trick wins twice the pool."""
    return [Effect("score", event.actor, None, "double", "pot", "aduj:hombre.61")]


@encodes("aduj:hombre.77")
def deal_for_two(table: Table, event: Event) -> list[Effect]:
    """'L'on joue avec huit cartes, qu'on ne saurait donner autrement que par deux fois
    trois et une fois deux; et lorsqu'on donne mal, l'on refait.' The event is a deal;
    its kind says how it was dealt ('3,3,2' is right, anything else a misdeal)."""
    packets = [int(n) for n in event.kind.replace(" ", "").split(",") if n.isdigit()] if event.kind else []
    if sorted(packets) == [2, 3, 3] and sum(packets) == 8:
        return []
    return [Effect("redeal", table.dealer or event.actor, citation="aduj:hombre.77")]
