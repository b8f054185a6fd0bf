# cython: language_level=3, boundscheck=False, wraparound=False
# The Littré's pair counts looked up (pipeline/clean/sequence.py: SequenceModel.prefetch),
# compiled by Cython at install (setup.py, an optional extension): sequence.py uses it
# when built, its own numpy search when not; tests/test_sequence.py checks that the two
# find the same counts. A word's candidates ask for a few dozen pairs at a time: searched
# one by one in C, they cost less than numpy's set-up of one search for all of them.
from libc.math cimport log10
from libc.stdint cimport int64_t, uint32_t
from libc.stdlib cimport calloc, free, malloc


def fill(dict memo, const int64_t[::1] pairs, const uint32_t[::1] counts, list keys):
    """Each key of ``keys`` not in ``memo`` looked up in the sorted ``pairs``: ``memo[key]``
    is its count in ``counts``, 0 if it is not there."""
    PairCounts(pairs, counts).fill(memo, keys)


cdef class PairCounts:
    """The Littré's sorted pairs and their counts, their buffers taken once (a typed
    buffer taken costs a thousand instructions or so, and ``fill`` is called for a few
    dozen keys at a time, a hundred thousand times a book)."""

    cdef const int64_t[::1] pairs
    cdef const uint32_t[::1] counts

    def __init__(self, const int64_t[::1] pairs, const uint32_t[::1] counts):
        self.pairs, self.counts = pairs, counts

    def fill(self, dict memo, list keys):
        """``fill(memo, pairs, counts, keys)`` of these pairs and counts."""
        for k in keys:
            if k not in memo:
                memo[k] = self.count(k)

    cdef object count(self, int64_t key):
        """The key's count, 0 if it is not there."""
        cdef Py_ssize_t n = self.pairs.shape[0]
        cdef Py_ssize_t lo = _first_at_least(self.pairs, 0, n, key)
        return self.counts[lo] if lo < n and self.pairs[lo] == key else 0


