"""The search layer: ``passages.text_search``.

The clean text folded for search (case, accents, œ/æ, the long s), and after each
word what a reader may type for it: the modern spelling of a period form ('avoit' →
also 'avait', 'tems' → 'temps') and the correction suggested for a word the engine
left as printed ('carles' → also 'cartes'). So a search for 'cartes', 'regle' or
'avait' finds the passages that print 'carles', 'règle' or 'avoit'.
"""

from __future__ import annotations

import regex

from ..lexicon import Lexicon
from ..text import fold

_WORD = regex.compile(r"[\p{L}\p{N}]+")


def search_text(clean: str, suggestions: dict[int, str], lexicon: Lexicon) -> str:
    """``suggestions`` maps a word's start offset in ``clean`` to what it may be."""
    out: list[str] = []
    for m in _WORD.finditer(clean):
        word = m.group()
        folded = fold(word)
        out.append(folded)
        extra: list[str] = []
        if lexicon.is_period_form(word.lower()):
            extra += [fold(v) for v in lexicon.period_modern(word.lower()) if lexicon.zipf(v) >= 3.0]
        if m.start() in suggestions:
            extra.append(fold(suggestions[m.start()]))
        out.extend(e for e in dict.fromkeys(extra) if e != folded)
    return " ".join(out)
