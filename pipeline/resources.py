"""Read-only resources the stages share: the corpus folder and its games catalogue,
the lexicon, the digit model, the structure vocabulary.

Loaded once per process (the lexicon takes a third of a second) and passed to the
stages, which never modify them. What a stage derives from them for itself (the
correction engine, the book's word counts) it keeps here too, through ``cached``, so
that it is made once per process and the stages below never import the stages above.
"""

from __future__ import annotations

import hashlib
import itertools
import pickle
import threading
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Collection, Iterator, TypeVar

from . import data
from .decisions import proof_file
from .games import Catalogue
from .lexicon import Lexicon
from .memos import BookMemo
from .numbers import DigitModel
from .text import fold

T = TypeVar("T")

# what of the resources workers receive (``Resources.__getstate__``)
_SHIPPED = frozenset({"corpus", "games_path", "max_chapter_bytes", "_shipped", "proofs", "catalogue", "vocabulary"})


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
    never_last: frozenset[str]

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
            never_last=frozenset(_plain(w) for w in d["never_last"]),
        )


class Frame(defaultdict):
    """What a memoised computation under way (``noted``) has read: the keys it read
    itself of each mapping, by its name, and the decisions it took from a memo
    (``taken``), whose reads it holds by reference: a decision taken a hundred times
    is one entry, where its keys were once copied into each computation around it at
    each take (2% of a build's cleaning's instructions, bench/README.md)."""

    def __init__(self):
        super().__init__(set)
        self.taken: list[Noted] = []


# the reads of each memoised computation under way (``remembered``), innermost last;
# one stack for the process, so computations that note their reads take turns (a read
# of another thread's noted too would make a chapter's evidence larger, never wrong)
_OPEN: list[Frame] = []
_NOTING = threading.RLock()

# What a computation read of the book's mappings: (the mapping's name, the keys read
# of it) each, as ``noted`` keeps them, and a paragraph's as the cache keeps them. Each
# read was once a (name, key) tuple in one set: made and hashed for each read, then
# hashed again into the sets of the computations around it and into the memo's; by
# mapping, a read is its key, whose hash a string keeps (bench/README.md: recording.py).
Reads = tuple[tuple[str, tuple], ...]
# A decision's reads as the cache keeps them: its own, and those of the decisions it
# took from a memo, each such tree once (marshal writes a shared tuple once too).
ReadsTree = tuple  # (Reads, tuple[ReadsTree, ...])


class Consulted:
    """A read-only view of a corpus-wide mapping (the book's word counts) that remembers
    what was read of it: each key looked up with its value (None: absent), and its
    largest value if its values were read (all the engine reads them for). A chapter's
    result depends on the corpus only through these, so it holds, cached, while they do.
    Each read is also noted in the computation under way, if ``remembered`` runs one."""

    TOP = "\0largest"  # no word: the key the largest value is recorded under
    # not iterable: what is read through an iteration is not recorded (and the
    # fallback through __getitem__ would count 0, 1, 2… without end)
    __iter__ = None

    def __init__(self, mapping, name: str = ""):
        self._mapping = mapping
        self.name = name
        self.read: dict[str, object] = {}

    def get(self, key, default=None):
        value = self._mapping.get(key)
        self.read[key] = value
        if _OPEN:
            _OPEN[-1][self.name].add(key)
        return default if value is None else value

    def get_many(self, keys: list, default=None) -> list:
        """``get`` of each key, the reads recorded alike, in C (an unknown word's
        candidates are hundreds)."""
        values = list(map(self._mapping.get, keys))
        self.read.update(zip(keys, values))
        if _OPEN:
            _OPEN[-1][self.name].update(keys)
        return [default if v is None else v for v in values]

    def __getitem__(self, key):
        return self.get(key, 0)

    def __contains__(self, key) -> bool:
        return self.get(key) is not None

    def values(self):
        self.note_top()
        return self._mapping.values()

    def note_top(self) -> None:
        """Record that the largest value was read (found once: the mapping does not change)."""
        if self.TOP not in self.read:
            self.read[self.TOP] = max(self._mapping.values(), default=0)
        if _OPEN:
            _OPEN[-1][self.name].add(self.TOP)

    @classmethod
    def holds(cls, read: dict, mapping) -> bool:
        """Whether ``mapping`` gives everything ``read`` recorded as it was recorded."""
        return Evidence(read).holds(mapping)


