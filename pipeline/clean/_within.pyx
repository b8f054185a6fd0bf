# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# The choices within a few plain edits of a word (pipeline/clean/correct.py: ``within``,
# its Python, which asks rapidfuzz's ``process.extract``), compiled by Cython at install
# (setup.py, an optional extension); tests/test_correct.py checks that the two agree.
# An unknown word's candidates are hundreds, most of them far: each distance is found
# by the bit-parallel algorithm (Myers 1999, in Hyyrö's form for the whole of both
# strings), a few operations a letter, with no Python object made for a choice that
# is not kept. ``Buckets`` does the same for the words of the candidate index's buckets
# (correct.CandidateIndex.near_within), read where they lie.
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_4BYTE_KIND
from libc.stdint cimport uint64_t, uint32_t
from libc.stdlib cimport realloc, free
from libc.string cimport memset, memcpy
from libc.math cimport INFINITY, NAN, isnan
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING, PyBytes_GET_SIZE


cdef struct Pattern:
    # a word of at most 64 letters, as the algorithm reads it: the bits of each letter's
    # places, letters below 256 by code point, the others (at most 64) listed
    Py_ssize_t m, n_wide
    uint64_t peq[256]
    uint64_t wide_mask[64]
    Py_ssize_t wide_char[64]


cdef inline bint _pattern(str word, Pattern* p) noexcept:
    """The word as ``_distance`` reads it; False for an empty word or one of more than 64 letters."""
    cdef Py_ssize_t k, j, m = PyUnicode_GET_LENGTH(word)
    cdef int kind = PyUnicode_KIND(word)
    cdef void* data = PyUnicode_DATA(word)
    cdef Py_UCS4 c
    if m > 64 or m == 0:
        return False
    p.m, p.n_wide = m, 0
    for k in range(256):
        p.peq[k] = 0
    for k in range(m):
        c = PyUnicode_READ(kind, data, k)
        if c < 256:
            p.peq[c] |= (<uint64_t> 1) << k
        else:
            for j in range(p.n_wide):
                if p.wide_char[j] == <Py_ssize_t> c:
                    p.wide_mask[j] |= (<uint64_t> 1) << k
                    break
            else:
                p.wide_char[p.n_wide] = c
                p.wide_mask[p.n_wide] = (<uint64_t> 1) << k
                p.n_wide += 1
    return True


cdef inline Py_ssize_t _distance(Pattern* p, int kind, const void* data, Py_ssize_t n) noexcept:
    """The plain edits from the pattern to n letters of ``kind`` at ``data`` (a string's,
    or a buffer of code points: ``PyUnicode_4BYTE_KIND``)."""
    cdef Py_ssize_t k, w, m = p.m
    cdef uint64_t pv = ~(<uint64_t> 0), mv = 0, eq, xv, xh, ph, mh
    cdef uint64_t last = (<uint64_t> 1) << (m - 1)
    cdef Py_ssize_t d = m
    cdef Py_UCS4 c
    for k in range(n):
        c = PyUnicode_READ(kind, data, k)
        if c < 256:
            eq = p.peq[c]
        else:
            eq = 0
            for w in range(p.n_wide):
                if p.wide_char[w] == <Py_ssize_t> c:
                    eq = p.wide_mask[w]
                    break
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | ~(xh | pv)
        mh = pv & xh
        if ph & last:
            d += 1
        elif mh & last:
            d -= 1
        ph = (ph << 1) | 1
        mh = mh << 1
        pv = mh | ~(xv | ph)
        mv = ph & xv
    return d


def within(str word, list choices, Py_ssize_t most):
    """(distance, k) of each ``choices[k]`` at most ``most`` plain edits from ``word``,
    nearest first, then in the choices' order; None for a word of more than 64 letters
    (the caller then asks rapidfuzz)."""
    cdef Pattern p
    cdef Py_ssize_t k, n, d
    cdef str b
    if not _pattern(word, &p):
        return None
    found = [[] for _ in range(most + 1)]
    for k in range(len(choices)):
        b = choices[k]  # (type-checked: a choice that is not a string raises TypeError, read as nothing else)
        n = PyUnicode_GET_LENGTH(b)
        if n - p.m > most or p.m - n > most:
            continue  # (at least as many edits as the lengths differ)
        d = _distance(&p, PyUnicode_KIND(b), PyUnicode_DATA(b), n)
        if d <= most:
            found[d].append(k)
    return [(d, k) for d in range(most + 1) for k in found[d]]


