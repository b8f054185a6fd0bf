"""The book's counts as the engine reads them: to a few significant binary digits.

A book's counts are evidence of its usage, not measurements: that the book prints
'concours' 41 times or 42 says the same thing. Read exactly, though, every count is
part of every decision that looks it up, so one word edited in one chapter changes
what every chapter that looked its count up read, and an incremental build must
clean them all again (a common word's count is looked up by most chapters: it is a
candidate for many misreadings). Read to ``bits`` significant binary digits, a count
below ``2 ** bits`` is exact and a larger one is the middle of its bucket, the
doubling from 4 to 8 cut into ``2 ** (bits - 1)`` buckets, as each doubling above (at
2 bits: 4–5, 6–7, 8–11, 12–15, 16–23 …, read 5, 7, 10, 14, 20). Rounding keeps the
order of counts, so a threshold up to ``2 ** bits`` (a word printed twice, a pair
printed thrice) says what it said. An edit changes what is read only when it moves
a count across a bucket's edge, for a count n about once in n / 2 ** (bits - 1) edits.
A full build and an incremental one read the same rounded counts, so they make the
same database.
"""

from __future__ import annotations

from typing import Mapping


def rounded(n: int, bits: int) -> int:
    """n to ``bits`` significant binary digits, as the middle of its bucket (exact
    below ``2 ** bits``; monotonic, so the largest count rounds to the largest)."""
    shift = n.bit_length() - bits
    if shift <= 0:
        return n
    return ((n >> shift) << shift) | (1 << (shift - 1))


def rounded_counts(counts: Mapping, bits: int, least: int = 1) -> dict:
    """Counts (a word's, or a pair's), each ``rounded``, those below ``least`` left out
    (what the engine reads as none: a pair of the book counts from its third printing,
    so that it is not looked up as a count that changes when a misreading printed
    once is corrected); a plain dict, so that the engine's hundreds of thousands of
    lookups a book stay lookups in C."""
    exact = 1 << bits
    return {k: n if n < exact else rounded(n, bits) for k, n in counts.items() if n >= least}
