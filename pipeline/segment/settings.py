"""The segment stage's settings (data: pipeline/data/segment.toml, where each value
says what raising or lowering it does)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .. import data


@dataclass(frozen=True)
class Articles:
    max_cost: float
    none_no_digit: float
    none_some_digits: float
    none_all_digits: float
    none_roman: float
    none_word: float
    none_ordinal: float
    none_loose: float
    none_run_on: float
    roman: float
    loose: float
    degree_as_o: float
    degree_max_cost: float
    implied_window: int
    implied_source_max_cost: float
    implied_max_cost: float
    first_one: float
    first_other: float
    first_unsure: float
    restart: float
    gap: float
    gap_per_number: float
    max_gap: int
    out_of_sequence: float
    ordinal_first_other: float
    ordinal_out_of_sequence: float
    roman_kept: float
    end_mark_confidence: float
    confidence_floor: float
    confidence_scale: float

    def confidence(self, cost: float) -> float:
        return round(max(self.confidence_floor, 1.0 - cost / self.confidence_scale), 3)


@dataclass(frozen=True)
class Titles:
    numbered_max: int
    alone_max: int
    run_in_max: int
    opener_min_offset: int
    all_caps: float
    section_number_confidence: float


@dataclass(frozen=True)
class Glosses:
    max_term_words: int


@dataclass(frozen=True)
class Notes:
    search_back: int
    mark_confidence: float


@dataclass(frozen=True)
class SegmentSettings:
    articles: Articles
    titles: Titles
    glosses: Glosses
    notes: Notes

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "SegmentSettings":
        return data.settings(cls, "segment")
