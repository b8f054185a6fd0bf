# cython: language_level=3, boundscheck=False, wraparound=False
# The loop of ``Corrector.priors`` (pipeline/clean/correct.py: ``_prior_loop``, its
# Python), compiled by Cython at install (setup.py, an optional extension); tests/
# test_correct.py checks that the two give the same numbers. An unknown word's
# candidates are a hundred on average: here each one's arithmetic is on C doubles,
# not on a float object made for each step, in the same operations and order, so
# every value is the Python loop's to the last bit.


def prior_loop(list words, list zs, object counted, object count, dict asked, object term_set, list log2,
               double bonus_of, double cap, double book_cap, double term_bonus, bint capped):
    """``_prior_loop``: each word's prior from its frequency ``zs[k]``, its count in the
    book (``count(low, 0)``, or the next of ``counted``), and whether it is a term
    (``asked``, filled as ``_TermsAsked`` fills it, or ``term_set``)."""
    cdef Py_ssize_t n = len(words), k, c, last = len(log2) - 1
    cdef double z, bonus
    cdef object is_term
    cdef str word, low
    out = [0.0] * n
    for k in range(n):
        z = zs[k]
        if z <= 0:
            continue
        word = words[k]
        low = word if word.islower() else word.lower()
        c = count(low, 0) if counted is None else next(counted)
        if c > last:
            c = last
        elif c < 0:
            c += last + 1  # (as a Python list reads a negative index)
            if c < 0:
                raise IndexError("list index out of range")
        bonus = bonus_of * <double> log2[c]
        if asked is None:
            is_term = low in term_set
        else:
            is_term = asked.get(low)
            if is_term is None:
                is_term = asked[low] = low in term_set
        if is_term:
            z += term_bonus
        if capped:
            out[k] = (cap if cap < z else z) + (book_cap if book_cap < bonus else bonus)
        else:
            out[k] = z + bonus
    return out
