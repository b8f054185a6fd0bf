"""Reading OCR'd numbers: glyph confusions, Roman numerals, whole sequences."""

import pytest

from pipeline.numbers import DigitModel, Reading, best_path, parse_roman


@pytest.fixture(scope="module")
def digits():
    return DigitModel.default()


@pytest.mark.parametrize("token,value", [
    ("3o7", 307), ("i9", 19), ("l2o", 120), ("Sg", 59), ("î", 2), ("1 2", 12), ("4o6", 406), ("i6i", 161), ("yo", 70),
])
def test_cheapest_reading_of_damaged_numbers(digits, token, value):
    readings = digits.readings(token)
    assert min(readings, key=readings.get) == value


def test_a_clean_number_reads_as_itself_for_free(digits):
    assert digits.readings("407")[407] == 0.0
    assert digits.cost("407", 407) == 0.0


def test_context_can_ask_for_any_value_at_a_price(digits):
    # a digit misread as another costs more than a letter read for a digit
    assert digits.cost("i3", 13) < digits.cost("78", 73) < digits.cost("78", 71)
    assert digits.cost("ftOl", 201) > 4.5  # beyond reading: the sequence will infer it


@pytest.mark.parametrize("token,value", [
    ("VII", 7), ("y I I I", 8), ("Xi", 11), ("XIV", 14), ("IX", 9), ("l", 1), ("XL", 40),
])
def test_roman_numerals_through_ocr_confusions(token, value):
    assert parse_roman(token) == value


@pytest.mark.parametrize("token", ["IIII", "VV", "ARTICLE", "", "IC"])
def test_not_roman_numerals(token):
    assert parse_roman(token) is None


def test_best_path_prefers_a_consistent_sequence():
    def step(state, reading, index):
        if reading.value is None:
            return state, 0.0
        return reading.value, 0.0 if state is None or reading.value == state + 1 else 3.0

    cands = [
        [Reading("n", 7, 0.0)],
        [Reading("n", 3, 0.0), Reading("n", 8, 1.0)],  # cheapest reading breaks the sequence
        [Reading("n", 9, 0.0)],
    ]
    assert [r.value for r in best_path(cands, None, step)] == [7, 8, 9]
