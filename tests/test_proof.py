"""Proofreading: an editor's decisions kept in corpus/proofs/, applied on top of the
engine by the build, found again when the chapter file changes, never dropped."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipeline.build import build
from pipeline.cli import cli
from pipeline.decisions import Decision, anchor, append, decision, load, proof_file
from pipeline.proof.review import ReviewError, accept, mark, queue, reject, set_reading

CHAPTER = """‹ Nouvelle académie des jeux Chapitre 3 sur 40 · BOS · texte numérisé non relu

BOS 41

1. Celui qui donne mal paye une fiche à chaque joueur, et mêle de nouveau.

2. Le joueur qui renonce paye le douLle de la mise, et perd la partie.

BOS 42

3. On ne peut plus revenir sur la donne lorsque la première carie est jouée.
"""
NAME = "boston.txt"


@pytest.fixture()
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / NAME).write_text(CHAPTER, encoding="utf-8")
    return folder


def built(corpus: Path) -> sqlite3.Connection:
    db = corpus.parent / "a.db"
    report = build(corpus, db)
    assert report.published, report.diagnostics
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    return conn


def text_of(conn, number: int) -> str:
    return conn.execute("SELECT text_clean FROM passages WHERE kind = 'article' AND number = ?", (number,)).fetchone()[0]


def corrections_of(conn, number: int) -> list[tuple]:
    return [tuple(r) for r in conn.execute(
        "SELECT k.before, k.after, k.fix, k.confidence FROM corrections k JOIN passages p ON p.id = k.passage_id "
        "WHERE p.kind = 'article' AND p.number = ? AND k.kind != 'layout' ORDER BY k.clean_start", (number,))]


def test_a_reading_set_by_an_editor_is_a_proof_fix_and_the_raw_text_stays(corpus):
    conn = built(corpus)
    assert "la première carte est jouée" in text_of(conn, 3)  # the engine's reading, to be confirmed
    path, d = set_reading(conn, corpus, "unknown:ch3.3", "carte", at="carte")
    assert path == corpus / "proofs" / "boston.jsonl" and d.action == "set" and d.text == "carie"
    path, d = set_reading(conn, corpus, "unknown:ch3.2", "double", at="douLle")  # as the OCR printed it
    conn = built(corpus)
    assert text_of(conn, 2) == "2. Le joueur qui renonce paye le double de la mise, et perd la partie."
    assert ("douLle", "double", "clean.non_word+proof.set", 1.0) in corrections_of(conn, 2)
    assert ("carie", "carte", "clean.real_word+proof.set", 1.0) in corrections_of(conn, 3)
    raw = conn.execute("SELECT raw_text FROM chapters").fetchone()[0]
    assert raw == CHAPTER and (corpus / NAME).read_text(encoding="utf-8") == CHAPTER


def test_accept_keeps_the_fix_reject_restores_the_print_and_both_are_recorded(corpus):
    conn = built(corpus)
    items = {i.before: i for i in queue(conn, corpus, limit=None)}
    accept(conn, corpus, items["douLle"].id)
    reject(conn, corpus, items["carie"].id)
    conn = built(corpus)
    assert ("douLle", "double", "clean.non_word+proof.accept", 1.0) in corrections_of(conn, 2)
    # the print kept, and the check recorded: a correction whose before is its after
    assert "la première carie est jouée" in text_of(conn, 3)
    assert ("carie", "carie", "clean.real_word+proof.reject", 1.0) in corrections_of(conn, 3)
    # decided items leave the queue
    assert {"douLle", "carie"} & {i.before for i in queue(conn, corpus, limit=None)} == set()


def test_a_page_status_is_stored_and_published(corpus):
    conn = built(corpus)
    mark(conn, corpus, "page 42", "proofread")
    mark(conn, corpus, "unknown:ch3.1", "problematic")
    conn = built(corpus)
    assert dict(conn.execute("SELECT number, status FROM pages WHERE number IS NOT NULL").fetchall()) == {
        41: "not proofread", 42: "proofread"}
    assert conn.execute("SELECT status FROM passages WHERE citation = 'unknown:ch3.1'").fetchone()[0] == "problematic"
    with pytest.raises(ReviewError, match="unknown status 'done': one of 'not proofread', 'problematic', 'proofread', 'validated'"):
        mark(conn, corpus, "page 42", "done")


def test_a_decision_is_found_again_after_the_chapter_file_changed(corpus):
    conn = built(corpus)
    set_reading(conn, corpus, "unknown:ch3.2", "double", at="douLle")
    # a line added above: every offset moves
    (corpus / NAME).write_text(CHAPTER.replace("BOS 41\n", "BOS 41\n\nUn paragraphe ajouté en tête de page.\n"),
                               encoding="utf-8")
    conn = built(corpus)
    assert "paye le double de la mise" in text_of(conn, 2)
    assert ("douLle", "double", "clean.non_word+proof.set", 1.0) in corrections_of(conn, 2)


def test_a_decision_that_cannot_be_found_is_a_warning_and_stays_in_its_file(corpus):
    conn = built(corpus)
    path, d = set_reading(conn, corpus, "unknown:ch3.2", "double", at="douLle")
    (corpus / NAME).write_text(CHAPTER.replace("douLle", "triple"), encoding="utf-8")
    report = build(corpus, corpus.parent / "a.db")
    assert f"proofs/boston.jsonl: warning: decision {d.id} (set 'double' for 'douLle' (unknown:ch3.2)) not applied: " \
           "its text is no longer in boston.txt; it stays in its file" in [str(x) for x in report.diagnostics]
    assert load(path) == [d]


def test_anchor_prefers_the_old_place_then_the_context_then_a_unique_occurrence():
    raw = "la carie et la carie, puis la carle"
    d = decision("set", "x.txt", raw, raw.index("carie"), raw.index("carie") + 5, reading="carte", who="a", when="t")
    assert anchor(d, raw) == (3, 8)
    assert anchor(d, "XX" + raw) == (5, 10)  # moved: found by its context
    assert anchor(d, "la carte et la carte") is None  # its text is gone
    lone = decision("set", "x.txt", raw, raw.index("carle"), raw.index("carle") + 5, reading="carte", who="a", when="t")
    assert anchor(lone, "tout autre début, puis la carle") == (26, 31)


def test_the_queue_puts_doubt_first_and_a_misreading_decided_elsewhere_before_the_rest(corpus):
    conn = built(corpus)
    items = queue(conn, corpus, limit=None)
    assert items == sorted(items, key=lambda i: (-i.score, i.source_file, i.start))
    for i in items:
        assert i.id == f"{i.citation}@{i.start}"
        assert i.score == round((1 - i.confidence if i.kind == "fix" else i.confidence) * (1 + __import__("math").log2(i.same)), 4)


def test_a_line_that_is_no_decision_is_an_error_naming_the_file_and_line(corpus):
    (corpus / "proofs").mkdir()
    (corpus / "proofs" / "boston.jsonl").write_text('{"action": "set"}\n', encoding="utf-8")
    report = build(corpus, corpus.parent / "a.db")
    assert [str(d) for d in report.errors] == [
        "proofs/boston.jsonl: error: boston.jsonl:1: not a decision: Decision.__init__() missing 4 required positional "
        "arguments: 'file', 'start', 'end', and 'text'; no decision of this chapter applied"]


def test_the_cli_writes_a_decision_and_says_so(corpus):
    built(corpus)
    db = corpus.parent / "a.db"
    result = CliRunner().invoke(cli, ["proof", "set", "unknown:ch3.2", "double", "--at", "douLle",
                                      "--corpus", str(corpus), "--db", str(db)])
    [d] = load(proof_file(corpus, NAME))
    assert (result.exit_code, result.output) == (
        0, f"{corpus}/proofs/boston.jsonl: set 'double' for 'douLle' (unknown:ch3.2) [{d.id}]; "
           "'academie build' applies it\n")
    result = CliRunner().invoke(cli, ["proof", "set", "unknown:ch3.2", "x", "--at", "nowhere",
                                      "--corpus", str(corpus), "--db", str(db)])
    assert (result.exit_code, result.output) == (
        1, "error: 'nowhere' is not in unknown:ch3.2: give the words as the reading text shows them, or as the OCR "
           "printed them\n")
    result = CliRunner().invoke(cli, ["proof", "list", "--corpus", str(corpus), "--db", str(db)])
    assert result.output.splitlines() == [
        f"{d.id}  {d.when}  {d.who:<10} boston.txt: set 'double' for 'douLle' (unknown:ch3.2)"]


def _writer(args: tuple[str, int]) -> None:
    path, k = args
    append(Path(path), Decision("set", NAME, k, k + 1, "x", reading=f"r{k}", who=f"w{k}", when=str(k)))


@pytest.mark.slow  # processes
def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "proofs" / "boston.jsonl"
    pool = multiprocessing.get_context("fork").Pool(4)
    try:
        pool.map(_writer, [(str(path), k) for k in range(60)])
    finally:
        # closed and joined, not terminated (as the pool's ``with`` does): a worker killed
        # while it held the task queue's lock left the others waiting on it, and the test
        # hung once in 2026-12-02's third fresh clone
        pool.close()
        pool.join()
    assert sorted(d.reading for d in load(path)) == sorted(f"r{k}" for k in range(60))


KILLED_WRITER = """
import os, sys, time
from pathlib import Path
import pipeline.decisions as decisions
from pipeline.decisions import Decision, append
real_replace = os.replace
def stop_before_rename(src, dst):
    print("written", flush=True)
    time.sleep(60)  # killed here: the new file is complete under its temporary name, not yet renamed
