# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# The channel's search (pipeline/clean/correct.py: _dp) compiled by Cython at install
# (setup.py, an optional extension): correct.py uses it when built, its own _dp when not;
# tests/test_correct.py checks that the two cost every pair alike. Change both together.
from cpython.dict cimport PyDict_GetItem
from cpython.object cimport PyObject
from libc.stdlib cimport malloc, free
from libc.math cimport INFINITY, NAN
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA


cdef inline bint _at(str word, Py_ssize_t j, str target):
    """``word.startswith(target, j)``, read letter by letter without a method's call."""
    cdef Py_ssize_t k, t = len(target)
    cdef Py_UCS4 x, y
    if j + t > len(word):
        return False
    for k in range(t):
        x = word[j + k]
        y = target[k]
        if x != y:
            return False
    return True

cdef class Row:
    """The costs of reading one printed glyph as each letter (``correct._SubRow``, a
    dict that makes each when first asked for), those of the letters below U+0100 also
    kept in a C array as they are read: a cell of the search reads one double, not a
    dict (the same double: the array is filled from the dict)."""
    cdef object sub
    cdef double cost[256]

    def __cinit__(self, sub):
        cdef int k
        self.sub = sub
        for k in range(256):
            self.cost[k] = NAN

    cdef inline double of(self, Py_UCS4 c, str word, Py_ssize_t j):
        cdef double v
        cdef PyObject* hit
        if c < 256:
            v = self.cost[c]
            if v == v:
                return v
        b = word[j]
        hit = PyDict_GetItem(self.sub, b)
        v = <double> <object> hit if hit != NULL else <double> self.sub[b]
        if c < 256:
            self.cost[c] = v
        return v


cdef list _rows(model, str printed, bint long_s, subrow_cls):
    """The ``Row`` of each glyph of the print, kept per print (a word's candidates are
    dozens: each row's dict is looked for once, not once per candidate)."""
    key = (printed, long_s)
    cdef dict kept = model._printed_rows
    cdef PyObject* hit = PyDict_GetItem(kept, key)
    if hit != NULL:
        return <list> hit
    glyph_rows = model._glyph_rows
    sub_rows = model._sub_rows
    rows = []
    for a in printed:
        row = glyph_rows.get((a, long_s))
        if row is None:
            sub = sub_rows.get((a, long_s))
            if sub is None:
                sub = sub_rows[(a, long_s)] = subrow_cls(model, a, long_s)
            row = glyph_rows[(a, long_s)] = Row(sub)
        rows.append(row)
    if len(kept) > 100_000:
        kept.clear()
    kept[key] = rows
    return rows


def dp(model, str printed, str word, bint long_s, double limit, subrow_cls):
    """``correct._dp``, compiled: the same steps in the same order (so the same sums,
    to the last bit), the table a C array. ``subrow_cls``: ``correct._SubRow``."""
    cdef Py_ssize_t n = len(printed), m = len(word)
    cdef Py_ssize_t W = m + 1
    cdef double* d = <double*> malloc((n + 1) * W * sizeof(double))
    cdef double* drops_c = <double*> malloc((n + 1) * sizeof(double))
    cdef double* wins_c = <double*> malloc((m + 1) * sizeof(double))
    cdef Py_UCS4* letters = <Py_UCS4*> malloc((m + 1) * sizeof(Py_UCS4))
    cdef char* lost_at = <char*> malloc(m + 1)
    cdef Py_ssize_t i, j, jj, lo, hi, band, span, r, la
    cdef double cur, v, c, pc, mc, drop, best
    cdef bint inserted
    cdef PyObject* hit
    cdef Row row
    cdef int kind = PyUnicode_KIND(word)
    cdef void* data = PyUnicode_DATA(word)
    if d == NULL or drops_c == NULL or wins_c == NULL or letters == NULL or lost_at == NULL:
        free(d); free(drops_c); free(wins_c); free(letters); free(lost_at)
        raise MemoryError()
    try:
        for i in range((n + 1) * W):
            d[i] = INFINITY
        d[0] = 0.0
        groups, merges, drops = model.printed_info(printed)[:3]
        wins, wclass, inserted = model.word_info(word)
        rows = _rows(model, printed, long_s, subrow_cls)
        inserts = model._inserts_by_first
        for i in range(n):
            drops_c[i] = drops[i]
        for j in range(m):
            wins_c[j] = wins[j]
            letters[j] = PyUnicode_READ(kind, data, j)
            # (whether letters lost together may start there: asked once a letter, not once a cell)
            lost_at[j] = inserted and PyDict_GetItem(inserts, word[j]) != NULL
        span = model._span
        band = 3 + (n - m if n > m else m - n)
        for i in range(n + 1):
            lo = i - band if i > band else 0
            hi = i + band if i + band < m else m
            if i == n:
                for j in range(lo, hi):
                    cur = d[i * W + j]
                    if cur != INFINITY:
                        v = cur + wins_c[j]
                        if v < d[i * W + j + 1]:
                            d[i * W + j + 1] = v
                        hit = PyDict_GetItem(inserts, word[j])
                        if hit != NULL:
                            for target, c in <list> hit:
                                if _at(word, j, target):
                                    jj = j + len(target)
                                    if jj <= m and cur + c < d[i * W + jj]:
                                        d[i * W + jj] = cur + c
                break
            drop = drops_c[i]
            merge = merges[i]
            group = groups[i]
            row = <Row> rows[i]
            for j in range(lo, hi + 1):
                cur = d[i * W + j]
                if cur == INFINITY:
                    continue
                v = cur + drop
                if v < d[(i + 1) * W + j]:
                    d[(i + 1) * W + j] = v
                if j == m:
                    continue
                v = cur + wins_c[j]
                if v < d[i * W + j + 1]:
                    d[i * W + j + 1] = v
                if lost_at[j]:
                    for target, c in <list> inserts[word[j]]:
                        if _at(word, j, target):
                            jj = j + len(target)
                            if jj <= m and cur + c < d[i * W + jj]:
                                d[i * W + jj] = cur + c
                v = cur + row.of(letters[j], word, j)
                if v < d[(i + 1) * W + j + 1]:
                    d[(i + 1) * W + j + 1] = v
                if group:
                    for la, target, pc in <list> group:
                        if _at(word, j, target):
                            jj = j + len(target)
                            if cur + pc < d[(i + la) * W + jj]:
                                d[(i + la) * W + jj] = cur + pc
                if merge is not None:
                    hit = PyDict_GetItem(merge, wclass[j])
                    if hit != NULL:
                        mc = <double> <object> hit
                        if cur + mc < d[(i + 2) * W + j + 1]:
                            d[(i + 2) * W + j + 1] = cur + mc
            if limit < INFINITY:
                best = INFINITY
                for r in range(i + 1, min(i + 1 + span, n + 1)):
                    for j in range(W):
                        if d[r * W + j] < best:
                            best = d[r * W + j]
                if best > limit:
                    return INFINITY
        return d[n * W + m]
    finally:
        free(d); free(drops_c); free(wins_c); free(letters); free(lost_at)
