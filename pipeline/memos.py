"""The process's memos, kept to a size.

The correction engine remembers what it has worked out once (a pair's count in the
Littré, a word's candidates, a channel cost) for the rest of the process: a book
repeats its words. A library's books do not repeat each other's misreadings, so
memos keyed by them grow with the library; a build's memory is to be set by its
largest chapter, not by the corpus. Each is emptied when it passes ``LIMIT``
entries, between chapters: a memo only saves work, so emptying it changes no
decision, and the next chapter fills again what it needs.
"""

from __future__ import annotations

from typing import MutableMapping

LIMIT = 300_000  # entries of one memo (a few tens of MB at most)
READS_LIMIT = 2_000_000  # reads of the book kept with the decisions of a ``BookMemo`` (some 150 MB)


def trim(*memos: MutableMapping) -> None:
    """Empty each of ``memos`` that holds more than ``LIMIT`` entries, or a
    ``BookMemo`` that keeps more than ``READS_LIMIT`` reads."""
    for memo in memos:
        if len(memo) > LIMIT or getattr(memo, "reads", 0) > READS_LIMIT:
            memo.clear()


BOOKS_KEPT = 2  # the books (each printed with the long s or not) whose decisions a store keeps at once


def book_memo(store: dict, owners: tuple, flags: tuple = ()) -> "BookMemo":
    """The memo in ``store`` of the decisions made from ``owners`` (and ``flags``), made
    afresh when other objects took their place; a store keeps those of ``BOOKS_KEPT``
    books at most (a library's earlier books are let go)."""
    key = (*map(id, owners), *flags)
    memo = store.get(key)
    if memo is None or not memo.made_from(owners):
        if len(store) >= BOOKS_KEPT:
            store.clear()
        memo = store[key] = BookMemo(owners)
    return memo


class BookMemo(dict):
    """Decisions made with one book's counts (``resources.remembered``), kept while the
    objects they were made from are those asked about (``owners``, held, so that no
    other takes their place), with the number of the book's reads kept beside them."""

    def __init__(self, owners: tuple):
        super().__init__()
        self.owners = owners
        self.reads = 0
        self._keys: dict = {}  # one object for each key read, however many decisions read it

    def made_from(self, owners: tuple) -> bool:
        mine = self.owners
        if len(owners) != len(mine):
            return False
        for a, b in zip(mine, owners):  # (a loop, not all() of a generator: asked for every word)
            if a is not b:
                return False
        return True

    def kept(self, entry):
        """A decision and its reads (``resources.Noted``) as this memo keeps them, counted."""
        keys, n = self._keys, 0
        reads = []
        for name, read in entry.reads:
            # a mapping's keys are all words or all pairs: a word is one object already
            # (the index's, the tokens' memo), a pair a tuple made at each read
            reads.append((name, read if isinstance(read[0], str) else tuple(map(keys.setdefault, read, read))))
            n += len(read)
        entry.reads = tuple(reads)
        self.reads += n
        return entry

    def clear(self) -> None:
        super().clear()
        self.reads = 0
        self._keys.clear()