def looked_up(mapping, keys: list, default=None) -> list:
    """``mapping.get(key, default)`` of each key, a view's reads recorded (``Consulted.get_many``)."""
    if isinstance(mapping, Consulted):
        return mapping.get_many(keys, default)
    return list(map(mapping.get, keys, itertools.repeat(default)))


def underlying(mapping):
    """The mapping a view (``Consulted``) reads, or the mapping itself: what memos of
    decisions made from the book's counts are kept for."""
    return mapping._mapping if isinstance(mapping, Consulted) else mapping


def depends(mapping, key) -> None:
    """Note in the computation under way that its result depends on ``mapping[key]``,
    read before and kept in a memo of the caller's (a view's read, not made again)."""
    if _OPEN and isinstance(mapping, Consulted):
        _OPEN[-1][mapping.name].add(key)


def remembered(memo: dict, key, compute: Callable[..., T], views: dict | None, *args) -> T:
    """``memo[key]``, made by ``compute(*args)`` the first time (the arguments apart, so
    that a decision taken from the memo, most are, makes no closure): a decision made once for the
    chapters of a book that share its counts. While a chapter's reads of the book are
    recorded (``views``, name → the chapter's ``Consulted``), what the computation read
    is kept with the result, and read again through this chapter's views when another
    uses it: so every chapter records what its result depends on, as if it had
    decided alone. Without ``views`` nothing is noted (the memo must then be one no
    recording chapter uses: keyed apart)."""
    entry = memo.get(key)
    if entry is None:
        entry = noted(compute, views, *args)
        memo[key] = entry = memo.kept(entry) if isinstance(memo, BookMemo) else entry
    return replayed(entry, views)


class Views(dict):
    """A chapter's views of the book's mappings, by name (``Resources.consulted``), with
    a number of its own: a decision read again into them once is not read again."""

    _serials = itertools.count(1)

    def __init__(self):
        super().__init__()
        self.serial = next(self._serials)
        # what the clean stage read, paragraph by paragraph (``clean.clean``): (its key,
        # its ``ReadsTree``); and the key of the chapter's context with what was read
        # before the first paragraph (``Reads``)
        self.blocks: list[tuple[str, ReadsTree]] = []
        self.context: tuple[str, Reads] | None = None
        self.kept = 0  # paragraphs taken as the last build cleaned them


class Noted:
    """A decision kept for the book (``noted``): its value, what it read itself of the
    book's counts (``Reads``: the keys read of each mapping, by its name), the decisions
    it took from a memo (``parts``, whose reads are also its own), and the chapter's
    views it was last recorded in."""

    __slots__ = ("value", "reads", "parts", "into", "_tree")

    def __init__(self, value, reads: Reads, parts: tuple, into: int | None):
        self.value, self.reads, self.parts, self.into = value, reads, parts, into
        self._tree: ReadsTree | None = None

    def tree(self) -> ReadsTree:
        """Its reads and its parts', as nested tuples (a part's the same tuple wherever
        it is a part: made once)."""
        if self._tree is None:
            self._tree = (self.reads, tuple(p.tree() for p in self.parts))
        return self._tree


def noted(compute: Callable[..., T], views: dict | None, *args) -> Noted:
    """``compute(*args)`` and what it read of the book's counts (nothing without
    ``views``), for ``replayed``."""
    if views is None:
        return Noted(compute(*args), (), (), None)
    with _NOTING:
        _OPEN.append(Frame())
        try:
            value = compute(*args)
        finally:
            frame = _OPEN.pop()
    return Noted(value, tuple((name, tuple(keys)) for name, keys in frame.items() if keys),
                 tuple(dict.fromkeys(frame.taken)), getattr(views, "serial", None))


def replayed(entry: Noted, views: dict | None):
    """The value of a ``noted`` decision, what it read read again through ``views``
    (recorded there, unless it was already, and in the computation under way)."""
    # (a decision made without views read nothing: the memos of those with and without are apart)
    if views is not None and (entry.reads or entry.parts):
        if _OPEN:
            _OPEN[-1].taken.append(entry)
        serial = getattr(views, "serial", None)
        if serial is None or entry.into != serial:
            _read_again_noted(entry, views, serial)  # type: ignore[arg-type]
    return entry.value


