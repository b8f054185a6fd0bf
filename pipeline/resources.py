"""Read-only resources the stages share: games catalogue, lexicon, digits, vocabularies.

Loaded once per process (the lexicon takes a third of a second) and passed to the
stages, which never modify them.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path

from .games import Catalogue, fold
from .lexicon import Lexicon
from .numbers import DigitModel


@dataclass(frozen=True)
class Vocabulary:
    section_starters: frozenset[str]
    numbered_title_openers: frozenset[str]
    glossary_title_words: tuple[str, ...]
    gloss_openers: tuple[str, ...]
    game_mention_markers: tuple[str, ...]
    name_articles: tuple[str, ...]
    ordinal_words: dict[str, int]
    function_words: frozenset[str]
    sentence_openers: frozenset[str]

    @classmethod
    def load(cls) -> "Vocabulary":
        data = tomllib.loads(resources.files("pipeline").joinpath("data/structure.toml").read_text(encoding="utf-8"))
        return cls(
            section_starters=frozenset(w.lower() for w in data["section_starters"]),
            numbered_title_openers=frozenset(w.lower() for w in data["numbered_title_openers"]),
            glossary_title_words=tuple(fold(w) for w in data["glossary_title_words"]),
            gloss_openers=tuple(sorted((w.lower().replace("’", "'") for w in data["gloss_openers"]), key=len, reverse=True)),
            game_mention_markers=tuple(fold(w) for w in data["game_mention_markers"]),
            name_articles=tuple(fold(w) for w in data["name_articles"]),
            ordinal_words={fold(k): int(v) for k, v in data["ordinal_words"].items()},
            function_words=frozenset(w.lower().replace("’", "'") for w in data["paragraphs"]["function_words"]),
            sentence_openers=frozenset(w.lower().replace("’", "'") for w in data["sentence_openers"]),
        )


class Resources:
    """Everything a chapter is processed with, besides the chapter itself."""

    def __init__(self, games_path: Path | str):
        self.games_path = Path(games_path)

    @cached_property
    def catalogue(self) -> Catalogue:
        return Catalogue.load(self.games_path)

    @cached_property
    def lexicon(self) -> Lexicon:
        return Lexicon.default()

    @cached_property
    def digits(self) -> DigitModel:
        return DigitModel.default()

    @cached_property
    def vocabulary(self) -> Vocabulary:
        return Vocabulary.load()

    @cached_property
    def corrector(self) -> "Corrector":
        from .correct import Corrector

        counts, _ = self._corpus_counts
        return Corrector(self.lexicon, book_words=[w for w, n in counts.items() if n >= 2])

    @cached_property
    def _corpus_counts(self) -> tuple[Counter, frozenset[str]]:
        from .correct import book_counts

        corpus = self.games_path.parent
        texts, names = [], []
        for p in sorted(corpus.glob("*.txt")) if corpus.is_dir() else []:
            try:
                if p.stat().st_size <= 2_000_000:
                    texts.append(p.read_text(encoding="utf-8", errors="replace"))
                    names.append(p.name)
            except OSError:
                continue
        return book_counts(texts), frozenset(names)

    def book_counts(self, source_file: str | None, text: str) -> Counter:
        """How often the book uses each word: the corpus's counts, with the chapter's
        own when the chapter is not one of the corpus's files."""
        from .correct import book_counts

        counts, names = self._corpus_counts
        if source_file in names:
            return counts
        return counts + book_counts([text])
