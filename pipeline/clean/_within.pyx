# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# The choices within a few plain edits of a word (pipeline/clean/correct.py: ``within``,
# its Python, which asks rapidfuzz's ``process.extract``), compiled by Cython at install
# (setup.py, an optional extension); tests/test_correct.py checks that the two agree.
# An unknown word's candidates are hundreds, most of them far: each distance is found
# by the bit-parallel algorithm (Myers 1999, in Hyyrö's form for the whole of both
# strings), a few operations a letter, with no Python object made for a choice that
# is not kept.
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH
from libc.stdint cimport uint64_t


cdef inline Py_ssize_t _distance(uint64_t* peq, Py_ssize_t m, uint64_t* wide_mask, Py_ssize_t* wide_char,
                                 Py_ssize_t n_wide, str b) noexcept:
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(b), k, w
    cdef int kind = PyUnicode_KIND(b)
    cdef void* data = PyUnicode_DATA(b)
    cdef uint64_t pv = ~(<uint64_t> 0), mv = 0, eq, xv, xh, ph, mh
    cdef uint64_t last = (<uint64_t> 1) << (m - 1)
    cdef Py_ssize_t d = m
    cdef Py_UCS4 c
    for k in range(n):
        c = PyUnicode_READ(kind, data, k)
        if c < 256:
            eq = peq[c]
        else:
            eq = 0
            for w in range(n_wide):
                if wide_char[w] == <Py_ssize_t> c:
                    eq = wide_mask[w]
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
    cdef Py_ssize_t m = PyUnicode_GET_LENGTH(word), k, j, n, d, n_wide = 0
    cdef uint64_t peq[256]
    cdef uint64_t wide_mask[64]
    cdef Py_ssize_t wide_char[64]
    cdef int kind = PyUnicode_KIND(word)
    cdef void* data = PyUnicode_DATA(word)
    cdef Py_UCS4 c
    cdef str b
    if m > 64 or m == 0:
        return None
    for k in range(256):
        peq[k] = 0
    for k in range(m):
        c = PyUnicode_READ(kind, data, k)
        if c < 256:
            peq[c] |= (<uint64_t> 1) << k
        else:
            for j in range(n_wide):
                if wide_char[j] == <Py_ssize_t> c:
                    wide_mask[j] |= (<uint64_t> 1) << k
                    break
            else:
                wide_char[n_wide] = c
                wide_mask[n_wide] = (<uint64_t> 1) << k
                n_wide += 1
    found = [[] for _ in range(most + 1)]
    for k in range(len(choices)):
        b = choices[k]  # (type-checked: a choice that is not a string raises TypeError, read as nothing else)
        n = PyUnicode_GET_LENGTH(b)
        if n - m > most or m - n > most:
            continue  # (at least as many edits as the lengths differ)
        d = _distance(peq, m, wide_mask, wide_char, n_wide, b)
        if d <= most:
            found[d].append(k)
    return [(d, k) for d in range(most + 1) for k in found[d]]
