# cython: language_level=3, boundscheck=False, wraparound=False
# The sequence model's tokens of a text (pipeline/clean/sequence.py: ``_TOKEN``, the
# regular expression, is the reference), and the words the steps read (steps.py's
# ``_TOKEN``), found by loops over the text's characters, compiled by Cython at install
# (setup.py, an optional extension): the modules use them when built, the expressions
# when not; tests/test_sequence.py holds each pair the same.
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


cdef inline Py_ssize_t _next_letter(int kd, void* data, Py_ssize_t i, Py_ssize_t n) except -1:
    """Where the first letter from i on is (n if none)."""
    while i < n and kind_of(PyUnicode_READ(kd, data, i)) != LETTER:
        i += 1
    return i


cdef inline Py_ssize_t _letters_end(int kd, void* data, Py_ssize_t i, Py_ssize_t n) except -1:
    """Where the run of letters from i on ends."""
    while i < n and kind_of(PyUnicode_READ(kd, data, i)) == LETTER:
        i += 1
    return i


cdef inline bint _apostrophe(int kd, void* data, Py_ssize_t i, Py_ssize_t n):
    """Whether the character at i is an apostrophe (none outside the text)."""
    if i < 0 or i >= n:
        return False
    cdef Py_UCS4 ch = PyUnicode_READ(kd, data, i)
    return ch == 39 or ch == 0x2019


def token_spans(str text, dict normals, normal, bint spans=True):
    """``[(normal(m.group()), *m.span()) for m in _TOKEN.finditer(text)]``, each token's
    normal form taken from ``normals`` where it is (as ``sequence._normal_of`` does,
    ``normal`` filling it); ``spans`` false: the normal forms alone."""
    cdef Py_ssize_t n = len(text), i = 0, j
    cdef int kd = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef int k
    cdef list out = []
    while i < n:
        k = kind_of(PyUnicode_READ(kd, data, i))
        if k == OTHER:
            i += 1
            continue
        j = i + 1
        if k == LETTER:
            j = _letters_end(kd, data, j, n)
            # an elision's apostrophe, where a letter follows it: "qu'", "l'"
            if j + 1 < n and _apostrophe(kd, data, j, n) and kind_of(PyUnicode_READ(kd, data, j + 1)) == LETTER:
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


def word_spans(str text):
    """``[(m.group(), *m.span()) for m in steps._TOKEN.finditer(text)]``: each word with
    the debris and the digits the OCR may have put inside it ('de5' for 'des'), from a
    letter to the last letter or digit of 0158 of the run of letters, digits of 0158 and
    marks of &^|! that follows it."""
    cdef Py_ssize_t n = len(text), i = 0, j, end
    cdef int kd = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 ch
    cdef list out = []
    while True:
        i = _next_letter(kd, data, i, n)
        if i >= n:
            return out
        j = end = i + 1
        while j < n:
            ch = PyUnicode_READ(kd, data, j)
            if ch == 48 or ch == 49 or ch == 53 or ch == 56 or kind_of(ch) == LETTER:  # a letter, 0 1 5 8
                j += 1
                end = j
            elif ch == 38 or ch == 94 or ch == 124 or ch == 33:  # & ^ | !
                j += 1
            else:
                break
        out.append((text[i:end], i, end))
        i = end


def word_pairs(str text):
    """(start, end) of two words and (start, end) of the next, as ``steps._PAIR`` finds
    them searched for from each pair's second word on: each two runs of letters parted
    by one space, the first not after an apostrophe, the second not before one."""
    cdef Py_ssize_t n = len(text), i = 0, start, prev_start = -1, prev_end = -1
    cdef int kd = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef list out = []
    while True:
        start = _next_letter(kd, data, i, n)
        if start >= n:
            return out
        i = _letters_end(kd, data, start + 1, n)
        if (prev_end >= 0 and prev_end + 1 == start and PyUnicode_READ(kd, data, prev_end) == 32
                and not _apostrophe(kd, data, i, n) and not _apostrophe(kd, data, prev_start - 1, n)):
            out.append((prev_start, prev_end, start, i))
        prev_start, prev_end = start, i