cdef class Choices:
    """Choices kept for ``within`` in one run of memory, each its length then its code
    points (uint32): the words that follow a word in the Littré, two thousand of them,
    asked of each unknown word after it, are read there rather than string by string.
    ``strings``: the choices as given."""
    cdef bytes run
    cdef readonly list strings

    def __cinit__(self, list strings):
        cdef Py_ssize_t size = 0, at = 0, k, n
        cdef str s
        for s in strings:
            size += 1 + PyUnicode_GET_LENGTH(s)
        self.strings = strings
        self.run = PyBytes_FromStringAndSize(NULL, size * 4)
        cdef uint32_t* run = <uint32_t*> PyBytes_AS_STRING(self.run)
        for s in strings:
            n = PyUnicode_GET_LENGTH(s)
            run[at] = <uint32_t> n
            for k in range(n):
                run[at + 1 + k] = PyUnicode_READ(PyUnicode_KIND(s), PyUnicode_DATA(s), k)
            at += 1 + n

    def __len__(self):
        return len(self.strings)

    def within(self, str word, Py_ssize_t most):
        """``within(word, self.strings, most)``."""
        cdef Pattern p
        cdef Py_ssize_t k = 0, n, d, at = 0, size = PyBytes_GET_SIZE(self.run) // 4
        cdef uint32_t* run = <uint32_t*> PyBytes_AS_STRING(self.run)
        if not _pattern(word, &p):
            return None
        found = [[] for _ in range(most + 1)]
        while at < size:
            n = run[at]
            at += 1 + n
            if n - p.m <= most and p.m - n <= most:  # (at least as many edits as the lengths differ)
                d = _distance(&p, PyUnicode_4BYTE_KIND, run + at - n, n)
                if d <= most:
                    found[d].append(k)
            k += 1
        return [(d, k) for d in range(most + 1) for k in found[d]]


# ``fold_letters`` of each code point below 0x180 as one code point (0: one this table
# does not fold, a word holding it folded by the caller's table instead), set once by
# correct.py from ``base_letter`` (``set_fold_table``)
cdef enum:
    _FOLDED = 0x180
cdef Py_UCS4 _fold[_FOLDED]
cdef bint _fold_set = False


def set_fold_table(list letters):
    """The letters ``Buckets`` folds code points 0 to 0x17F to, each one code
    point (``base_letter``), or 0 for one it must not fold itself."""
    global _fold_set
    cdef Py_ssize_t k
    if len(letters) != _FOLDED:
        raise ValueError(f"a fold table has {_FOLDED} letters, not {len(letters)}")
    for k in range(_FOLDED):
        _fold[k] = letters[k]
    _fold_set = True


cdef inline bint _folded_into(str s, Py_UCS4* buf, Py_ssize_t n) noexcept:
    """The letters of s folded by the table into buf; False where one is beyond it."""
    cdef int kind = PyUnicode_KIND(s)
    cdef void* data = PyUnicode_DATA(s)
    cdef Py_ssize_t k
    cdef Py_UCS4 c
    for k in range(n):
        c = PyUnicode_READ(kind, data, k)
        if c >= _FOLDED or _fold[c] == 0:
            return False
        buf[k] = _fold[c]
    return True


cdef enum:
    _HEAD = 4  # a word's uint32 in a bucket's run before its letters: number, length, frequency (two)


