# cython: language_level=3, boundscheck=False, wraparound=False
# The strings one letter away from a word that a table has (pipeline/clean/context.py:
# ``_edits1``, its Python), compiled by Cython at install (setup.py, an optional
# extension): context.py uses it when built, ``_edits1`` when not; tests/test_correct.py
# checks that the two find the same words. Each string is made in one buffer and looked
# up at once: not the few hundred strings of ``_edits1`` made in pieces, kept in a set,
# then intersected with the table. With the table's ``Keys``, a string none of its keys
# hashes like is passed over before it is made: most of a word's few hundred are.
# ``one_less_in`` does the same for the candidate index's keys (correct.CandidateIndex).
from cpython.unicode cimport PyUnicode_DecodeASCII
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memcpy

from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH

cdef uint64_t _FNV_START = 14695981039346656037ULL
cdef uint64_t _FNV_PRIME = 1099511628211ULL


cdef inline uint64_t _fnv_bytes(const char* s, Py_ssize_t n) noexcept:
    """FNV-1a of the letters (bytes of ASCII)."""
    cdef uint64_t h = _FNV_START
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ <unsigned char> s[i]) * _FNV_PRIME
    return h


cdef inline uint64_t _fnv_str(str s, Py_ssize_t skip) noexcept:
    """FNV-1a of the letters of s (code points: for ASCII, ``_fnv_bytes``), less the one
    at ``skip`` (-1: none)."""
    cdef uint64_t h = _FNV_START
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(s)
    cdef int kind = PyUnicode_KIND(s)
    cdef void* data = PyUnicode_DATA(s)
    for i in range(n):
        if i != skip:
            h = (h ^ <uint64_t> <Py_UCS4> PyUnicode_READ(kind, data, i)) * _FNV_PRIME
    return h


cdef class Keys:
    """The keys of some tables, each hashed to one bit of 32 to 64 a key (a table of
    30,000 keys in 128 KB, in a core's cache): a string whose bit is unset is no key
    of theirs (for tables not changed since); of those no key is, one in 32 to 64 passes."""
    cdef uint64_t* bits
    cdef int shift

    def __cinit__(self, *tables):
        cdef Py_ssize_t n = sum(len(t) for t in tables), size = 64
        cdef int b = 6
        cdef uint64_t h
        while size < 32 * n:
            size *= 2
            b += 1
        self.shift = 64 - b
        self.bits = <uint64_t*> calloc(size // 64, sizeof(uint64_t))
        if self.bits == NULL:
            raise MemoryError()
        for table in tables:
            for key in <dict> table:
                if type(key) is str:
                    h = _fnv_str(<str> key, -1) >> self.shift
                    self.bits[h >> 6] |= (<uint64_t> 1) << (h & 63)

    def __dealloc__(self):
        free(self.bits)

    cdef inline bint _has(self, uint64_t h) noexcept:
        h >>= self.shift
        return (self.bits[h >> 6] >> (h & 63)) & 1


def one_less_in(skeletons, Keys keys):
    """The skeletons and each of them less one glyph, those ``keys`` may have (a set):
    of ``{sk[:k] + sk[k + 1:] for sk in skeletons for k in range(len(sk))} | set(skeletons)``,
    none left out that is a key; the strings of the others never made."""
    cdef set out = set()
    cdef str sk
    cdef Py_ssize_t k, n
    for sk in skeletons:
        if keys._has(_fnv_str(sk, -1)):
            out.add(sk)
        n = PyUnicode_GET_LENGTH(sk)
        for k in range(n):
            if keys._has(_fnv_str(sk, k)):
                out.add(sk[:k] + sk[k + 1 :])
    return out


cdef inline void _look_up(char* buf, Py_ssize_t n, dict table, Keys keys, set out):
    if keys is not None and not keys._has(_fnv_bytes(buf, n)):
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
