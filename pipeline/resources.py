"""Read-only resources the stages share: the corpus folder and its games catalogue,
the lexicon, the digit model, the structure vocabulary.

Loaded once per process (the lexicon takes a third of a second) and passed to the
stages, which never modify them. What a stage derives from them for itself (the
correction engine, the book's word counts) it keeps here too, through ``cached``, so
that it is made once per process and the stages below never import the stages above.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, TypeVar

from . import data
from .games import Catalogue
from .lexicon import Lexicon
from .numbers import DigitModel
from .text import fold

T = TypeVar("T")


def _plain(word: str) -> str:
    return word.lower().replace("’", "'")


@dataclass(frozen=True)
class Vocabulary:
    """The words the structure of a chapter is read with (data: structure.toml)."""

    section_starters: frozenset[str]
    numbered_title_openers: frozenset[str]
    glossary_title_words: tuple[str, ...]
    gloss_openers: tuple[str, ...]
    game_mention_markers: tuple[str, ...]
    name_articles: tuple[str, ...]
    ordinal_words: dict[str, int]
    function_words: frozenset[str]
    sentence_openers: frozenset[str]
    division_words: frozenset[str]

    @classmethod
    def load(cls) -> "Vocabulary":
        d = data.load("structure")
        return cls(
            section_starters=frozenset(_plain(w) for w in d["section_starters"]),
            numbered_title_openers=frozenset(_plain(w) for w in d["numbered_title_openers"]),
            glossary_title_words=tuple(fold(w) for w in d["glossary_title_words"]),
            gloss_openers=tuple(sorted((_plain(w) for w in d["gloss_openers"]), key=len, reverse=True)),
            game_mention_markers=tuple(fold(w) for w in d["game_mention_markers"]),
            name_articles=tuple(dict.fromkeys(fold(w) for w in d["name_articles"])),
            ordinal_words={fold(k): int(v) for k, v in d["ordinal_words"].items()},
            function_words=frozenset(_plain(w) for w in d["paragraphs"]["function_words"]),
            sentence_openers=frozenset(_plain(w) for w in d["sentence_openers"]),
            division_words=frozenset(fold(w) for w in d["division_words"]),
        )


class Resources:
    """Everything a chapter is processed with, besides the chapter itself.

    ``corpus`` is the folder the chapter belongs to: its ``games.toml`` names the
    games, and its other chapters are the book the cleaning learns words from (read
    through ingest, with the same decoding and the same size limit as the build).
    """

    def __init__(self, corpus: Path | str, max_chapter_bytes: int | None = None):
        self.corpus = Path(corpus)
        self.games_path = self.corpus / "games.toml"
        self.max_chapter_bytes = max_chapter_bytes  # None: ingest's own limit
        self._cache: dict[str, object] = {}

    @cached_property
    def vocabulary(self) -> Vocabulary:
        return Vocabulary.load()

    @cached_property
    def catalogue(self) -> Catalogue:
        return Catalogue.load(self.games_path, self.vocabulary.name_articles)

    @cached_property
    def lexicon(self) -> Lexicon:
        return Lexicon.default()

    @cached_property
    def digits(self) -> DigitModel:
        return DigitModel.default()

    def cached(self, key: str, make: Callable[[], T]) -> T:
        """What a stage derives from the resources, made once: ``make()`` the first time."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]  # type: ignore[return-value]
