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
    assert _pairs(tmp_path, ocr, gold) == [{"ocr": ocr, "proofread": "Il peint lui-même les pouces du jeu."}]


def test_a_break_the_gold_keeps_as_a_space_is_one_word(tmp_path):
    ocr = "Les pou-ces et la demi-figure."
    gold = "Les pou ces et la demi-figure."
    assert _pairs(tmp_path, ocr, gold)[0]["proofread"] == "Les pouces et la demi-figure."
