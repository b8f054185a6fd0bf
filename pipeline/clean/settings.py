"""The clean stage's settings (data: pipeline/data/clean.toml, where each value says
what raising or lowering it does)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .. import data


@dataclass(frozen=True)
class Confidence:
    invisible: float
    typography: float
    letter_spacing: float
    bracket_p: float
    bracket_q: float
    stray_mark: float
    debris_mark: float
    stray_apostrophe: float
    spacing: float
    digits_in_number: float
    elision: float
    split_word: float
    joined_words: float
    lost_hyphen: float


@dataclass(frozen=True)
class NumberInList:
    max_cost: float
    word_zipf: float
    min_numbers: int
    window: int
    confidence: float


@dataclass(frozen=True)
class SplitWord:
    fragment_zipf: float
    joined_zipf: float
    joined_gain: float


@dataclass(frozen=True)
class JoinedWords:
    min_length: int
    word_zipf: float
    part_zipf: float
    part_min_length: int
    both_min_length: int
    corrector_max_cost: float
    book_min_count: int
    three_part_zipf: float
    three_part_together: float
    three_part_littre: int
    neighbour_zipf: float
    littre_min_count: int


@dataclass(frozen=True)
class CorrectorSettings:
    """The correction engine's thresholds (clean/correct.py)."""

    weight: float
    prior_cap: float
    book_weight: float
    book_cap: float
    short_length_change: float
    nonword_max_cost: float
    nonword_min_prior: float
    nonword_min_score: float
    nonword_margin: float
    realword_max_cost: float
    realword_margin: float
    realword_lead: float
    term_max_cost: float
    realword_suggestion: float
    nonword_suggestion: float
    recurrent_max_cost: float
    recurrent_min_littre: int
    capital_word_max_cost: float
    capital_word_min_zipf: float
    capital_word_min_littre: int
    suggestion_max_cost: float
    longest_token: int
    ocr_weight: float
    ocr_max_factor: float


@dataclass(frozen=True)
class SequenceSettings:
    """The sequence model (clean/sequence.py): where its counts come from, how they are smoothed."""

    littre: str
    discount: float
    book_weight: float
    book_min_count: int
    book_backoff: float
    wordfreq_share: float
    floor: float


@dataclass(frozen=True)
class ContextSettings:
    """Decisions in context (clean/context.py): a word against the words that look like it,
    scored by the sequence model."""

    weight: float
    min_zipf: float
    reach: float
    max_candidates: int
    max_followers: int
    letter_cost: float
    realword_max_cost: float
    realword_margin: float
    realword_lead: float
    rival_max_cost: float
    nonword_max_cost: float
    nonword_margin: float
    nonword_lead: float
    accent_doubt_confidence: float
    unknown_logp: float
    suggestion_margin: float
    realword_veto: float
    littre_word_count: int
    littre_word_length: int
    littre_word_veto: float
    chapter_word_count: int
    chapter_word_ratio: float
    reread_lead: float
    rare_zipf: float
    rare_book_count: int
    rare_max_cost: float
    accent_margin: float
    inner_capital_logp: float
    littre_min_count: int
    capital_small_zipf: float
    long_s_margin: float


@dataclass(frozen=True)
class SegmentationSettings:
    """Words joined and parted as the sentence decides (clean/context.py)."""

    space: float
    apostrophe: float
    max_cost: float
    margin: float
    split_max_zipf: float
    elision_together: float


@dataclass(frozen=True)
class ChannelSettings:
    """How the channel is learned (clean/learn.py, `academie learn`)."""

    prior_strength: float
    default_strength: float
    letter_min_count: int
    min_confidence: float
    rounds: int
    max_event_glyphs: int
    max_distance: float


@dataclass(frozen=True)
class BookSettings:
    """How the book's counts are read (clean/rounded.py)."""

    count_bits: int


@dataclass(frozen=True)
class CleanSettings:
    confidence: Confidence
    number_in_list: NumberInList
    split_word: SplitWord
    joined_words: JoinedWords
    corrector: CorrectorSettings
    sequence: SequenceSettings
    context: ContextSettings
    segmentation: SegmentationSettings
    channel: ChannelSettings
    book: BookSettings

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> "CleanSettings":
        return data.settings(cls, "clean")
