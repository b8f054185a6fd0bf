"""The sequence model (pipeline/clean/sequence.py) on a Littré made for the tests: what
is read from the dictionary's markup, how the counts are cached, how the book's own
pairs count, and what the model says without the Littré."""

from __future__ import annotations

import gzip
import math
from collections import Counter
from dataclasses import replace

import pytest

from pipeline.clean import sequence
from pipeline.clean.sequence import BookCounts, Counts, SequenceModel, littre_counts, littre_text, tokens
from pipeline.clean.settings import CleanSettings

# two articles as the stardict export prints them: pronunciation, definition, a
# citation with its author and work, an etymology and a history in old French
ARTICLES = (
    '<i><small>(sè-t\') adj. dém.</small></i>\n'
    '    Cette carte est la plus haute. Jouez cette carte.\n'
    '<span foreground="#0000CD">Il joue de cette couleur</span>, <span foreground="#B22222">RAC.</span>, '
    '<span foreground="#556B2F">Plaid. I, 3</span>.\n'
    '<b><big>ÉTYMOLOGIE</big></b>\n    Lat. ecce iste, celle carte.\n'
    '<i><small>(sè-l\') pron. dém.</small></i>\n'
    '    Celle qui joue. Celle de mon voisin.\n'
    '<b><big>HISTORIQUE</big></b>\n    XIIe s. Cele carte fu jouée.\n'
)


@pytest.fixture
def made_up_littre(tmp_path):
    path = tmp_path / "XMLittre.dict.dz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(ARTICLES)
    return path


def test_the_littre_s_french_without_its_authors_etymologies_and_old_french(made_up_littre):
    text = littre_text(made_up_littre)
    assert tokens(text) == [
        "cette", "carte", "est", "la", "plus", "haute", ".", "jouez", "cette", "carte", ".",
        "il", "joue", "de", "cette", "couleur", ".",
        "celle", "qui", "joue", ".", "celle", "de", "mon", "voisin", ".",
    ]


def test_counts_are_derived_once_and_read_back_from_the_cache(made_up_littre, tmp_path, monkeypatch):
    monkeypatch.setenv("ACADEMIE_CACHE", str(tmp_path / "cache"))
    first = littre_counts(made_up_littre)
    [cached] = (tmp_path / "cache").glob("littre-bigrams-*.counts")
    calls = []
    derive = sequence.littre_text
    monkeypatch.setattr(sequence, "littre_text", lambda path: calls.append(path) or derive(path))
    again = littre_counts(made_up_littre)
    assert calls == []  # read from the cache, not derived again
    assert again.words == first.words
    assert (list(again.unigrams), list(again.pairs), list(again.pair_counts)) == (
        list(first.unigrams), list(first.pairs), list(first.pair_counts))
    model = SequenceModel(again, CleanSettings.default().sequence, lambda w: 0.0)
    assert (model.pair("cette", "carte"), model.pair("celle", "carte"), model.pair("celle", "qui")) == (2, 0, 1)
    # another source file (another version of the package) is another cache entry
    made_up_littre.write_bytes(gzip.compress("Cette carte.".encode()))
    assert littre_counts(made_up_littre).words == ["cette", "carte", "."]
    assert calls == [made_up_littre]
    assert len(list((tmp_path / "cache").glob("littre-bigrams-*.counts"))) == 2


