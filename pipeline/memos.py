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


def trim(*memos: MutableMapping) -> None:
    """Empty each of ``memos`` that holds more than ``LIMIT`` entries."""
    for memo in memos:
        if len(memo) > LIMIT:
            memo.clear()