def _read_again_noted(entry: Noted, views: dict, serial: int | None) -> None:
    """A decision's reads and its parts' made again through ``views``, each decision's
    once for views that have a number."""
    todo = [entry]
    while todo:
        e = todo.pop()
        read_again(e.reads, views)
        e.into = serial
        todo.extend(p for p in e.parts if serial is None or p.into != serial)


def read_again(reads: Reads, views: dict) -> None:
    """Reads of the book's mappings made again through ``views``: recorded there with
    the values they give now."""
    for name, keys in reads:
        view = views[name]
        if Consulted.TOP in keys:
            view.note_top()
            keys = [k for k in keys if k != Consulted.TOP]
        view.read.update(zip(keys, map(view._mapping.get, keys)))  # (in C: a decision reads hundreds)


def tree_reads(tree: ReadsTree, seen: set | None = None) -> Iterator[Reads]:
    """The ``Reads`` of each node of a tree (``Noted.tree``), a node met again (the
    same tuple, in ``seen``) skipped."""
    seen = set() if seen is None else seen
    todo = [tree]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node[0]
        todo.extend(node[1])


def tree_holds(tree: ReadsTree, holds: Callable[[Reads], bool], judged: dict[int, bool]) -> bool:
    """Whether ``holds`` of each node of a tree, each node judged once with its
    parts for the trees that share it (``judged``, by the node's identity: the trees
    must be kept while it is)."""
    ok = judged.get(id(tree))
    if ok is None:
        ok = judged[id(tree)] = holds(tree[0]) and all(tree_holds(p, holds, judged) for p in tree[1])
    return ok


def read_again_tree(tree: ReadsTree, views: dict) -> None:
    """``read_again`` of every read of a tree."""
    for reads in tree_reads(tree):
        read_again(reads, views)


class Evidence:
    """What a chapter read of one of the book's mappings (``Consulted.read``), kept as
    the cache keeps it: the keys it looked up as text (a word a line; a pair's words in
    two such columns), the largest value if it read it, and a digest of the values it
    found. A chapter looks up thousands of keys: kept as a dict, they made most of an
    entry's size and of the time to read it back; checked, they are compared in C."""

    __slots__ = ("count", "columns", "keys_kept", "digest", "top")

    def __init__(self, read: dict):
        self.top = read.get(Consulted.TOP)  # None: not read (a largest value is a number)
        keys, values = list(read), list(read.values())
        if Consulted.TOP in read:
            at = keys.index(Consulted.TOP)
            del keys[at], values[at]
        self.count = len(keys)
        self.columns, self.keys_kept = _as_columns(keys), None
        if self.columns is None:  # keys of another shape (or holding a newline): kept as they are
            self.keys_kept = tuple(keys)
        self.digest = _values_digest(values)

    def __getstate__(self) -> tuple:
        return self.count, self.columns, self.keys_kept, self.digest, self.top

    def __setstate__(self, state: tuple) -> None:
        self.count, self.columns, self.keys_kept, self.digest, self.top = state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Evidence) and self.__getstate__() == other.__getstate__()

    def keys(self) -> list:
        """The keys looked up, in the order they were."""
        if self.keys_kept is not None:
            return list(self.keys_kept)
        if not self.count:
            return []
        if isinstance(self.columns, str):
            return self.columns.split("\n")
        return list(zip(*(column.split("\n") for column in self.columns)))

    def read_any(self, keys: Collection) -> bool:
        """Whether any of ``keys`` is one of those read. Words are found in their column
        at once (in C); a pair only where both its words are in their columns, then
        where the first is (an edit's pairs are a few words' pairs, but a common first word,
        'la', begins pairs read in every chapter, and a full check of the values costs
        a hundred times more). A key of another shape than those read is taken as read."""
        if not keys or not self.count:
            return False
        if self.keys_kept is not None:
            return not set(keys).isdisjoint(self.keys_kept)
        if isinstance(self.columns, str):
            lines = f"\n{self.columns}\n"
            return any(not isinstance(k, str) or f"\n{k}\n" in lines for k in keys)
        firsts, seconds = f"\n{self.columns[0]}\n", f"\n{self.columns[1]}\n"
        maybe = set()
        for k in keys:
            if not (isinstance(k, tuple) and len(k) == 2):
                return True
            if f"\n{k[0]}\n" in firsts and f"\n{k[1]}\n" in seconds:
                maybe.add(k)
        if not maybe:
            return False
        first, second = self.columns[0].split("\n"), self.columns[1].split("\n")
        for a, b in maybe:
            at = -1
            try:
                while True:  # each line of a found in C
                    at = first.index(a, at + 1)
                    if second[at] == b:
                        return True
            except ValueError:
                continue
        return False

    def holds(self, mapping, largest: Callable[[], object] | None = None) -> bool:
        """Whether ``mapping`` gives each key the value it gave then; ``largest`` gives
        its largest value (known to a caller that checks many chapters against it)."""
        if _values_digest(list(map(mapping.get, self.keys()))) != self.digest:
            return False
        return self.top is None or (largest() if largest else max(mapping.values(), default=0)) == self.top