def test_a_damaged_counts_file_is_derived_again_never_read(made_up_littre, tmp_path, monkeypatch):
    monkeypatch.setenv("ACADEMIE_CACHE", str(tmp_path / "cache"))
    first = littre_counts(made_up_littre)
    [cached] = (tmp_path / "cache").glob("littre-bigrams-*.counts")
    data = cached.read_bytes()
    for damaged, why in [(data[:-1] + bytes([data[-1] ^ 1]), "altered"), (data[:-2], "not whole"),
                         (b"academie countz\n" + data[16:], "not the sequence model's counts"), (b"", "not the")]:
        cached.write_bytes(damaged)
        with pytest.raises(ValueError, match=why):
            Counts.load(cached)
        calls = []
        derive = sequence.littre_text
        monkeypatch.setattr(sequence, "littre_text", lambda path: calls.append(path) or derive(path))
        again = littre_counts(made_up_littre)
        assert calls == [made_up_littre]  # derived again, and written whole
        assert again.words == first.words and list(again.pairs) == list(first.pairs)
        assert cached.read_bytes() == data
        monkeypatch.setattr(sequence, "littre_text", derive)


def test_no_littre_installed_leaves_the_book_and_french_frequencies(tmp_path):
    assert littre_counts(tmp_path / "missing.dict.dz") is None
    model = SequenceModel(None, CleanSettings.default().sequence, lambda w: {"cette": 1e-3, "carte": 1e-4}.get(w, 0.0))
    book = model.with_book(BookCounts.of(["de cette carte, de cette carte, de cette carte"], min_count=3))
    assert book.logp("carte", "cette") > book.logp("carte", "celle") == pytest.approx(math.log10(book.unigram("carte")))


def test_a_pair_of_the_book_counts_from_its_third_printing_its_own_occurrence_left_out():
    settings = replace(CleanSettings.default().sequence, book_weight=2.0)
    model = SequenceModel(Counts.of(tokens("de la carte. de la couleur.")), settings, lambda w: 1e-5)

    def p(printings: int) -> float:
        book = model.with_book(BookCounts.of(["dans celle couleur"] * printings, min_count=3))
        return book.logp("couleur", "celle", less=1, low=1e-5)  # this occurrence left out

    # printed once, twice or three times in all, a pair is a misreading the OCR may repeat
    assert p(1) == p(2) == p(3) == p(0) == pytest.approx(-5.0)
    # three times besides this one, the book's usage
    assert p(4) > p(0)


def test_two_words_printed_together_against_chance_and_a_word_by_its_letters_but_accents():
    """``together``: how often the counts print w after v against how often chance would
    pair them, each plus one; ``form_of``: the word counted with these letters, accents
    aside, if counted often enough."""
    text = "il ne joue pas. " * 30 + "du vin. " * 30 + "du ne. il mêlât. il mêlât. sans dire. "
    model = SequenceModel(Counts.of(tokens(text)), CleanSettings.default().sequence, lambda w: 1e-6)
    n = sum(model.counts.unigrams)
    c = {w: model.counts.unigrams[model.ids[w]] for w in ("du", "ne", "sans", "dire")}
    assert model.together("du", "ne") == pytest.approx(2 / (c["du"] * c["ne"] / n + 1))
    assert model.together("sans", "dire") == pytest.approx(2 / (c["sans"] * c["dire"] / n + 1))
    assert model.together("ne", "joue") > 1 > model.together("du", "ne")
    assert model.together("du", "carte") is None  # a word it does not count: nothing to tell
    assert (model.form_of("mélàt"), model.form_of("mêlât", 2), model.form_of("melat", 3)) == ("mêlât", "mêlât", None)


def test_a_word_the_littre_spells_with_other_accents_is_the_same_word():
    model = SequenceModel(Counts.of(tokens("des piéges. des piéges. des pièces.")),
                          CleanSettings.default().sequence, lambda w: 1e-6)
    book = model.with_book(BookCounts(Counter(), Counter()))
    assert model.alias("pièges") == "piéges"
    assert book.logp("pièges", "des") == book.logp("piéges", "des") > book.logp("pièces", "des")


