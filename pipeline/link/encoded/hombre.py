"""Hombre, hand-encoded articles (aduj)."""

import re

from pipeline.link.model import Effect, Event, Table, encodes

_TRICKS = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*(?:,\s*agreed\s+(\d+)\s*)?$")


@encodes("aduj:hombre.61")
def vole(table: Table, event: Event) -> list[Effect]:
    """'Celui qui fait toutes les levées, fait la vole et gagne le double de ce qu'il
    y a au jeu, à moins que l'on ait fixé ce que doit gagner celui qui fait la vole.'

    The event is the end of a hand, its actor the player counted. Its kind says how
    many tricks he took of how many were played, and whether the players had fixed
    beforehand what the vole wins:

    - ``"9/9"``: he took every trick; he makes the vole and wins twice what is in
      the pool (score, amount 'double', unit 'pot');
    - ``"9/9, agreed 12"``: the same, but the table had fixed the vole at 12; he
      wins that (score 12, no unit: the article does not say what the table counts in);
    - ``"8/9"``: he did not take every trick; this article gives nothing (other
      articles settle the hand).

    Anything else is not an event this article can read (ValueError).
    """
    m = _TRICKS.match(event.kind)
    if not m or int(m[2]) == 0 or int(m[1]) > int(m[2]):
        raise ValueError(f"aduj:hombre.61: cannot read the event {event.kind!r}: say how many tricks the actor "
                         "took of how many were played ('9/9', '8/9'), and the vole's fixed value if any ('9/9, agreed 12')")
    taken, played, agreed = int(m[1]), int(m[2]), m[3]
    if taken < played:
        return []
    if agreed is not None:
        return [Effect("score", event.actor, None, int(agreed), None, "aduj:hombre.61")]
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