cdef Py_ssize_t _first_at_least(const int64_t[::1] pairs, Py_ssize_t lo, Py_ssize_t hi, int64_t key):
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if pairs[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


def first_sums(const int64_t[::1] pairs, const uint32_t[::1] counts, int shift, Py_ssize_t n):
    """(history, followers): for each word id below n, the sum of the counts of the
    pairs it begins, as a float (numpy's ``bincount`` with weights: the same sums, each
    exact), and their number (``SequenceModel``'s c(v) and N(v •))."""
    cdef double *sums = <double *> calloc(n if n else 1, sizeof(double))
    cdef int64_t *numbers = <int64_t *> calloc(n if n else 1, sizeof(int64_t))
    cdef Py_ssize_t k, first
    if sums == NULL or numbers == NULL:
        free(sums)
        free(numbers)
        raise MemoryError()
    try:
        for k in range(pairs.shape[0]):
            first = <Py_ssize_t> (pairs[k] >> shift)
            if first < n:
                sums[first] += <double> counts[k]
                numbers[first] += 1
        return [sums[k] for k in range(n)], [numbers[k] for k in range(n)]
    finally:
        free(sums)
        free(numbers)


cdef uint32_t _largest(uint32_t *values, Py_ssize_t n, Py_ssize_t rank):
    """The rank-th largest of n values (0: the largest), by selection (the values reordered)."""
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j
    cdef uint32_t pivot, t
    while lo < hi:
        pivot = values[(lo + hi) >> 1]
        i, j = lo, hi
        while i <= j:
            while values[i] > pivot:
                i += 1
            while values[j] < pivot:
                j -= 1
            if i <= j:
                t = values[i]
                values[i] = values[j]
                values[j] = t
                i += 1
                j -= 1
        if rank <= j:
            hi = j
        elif rank >= i:
            lo = i
        else:
            return values[rank]
    return values[rank]


def followers(const int64_t[::1] pairs, const uint32_t[::1] counts, int shift, int64_t i, uint32_t min_count,
              object most):
    """The ids of the words seen after word i at least ``min_count`` times, in the
    pairs' order; the ``most`` commonest of them if more (of equal counts, the first
    in that order: numpy's stable sort, which ``SequenceModel.followers_of`` used):
    those above the ``most``-th count, then as many at that count as are left, first first."""
    cdef int64_t base = i << shift, mask = (<int64_t> 1 << shift) - 1
    cdef Py_ssize_t lo = _first_at_least(pairs, 0, pairs.shape[0], base)
    cdef Py_ssize_t hi = _first_at_least(pairs, lo, pairs.shape[0], base + (<int64_t> 1 << shift))
    cdef Py_ssize_t k, kept = 0, left
    cdef uint32_t cut
    for k in range(lo, hi):
        if counts[k] >= min_count:
            kept += 1
    if most is None or kept <= most:
        return [pairs[k] & mask for k in range(lo, hi) if counts[k] >= min_count]
    cdef uint32_t *values = <uint32_t *> malloc((hi - lo) * sizeof(uint32_t))
    if values == NULL:
        raise MemoryError()
    try:
        for k in range(lo, hi):
            values[k - lo] = counts[k]
        cut = _largest(values, hi - lo, most - 1)
    finally:
        free(values)
    left = most
    for k in range(lo, hi):
        if counts[k] > cut:
            left -= 1
    out = []
    for k in range(lo, hi):
        if counts[k] > cut or (counts[k] == cut and left > 0):
            if counts[k] == cut:
                left -= 1
            out.append(pairs[k] & mask)
    return out


def batch_after(list words, dict id_memo, object id_of, dict unigram_memo, object unigram,
                const int64_t[::1] pairs, const uint32_t[::1] counts, int shift, object i, double h,
                object b, double pair_weight, double unigram_weight, double discount, double floor):
    """log10 P(w | v) of each of ``words`` (``sequence.BookSequence._batch_after``, which
    this computes to the last bit: the same operations in the same order on doubles, and
    the same C ``log10`` Python's ``math.log10`` calls). ``i``: v's Littré id (None if
    none); ``h`` and the weights: v's history as ``_history`` makes it; ``b``: the book's
    counts of each pair (v, w) that count, or None (v's book pairs pooled). A word's id
    and unigram are read from their memos, or asked of ``id_of`` and ``unigram``. v's
    pairs are one run of the sorted ``pairs``: found once, each word searched in it."""
    cdef Py_ssize_t n = len(words), k, lo = 0, hi = 0, at
    cdef int64_t base = 0, j
    cdef double p, pc, bk
    cdef bint paired = i is not None and h > 0
    cdef list out = [None] * n
    if paired:
        base = (<int64_t>i) << shift
        lo = _first_at_least(pairs, 0, pairs.shape[0], base)
        hi = _first_at_least(pairs, lo, pairs.shape[0], base + (<int64_t>1 << shift))
    for k in range(n):
        w = words[k]
        u = unigram_memo.get(w)
        p = u if u else unigram(w)  # (as ``unigrams.get(w) or unigram(w)``)
        if h > 0:
            pc = 0.0
            if paired:
                jw = id_memo.get(w, -1)
                if jw == -1:
                    jw = id_of(w)
                if jw is not None:
                    j = base | <int64_t>jw
                    at = _first_at_least(pairs, lo, hi, j)
                    if at < hi and pairs[at] == j:
                        pc = <double>counts[at]
            bk = 0.0 if b is None else <double><int64_t>b[k]
            pc = pc - discount
            if pc < 0.0:
                pc = 0.0
            p = (pc + pair_weight * bk + unigram_weight * p) / h
        if p < floor:
            p = floor
        out[k] = log10(p)
    return out


cdef class After:
    """``sequence.BookSequence._after`` of one book's sequence model (its memos, its
    book's pairs), to the last bit: the same operations in the same order on doubles,
    and the same C ``log10``. Made once per chapter; ``after`` is called a hundred
    thousand times a book, where the Python's attribute and method look-ups were most
    of its time."""

    cdef dict id_memo, pair_memo
    cdef object id_of, book_pairs
    cdef bint plain
    cdef object min_count
    cdef int shift
    cdef double discount, floor
    cdef PairCounts littre

    def __init__(self, dict id_memo, object id_of, dict pair_memo, PairCounts littre not None, int shift, object book_pairs,
                 object min_count, double discount, double floor):
        """``littre``: the Littré's pairs, searched here for a pair not in ``pair_memo``
        and kept there, as ``SequenceModel.pair_of`` does."""
        self.id_memo, self.id_of, self.pair_memo = id_memo, id_of, pair_memo
        self.shift, self.book_pairs, self.min_count = shift, book_pairs, min_count
        self.plain = type(book_pairs) is dict  # (a view that records its reads is asked by its own get)
        self.discount, self.floor = discount, floor
        self.littre = littre

    def after(self, v, w, tuple history, double p, less):
        """log10 P(w | v) from v's history and w's unigram probability p."""
        cdef double h = history[1], pc
        i = history[0]
        if h > 0:
            j = self.id_memo.get(w, -1)
            if j == -1:
                j = self.id_of(w)
            if i is not None and j is not None:
                key = i << self.shift | j
                count = self.pair_memo.get(key)
                if count is None:
                    count = self.pair_memo[key] = self.littre.count(key)
            else:
                count = 0
            b = 0
            if not history[2]:
                b = (self.book_pairs.get((v, w), 0) if not self.plain
                     else (<dict> self.book_pairs).get((v, w), 0)) - less
                if b < self.min_count:
                    b = 0
            pc = <double> count - self.discount
            if pc < 0.0:
                pc = 0.0
            p = (pc + <double> history[3] * <double> b + <double> history[4] * p) / h
        if p < self.floor:
            p = self.floor
        return log10(p)
