"""The games of the treatise (data: corpus/games.toml) and how text names them.

A running head names a game when, folded (no accents, upper case, letter spacing
and OCR's 'VV' for 'W' undone), it is one of the game's heads or spellings, or one
edit away from exactly one of them; a head that could be several games names none.
A heading or a title names a game through its spellings, allowing OCR damage
measured by edit distance.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import regex
from rapidfuzz.distance import Levenshtein

from .records import Game
from .text import fold

# Glyph groups the OCR makes of one capital letter in running heads.
_HEAD_GLYPHS = [("VV", "W"), ("Vv", "W"), ("JI", "H"), ("Jl", "H"), ("Il", "H"), ("lI", "H"), ("0", "O")]


def slugify(name: str) -> str:
    s = fold(name)
    s = regex.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s or "game"


def similarity(a: str, b: str, floor: float = 0.0) -> float:
    """1 − edit distance / the longer length; 0 when below ``floor``."""
    return Levenshtein.normalized_similarity(a, b, score_cutoff=floor)


@dataclass(frozen=True)
class GameEntry:
    slug: str
    name: str
    spellings: tuple[str, ...]
    heads: tuple[str, ...]


@dataclass(eq=False)  # compared by identity, so its lookups can be cached
class Catalogue:
    entries: list[GameEntry]
    articles: tuple[str, ...] = ()  # small words before a name ('du', 'jeu de l''), folded: structure.toml
    _by_slug: dict[str, GameEntry] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_slug = {e.slug: e for e in self.entries}
        self._head_keys: dict[str, set[str]] = {}
        for e in self.entries:
            for form in (*e.heads, *e.spellings):
                self._head_keys.setdefault(_head_key(form), set()).add(e.slug)
        self._spellings = [(fold(s), e.slug) for e in self.entries for s in e.spellings]

    @classmethod
    def load(cls, path: Path | str, articles: tuple[str, ...] = ()) -> "Catalogue":
        """The games a corpus lists; none if it has no list (games are then named by
        their headings only, and running heads name none)."""
        if not Path(path).exists():
            return cls([], articles)
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        entries = [
            GameEntry(g["slug"], g["name"], tuple(g.get("spellings", ())), tuple(g.get("heads", ())))
            for g in data.get("games", [])
        ]
        return cls(entries, articles)

    def get(self, slug: str) -> GameEntry | None:
        return self._by_slug.get(slug)

    def game(self, slug: str, fallback_name: str | None = None) -> Game:
        entry = self._by_slug.get(slug)
        return Game(slug, entry.name if entry else (fallback_name or slug))

    # -- running heads -------------------------------------------------------------

    def head_games(self, head_title: str) -> set[str]:
        """The games a running head's title could stand for."""
        return set(self._head_games(head_title))

    @lru_cache(maxsize=4096)
    def _head_games(self, head_title: str) -> frozenset[str]:
        key = _head_key(head_title)
        if len(key) < 2:
            return frozenset()
        words = [w for w in regex.split(r"[^A-Z']+", _head_letters(head_title)) if w]
        tries = [key]
        # drop small leading words ('DU QUINZE', OCR'd 'BO QUINZE')
        while len(words) > 1 and len(words[0]) <= 3:
            words = words[1:]
            tries.append("".join(words))
        for k in tries:
            if k in self._head_keys:
                return frozenset(self._head_keys[k])
        if len(key) >= 4:
            near = {slug for form, slugs in self._head_keys.items() for slug in slugs
                    if len(form) >= 3 and Levenshtein.distance(key, form, score_cutoff=1) <= 1}
            for k in tries[1:]:
                if len(k) >= 4:
                    near |= {slug for form, slugs in self._head_keys.items() for slug in slugs
                             if len(form) >= 4 and Levenshtein.distance(k, form, score_cutoff=1) <= 1}
            return frozenset(near)
        return frozenset()

    def head_game(self, head_title: str) -> str | None:
        games = self.head_games(head_title)
        return next(iter(games)) if len(games) == 1 else None

    # -- names in headings and titles ------------------------------------------------

    def match_name(self, name: str, threshold: float = 0.7) -> str | None:
        """The game a (possibly OCR-damaged) name stands for, if one stands out."""
        return self._match_name(_strip_articles(fold(name), self.articles), threshold)

    @lru_cache(maxsize=4096)
    def _match_name(self, f: str, threshold: float) -> str | None:
        if not f:
            return None
        # OCR damage is measured against the length of the name: a long name survives
        # a few wrong letters ('trenieel-fjuarante'), a short one hardly any
        needed = threshold if len(f) >= 10 else max(threshold, 0.85)
        floor = needed - 0.1  # rivals within 0.1 of the best still matter
        scored = sorted(((similarity(f, s, floor), slug) for s, slug in self._spellings), reverse=True)
        if not scored or scored[0][0] < needed:
            return None
        best, slug = scored[0]
        rival = next((sc for sc, sl in scored if sl != slug), 0.0)
        if best < 1.0 and best - rival < 0.1:
            return None
        return slug

    def mentioned_game(self, title: str, markers: tuple[str, ...]) -> str | None:
        """The game a title names after a marker word ('… usités au trente-et-quarante')."""
        words = regex.findall(r"[\w'’^/-]+", title)
        found: set[str] = set()
        folded = [fold(w) for w in words]
        for i, w in enumerate(folded):
            if w not in markers:
                continue
            for n in (1, 2, 3):
                if i + 1 + n > len(words):
                    break
                phrase = " ".join(words[i + 1 : i + 1 + n])
                slug = self.match_name(phrase, threshold=0.7)
                if slug:
                    found.add(slug)
                    break
        return next(iter(found)) if len(found) == 1 else None


def _head_letters(text: str) -> str:
    for a, b in _HEAD_GLYPHS:
        text = text.replace(a, b)
    return fold(text).upper()


def _head_key(text: str) -> str:
    return regex.sub(r"[^A-Z]", "", _head_letters(text))


def _strip_articles(text: str, articles: tuple[str, ...]) -> str:
    words = text.strip(" .,;:").split()
    while len(words) > 1 and (words[0] in articles or (words[0].endswith("'") and words[0] in articles)):
        words = words[1:]
    if words and "'" in words[0]:
        head, _, rest = words[0].partition("'")
        if head + "'" in articles and rest:
            words[0] = rest
    return " ".join(words)