def _as_columns(keys: list) -> str | tuple[str, ...] | None:
    """Words as one text, a word a line; pairs of words as two such texts; None for keys
    of another shape, or whose words a newline would split. (Each test made in C: a
    chapter's lookups are tens of thousands.)"""
    types = set(map(type, keys))
    try:
        if types <= {str}:
            text = "\n".join(keys)
            return text if text.count("\n") == max(len(keys) - 1, 0) else None
        if types == {tuple} and set(map(len, keys)) == {2}:
            # each column joined from a list (zip(*keys) passed tens of thousands of arguments)
            columns = ("\n".join([a for a, _ in keys]), "\n".join([b for _, b in keys]))
            return columns if all(c.count("\n") == len(keys) - 1 for c in columns) else None
    except TypeError:  # a part of a pair not a word
        return None
    return None


def _values_digest(values: list) -> bytes:
    # counts (ints, None for a key absent): pickled alike for alike lists in any process
    return hashlib.blake2b(pickle.dumps(values, protocol=5), digest_size=16).digest()


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
        self._shipped: set[str] = set()  # the keys of ``_cache`` workers receive (``ship``)
        self.proofs: dict[str, str | None] = {}  # chapter file → its decisions, as shipped
        self.consulted: dict[str, Consulted] | None = None  # while recording a chapter's evidence
        self.lock = threading.Lock()  # held while a chapter is processed (``build.work_chapter``)

    def __getstate__(self) -> dict:
        """What workers receive: what was read from the corpus folder (which a worker of
        a cluster may not have), not what each process loads for itself (the lexicon,
        the model) and loads faster than it would travel."""
        state = {k: v for k, v in self.__dict__.items() if k in _SHIPPED}
        state["_cache"] = {k: v for k, v in self._cache.items() if k in self._shipped}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.consulted = None
        self.lock = threading.Lock()

    def ship(self, key: str, value: T) -> T:
        """Keep ``value`` as ``cached(key, …)`` would, and send it with the resources to workers."""
        self._cache[key] = value
        self._shipped.add(key)
        return value

    def for_workers(self, source_files: list[str]) -> "Resources":
        """These resources with everything the chapter stages read from the corpus folder
        read now (the games, these chapters' decisions), so that they can be sent to
        workers that have no corpus folder."""
        self.catalogue, self.vocabulary  # noqa: B018 - loaded to be shipped
        self.proofs.update((f, self.proof_text(f)) for f in source_files)
        return self

    def proof_text(self, source_file: str) -> str | None:
        """A chapter's proof file (corpus/proofs/), as text; None if it has none."""
        if source_file in self.proofs:
            return self.proofs[source_file]
        path = proof_file(self.corpus, source_file)
        return path.read_text(encoding="utf-8") if path.exists() else None

    def consult(self, name: str, mapping: T) -> T:
        """``mapping``, or while a chapter's evidence is recorded (``consulted`` is a
        dict), a view of it that remembers what the chapter read of it."""
        if self.consulted is None:
            return mapping
        return self.consulted.setdefault(name, Consulted(mapping, name))  # type: ignore[return-value]

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
