"""MappedText: derived text that maps back to raw offsets, every edit recorded."""

import pytest

from pipeline.text import Edit, MappedText, restore_raw

RAW = "xx Le douLle 3 terne, nom-\nLre fur la Lande.yy"


def whole():
    return MappedText.from_raw(RAW, 3, len(RAW) - 2)


def test_unchanged_text_is_the_raw_slice():
    m = whole()
    assert m.text == "Le douLle 3 terne, nom-\nLre fur la Lande."
    assert (m.raw_start, m.raw_end) == (3, 44)
    assert m.corrections() == []


def test_edits_are_recorded_with_raw_and_clean_offsets():
    m = whole()
    t = m.text
    m = m.apply([
        Edit(t.index("Lle"), t.index("Lle") + 1, "b", "clean.real_word", 0.9),
        Edit(t.index("-\n"), t.index("-\n") + 2, "", "layout.join_hyphenated"),
    ])
    assert m.text == "Le double 3 terne, nomLre fur la Lande."
    [c1, c2] = m.corrections()
    assert (c1.start, c1.end, c1.before, c1.after, c1.fix, c1.confidence) == (9, 10, "L", "b", "clean.real_word", 0.9)
    assert (c2.start, c2.end, c2.before, c2.after) == (25, 27, "-\n", "")
    assert m.text[c1.clean_start:c1.clean_end] == "b"


def test_later_edit_inside_an_earlier_one_merges_the_records():
    m = whole()
    t = m.text
    m = m.replace(t.index("-\n"), t.index("-\n") + 2, "", "layout.join_hyphenated")
    k = m.text.index("nomLre") + 3
    m = m.replace(k - 1, k + 1, "mb", "clean.non_word", 0.8)
    assert "nombre fur" in m.text
    # the second edit covers the first: one record, both rules, the lower confidence
    [c] = m.corrections()
    assert (c.before, c.after, c.fix, c.confidence) == ("m-\nL", "mb", "layout.join_hyphenated+clean.non_word", 0.8)


def test_raw_restored_from_clean_text_and_corrections():
    m = whole()
    for word, fix in (("douLle", "double"), ("fur", "sur"), ("Lande", "bande")):
        k = m.text.index(word)
        m = m.replace(k, k + len(word), fix, "clean.real_word")
    m = m.apply([Edit(0, 0, "«", "clean.elision"), Edit(len(m.text), len(m.text), "»", "clean.elision")])
    assert m.text == "«Le double 3 terne, nom-\nLre sur la bande.»"
    assert restore_raw(m.text, m.corrections(), m.raw_start) == RAW[3:-2]


def test_an_edit_undone_leaves_no_record():
    m = whole()
    m = m.replace(0, 2, "La", "clean.real_word")
    m = m.replace(0, 2, "Le", "clean.non_word")
    assert m.corrections() == []


def test_overlapping_edits_are_refused():
    with pytest.raises(ValueError, match="overlapping edits"):
        whole().apply([Edit(0, 5, "x", "clean.real_word"), Edit(3, 6, "y", "clean.non_word")])


def test_split_and_strip_keep_the_mapping():
    m = whole()
    left, right = m.split(m.text.index(" 3 "))
    assert left.text == "Le douLle" and right.text.startswith(" 3 terne")
    assert left.raw_end == right.raw_start == 12
    assert right.strip().raw_start == 13
    assert m.to_raw(m.text.index("terne")) == RAW.index("terne")


def test_concat_records_what_lay_between():
    a = MappedText.from_raw(RAW, 3, 9)
    b = MappedText.from_raw(RAW, 13, 20)
    joined = a.concat(b, " ", "layout.continued")
    assert joined.text == "Le dou 3 terne"
    [c] = joined.corrections()
    assert (c.before, c.after, c.fix) == ("Lle ", " ", "layout.continued")


def test_an_edit_under_an_unregistered_fix_is_refused():
    with pytest.raises(ValueError, match="unknown fix 'clean.guess': register it in pipeline/fixes.py"):
        whole().replace(0, 2, "La", "clean.guess")


def test_a_word_is_folded_letter_by_letter_as_base_letter_folds_each():
    """``fold_letters`` folds a word in one call (``str.translate`` with a table made as
    letters are met): the letters ``base_letter`` gives one by one, its length kept but
    for a mark that has no letter to sit on, on French words and on every character up
    to U+2FFF."""
    from pipeline.text import base_letter, fold_letters

    assert fold_letters("Préférence") == "preference" and fold_letters("ŒUVRE") == "œuvre"
    assert fold_letters("piége") == "piege" and fold_letters("ſoit") == "ſoit" and fold_letters("Jeu") == "jeu"
    assert fold_letters("e\u0301te\u0301") == "ete"  # (combining accents: no letter of their own)
    for start in range(0x80, 0x3000, 7):
        word = "é" + "".join(chr(c) for c in range(start, start + 7))
        assert fold_letters(word) == "".join(base_letter(c) for c in word), hex(start)


def test_to_raw_maps_each_place_of_a_text_edited_many_times():
    # a clean text's place → the raw offset of its character: inside an unchanged piece,
    # the character's own; at a changed piece, its raw start (its first character) or its
    # raw end; past the text, the raw end. Checked against a walk of the pieces, on texts
    # edited at random (the lookup bisects the pieces' ends: a run-on chapter has thousands)
    import pickle
    import random

    def walked(m, pos):
        off = 0
        for p in m.pieces:
            end = off + len(p.text)
            if pos < end or (pos == end and p is m.pieces[-1]):
                return p.raw_start + (pos - off) if not p.changed else (p.raw_start if pos == off else p.raw_end)
            off = end
        return m.raw_end

    rng = random.Random(7)
    for _ in range(300):
        raw = "".join(rng.choice("ab cd.") for _ in range(rng.randint(0, 30)))
        m = MappedText.from_raw(raw, 0, len(raw))
        for _ in range(rng.randint(0, 5)):
            if not m.text:
                break
            a = rng.randint(0, len(m.text))
            b = rng.randint(a, min(len(m.text), a + 3))
            m = m.apply([Edit(a, b, rng.choice(["", "x", "yz"]), "clean.spacing", 0.9)])
            m.to_raw(0)  # (the offsets kept with this text, not the next one's)
        for pos in range(len(m.text) + 2):
            assert m.to_raw(pos) == walked(m, pos)
        assert pickle.loads(pickle.dumps(m)).to_raw(len(m.text)) == walked(m, len(m.text))
    # the example: 'double' made of 'douLle', its 'b' at the raw 'L'
    m = whole()
    m = m.apply([Edit(m.text.index("Lle"), m.text.index("Lle") + 1, "b", "clean.real_word", 0.9)])
    assert m.to_raw(m.text.index("ble")) == RAW.index("Lle") and m.to_raw(m.text.index("le 3")) == RAW.index("le 3")