def test_the_fits_of_a_word_s_candidates_together_are_their_fits_one_by_one():
    settings = replace(CleanSettings.default().sequence, book_weight=2.0)
    freq = {"la": 1e-2, "carte": 1e-4, "cartes": 5e-5, "couleur": 1e-4, "basse": 1e-5}.get
    littre = Counts.of(tokens("de la carte. de la couleur. la carte basse. de la carte haute."))

    def book():
        # a fresh model each time: its memos of the Littré's pairs are not shared
        model = SequenceModel(littre, settings, lambda w: freq(w, 0.0))
        return model.with_book(BookCounts.of(["la carte basse, la carte basse, la carte basse; la cartes"],
                                             min_count=3))

    words = ["carte", "cartes", "couleur", "zzz", "la", "."]  # Littré pairs, book pairs, an unknown word
    # an unknown word's hundreds of candidates, made on arrays, to the last bit as one by one
    many = words * (sequence._BATCH // len(words) + 1) + ["carté", "zzy"]
    assert len(many) > sequence._BATCH
    for prev, nxt in [("la", "basse"), ("de", "haute"), ("zzz", "."), (".", "la")]:
        assert book().fits(prev, words, nxt) == [book().around(prev, w, nxt) for w in words]
        assert book().fits(prev, many, nxt) == [book().around(prev, w, nxt) for w in many]
    # the book's pair 'carte basse', printed thrice, makes 'carte' fit after 'la' best
    fits = book().fits("la", words, "basse")
    assert max(zip(fits, words))[1] == "carte"
    # the n best of them, found without the second pair of the words that cannot be
    labels = [w.upper() for w in words]
    for prev, nxt in [("la", "basse"), ("de", "haute"), ("zzz", "."), (".", "la")]:
        for n in range(len(words) + 2):
            assert book().best_fits(prev, words, labels, nxt, n) == \
                sorted(zip(book().fits(prev, words, nxt), labels), reverse=True)[:n]
    assert book().best_fits("la", words, labels, "basse", 1) == [(fits[0], "CARTE")]
    seq = book()
    seq.best_fits("la", words, labels, "basse", 2)
    # 'zzz', unknown, fits after 'la' too ill for its pair with the next word to be needed
    assert "basse" not in seq._memo[0].get("zzz", {}) and "basse" in seq._memo[0]["carte"]


def test_the_compiled_probability_after_a_word_is_the_python_one_to_the_last_bit():
    """setup.py compiles ``BookSequence._after`` (pipeline/clean/_pairs.pyx: ``After``),
    bound to a book's memos and pairs when the book's sequence is made; it must give the
    Python's number to the bit: for Littré pairs, book pairs counted and not (printed
    fewer than ``min_count`` times, or the one being judged left out), an unknown word,
    a word with no history, and with the book's pairs read through a view that records
    its reads (the same reads recorded)."""
    from pipeline.resources import Consulted

    assert sequence._pairs is not None, "the compiled pairs were not built: run make install"
    settings = replace(CleanSettings.default().sequence, book_weight=2.0)
    freq = {"la": 1e-2, "carte": 1e-4, "cartes": 5e-5, "couleur": 1e-4, "basse": 1e-5}.get
    littre = Counts.of(tokens("de la carte. de la couleur. la carte basse. de la carte haute."))
    book = BookCounts.of(["la carte basse, la carte basse, la carte basse; la cartes"], min_count=3)
    words = ["carte", "cartes", "couleur", "basse", "zzz", "la", ".", "de"]
    for pairs in (book.pairs, "view"):
        compiled, python = [], []
        for run in (compiled, python):
            model = SequenceModel(littre, settings, lambda w: freq(w, 0.0))
            viewed = Consulted(book.pairs, "pairs") if pairs == "view" else book.pairs
            seq = model.with_book(BookCounts(book.unigrams, viewed, book.min_count))
            after = seq._after if run is compiled else (lambda *a, seq=seq: sequence.BookSequence._after(seq, *a))
            for v in words:
                for less in (0, 1):
                    history = seq._history(v, less)
                    for w in words:
                        for p in (seq.unigram(w), 1e-12):
                            run.append(after(v, w, history, p, less).hex())
            run.append(sorted(viewed.read.items()) if pairs == "view" else None)
        assert compiled == python
    assert isinstance(seq._after.__self__, sequence._pairs.After)


def test_pairs_looked_up_together_are_the_pairs_looked_up_one_by_one():
    counts = Counts.of(tokens("de la carte. de la couleur. la carte basse."))
    together = SequenceModel(counts, CleanSettings.default().sequence, lambda w: 1e-5)
    alone = SequenceModel(counts, CleanSettings.default().sequence, lambda w: 1e-5)
    ids = range(len(counts.words) + 1)  # and an id no word has: after the last key
    keys = [i << sequence._SHIFT | j for i in ids for j in ids]
    together.prefetch(keys + keys[:3])  # a key asked twice
    assert together._pair_of == {k: alone.pair_of(k >> sequence._SHIFT, k & ((1 << sequence._SHIFT) - 1))
                                 for k in keys}
    assert together._pair_of[counts.words.index("la") << sequence._SHIFT | counts.words.index("carte")] == 2
    empty = SequenceModel(None, CleanSettings.default().sequence, lambda w: 1e-5)
    empty.prefetch([1, 2])
    assert empty._pair_of == {1: 0, 2: 0}


def test_the_compiled_pairs_search_finds_the_counts_numpy_finds():
    """setup.py compiles the pairs' search (pipeline/clean/_pairs.pyx) at install: on
    the Littré's counts (or a text's, where it is not installed), every pair found,
    missed, before the first key and past the last, the counts of ``sequence._fill``."""
    import random

    assert sequence._pairs is not None, "the compiled search was not built: run make install (a C compiler is needed)"
    # (the model's own searcher, its buffers taken once, the one ``fill`` makes for each call)
    assert isinstance(SequenceModel.default()._littre, sequence._pairs.PairCounts)
    counts = SequenceModel.default().counts
    if not len(counts.pairs):
        counts = Counts.of(tokens("de la carte. de la couleur. la carte basse. " * 3))
    pairs = counts.pairs.tolist()
    keys = pairs[:: max(1, len(pairs) // 500)] + [k + 1 for k in pairs[:: max(1, len(pairs) // 300)]]
    keys += [0, pairs[0] - 1, pairs[0], pairs[-1], pairs[-1] + 1, 1 << 60]
    random.Random(5).shuffle(keys)
    compiled, numpy = {}, {}
    sequence._pairs.fill(compiled, counts.pairs, counts.pair_counts, keys)
    sequence._fill(numpy, counts.pairs, counts.pair_counts, keys)
    assert compiled == numpy and len(compiled) == len(set(keys))
    assert compiled[pairs[-1]] == int(counts.pair_counts[-1]) > 0 and compiled[1 << 60] == 0
    printed = set(pairs)
    assert all(compiled[k] == 0 for k in keys if k not in printed)
    seen = {keys[0]: -1}  # a key already in the memo is not looked up again
    sequence._pairs.fill(seen, counts.pairs, counts.pair_counts, keys[:1])
    assert seen == {keys[0]: -1}


def test_an_unknown_word_s_candidates_fit_the_same_compiled_and_on_numpy_arrays(monkeypatch):
    """Many words after one (``_batch_after``) are fitted in C where setup.py built
    ``_pairs.batch_after``, on numpy arrays where it did not: every value the same to the
    last bit, and each the one-by-one formula's, after a word with Littré pairs and book
    pairs, one whose book pairs are pooled, one the Littré does not know, and a mark."""
    assert sequence._pairs is not None, "the compiled search was not built: run make install (a C compiler is needed)"
    settings = CleanSettings.default().sequence
    littre = Counts.of(tokens("de la carte. de la couleur. la carte basse. de la carte haute. la couleur de la carte."))
    freq = {"carte": 5e-5, "cartes": 2e-5, "couleur": 3e-5, "la": 1e-2, "de": 2e-2, "basse": 1e-5}
    words = ["carte", "cartes", "couleur", "zzz", "la", ".", "basse", "carté", "de"] * 8
    assert len(words) > sequence._BATCH

    def book():
        model = SequenceModel(littre, settings, lambda w: freq.get(w, 0.0))
        return model.with_book(BookCounts.of(["la carte basse, la carte basse, la carte basse; la cartes zzz"],
                                             min_count=3))

    for prev in ["la", "de", "zzz", ".", "basse", "cartes"]:
        compiled = book().fits(prev, words, "la")
        with monkeypatch.context() as m:
            m.setattr(sequence, "_pairs", None)
            on_arrays = book().fits(prev, words, "la")
        one_by_one = [book().around(prev, w, "la") for w in words]
        assert compiled == on_arrays == one_by_one, prev
    # after 'la': 'carte', a pair of the Littré and of the book (thrice); 'carté', the Littré's
    # (read as its 'carte') alone; 'couleur', the Littré's; 'cartes', the book's once, which does not count
    seq = book()
    fits = dict(zip(words, seq._batch_after("la", words, seq._history("la", 0))))
    assert fits["carte"] > fits["carté"] > fits["couleur"] > -2 > fits["cartes"]


def test_the_book_s_counts_are_read_to_a_few_significant_binary_digits():
    from pipeline.clean.rounded import rounded, rounded_counts

    assert CleanSettings.default().book.count_bits == 2
    # exact below 4: the thresholds the engine applies to a count (twice, thrice) hold
    assert [rounded(n, 2) for n in (0, 1, 2, 3)] == [0, 1, 2, 3]
    # above, the middle of a bucket, two buckets each doubling: 4–5, 6–7, 8–11, 12–15, 16–23
    assert [rounded(n, 2) for n in (4, 5, 6, 7, 8, 11, 12, 15, 16, 23, 24)] == [5, 5, 7, 7, 10, 10, 14, 14, 20, 20, 28]
    assert [rounded(n, 4) for n in (15, 16, 17, 18, 40, 43, 44)] == [15, 17, 17, 19, 42, 42, 46]
    assert [rounded(n, 2) for n in (1000, 1023, 1024, 1535, 1536)] == [896, 896, 1280, 1280, 1792]
    # monotonic: the largest count is the largest read, and no two counts swap their order
    assert all(rounded(n, b) <= rounded(n + 1, b) for b in (1, 2, 4) for n in range(5000))

    # a pair printed fewer than three times counts as none: left out, never looked up as a count
    counts = rounded_counts(Counter({"de": 1500, "carte": 41, "vole": 3, "rnain": 1}), 2, least=2)
    assert counts == {"de": 1280, "carte": 40, "vole": 3}


def test_a_text_s_tokens_are_its_own_when_asked_again_or_after_another():
    first = sequence.token_spans("La carte, l'as.")
    assert first == [("la", 0, 2), ("carte", 3, 8), (",", 8, 9), ("l'", 10, 12), ("as", 12, 14), (".", 14, 15)]
    assert sequence.token_spans("Le roi") == [("le", 0, 2), ("roi", 3, 6)]
    assert sequence.token_spans("La carte, l'as.") == first
    assert sequence.token_spans("") == []


def test_the_compiled_tokens_are_the_expression_s():
    """The compiled loop (pipeline/clean/_tokens.pyx) must find the tokens ``_TOKEN``
    finds, and count each as ``normal`` does: on sentences, on random strings of the
    characters where the two could part (apostrophes, digits of other scripts, letters
    of the Unicode versions Python and the regex module do not share), and on every
    character alone."""
    import random

    assert sequence._compiled_spans is not None, "the compiled tokens were not built: run make install"

    def expected(text):
        return [(sequence.normal_of(m.group()), *m.span()) for m in sequence._TOKEN.finditer(text)]

    def compiled(text, spans=True):
        return sequence._compiled_spans(text, sequence._NORMALS, sequence.normal_of, spans)

    assert compiled("Qu'il joue 12 & 3,5 l’as! aujourd'hui") == [
        ("qu'", 0, 3), ("il", 3, 5), ("joue", 6, 10), ("<n>", 11, 13), ("et", 14, 15), ("<n>", 16, 17),
        (",", 17, 18), ("<n>", 18, 19), ("l'", 20, 22), ("as", 22, 24), (".", 24, 25),
        ("aujourd'", 26, 34), ("hui", 34, 37)]
    assert compiled("l' as, ŒUVRE", False) == ["l", "as", ",", "oeuvre"]
    assert compiled("") == [] and compiled("  -- ") == []
    rnd = random.Random(7)
    # U+0558 and U+1C89 are letters to the regex module's Unicode, not to Python 3.11's;
    # U+0663 and U+0969 are digits of other scripts, U+2163 a Roman numeral (a number, not a digit)
    alphabet = "ab'’&.,;:!?19 éŒſÉ-—«»ǅʰ\u0558\u1c89\u0663\u0969\u2163x\t"
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
        assert compiled(text) == expected(text), text
        assert compiled(text, False) == [t for t, _, _ in expected(text)] == sequence.tokens(text), text
    for c in range(0x2000):
        assert compiled(chr(c) + "a") == expected(chr(c) + "a"), hex(c)
    for c in ("\u0558", "\u1c89", "\U0001d400", "\U00010d40"):
        assert compiled(c + "1") == expected(c + "1"), hex(ord(c))


def test_the_compiled_words_of_the_steps_are_the_expression_s():
    """The words the correction steps read (pipeline/clean/steps.py, ``_TOKEN``: a word
    with the debris and digits the OCR may have put inside it), found by the compiled
    loop (pipeline/clean/_tokens.pyx): the same as the expression's, on sentences,
    random strings and every character."""
    import random

    from pipeline.clean import steps

    assert steps._compiled_words is not None, "the compiled tokens were not built: run make install"

    def expected(text):
        return [(m.group(), *m.span()) for m in steps._TOKEN.finditer(text)]

    assert steps._compiled_words("de5 c|ar^tes, & l'as!! x0 y&") == [
        ("de5", 0, 3), ("c|ar^tes", 4, 12), ("l", 16, 17), ("as", 18, 20), ("x0", 23, 25), ("y", 26, 27)]
    assert steps._compiled_words("") == [] and steps._word_spans("a") == [("a", 0, 1)]
    rnd = random.Random(11)
    alphabet = "ab&^|!0158 92é'-ŒſÉ\u0558\u1c89\u0663"
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
        assert steps._compiled_words(text) == expected(text), text
    for c in range(0x2000):
        assert steps._compiled_words(chr(c) + "a" + chr(c)) == expected(chr(c) + "a" + chr(c)), hex(c)


def test_the_compiled_pairs_of_words_are_the_expression_s():
    """The pairs of words the split-word step may join (pipeline/clean/steps.py,
    ``_PAIR`` searched for from each pair's second word on), found by the compiled loop
    (pipeline/clean/_tokens.pyx): the same spans as the expression's, on sentences and
    random strings."""
    import random

    from pipeline.clean import steps

    assert steps._compiled_pairs is not None, "the compiled tokens were not built: run make install"

    def expected(text):
        out, pos = [], 0
        while (m := steps._PAIR.search(text, pos)) is not None:
            out.append((*m.span(1), *m.span(2)))
            pos = m.start(2)
        return out

    # 'N ommant', 'ommant la' and 'de la'; not 'la l' nor 'de aujourd' (an apostrophe after the
    # second word), nor 'as de' (one before the first)
    sentence = "N ommant la l'as de aujourd'hui de la"
    assert steps._compiled_pairs(sentence) == expected(sentence) == [(0, 1, 2, 8), (2, 8, 9, 11), (32, 34, 35, 37)]
    assert steps._compiled_pairs("") == [] and steps._compiled_pairs("a  b") == [] and steps._compiled_pairs("a b") == [(0, 1, 2, 3)]
    rnd = random.Random(13)
    alphabet = "ab é'’ 1.-\tŒ\u0558\u1c89 "
    for _ in range(30_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 16)))
        assert steps._compiled_pairs(text) == expected(text), text


def test_the_compiled_sums_and_followers_are_numpy_s(monkeypatch):
    """c(v) and N(v •) of every word, summed in C (``_pairs.first_sums``), are numpy's
    ``bincount``'s; a word's followers (``_pairs.followers``) are those numpy's stable
    sort keeps, the commonest ``most`` in the pairs' order, of equal counts the first,
    and the same without the compiled module."""
    import numpy as np

    assert sequence._pairs is not None, "the compiled search was not built: run make install (a C compiler is needed)"
    # 'de' is followed by six words: 'la' thrice, 'le', 'mon', 'sa' and 'ta' twice each (a tie
    # across the cut at four), 'un' once
    counts = Counts.of(tokens("de la carte. de la couleur. de la main. de le jeu. de le pli. de mon jeu. "
                              "de mon pli. de sa carte. de sa main. de ta carte. de ta main. de un as."))
    n = len(counts.words)
    first = np.frombuffer(counts.pairs, dtype=np.int64) >> sequence._SHIFT
    history, followers = sequence._pairs.first_sums(counts.pairs, counts.pair_counts, sequence._SHIFT, n)
    assert history == np.bincount(first, weights=np.frombuffer(counts.pair_counts, dtype=np.uint32), minlength=n).tolist()
    assert followers == np.bincount(first, minlength=n).tolist()
    assert all(type(x) is float for x in history) and history[counts.words.index("de")] == 12.0

    def numpy_followers(v, most, min_count=2):
        i = counts.words.index(v)
        pairs, pc = np.frombuffer(counts.pairs, dtype=np.int64), np.frombuffer(counts.pair_counts, dtype=np.uint32)
        lo, hi = pairs.searchsorted([i << sequence._SHIFT, (i + 1) << sequence._SHIFT])
        keep = pc[lo:hi] >= min_count
        if most is not None and int(keep.sum()) > most:
            keep = np.zeros(hi - lo, bool)
            keep[np.argsort(-pc[lo:hi].astype(np.int64), kind="stable")[:most]] = True
        return [counts.words[k] for k in (pairs[lo:hi][keep] & ((1 << sequence._SHIFT) - 1)).tolist()]

    settings = CleanSettings.default().sequence
    for v, most in [("de", None), ("de", 4), ("de", 2), ("de", 1), ("de", 5), ("la", 1), ("un", 3), (".", 2)]:
        expected = numpy_followers(v, most)
        assert SequenceModel(counts, settings, lambda w: 0.0).followers_of(v, most) == expected, (v, most)
        with monkeypatch.context() as m:
            m.setattr(sequence, "_pairs", None)
            assert SequenceModel(counts, settings, lambda w: 0.0).followers_of(v, most) == expected, (v, most)
    assert numpy_followers("de", None) == ["la", "le", "mon", "sa", "ta"]
    assert numpy_followers("de", 4) == ["la", "le", "mon", "sa"]  # 'ta' as common as 'sa', listed after it
    # and on counts drawn at random, ties many: every cut of every word's followers
    import random

    rng = random.Random(7)
    vocabulary = [f"mot{a}{b}" for a in "abcde" for b in "fghijklm"][:40]
    counts = Counts.of(tokens(" ".join(rng.choice(vocabulary[: rng.randint(2, 40)]) for _ in range(6000))))
    model = SequenceModel(counts, settings, lambda w: 0.0)
    for v in vocabulary[:12]:
        for most in range(1, 41):
            assert model.followers_of(v, most) == numpy_followers(v, most), (v, most)
