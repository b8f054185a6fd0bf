"""Reading OCR'd numbers: page numbers, article numbers, Roman numerals.

A printed number comes out of the OCR as glyphs that may not be digits at all
('l2' for 12, 'S7' for 57, '3o7' for 307). ``DigitModel`` (data: digits.toml) says
what each glyph can stand for and at what cost; ``readings`` lists the plausible
values of a token and ``cost`` prices any value the context asks for. The values of
a whole sequence (the pages of a chapter, the articles of a game) are then chosen
together by ``best_path``, a Viterbi search, because a number is best read from its
neighbours: '58.' between 52 and 54 is 53.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Hashable, Sequence

import regex

from . import data

DIGITS = "0123456789"


class DigitModel:
    def __init__(self, data: dict):
        self.unknown_glyph = float(data["unknown_glyph"])
        self.digit_for_digit = float(data["digit_for_digit"])
        self.noise_glyph = float(data["noise_glyph"])
        self.other_dropped = float(data["other_dropped"])
        self.noise = set(data["noise"])
        self.glyphs: dict[str, dict[str, float]] = {
            g: {d: float(c) for d, c in options} for g, options in data["glyphs"].items()
        }
        self.group_glyphs = sorted((g for g in self.glyphs if len(g) > 1), key=len, reverse=True)
        similar = data["similar_digits"]
        self.similar = {frozenset(p) for p in similar["pairs"]}
        self.similar_cost = float(similar["cost"])

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "DigitModel":
        return cls(data.load("digits"))

    def glyph_cost(self, glyph: str, digit: str) -> float:
        options = self.glyphs.get(glyph)
        if options and digit in options:
            return options[digit]
        if len(glyph) == 1 and glyph in DIGITS:
            if frozenset((glyph, digit)) in self.similar:
                return self.similar_cost
            return self.digit_for_digit
        if len(glyph) > 1:
            return float("inf")
        return self.unknown_glyph

    def drop_cost(self, glyph: str) -> float:
        if glyph == " ":
            return 0.0
        if glyph in self.noise:
            return self.noise_glyph
        return self.other_dropped

    def digit_likeness(self, token: str) -> float:
        """Share of the token's glyphs that are digits or read as digits cheaply."""
        glyphs = [c for c in token if c != " "]
        if not glyphs:
            return 0.0
        good = sum(1 for c in glyphs if c in DIGITS or min(self.glyphs.get(c, {"": 9}).values()) <= 1.0)
        return good / len(glyphs)

    def readings(self, token: str, max_cost: float = 3.0, max_digits: int = 4) -> dict[int, float]:
        """Values the token can be read as through the listed confusions, with their costs."""
        out: dict[int, float] = {}
        _walk(self, token, max_cost, max_digits, out, 0, "", 0.0)
        return out

    def cost(self, token: str, value: int) -> float:
        """The cost of reading ``token`` as ``value``, through any damage."""
        return _align(self, token, str(value))


def _walk(model: DigitModel, token: str, max_cost: float, max_digits: int, out: dict[int, float],
          p: int, digits: str, cost: float) -> None:
    """``DigitModel.readings`` from glyph p on, the digits read so far at this cost
    (a function of the module, not a closure calling itself: that is a cycle of
    references, left for the garbage collector at each call)."""
    if cost > max_cost or len(digits) > max_digits:
        return
    if p == len(token):
        if digits and int(digits) > 0:
            value = int(digits)
            if cost < out.get(value, 99.0):
                out[value] = cost
        return
    ch = token[p]
    _walk(model, token, max_cost, max_digits, out, p + 1, digits, cost + model.drop_cost(ch))
    if ch in DIGITS:
        _walk(model, token, max_cost, max_digits, out, p + 1, digits + ch, cost)
    for d, c in model.glyphs.get(ch, {}).items():
        if d != ch:
            _walk(model, token, max_cost, max_digits, out, p + 1, digits + d, cost + c)
    for g in model.group_glyphs:
        if token.startswith(g, p):
            for d, c in model.glyphs[g].items():
                _walk(model, token, max_cost, max_digits, out, p + len(g), digits + d, cost + c)