cdef class Buckets:
    """The words of the buckets of an index's two tables (correct.CandidateIndex: skeleton
    → words), for ``within``: each bucket, the first time it is asked for, made into one
    run of memory of its words' numbers and letters folded (``fold_letters``), which
    the next words asked about read again without a string of theirs touched (a bucket
    of a short skeleton serves thousands of unknown words: on an unknown word's hundreds
    of candidates, most of them far, that was most of the time). The tables must not
    change after (an index is not added to once made: ``with_words`` makes another).
    Not for two threads at once (its stamps are one question's), as none of the
    engine's memos is: one thread a process (README, a Dask cluster's workers)."""
    cdef dict exact, deletes, zipf, runs_exact, runs_deletes, number
    cdef object folded_of
    cdef list words
    cdef uint32_t* stamp
    cdef Py_ssize_t stamps
    cdef uint32_t serial

    def __cinit__(self, dict exact, dict deletes, dict zipf, folded_of):
        self.exact, self.deletes, self.zipf, self.folded_of = exact, deletes, zipf, folded_of
        self.runs_exact, self.runs_deletes, self.number, self.words = {}, {}, {}, []
        self.stamp, self.stamps, self.serial = NULL, 0, 0

    def __dealloc__(self):
        free(self.stamp)

    cdef bytes _run(self, dict runs, str key, object bucket):
        # per word: its number, its length, its frequency (``zipf[w]``, a double in two;
        # NaN for none), then its letters folded, each a uint32
        cdef Py_ssize_t n, k, size = 0, at = 0
        cdef str w, f
        cdef object number, z
        cdef double zd
        for w in bucket:
            size += _HEAD + PyUnicode_GET_LENGTH(w)
        blob = PyBytes_FromStringAndSize(NULL, size * 4)
        cdef uint32_t* run = <uint32_t*> PyBytes_AS_STRING(blob)
        for w in bucket:
            number = self.number.get(w)
            if number is None:
                number = self.number[w] = len(self.words)
                self.words.append(w)
            n = PyUnicode_GET_LENGTH(w)
            run[at] = <uint32_t> number
            run[at + 1] = <uint32_t> n
            z = self.zipf.get(w)
            zd = NAN if z is None else <double> z
            memcpy(run + at + 2, &zd, sizeof(double))
            if not _folded_into(w, <Py_UCS4*> (run + at + _HEAD), n):
                f = self.folded_of[w]
                if PyUnicode_GET_LENGTH(f) != n:
                    raise ValueError(f"{w!r} folded to {f!r}: not a letter for a letter")
                for k in range(n):
                    run[at + _HEAD + k] = PyUnicode_READ(PyUnicode_KIND(f), PyUnicode_DATA(f), k)
            at += _HEAD + n
        runs[key] = blob
        return blob

    def within(self, str word, keys, Py_ssize_t most, str exclude=None, bint deletes=True,
               double least=-INFINITY):
        """(distance, w, its frequency) of each word w of the buckets of ``keys`` in both
        tables (the first only, without ``deletes``), each once, at least ``least``
        common, whose letters folded are at most ``most`` plain edits from ``word``,
        ``exclude`` left out; nearest first, then as found: what ``within`` keeps of the
        union of those buckets (tests/test_correct.py), with ``zipf.get(w)`` read from
        the run, not looked up in a table of a hundred thousand words. None for a word
        of more than 64 letters, or before ``set_fold_table``."""
        cdef Pattern p
        cdef Py_ssize_t m, n, d, at, size
        cdef uint32_t* run
        cdef uint32_t number
        cdef double z
        cdef bytes blob
        cdef str w
        if not _fold_set or not _pattern(word, &p):
            return None
        m = p.m
        self._next_serial()
        found = [[] for _ in range(most + 1)]
        for blob in self._runs_of(keys, deletes):
            run = <uint32_t*> PyBytes_AS_STRING(blob)
            size = PyBytes_GET_SIZE(blob) // 4
            at = 0
            while at < size:
                number, n = run[at], run[at + 1]
                at += _HEAD + n
                if n - m > most or m - n > most:
                    continue  # (at least as many edits as the lengths differ: fold_letters keeps a word's length)
                memcpy(&z, run + at - n - 2, sizeof(double))
                if z < least or self.stamp[number] == self.serial:
                    continue
                self.stamp[number] = self.serial
                d = _distance(&p, PyUnicode_4BYTE_KIND, run + at - n, n)
                if d <= most:
                    w = self.words[number]
                    if exclude is None or w != exclude:
                        found[d].append((d, w, None if isnan(z) else z))
        return [x for d in range(most + 1) for x in found[d]]

    def common(self, keys, double least):
        """Each word of the buckets of ``keys`` in both tables at least ``least`` common
        (``zipf``), once each, as found: the union of those buckets, those words only
        (correct.CandidateIndex._near, tests/test_correct.py)."""
        cdef Py_ssize_t n, at, size
        cdef uint32_t* run
        cdef uint32_t number
        cdef double z
        cdef bytes blob
        cdef list found = []
        self._next_serial()
        for blob in self._runs_of(keys, True):
            run = <uint32_t*> PyBytes_AS_STRING(blob)
            size = PyBytes_GET_SIZE(blob) // 4
            at = 0
            while at < size:
                number, n = run[at], run[at + 1]
                memcpy(&z, run + at + 2, sizeof(double))
                at += _HEAD + n
                if isnan(z):
                    z = 0.0  # (as ``zipf.get(w, 0.0)``)
                if z >= least and self.stamp[number] != self.serial:
                    self.stamp[number] = self.serial
                    found.append(self.words[number])
        return found

    cdef list _runs_of(self, keys, bint deletes):
        """The runs of the buckets of ``keys``, in the first table then (with ``deletes``)
        the second, each made from its bucket the first time it is asked for."""
        cdef list out = []
        cdef dict table, runs
        for key in keys:
            for table, runs in ((self.exact, self.runs_exact), (self.deletes, self.runs_deletes)) if deletes \
                    else ((self.exact, self.runs_exact),):
                blob = runs.get(key)
                if blob is None:
                    bucket = table.get(key)
                    if bucket is None:
                        continue
                    blob = self._run(runs, key, bucket)
                    self._grow()
                out.append(blob)
        return out

    cdef void _next_serial(self) noexcept:
        self.serial += 1
        if self.serial == 0:  # (after 2**32 words: every stamp cleared once)
            memset(self.stamp, 0, self.stamps * sizeof(uint32_t))
            self.serial = 1

    cdef void _grow(self) except *:
        cdef Py_ssize_t want = len(self.words), size = self.stamps or 1024
        if want <= self.stamps:
            return
        while size < want:
            size *= 2
        cdef uint32_t* grown = <uint32_t*> realloc(self.stamp, size * sizeof(uint32_t))
        if grown == NULL:
            raise MemoryError()
        memset(grown + self.stamps, 0, (size - self.stamps) * sizeof(uint32_t))
        self.stamp, self.stamps = grown, size
