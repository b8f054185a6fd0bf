"""The link stage: every article (and every paragraph of a game that states a norm) →
its rule: structure (modality, who it binds, condition, effects: ``rules``) and an
executable stub (``stubs``), generated, or calling a rule encoded by hand
(``encoded``). The only stage that loads spaCy, once per process."""

from __future__ import annotations

from ..records import BuiltChapter

NORMATIVE = ("obligation", "prohibition", "permission", "penalty", "scoring")


def link(built: list[BuiltChapter]) -> dict[str, tuple]:
    """citation → (Stub, RuleRecord) for every article, and every paragraph of a game
    whose rule is normative."""
    from . import encoded  # noqa: F401  (registers the hand encodings)
    from .model import ENCODED
    from .rules import Extractor
    from .stubs import make_stub

    candidates = [(p, cite) for c in built for p, cite in zip(c.seg.passages, c.citations)
                  if p.kind == "article" or (p.kind == "paragraph" and p.game)]
    if not candidates:
        return {}
    records = Extractor().extract_many([p for p, _ in candidates])
    return {
        cite: (make_stub(cite, p.page, p.text.text, rec, cite in ENCODED), rec)
        for (p, cite), rec in zip(candidates, records)
        if p.kind == "article" or rec.modality in NORMATIVE
    }
