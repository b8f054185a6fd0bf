"""bench/heldout.py's reading of the ICDAR 2017 aligned files: a line end's break the gold
keeps is made one word, a compound's hyphen is kept."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pairs(tmp_path: Path, ocr: str, gold: str) -> list[dict]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from heldout import icdar_pairs
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert len(ocr) == len(gold)  # aligned character by character
    folder = tmp_path / "fr_monograph"
    folder.mkdir()
    (folder / "1.txt").write_text(f"[OCR_toInput] {ocr}\n[OCR_aligned] {ocr}\n[ GS_aligned] {gold}\n", encoding="utf-8")
    return icdar_pairs(folder)


def test_a_line_end_s_break_the_gold_keeps_is_one_word_and_a_compound_keeps_its_hyphen(tmp_path):
    ocr = "Il peint lui-même les pou-ces du jeu."
    gold = "Il peint lui-même les pou-ces du jeu."
    assert _pairs(tmp_path, ocr, gold) == [{"ocr": ocr, "proofread": "Il peint lui-même les pouces du jeu.", "book": ""}]


def test_a_break_the_gold_keeps_as_a_space_is_one_word(tmp_path):
    ocr = "Les pou-ces et la demi-figure."
    gold = "Les pou ces et la demi-figure."
    assert _pairs(tmp_path, ocr, gold)[0]["proofread"] == "Les pouces et la demi-figure."


def test_each_paragraph_says_its_book_the_year_of_its_file(tmp_path):
    """The script cleans each book (the files of one year) as a text of its own: each
    paragraph carries its file's year, from the folder's metadata."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from heldout import icdar_pairs
    finally:
        sys.path.remove(str(ROOT / "bench"))
    folder = tmp_path / "fr_monograph"
    folder.mkdir()
    for name, text in (("1.txt", "Il est fous la figure."), ("2.txt", "Le jeu de dames."), ("3.txt", "Une partie.")):
        (folder / name).write_text(f"[OCR_toInput] {text}\n[OCR_aligned] {text}\n[ GS_aligned] {text}\n", encoding="utf-8")
    (tmp_path / "eval_metadata.csv").write_text(
        "File;Date;Type;NbAlignedChar\nfr_monograph\\1.txt;1781;monograph;22\n"
        "fr_monograph\\2.txt;1858;monograph;16\nfr_monograph\\3.txt;1858;monograph;11\n", encoding="utf-8")
    assert [(p["ocr"], p["book"]) for p in icdar_pairs(folder)] == [
        ("Il est fous la figure.", "1781"), ("Le jeu de dames.", "1858"), ("Une partie.", "1858")]
    assert [p["book"] for p in icdar_pairs(folder, ["1858"])] == ["1858", "1858"]


def test_a_word_read_with_an_s_where_the_gold_keeps_an_f_is_told_apart():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from heldout import gold_long_s
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert gold_long_s("font", "sont") and gold_long_s("Fous", "Sous") and gold_long_s("fuite", "suite")
    assert not gold_long_s("sont", "font")  # the engine's f for the gold's s: a misreading of its own
    assert not gold_long_s("fleur", "sieur") and not gold_long_s("font", "fond") and not gold_long_s("font", None)
    assert not gold_long_s("font", "font")


def test_a_book_cut_as_chapters_of_about_n_characters():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from heldout import _chapters
    finally:
        sys.path.remove(str(ROOT / "bench"))
    ps = [{"ocr": "x" * 9} for _ in range(5)]  # 10 characters each, with its line end
    assert [len(run) for run in _chapters(ps, 20)] == [2, 2, 1]
    assert [len(run) for run in _chapters(ps, 0)] == [5]
    assert [len(run) for run in _chapters(ps, 1000)] == [5]


def test_a_line_end_s_break_the_export_made_a_space_is_one_word_in_the_gold(tmp_path):
    """The newspapers' exports lost many line ends' hyphens, and their gold keeps the
    printed line's break as a space ('seu lement'). Where the pieces run together are a
    word and one of them is none, the gold's word is one word, as a reading text has it;
    two words of the period's language stay two ('en tendre', 'Mai son')."""
    ocr = "Il a seu lement un nom bre de pions en tendre sa Mai son"
    assert _pairs(tmp_path, ocr, ocr)[0]["proofread"] == "Il a seulement un nombre de pions en tendre sa Mai son"
