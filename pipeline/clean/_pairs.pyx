# cython: language_level=3, boundscheck=False, wraparound=False
# The Littré's pair counts looked up (pipeline/clean/sequence.py: SequenceModel.prefetch),
# compiled by Cython at install (setup.py, an optional extension): sequence.py uses it
# when built, its own numpy search when not; tests/test_sequence.py checks that the two
# find the same counts. A word's candidates ask for a few dozen pairs at a time: searched
# one by one in C, they cost less than numpy's set-up of one search for all of them.
from libc.stdint cimport int64_t, uint32_t


def fill(dict memo, const int64_t[::1] pairs, const uint32_t[::1] counts, list keys):
    """Each key of ``keys`` not in ``memo`` looked up in the sorted ``pairs``: ``memo[key]``
    is its count in ``counts``, 0 if it is not there."""
    cdef Py_ssize_t n = pairs.shape[0], lo, hi, mid
    cdef int64_t key
    for k in keys:
        if k in memo:
            continue
        key = k
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) >> 1
            if pairs[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        memo[k] = counts[lo] if lo < n and pairs[lo] == key else 0
