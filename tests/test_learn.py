"""The channel learned from aligned words (pipeline/clean/learn.py, `academie learn`),
the table the build reads, and the words with more than one damaged glyph that the
channel now finds: on text written for the tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipeline import data
from pipeline.cli import cli
from pipeline.clean import fix_and_explain
from pipeline.clean.correct import ChannelModel
from pipeline.clean.learn import aligned_source, events, learn, misreading, word_pairs
from pipeline.clean.learned import costs_of, default_path, read_table
from pipeline.clean.settings import CleanSettings

ROOT = Path(__file__).parent.parent
SETTINGS = CleanSettings.default().channel

# a made-up aligned book: its OCR, its proofread text
BOOK = [
    {"ocr": "Le nomLre des joueurs est de quatre, el la partie se joue en douLle.",
     "proofread": "Le nombre des joueurs est de quatre, et la partie se joue en double."},
    {"ocr": "Le joueur qui perd paye la moitié; el celui qui gagne reçoit la rnise.",
     "proofread": "Le joueur qui perd paye la moitié; et celui qui gagne reçoit la mise."},
    # a word cut at a line end is not a misreading ('Deuxiè' is not 'Deuxième' misread)
    {"ocr": "Deuxiè- me partie.", "proofread": "Deuxième partie."},
]


@pytest.fixture()
def book(tmp_path) -> Path:
    path = tmp_path / "book.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in BOOK), encoding="utf-8")
    return path


def test_learn_counts_each_confusion_of_a_small_aligned_book(book, tmp_path):
    out = tmp_path / "table.tsv"
    result = CliRunner().invoke(cli, ["learn", "--aligned", str(book), "--no-corpus", "--out", str(out),
                                      "--keep-pairs", str(tmp_path / "pairs")])
    assert result.exit_code == 0, result.output
    table = read_table(out.read_text(encoding="utf-8"))
    [source] = table.sources
    # 29 words of the proofread side aligned (not 'Deuxième'), 113 letters, 5 confusions:
    # L for b twice, l for t twice ('el'), rn for m once
    assert (source.name, source.words, source.glyphs, source.misread) == ("book", 29, 113, 5)
    # each count with the times its intended glyphs occur in the book's words: b in
    # 'nombre', 'double'; t in 'est', 'et' twice, 'partie' twice, 'quatre', 'moitié',
    # 'reçoit'; m in 'nombre', 'moitié', 'mise'
    assert {(r.printed, r.intended): r.counts["book"] for r in table.rows} == {
        ("L", "b"): (2, 2), ("l", "t"): (2, 8), ("rn", "m"): (1, 3)}
    rows = {(r.printed, r.intended): r for r in table.rows}
    # learned = -log10(2 / (2 x 5/113 + 1)) / 3 + calibration; the calibration is the median
    # gap to the prior of the two confusions seen twice; cost: the prior counts 10 times
    assert "+ 0.406, where exposure" in out.read_text(encoding="utf-8")
    assert (rows[("L", "b")].learned, rows[("L", "b")].prior, rows[("L", "b")].cost) == (0.318, 0.25, 0.261)
    assert result.output.splitlines()[-1].endswith("3 confusions learned (0 the hand table does not list), "
                                                   "from book 5 confusions counted")
    # the word pairs kept: counts, no text; learning from them gives the same table
    kept = tmp_path / "pairs" / "book.tsv"
    assert '"el"\t"et"\t2' in kept.read_text(encoding="utf-8").splitlines()
    again = tmp_path / "again.tsv"
    assert CliRunner().invoke(cli, ["learn", "--aligned", str(kept), "--no-corpus", "--out", str(again)]).exit_code == 0
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_a_new_confusion_seen_often_gets_cheaper_and_one_never_seen_keeps_its_prior():
    # 'q' for 'n' (the hand table does not list it: a plain substitution, 1.0) four times,
    # as often as 'l' for 't' (listed, 0.35), which anchors the scale
    book = [{"ocr": f"Il a dit {w} el non.", "proofread": f"Il a dit {r} et non."}
            for w, r in [("boqne", "bonne"), ("doqne", "donne"), ("soqne", "sonne"), ("toqne", "tonne")]]
    table = learn([aligned_source_of(book)], None, SETTINGS)
    rows = {(r.printed, r.intended): r for r in table.rows}
    assert set(rows) == {("q", "n"), ("l", "t")}
    qn, lt = rows[("q", "n")], rows[("l", "t")]
    assert (qn.count, qn.prior, lt.count, lt.prior) == (4, 1.0, 4, 0.35)
    assert lt.cost == lt.learned == 0.35  # the calibration: the listed confusion's prior
    assert qn.learned < 0.5 and qn.cost == pytest.approx((4 * 1.0 + 4 * qn.learned) / 8, abs=0.001)
    model = ChannelModel(data.load("confusions"), table.costs())
    assert model.pairs[("q", "n")] == qn.cost < 1.0
    assert model.pairs[("c", "e")] == 0.3  # never seen: the hand table's cost


def aligned_source_of(paragraphs: list[dict]):
    from pipeline.clean.learn import Source

    src = Source("made-up", "made-up")
    for d in paragraphs:
        src.pairs += word_pairs(d["ocr"], d["proofread"], SETTINGS.max_distance)
    return src


def test_what_is_a_misreading():
    assert misreading("nomLre", "nombre", 0.5)
    assert misreading("cl", "et", 0.5)  # far in letters, near in glyph shapes
    assert not misreading("Deuxiè", "Deuxième", 0.5)  # cut at a line end
    assert not misreading("Ecole", "ecole", 0.5)  # a change of case
    assert not misreading("maison", "partie", 0.5)  # a rewording
    assert not misreading("12", "13", 0.5)


def test_events_merge_a_run_that_changes_the_length_and_count_substitutions_apart():
    model = ChannelModel(data.load("confusions"))
    assert events(model.align("moTitrer", "montrer"), 3) == [("Ti", "n")]
    assert events(model.align("conlic", "contre"), 3) == [("l", "t"), ("i", "r"), ("c", "e")]
    assert events(model.align("aulie", "autre"), 3) == [("l", "t"), ("i", "r")]
    assert events(model.align("Ecole", "École"), 3) == []  # an accent is not a glyph confusion


@pytest.mark.parametrize("printed,word", [
    ("douLle", "double"), ("cliaise", "chaise"), ("rnaison", "maison"), ("moTitrer", "montrer"),
    ("atfparavant", "auparavant"), ("celiri", "celui"), ("pcrmi", "permis"), ("son^adverMire", "adversaire"),
    ("(lèche", "flèche"), ("quiiue", "quinze"), ("de5", "des"), ("Taccepte", "l'accepte"),
])
def test_the_alignment_costs_what_the_channel_costs(printed, word):
    learned = ChannelModel(data.load("confusions"), [("T", "l'", 0.9), ("m", "en", 0.8), ("", "s", 0.9), ("^", "", 0.2)])
    for model in (ChannelModel(data.load("confusions")), learned):
        steps = model.align(printed, word)
        assert "".join(p for p, _ in steps) == printed and "".join(w for _, w in steps) == word
        assert sum(_step_cost(model, p, w) for p, w in steps) == pytest.approx(model.cost(printed, word, False))


def _step_cost(model: ChannelModel, p: str, w: str) -> float:
    if p == w:
        return 0.0
    if not w:
        return sum(model.delete_at(p))
    if not p:
        return model.insert_cost.get(w, model.insertion)
    if len(p) == 1 and len(w) == 1:
        return model.step_cost(p, w, False)
    by_class = 9.0  # two glyphs for one letter: the listed confusion, or its glyph classes', the cheaper
    if len(p) == 2 and len(w) == 1:
        by_class = model.class_merges.get((model.glyph_class(p[0]), model.glyph_class(p[1])), {}).get(
            model.glyph_class(w), 9.0)
    return min(model.pairs.get((p, w), 9.0), by_class)


# -- the words the channel finds now, and the traps ------------------------------------------------------

@pytest.mark.parametrize("printed,expected", [
    # two glyphs read for one, as the hand table's 'ii' for 'n' by their glyph classes
    # (words the corpus does not print: a word printed twice in the book is left alone)
    ("Il joue en moTitrant ses cartes.", "Il joue en montrant ses cartes."),
    ("Le joueur n'a atfcun droit sur la mise.", "Le joueur n'a aucun droit sur la mise."),
    ("Il joue, pirisque son tour est venu.", "Il joue, puisque son tour est venu."),
    ("La liataille se joue à deux.", "La bataille se joue à deux."),
])
def test_words_with_two_damaged_glyphs_put_right(res, printed, expected):
    assert fix_and_explain(printed, res)[0] == expected


@pytest.mark.parametrize("sentence", [
    # pairs of thin strokes that are letters, not a merged glyph
    "Il lit le petit livre, il tient sa carte et il fait son jeu.",
    "Le titre du traité est utile; il faut le lire tout entier.",
    "Ils ont fait leur partie, et l'on tire au sort qui donne.",
])
def test_thin_strokes_that_are_letters_stay(res, sentence):
    assert fix_and_explain(sentence, res) == (sentence, [])


def test_a_glyph_for_an_elided_article_makes_the_article_a_candidate(res):
    from pipeline.clean.correct import _lexicon_index

    hand = data.load("confusions")
    # the hand table without its glyphs for an elided article: the learned table alone gives one
    hand = {**hand, "confusions": {**hand["confusions"],
                                   "pairs": [p for p in hand["confusions"]["pairs"] if not p[1].endswith("'")]}}
    plain = ChannelModel(hand)
    learned = ChannelModel(hand, [("T", "l'", 0.9)])
    assert "l'accepte" not in _lexicon_index(res.lexicon, plain).candidates("Taccepte")
    assert "l'accepte" in _lexicon_index(res.lexicon, learned).candidates("Taccepte")
    assert learned.cost("Taccepte", "l'accepte", False) == pytest.approx(0.9)
    assert "l'talon" not in _lexicon_index(res.lexicon, learned).candidates("Ttalon")  # no elision before a consonant


def test_the_build_reads_the_committed_table():
    text = default_path().read_text(encoding="utf-8")
    table = read_table(text)
    assert [s.name for s in table.sources] == ["lelasseux1852_t1_pairs", "corpus"]
    model = ChannelModel.default()
    assert model.learned == len(table.rows) > 0
    for printed, intended, cost in costs_of(text):
        if printed and intended and not model.long_s_event(printed, intended):
            assert model.pairs[(printed, intended)] == cost
    # every row says where its counts came from
    assert all(r.count == sum(n for n, _ in r.counts.values()) > 0 for r in table.rows)


@pytest.mark.slow  # cleans the corpus three times (about 10 s)
def test_academie_learn_writes_the_committed_table_again(tmp_path):
    out = tmp_path / "table.tsv"
    result = CliRunner().invoke(cli, ["learn", "--corpus", str(ROOT / "corpus"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == default_path().read_text(encoding="utf-8")
