"""The link stage: every article (and every paragraph of a game that states a norm) →
its rule: structure (modality, who it binds, condition, effects: ``rules``) and an
executable stub (``stubs``), generated, or calling a rule encoded by hand
(``encoded``); and the corpus's own checks of the treatise's figures, run on the
passages they cite (``checks``). The only stage that loads spaCy, once per process."""

from __future__ import annotations

from ..records import BuiltChapter, Diagnostic

NORMATIVE = ("obligation", "prohibition", "permission", "penalty", "scoring")


def link(built: list[BuiltChapter]) -> tuple[dict[str, tuple], list[Diagnostic]]:
    """citation → (Stub, RuleRecord) for every article, and every paragraph of a game
    whose rule is normative; and an error line for each chapter whose rules could not
    be read (its passages are published, without rules)."""
    from . import encoded  # noqa: F401  (registers the hand encodings)
    from .model import ENCODED
    from .rules import Extractor
    from .stubs import make_stub

    extractor = Extractor()
    out: dict[str, tuple] = {}
    diagnostics: list[Diagnostic] = []
    for c in built:
        candidates = [(p, cite) for p, cite in zip(c.seg.passages, c.citations)
                      if p.kind == "article" or (p.kind == "paragraph" and p.game)]
        if not candidates:
            continue
        try:
            records = extractor.extract_many([p for p, _ in candidates])
        except Exception as exc:  # noqa: BLE001 - one chapter's failure is its error line, not the build's end
            diagnostics.append(Diagnostic(c.info.source_file, "error", f"its rules could not be read: "
                                          f"{type(exc).__name__}: {exc} (please report it)"))
            continue
        for (p, cite), rec in zip(candidates, records):
            if p.kind == "article" or rec.modality in NORMATIVE:
                out[cite] = (make_stub(cite, p.page, p.text.text, rec, cite in ENCODED), rec)
    return out, diagnostics
