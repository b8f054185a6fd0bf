# cython: language_level=3, boundscheck=False, wraparound=False
# The strings one letter away from a word that a table has (pipeline/clean/context.py:
# ``_edits1``, its Python), compiled by Cython at install (setup.py, an optional
# extension): context.py uses it when built, ``_edits1`` when not; tests/test_correct.py
# checks that the two find the same words. Each string is made in one buffer and looked
# up at once: not the few hundred strings of ``_edits1`` made in pieces, kept in a set,
# then intersected with the table. With the table's ``Keys``, a string none of its keys
# hashes like is passed over before it is made: most of a word's few hundred are.
from cpython.unicode cimport PyUnicode_DecodeASCII
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memcpy

# 2**21 bits (256 KB, in a core's cache): for the 30,000 words of the lexicon's index at
# least min_zipf common, one string in seventy that no key is passes the bits
cdef enum:
    _BITS = 21


cdef inline uint64_t _slot(const char* s, Py_ssize_t n):
    """FNV-1a of the bytes, its top bits (the best mixed)."""
    cdef uint64_t h = 14695981039346656037ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ <unsigned char> s[i]) * 1099511628211ULL
    return h >> (64 - _BITS)


cdef class Keys:
    """The ASCII keys of a table, each hashed to one bit: a string whose bit is unset is
    no key of the table (for a table not changed since)."""
    cdef uint64_t* bits

    def __cinit__(self, dict table):
        cdef uint64_t h
        cdef bytes raw
        self.bits = <uint64_t*> calloc((1 << _BITS) // 64, sizeof(uint64_t))
        if self.bits == NULL:
            raise MemoryError()
        for key in table:
            if type(key) is str and (<str> key).isascii():
                raw = (<str> key).encode("ascii")
                h = _slot(raw, len(raw))
                self.bits[h >> 6] |= (<uint64_t> 1) << (h & 63)

    def __dealloc__(self):
        free(self.bits)

    cdef inline bint may_have(self, const char* s, Py_ssize_t n):
        cdef uint64_t h = _slot(s, n)
        return (self.bits[h >> 6] >> (h & 63)) & 1


cdef inline void _look_up(char* buf, Py_ssize_t n, dict table, Keys keys, set out):
    if keys is not None and not keys.may_have(buf, n):
        return
    s = PyUnicode_DecodeASCII(buf, n, NULL)
    if s in table:
        out.add(s)


def edits1_in(str word, dict table, Keys keys=None):
    """``table.keys() & _edits1(word)`` (a set) for a word of ASCII letters; None for
    any other word (the caller then asks ``_edits1``). ``keys``: the table's ``Keys``."""
    cdef Py_ssize_t n = len(word), k
    cdef char* src
    cdef char* buf
    cdef char c, was
    cdef bytes raw
    if not word.isascii():
        return None
    raw = word.encode("ascii")
    src = raw
    buf = <char*> malloc(n + 2)
    if buf == NULL:
        raise MemoryError()
    cdef set out = set()
    try:
        # a letter lost
        for k in range(n):
            memcpy(buf, src, k)
            memcpy(buf + k, src + k + 1, n - k - 1)
            _look_up(buf, n - 1, table, keys, out)
        # a letter read as another (a to z)
        memcpy(buf, src, n)
        for k in range(n):
            was = src[k]
            for c in range(97, 123):
                if c != was:
                    buf[k] = c
                    _look_up(buf, n, table, keys, out)
            buf[k] = was
        # a letter added (a to z)
        for k in range(n + 1):
            memcpy(buf, src, k)
            memcpy(buf + k + 1, src + k, n - k)
            for c in range(97, 123):
                buf[k] = c
                _look_up(buf, n + 1, table, keys, out)
    finally:
        free(buf)
    return out