def _align(model: DigitModel, token: str, digits: str) -> float:
    key = (id(model), token, digits)
    hit = _ALIGN_CACHE.get(key)
    if hit is not None:
        return hit
    inf = float("inf")
    n, m = len(token), len(digits)
    dp = [[inf] * (m + 1) for _ in range(n + 1)]
    dp[0][0] = 0.0
    for p in range(n + 1):
        for q in range(m + 1):
            cur = dp[p][q]
            if cur == inf:
                continue
            if p < n:  # drop a glyph
                c = cur + model.drop_cost(token[p])
                if c < dp[p + 1][q]:
                    dp[p + 1][q] = c
            if q < m:  # a digit with no glyph
                c = cur + 3.0
                if c < dp[p][q + 1]:
                    dp[p][q + 1] = c
            if p < n and q < m:
                c = cur + model.glyph_cost(token[p], digits[q])
                if c < dp[p + 1][q + 1]:
                    dp[p + 1][q + 1] = c
                if p + 1 < n:
                    group = token[p : p + 2]
                    if group in model.glyphs:
                        c = cur + model.glyph_cost(group, digits[q])
                        if c < dp[p + 2][q + 1]:
                            dp[p + 2][q + 1] = c
    result = dp[n][m]
    if len(_ALIGN_CACHE) > 100_000:
        _ALIGN_CACHE.clear()
    _ALIGN_CACHE[key] = result
    return result


_ALIGN_CACHE: dict[tuple, float] = {}


# -- Roman numerals ---------------------------------------------------------------

ROMAN_GLYPHS = {"I": "I", "V": "V", "X": "X", "L": "L", "C": "C",
                "i": "I", "l": "I", "1": "I", "|": "I", "y": "V", "v": "V", "x": "X"}
_ROMAN_RE = regex.compile(r"^(C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")


def parse_roman(token: str) -> int | None:
    """The value of a Roman numeral, read through common OCR confusions ('y I I I' → 8)."""
    letters = "".join(ROMAN_GLYPHS.get(c, "?") for c in token if c != " ")
    if not letters or "?" in letters or len(letters) > 8:
        return None
    if not _ROMAN_RE.match(letters):
        return None
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    total = 0
    for a, b in itertools.zip_longest(letters, letters[1:]):
        if b and values[a] < values[b]:
            total -= values[a]
        else:
            total += values[a]
    return total or None


# -- choosing a whole sequence ---------------------------------------------------------

def implied_values(
    digits: DigitModel,
    tokens: Sequence[str | None],
    readings: Sequence[dict[int, float]],
    window: int,
    max_cost: float,
    source_max_cost: float = float("inf"),
    apart: Callable[[int, int], bool] = lambda j, k: False,
) -> list[dict[int, float]]:
    """The values its neighbours imply for each token of a sequence: a neighbour ``j``
    read as ``v`` (at a cost up to ``source_max_cost``) implies ``v + (k − j)`` at
    ``k`` ('78' between 72 and 74 can be 73), priced as reading the token so, up to
    ``max_cost``. A value the token already reads as is not repeated; a token that is
    None, and neighbours ``apart`` from it (another game's numbering), imply nothing."""
    out: list[dict[int, float]] = []
    for k, token in enumerate(tokens):
        found: dict[int, float] = {}
        if token is not None:
            for j in range(max(0, k - window), min(len(tokens), k + window + 1)):
                if j == k or apart(j, k):
                    continue
                for v, c in readings[j].items():
                    implied = v + (k - j)
                    if c > source_max_cost or implied <= 0 or implied in readings[k] or implied in found:
                        continue
                    cost = digits.cost(token, implied)
                    if cost <= max_cost:
                        found[implied] = cost
        out.append(found)
    return out


@dataclass(frozen=True)
class Reading:
    kind: str  # 'article', 'ordinal', 'page', 'none' …
    value: int | None
    cost: float


State = Hashable


def best_path(
    candidates: Sequence[Sequence[Reading]],
    start: State,
    step: Callable[[State, Reading, int], tuple[State, float]],
    beam: int = 64,
) -> list[Reading]:
    """Viterbi search: one reading per candidate, minimising emission + transition costs.

    ``step(state, reading, index)`` returns the next state and the transition cost.
    """
    frontier: dict[State, tuple[float, tuple]] = {start: (0.0, ())}
    for index, readings in enumerate(candidates):
        nxt: dict[State, tuple[float, tuple]] = {}
        for state, (cost, path) in frontier.items():
            for reading in readings:
                new_state, t = step(state, reading, index)
                total = cost + t + reading.cost
                old = nxt.get(new_state)
                if old is None or total < old[0]:
                    nxt[new_state] = (total, (path, reading))
        frontier = dict(sorted(nxt.items(), key=lambda kv: kv[1][0])[:beam])
    best = min(frontier.values(), key=lambda v: v[0])[1]
    out: list[Reading] = []
    while best:
        best, reading = best
        out.append(reading)
    return out[::-1]
