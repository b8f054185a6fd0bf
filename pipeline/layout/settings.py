"""The layout stage's settings (data: pipeline/data/layout.toml, where each value
says what raising or lowering it does)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .. import data


@dataclass(frozen=True)
class Heads:
    max_length: int
    max_tokens: int
    max_title_letters: int
    max_title_words: int
    number_max_glyphs: int
    digit_likeness: float
    min_upper: float
    min_upper_no_digit: float
    bare_max_words: int
    bare_max_length: int
    bare_min_upper: float


@dataclass(frozen=True)
class PageNumbers:
    max_cost: float
    implied_window: int
    implied_max_cost: float
    no_number: float
    first: float
    skip_per_page: float
    max_skip: int
    out_of_sequence: float


@dataclass(frozen=True)
class InlineNumbers:
    not_after: list[str]
    not_before: list[str]
    max_cost: float
    no_page: float
    run_start: float
    skip_page: float
    spread: float
    min_page_chars: int
    max_page_chars: int


@dataclass(frozen=True)
class Paragraphs:
    blank_separated: float
    wrapped_median: float
    wrapped_open_ended: float
    wrapped_hyphenated: float
    run_on_length: int
    marker_line: float
    full_line: float
    short_line: float


@dataclass(frozen=True)
class Hyphens:
    compound: float
    joined: float
    own_hyphen: float
    stray: float
    stray_min_zipf: float
    unknown: float
    compound_repeats: int
    littre_joined: int


@dataclass(frozen=True)
class Alto:
    furniture: dict[str, str]  # zone type → furniture kind
    number_zones: list[str]
    drop_capital_zones: list[str]
    head_lines: int
    indent: float


@dataclass(frozen=True)
class LayoutSettings:
    heads: Heads
    page_numbers: PageNumbers
    inline_numbers: InlineNumbers
    paragraphs: Paragraphs
    hyphens: Hyphens
    alto: Alto

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "LayoutSettings":
        return data.settings(cls, "layout")
