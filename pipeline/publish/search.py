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


def offered(passage) -> dict[int, str]:
    """A passage's suggestions, by the offset in its clean text of the word they are for
    (a suggestion whose word the clean text no longer holds as printed is left out)."""
    out = {}
    for sg in passage.suggestions:
        at = passage.text.from_raw_offset(sg.start)
        if at is not None and passage.text.text[at : at + len(sg.before)] == sg.before:
            out[at] = sg.suggestion
    return out


def passages_search_text(passages, lexicon: Lexicon) -> tuple[str, ...]:
    """``passages.text_search`` of each of a chapter's passages: made with the chapter
    (in parallel, and cached with it), so that publishing only writes it."""
    return tuple(search_text(p.text.text, offered(p), lexicon) for p in passages)
