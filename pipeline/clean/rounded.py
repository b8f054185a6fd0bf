"""The book's counts as the engine reads them: to a few significant binary digits.

A book's counts are evidence of its usage, not measurements: that the book prints
'concours' 41 times or 42 says the same thing. Read exactly, though, every count is
part of every decision that looks it up, so one word edited in one chapter changes
what every chapter that looked its count up read, and an incremental build must
clean them all again (a common word's count is looked up by most chapters). Read to
``bits`` significant binary digits, a count below ``2 ** bits`` is exact (the
thresholds the engine applies, a word printed twice or thrice, are all far below)
and a larger one is the middle of a bucket an ``2 ** -bits`` part of its size wide:
an edit changes what is read only when it moves a count across a bucket's edge, which
for a count n happens about once in n / 2 ** bits edits. A full build and an
incremental one read the same rounded counts, so they make the same database.
"""

from __future__ import annotations

from typing import Iterator, Mapping


def rounded(n: int, bits: int) -> int:
    """n to ``bits`` significant binary digits, as the middle of its bucket (exact
    below ``2 ** bits``; monotonic, so the largest count rounds to the largest)."""
    shift = n.bit_length() - bits
    if shift <= 0:
        return n
    return ((n >> shift) << shift) | (1 << (shift - 1))


class RoundedCounts(Mapping):
    """A read-only view of counts (a word's, or a pair's) that gives each rounded
    (``rounded``); a key absent is absent. What the engine's lookups and the cache's
    checks of them both read, so that they agree."""

    __slots__ = ("counts", "bits")

    def __init__(self, counts: Mapping, bits: int):
        self.counts = counts
        self.bits = bits

    def get(self, key, default=None):
        n = self.counts.get(key)
        if n is None:
            return default
        return rounded(n, self.bits)

    def __getitem__(self, key):
        n = self.counts.get(key)
        if n is None:
            raise KeyError(key)
        return rounded(n, self.bits)

    def __contains__(self, key) -> bool:
        return key in self.counts

    def __iter__(self) -> Iterator:
        return iter(self.counts)

    def __len__(self) -> int:
        return len(self.counts)

    def values(self) -> "_Values":
        return _Values(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoundedCounts) and self.bits == other.bits and self.counts == other.counts

    __hash__ = None  # type: ignore[assignment]


class _Values:
    """The rounded values, iterable again and again (a caller may read their largest
    and then iterate); their largest is the largest count rounded."""

    __slots__ = ("view",)

    def __init__(self, view: RoundedCounts):
        self.view = view

    def __iter__(self) -> Iterator[int]:
        bits = self.view.bits
        return (rounded(n, bits) for n in self.view.counts.values())

    def __len__(self) -> int:
        return len(self.view.counts)
