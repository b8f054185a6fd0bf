"""The link stage: every article (and every paragraph of a game that states a norm) →
its rule: structure (modality, who it binds, condition, effects: ``rules``) and an
executable stub (``stubs``), generated, or calling a rule encoded by hand
(``encoded``); and the corpus's own checks of the treatise's figures, run on the
passages they cite (``checks``).

Reading the rules (``extract``) is done chapter by chapter, with the chapter stages,
so that it runs in parallel and is cached with them; it is the only step that loads
spaCy, once per process and only when a chapter has passages to read. ``link`` makes
the stubs once citations are known."""

from __future__ import annotations

from typing import Mapping

from ..records import BuiltChapter, Diagnostic, Passage, Segmented
from ..resources import Resources

NORMATIVE = ("obligation", "prohibition", "permission", "penalty", "scoring")


def may_state_a_rule(p: Passage) -> bool:
    return p.kind == "article" or (p.kind == "paragraph" and bool(p.game))


def candidates(seg: Segmented) -> list[Passage]:
    """The passages that may state a rule: every article, and every paragraph of a game."""
    return [p for p in seg.passages if may_state_a_rule(p)]


def _extractor(res: Resources):
    from .rules import Extractor

    return res.cached("link.extractor", Extractor)


def rules_loaded(res: Resources) -> bool:
    return "nlp" in vars(_extractor(res))


def load_rules(res: Resources) -> None:
    """Load the model the rules are read with, and make their matchers (timed apart as start-up)."""
    _extractor(res).matchers  # noqa: B018


def loaded_components(res: Resources) -> tuple[str, ...] | None:
    """The model's components loaded besides its tokenizer in this process (None: no model)."""
    extractor = res._cache.get("link.extractor")
    return extractor.components if extractor is not None and "nlp" in vars(extractor) else None


def extract(seg: Segmented, passages: list[Passage], res: Resources) -> tuple[tuple | None, str | None]:
    """The rule each of the chapter's ``passages`` states, or why they could not be read
    (its passages are published, without rules)."""
    try:
        return tuple(_extractor(res).extract_many(passages)), None
    except Exception as exc:  # noqa: BLE001 - one chapter's failure is its error line, not the build's end
        return None, f"its rules could not be read: {type(exc).__name__}: {exc} (please report it)"


def link(built: list[BuiltChapter], rules: list[tuple[tuple | None, str | None]]) -> tuple[dict[str, tuple], list[Diagnostic]]:
    """citation → (Passage, RuleRecord) for every article, and every paragraph of a game
    whose rule is normative, from the rules each chapter's candidates state (``rules``,
    one (records, error) per chapter, as ``extract`` gives them); and an error line for
    each chapter whose rules could not be read. ``stubs`` makes their stubs."""
    out: dict[str, tuple] = {}
    diagnostics: list[Diagnostic] = []
    for c, (records, error) in zip(built, rules):
        if error is not None:
            diagnostics.append(Diagnostic(c.info.source_file, "error", error))
            continue
        cited = [(p, cite) for p, cite in zip(c.seg.passages, c.citations) if may_state_a_rule(p)]
        for (p, cite), rec in zip(cited, records or ()):
            if p.kind == "article" or rec.modality in NORMATIVE:
                out[cite] = (p, rec)
    return out, diagnostics


def stubs(linked: dict[str, tuple], wrapped: Mapping[str, str] | None = None) -> dict[str, tuple]:
    """citation → (Stub, RuleRecord): each linked rule's executable stub (generated, or
    calling the rule encoded by hand); ``wrapped``: passages' texts as their docstrings
    hold them (``stubs.wrapped``), by text, where made already."""
    from . import encoded  # noqa: F401  (registers the hand encodings)
    from .model import ENCODED
    from .stubs import make_stub

    wrapped = wrapped or {}
    return {cite: (make_stub(cite, p.page, p.text.text, rec, cite in ENCODED, wrapped.get(p.text.text)), rec)
            for cite, (p, rec) in linked.items()}
