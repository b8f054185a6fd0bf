# cython: language_level=3, boundscheck=False, wraparound=False
# The strings one letter away from a word that a table has (pipeline/clean/context.py:
# ``_edits1``, its Python), compiled by Cython at install (setup.py, an optional
# extension): context.py uses it when built, ``_edits1`` when not; tests/test_context_edits
# checks that the two find the same words. Each string is made in one buffer and looked
# up at once: not the few hundred strings of ``_edits1`` made in pieces, kept in a set,
# then intersected with the table.
from cpython.unicode cimport PyUnicode_DecodeASCII
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy


def edits1_in(str word, dict table):
    """``table.keys() & _edits1(word)`` (a set) for a word of ASCII letters; None for
    any other word (the caller then asks ``_edits1``)."""
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
    out = set()
    try:
        # a letter lost
        for k in range(n):
            memcpy(buf, src, k)
            memcpy(buf + k, src + k + 1, n - k - 1)
            s = PyUnicode_DecodeASCII(buf, n - 1, NULL)
            if s in table:
                out.add(s)
        # a letter read as another (a to z)
        memcpy(buf, src, n)
        for k in range(n):
            was = src[k]
            for c in range(97, 123):
                if c != was:
                    buf[k] = c
                    s = PyUnicode_DecodeASCII(buf, n, NULL)
                    if s in table:
                        out.add(s)
            buf[k] = was
        # a letter added (a to z)
        for k in range(n + 1):
            memcpy(buf, src, k)
            memcpy(buf + k + 1, src + k, n - k)
            for c in range(97, 123):
                buf[k] = c
                s = PyUnicode_DecodeASCII(buf, n + 1, NULL)
                if s in table:
                    out.add(s)
    finally:
        free(buf)
    return out
