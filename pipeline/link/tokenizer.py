"""spaCy's French tokenizer as the model ships it, loaded in a fraction of the time
``spacy.load`` takes, the tokens identical.

What costs the time is one regular expression: the French ``token_match`` (words such
as 'anti-jeu' or 'entr'acte' kept whole), 266 alternatives of 1.45 MB, each repeating
the same classes of thousands of letters, which Python compiles one alternative at a
time under IGNORECASE: 5–9 s, paid when ``spacy.lang.fr`` is imported (whatever is
loaded of the model) and again at the model's load were it not in ``re``'s cache. The
tokenizer here is the one ``spacy.load`` builds, ``Tokenizer.from_bytes`` of the model's
own ``tokenizer`` file, with that expression rewritten by ``factor`` into an
equivalent one that states each class a few times, not hundreds (19 kB: 0.1–0.5 s
here), and without importing ``spacy.lang.fr`` at all.

Its lexemes carry the attributes spaCy computes from a token's text alone (the base
language's getters: ``LOWER`` is ``str.lower``); those the French language class
changes (``LIKE_NUM``, ``IS_STOP``, ``NORM``) would differ, so patterns that read
anything but ``TEXT_ATTRS`` load the model the usual way (``rules.load_model``).
"""

from __future__ import annotations

import re
from pathlib import Path

# the token attributes this tokenizer gives exactly as spacy.load's does
TEXT_ATTRS = frozenset({"ORTH", "TEXT", "LOWER", "LENGTH"})

# one piece of a pattern: an escape, a character class (a ']' first in it is literal), or a character
_PIECE = re.compile(r"\\.|\[\^?\]?[^\]\\]*(?:\\.[^\]\\]*)*\]|.", re.S)
_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d*,?\d*\})\??")
_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
# what makes the text of one alternative matter to another: numbered or named back-references, conditionals
_REFERENCES = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")
BIG = 200  # characters: a class this long costs milliseconds to compile, each time it is written


def load_tokenizer(model: Path):
    """The tokenizer of the spaCy model installed at ``model`` (its data folder)."""
    import srsly
    from spacy.lang.lex_attrs import LEX_ATTRS
    from spacy.tokenizer import Tokenizer
    from spacy.vocab import Vocab

    data = srsly.msgpack_loads((model / "tokenizer").read_bytes())
    if isinstance(data.get("token_match"), str):
        data["token_match"] = factor(data["token_match"])
    tokenizer = Tokenizer(Vocab(lex_attr_getters=dict(LEX_ATTRS)))
    return tokenizer.from_bytes(srsly.msgpack_dumps(data))


def factor(pattern: str, big: int = BIG) -> str:
    """``pattern``, its top-level alternatives that differ in one place only merged
    into one: ``^anti-[a-z]+$|^contre-[a-z]+$`` → ``(?:^anti-|^contre-)[a-z]+$``, each
    character class longer than ``big`` (with its quantifier) a fixed point the others
    are compared between. The two match the same strings (concatenation distributes over
    alternation); what differs is which alternative a match object names, which no
    reader of a truth value sees (spaCy's tokenizer only asks whether ``token_match``
    matches). A pattern with back-references or conditionals, or whose groups do not
    balance, is returned as it is; so is an alternative that does not cut into parts
    that are expressions of their own."""
    flags = _GLOBAL_FLAGS.match(pattern)
    head = flags.group() if flags else ""
    pieces = _PIECE.findall(pattern, len(head))
    alternatives = _split(pieces, "|")
    if alternatives is None or _REFERENCES.search("".join(p for p in pieces if not p.startswith("["))):
        return pattern
    shaped = [(_shape(_unwrap(a), big), "".join(a)) for a in alternatives]
    shapes = [shape for shape, _ in shaped if shape is not None]
    # an alternative whose long classes stand inside its groups, or whose parts are not
    # expressions of their own, is kept as it is
    unshaped = [a for shape, a in shaped if shape is None]
    if not shapes:
        return pattern
    for i in range(max(len(segments) for _, segments in shapes)):
        groups: dict[tuple, list[str]] = {}
        kept = []
        for bigs, segments in shapes:
            if i < len(segments):
                groups.setdefault((bigs, segments[:i], segments[i + 1:]), []).append(segments[i])
            else:
                kept.append((bigs, segments))
        shapes = kept + [
            (bigs, (*before, varied[0] if len(varied) == 1 else f"(?:{'|'.join(dict.fromkeys(varied))})", *after))
            for (bigs, before, after), varied in groups.items()
        ]
    return head + "|".join([*(f"(?:{_join(bigs, segments)})" for bigs, segments in shapes), *unshaped])


def _split(pieces: list[str], sep: str) -> list[list[str]] | None:
    """``pieces`` cut at each ``sep`` outside any group; None if the groups do not balance."""
    parts, depth, start = [], 0, 0
    for k, c in enumerate(pieces):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif c == sep and depth == 0:
            parts.append(pieces[start:k])
            start = k + 1
    if depth:
        return None
    return [*parts, pieces[start:]]


def _unwrap(alternative: list[str]) -> list[str]:
    inner = alternative[3:-1]
    if alternative[:3] == ["(", "?", ":"] and alternative[-1:] == [")"] and _split(inner, "|") == [inner]:
        return inner
    return alternative


def _shape(alternative: list[str], big: int) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(its long classes with their quantifiers, the segments around them), or None when
    a segment is not a regular expression of its own (a group left open, a quantifier
    of the class before it)."""
    bigs: list[str] = []
    segments: list[list[str]] = [[]]
    k = 0
    while k < len(alternative):
        c = alternative[k]
        k += 1
        if c.startswith("[") and len(c) > big:
            q = _QUANTIFIER.match("".join(alternative[k:k + 8]))
            n = len(q.group()) if q else 0  # a quantifier's pieces are single characters
            bigs.append(c + "".join(alternative[k:k + n]))
            segments.append([])
            k += n
        else:
            segments[-1].append(c)
    if any(_split(s, "|") != [s] for s in segments) or any(_QUANTIFIER.match("".join(s[:1])) for s in segments[1:]):
        return None
    return tuple(bigs), tuple("".join(s) for s in segments)


def _join(bigs: tuple[str, ...], segments: tuple[str, ...]) -> str:
    return segments[0] + "".join(b + s for b, s in zip(bigs, segments[1:]))
