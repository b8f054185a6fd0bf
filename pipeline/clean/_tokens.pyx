# cython: language_level=3, boundscheck=False, wraparound=False
# The sequence model's tokens of a text (pipeline/clean/sequence.py: ``_TOKEN``, the
# regular expression, is the reference), found by a loop over the text's characters,
# compiled by Cython at install (setup.py, an optional extension): sequence.py uses it
# when built, the expression when not; tests/test_sequence.py holds the two the same.
# The expression's machinery costs some 3,000 instructions a token (its state set up,
# the GIL let go and taken back at each match); this loop, a tenth of that.
#
# A letter is what the expression's ``\p{L}`` matches, a digit its ``\d``: Python's
# ``str.isalpha`` and ``str.isdecimal`` say the same below U+0558 (where the two
# Unicode versions first part), and above it the expression itself is asked, once
# for each character.
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, Py_UNICODE_ISALPHA, Py_UNICODE_ISDECIMAL

import regex

_LETTER = regex.compile(r"\p{L}").match
_DIGIT = regex.compile(r"\d").match
SAME_BELOW = 0x558  # the first character Python and the expression's Unicode class differently
cdef Py_UCS4 _SAME_BELOW = SAME_BELOW
cdef dict _KIND = {}  # a character from SAME_BELOW on → its kind, as the expression says


cdef enum:
    OTHER = 0
    LETTER = 1
    DIGIT = 2
    MARK = 3  # the ampersand or a mark of punctuation: a token of one character


cdef inline int kind_of(Py_UCS4 ch) except -1:
    if ch < _SAME_BELOW:
        if Py_UNICODE_ISALPHA(ch):
            return LETTER
        if Py_UNICODE_ISDECIMAL(ch):
            return DIGIT
        # & . ; : ! ? ,
        if ch == 38 or ch == 46 or ch == 59 or ch == 58 or ch == 33 or ch == 63 or ch == 44:
            return MARK
        return OTHER
    cdef str s = ch  # (the character as a string of one)
    k = _KIND.get(s)
    if k is None:
        k = _KIND[s] = LETTER if _LETTER(s) else DIGIT if _DIGIT(s) else OTHER
    return k


def token_spans(str text, dict normals, normal, bint spans=True):
    """``[(normal(m.group()), *m.span()) for m in _TOKEN.finditer(text)]``, each token's
    normal form taken from ``normals`` where it is (as ``sequence._normal_of`` does,
    ``normal`` filling it); ``spans`` false: the normal forms alone."""
    cdef Py_ssize_t n = len(text), i = 0, j
    cdef int kd = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef int k
    cdef Py_UCS4 ch
    cdef list out = []
    while i < n:
        k = kind_of(PyUnicode_READ(kd, data, i))
        if k == OTHER:
            i += 1
            continue
        j = i + 1
        if k == LETTER:
            while j < n and kind_of(PyUnicode_READ(kd, data, j)) == LETTER:
                j += 1
            # an elision's apostrophe, where a letter follows it: "qu'", "l'"
            if j + 1 < n:
                ch = PyUnicode_READ(kd, data, j)
                if (ch == 39 or ch == 0x2019) and kind_of(PyUnicode_READ(kd, data, j + 1)) == LETTER:
                    j += 1
        elif k == DIGIT:
            while j < n and kind_of(PyUnicode_READ(kd, data, j)) == DIGIT:
                j += 1
        token = text[i:j]
        hit = normals.get(token)
        if hit is None:
            hit = normal(token)
        out.append((hit, i, j) if spans else hit)
        i = j
    return out
