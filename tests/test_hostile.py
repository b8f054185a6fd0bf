"""Input a hostile but fair user brings: each case failed once, and passes since its fix
(issue "Hold under fire")."""

from __future__ import annotations

import codecs
import os
import shutil
import sqlite3
import unicodedata
from pathlib import Path

import pytest

from pipeline.build import build, process_chapter
from pipeline.clean import fix_and_explain
from pipeline.files import remove_stale
from pipeline.link.rules import Extractor
from pipeline.resources import Resources

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
WHIST = "002_88808cca03487927.txt"


def _reading(corpus: Path, name: str) -> list[tuple[str, list]]:
    seg = process_chapter(corpus / name, Resources(corpus))
    return [(p.text.text, [(c.start, c.end, c.after, c.fix) for c in p.text.corrections()]) for p in seg.passages]


@pytest.mark.slow  # four corpora, each with its own corrector index
@pytest.mark.parametrize("encoding", ["utf-16", "cp1252", "utf-8-sig", "nfd"])
def test_a_chapter_is_cleaned_the_same_whatever_its_encoding(tmp_path, encoding):
    """The book's word counts come from the chapters as ingest reads them, not from the
    files' bytes: the whist chapter saved as UTF-16, cp1252, with a BOM or with
    decomposed accents reads and cleans exactly as in UTF-8."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    text = (CORPUS / WHIST).read_text(encoding="utf-8")
    if encoding == "nfd":
        data = unicodedata.normalize("NFD", text).encode("utf-8")
    else:
        data = text.encode(encoding)
    (corpus / WHIST).write_bytes(data)
    assert _reading(corpus, WHIST) == _reading(CORPUS, WHIST)


def test_invisible_characters_are_a_recorded_fix_and_words_stay_whole():
    text = "Celui qui re\u200bnonce paye la car\u00adte \u202eau\u202c\u2066 joueur\u2069.\ufeff"
    clean, fixes = fix_and_explain(text, Resources(CORPUS))
    assert clean == "Celui qui renonce paye la carte au joueur."
    assert [(c.before, c.fix) for c in fixes] == [
        ("\u200b", "clean.invisible"), ("\u00ad", "clean.invisible"), ("\u202e", "clean.invisible"),
        ("\u202c\u2066", "clean.invisible"), ("\u2069", "clean.invisible"), ("\ufeff", "clean.invisible")]


def test_invisible_characters_do_not_hide_a_word_from_search(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "zw.txt").write_text("1. Celui qui re\u200bnonce paye une fiche.\n\n2. Il faut jouer.\n", encoding="utf-8")
    build(corpus, tmp_path / "zw.db")
    db = sqlite3.connect(tmp_path / "zw.db")
    hits = db.execute("SELECT p.number FROM passages_fts f JOIN passages p ON p.rowid = f.rowid "
                      "WHERE passages_fts MATCH 'renonce'").fetchall()
    assert hits == [(1,)]


def test_a_build_that_reads_no_chapter_leaves_the_database_and_the_rules_as_they_were(tmp_path):
    db = tmp_path / "academie.db"
    good = tmp_path / "good"
    good.mkdir()
    (good / "ch.txt").write_text("1. Celui qui donne mal paye un jeton à chaque joueur.\n", encoding="utf-8")
    assert build(good, db).published
    before = db.read_bytes()
    rules = sorted(p.relative_to(tmp_path) for p in (tmp_path / "academie_rules").rglob("*.py"))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.txt").write_bytes(b"")
    (bad / "binary.txt").write_bytes(b"\x89PNG\x00\x01")
    report = build(bad, db)
    assert not report.published
    assert [str(d) for d in report.errors] == [
        "binary.txt: error: binary file: NUL byte at offset 4, not text",
        "empty.txt: error: empty file: no text to read",
        "bad: error: no chapter could be read: the database was not written",
    ]
    assert db.read_bytes() == before
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "academie_rules").rglob("*.py")) == rules


def test_what_killed_writers_left_is_removed_once_they_are_gone(tmp_path):
    target = tmp_path / "academie_rules"
    target.mkdir()
    dead = 2**22 + 17  # above Linux's default pid_max: no such process
    for name in (f".academie_rules.tmp-{dead}", f".academie_rules.old-{dead}", f".academie_rules.tmp-{os.getpid()}"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "whist.py").write_text("", encoding="utf-8")
    (tmp_path / f".academie.db.tmp-{dead}").write_bytes(b"x")
    removed = remove_stale(target)
    assert sorted(p.name for p in removed) == [f".academie_rules.old-{dead}", f".academie_rules.tmp-{dead}"]
    assert (tmp_path / f".academie_rules.tmp-{os.getpid()}").exists()  # a live writer's is kept
    assert (tmp_path / f".academie.db.tmp-{dead}").exists()  # another target's is its own writer's business


def test_a_long_passage_is_read_for_its_rule_up_to_a_bounded_window():
    """spaCy's time and memory grow with the text (and refuse beyond a million
    characters): an article's rule is read from its first 10,000 characters at most,
    cut at a sentence end, and the rule says what was left unread."""
    sentence = "Celui qui renonce paye une fiche à chaque joueur. "
    text = "1. " + sentence * 400  # 20,003 characters
    r = Extractor().extract(text)
    assert r.modality == "penalty"
    read = 3 + len(sentence) * 199 - 1  # the 199th sentence's full stop and space end before the 10,000th character
    assert r.missing[-1] == f"the text after character {read} of {len(text)} (not read: too long for an article)"
    assert max(b for _, b in r.spans.values()) <= read


@pytest.mark.parametrize("where,message", [
    ("folder", "is a folder: give the path of a database file (e.g. build/academie.db)"),
    ("under-a-file", "cannot be written: a file stands where its folder should be"),
])
def test_a_database_path_that_cannot_be_written_is_one_error_line_before_any_work(tmp_path, where, message):
    from click.testing import CliRunner

    from pipeline.cli import cli

    (tmp_path / "file").write_text("x", encoding="utf-8")
    db = tmp_path / "folder" if where == "folder" else tmp_path / "file" / "academie.db"
    (tmp_path / "folder").mkdir()
    result = CliRunner().invoke(cli, ["build", "--corpus", str(CORPUS), "--db", str(db)])
    assert (result.exit_code, result.output) == (2, f"error: {db}: {message}\n")


def test_a_folder_named_like_a_chapter_is_reported_not_skipped_silently(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "x.txt").mkdir(parents=True)
    (corpus / "ch.txt").write_text("1. Il faut jouer à son tour.\n", encoding="utf-8")
    report = build(corpus, tmp_path / "a.db")
    assert "x.txt: warning: a folder, not a chapter file: skipped" in [str(d) for d in report.diagnostics]


def test_the_next_build_clears_what_a_build_killed_while_writing_the_rules_left(tmp_path):
    dead = 2**22 + 17  # above Linux's default pid_max: no such process
    leftovers = [tmp_path / f".academie_rules.tmp-{dead}", tmp_path / f".academie_rules.old-{dead}"]
    for folder in leftovers:
        (folder / "aduj").mkdir(parents=True)
        (folder / "aduj" / "whist.py").write_text("def art_1(): ...\n", encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ch.txt").write_text("1. Celui qui donne mal paye un jeton à chaque joueur.\n", encoding="utf-8")
    build(corpus, tmp_path / "academie.db")
    assert not any(p.exists() for p in leftovers)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["academie.db", "academie_rules", "cache", "corpus"]


def test_a_cache_entry_a_killed_build_was_writing_is_removed(tmp_path):
    from pipeline.cache import ChapterCache

    store = ChapterCache(tmp_path / "cache", "v")
    dead = 2**22 + 17  # above Linux's default pid_max: no such process
    (tmp_path / "cache" / "ab").mkdir(parents=True)
    stale = tmp_path / "cache" / "ab" / f".abcd.chapter.tmp-{dead}"
    live = tmp_path / "cache" / "ab" / f".abce.chapter.tmp-{os.getpid()}"
    kept = tmp_path / "cache" / "ab" / "abcf.chapter"
    for p in (stale, live, kept):
        p.write_bytes(b"x")
    assert store.remove_stale() == [stale]
    assert not stale.exists() and live.exists() and kept.exists()


def test_a_token_longer_than_any_word_is_left_as_printed_unsearched(monkeypatch):
    """A word's readings are searched for by its skeletons less a glyph, each with two
    glyphs merged: the cube of its length. A token of 2,000 letters took 18 s, one of
    200,000 filled the memory; a token longer than ``longest_token`` (60) is no word,
    nor words run together, and no step asks the index about it."""
    from pipeline.clean.correct import CandidateIndex
    from pipeline.clean.settings import CleanSettings

    assert CleanSettings.default().corrector.longest_token == 60
    asked = []
    for name in ("_looked_in", "same_within", "near_within", "candidates"):
        real = getattr(CandidateIndex, name)

        def spy(self, printed, *args, _real=real, **kwargs):
            asked.append(printed)
            return _real(self, printed, *args, **kwargs)

        monkeypatch.setattr(CandidateIndex, name, spy)
    token = "abcdefghij" * 7  # 70 letters, no word of any language
    text = f"Le jeu se joue {token} quand il faut."
    clean, fixes = fix_and_explain(text, Resources(CORPUS))
    assert clean == text and fixes == []
    assert asked and max(map(len, asked)) <= 60  # (the sentence's other words were asked about)


def test_thousands_of_heads_without_a_number_are_numbered_from_the_nearest_read():
    """Each head read with no number takes the number of the nearest head read, counted
    on; until 2026-12-07 each searched the whole chapter both ways for it."""
    from pipeline.layout.pages import _infer_unread

    n = 5000
    values = [None] * n
    values[1], values[4000] = 12, 4011
    statuses = [None] * n
    statuses[1] = statuses[4000] = "read"
    _infer_unread(values, statuses)
    assert values[:3] == [11, 12, 13] and values[3999:4002] == [4010, 4011, 4012]
    assert values[-1] == 12 + (n - 2)  # after the last read, counted on from it
    assert statuses[0] == statuses[2] == statuses[-1] == "inferred" and statuses[4000] == "read"
    values, statuses = [None, None, 2, None], [None, None, "read", None]
    _infer_unread(values, statuses)
    assert values == [None, 1, 2, 3]  # (no page 0: a head before page 1 stays unnumbered)
    assert statuses == [None, "inferred", "read", "inferred"]