decisions.os.replace = stop_before_rename
append(Path(sys.argv[1]), Decision("set", "boston.txt", 9, 10, "x", reading="lost", who="k", when="2"))
"""


@pytest.mark.slow  # a process, killed
def test_a_writer_killed_mid_write_leaves_a_valid_file_and_the_next_clears_its_leftover(tmp_path):
    path = tmp_path / "proofs" / "boston.jsonl"
    first = append(path, Decision("set", NAME, 1, 2, "x", reading="kept", who="a", when="1"))
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert proc.stdout.readline().strip() == "written"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert load(path) == [first]
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".boston.jsonl.tmp-")] == [
        f".boston.jsonl.tmp-{proc.pid}"]
    second = append(path, Decision("set", NAME, 3, 4, "x", reading="next", who="b", when="3"))
    assert load(path) == [first, second]
    assert not [p for p in path.parent.iterdir() if ".tmp-" in p.name]
    assert all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


def test_the_editor_s_effort_is_measured_against_the_gold_in_both_orders(corpus, tmp_path):
    from pipeline.proof.effort import effort

    conn = built(corpus)
    items = queue(conn, None, limit=None)
    fixed = next(i for i in items if i.before == "douLle")
    # a gold where the page prints 'triple' where the engine read 'double': one decision away
    gold = tmp_path / "gold"
    gold.mkdir()
    reading = "\n".join(r[0] for r in conn.execute("SELECT text_clean FROM passages ORDER BY seq"))
    (gold / NAME).write_text(reading.replace("le double de la mise", "le triple de la mise"), encoding="utf-8")
    [e] = effort(conn, gold)
    assert (e.chapter, e.items) == (NAME, len(items))
    assert e.queue_cer[0] == e.reading_cer[0] > 0 and e.queue_cer[-1] == e.reading_cer[-1] == 0.0
    rank = [i.id for i in items].index(fixed.id) + 1
    by_reading = [i.id for i in sorted(items, key=lambda i: i.start)].index(fixed.id) + 1
    assert (e.queue_half, e.reading_half) == (rank, by_reading)


def test_every_decision_is_evidence_for_the_channel(corpus):
    from pipeline.clean.learn import decisions_source
    from pipeline.clean.settings import CleanSettings

    conn = built(corpus)
    items = {i.before: i for i in queue(conn, corpus, limit=None)}
    set_reading(conn, corpus, "unknown:ch3.1", "donne", at="donne")  # a word checked: read right
    accept(conn, corpus, items["douLle"].id)  # the engine's 'double' kept
    reject(conn, corpus, items["carie"].id)  # the print kept
    set_reading(conn, corpus, "unknown:ch3.3", "carte", at="carie")
    src = decisions_source(corpus, CleanSettings.default().channel)
    assert dict(src.pairs) == {("donne", "donne"): 1, ("douLle", "double"): 1, ("carie", "carie"): 1,
                               ("carie", "carte"): 1}
    assert src.misread == 2
