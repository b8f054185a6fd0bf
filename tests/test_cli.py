"""The command line's thin places, through the real CLI (``python -m pipeline.cli`` in
a subprocess, so that a traceback shows as one): outline and cite as text and JSON,
rules --eval and eval --broken against their gold files, every reading command on a
missing database, malformed references, clean on a file it cannot read.

Expected values come from the printed page (tests/fixtures/gold/), the corpus files
and manifest, and the hand labels (tests/fixtures/rules_gold.yaml), never from what
the command happened to print once.
"""

from __future__ import annotations

import gc
import json
import os
import re
import sqlite3
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

# the real command line, each command in a process of its own
pytestmark = pytest.mark.slow
import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
GOLD_DIR = ROOT / "tests" / "fixtures" / "gold"
RULES_GOLD = ROOT / "tests" / "fixtures" / "rules_gold.yaml"
WHIST_FILE = "002_88808cca03487927.txt"
ENV = {**os.environ, "PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)}


def academie(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=ENV, timeout=300)


def gold_lines(chapter=WHIST_FILE):
    return (GOLD_DIR / chapter).read_text(encoding="utf-8").splitlines()


def gold_article(number):
    return next(line for line in gold_lines() if line.startswith(f"{number}. "))


# whist's rules as the page prints them: articles 1-7 on p. 406, 8-14 on 407, 15-20 on
# 408, 21-24 on 409 (page 408's head is lost; the break falls inside article 14)
WHIST_PAGES = {**{n: 406 for n in range(1, 8)}, **{n: 407 for n in range(8, 15)},
               **{n: 408 for n in range(15, 21)}, **{n: 409 for n in range(21, 25)}}


# -- outline -----------------------------------------------------------------------------------

def test_outline_shows_whist_articles_1_to_24_by_page(built_db):
    proc = academie("outline", "--db", built_db)
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    start = lines.index(f"aduj · {WHIST_FILE}")
    block = lines[start:start + 8]
    assert block[1] == "  whist"
    assert re.fullmatch(r"    section: Règles du Jeu de \S+\.  \(p\. 406, aduj:whist\.p406\.1\)", block[2]), block[2]
    assert block[3:7] == ["    art. 1–7  (p. 406)", "    art. 8–14  (p. 407)", "    art. 15–20  (p. 408)",
                          "    art. 21–24  (p. 409)"]
    assert block[7].startswith("    section: Calculs qui enseignent avec une certitude morale, comment il faut ")
    assert block[7].endswith("  (p. 409, aduj:whist.p409.1)")
    assert start + 8 == len(lines) or not lines[start + 8].startswith("    ")  # nothing else in the chapter


def test_outline_json_gives_every_whist_article_with_its_page_and_citation(built_db, db):
    proc = academie("outline", "--json", "--db", built_db)
    assert (proc.returncode, proc.stderr) == (0, "")
    data = json.loads(proc.stdout)
    assert sorted(c["source_file"] for c in data) == sorted(p.name for p in CORPUS.glob("*.txt"))
    whist = next(c for c in data if c["source_file"] == WHIST_FILE)
    # a chapter without an export header: its edition from the manifest, no number, no title
    assert {k: v for k, v in whist.items() if k != "games"} == {
        "source_file": WHIST_FILE, "edition": "aduj", "number": None, "title": None}
    assert [g["game"] for g in whist["games"]] == ["whist"]
    items = whist["games"][0]["items"]
    assert all(set(i) == {"kind", "number", "page", "citation", "text"} for i in items)
    assert [(i["kind"], i["number"], i["page"], i["citation"]) for i in items] == [
        ("section", None, 406, "aduj:whist.p406.1"),
        *[("article", n, WHIST_PAGES[n], f"aduj:whist.{n}") for n in range(1, 25)],
        ("section", None, 409, "aduj:whist.p409.1"),
    ]
    # each item's text is the start of its passage's clean text; article 13's is the page's
    clean = dict(db.execute("SELECT citation, text_clean FROM passages WHERE game = 'whist'").fetchall())
    assert all(i["text"] == clean[i["citation"]][:80] for i in items)
    assert next(i["text"] for i in items if i["number"] == 13) == gold_article(13)[:80]


# -- cite --json -------------------------------------------------------------------------------

WHIST_13_RAW = (
    "i3. Personne ne doit prendre les caries ni les regarder ])endanl qu on donne; et au cas que celui qui donne "
    "donnât mal , il faudrait qu'il redonnât ; mais il n'est pas obligé de le faire si une carie se tourne en donnant."
)


def test_cite_json_gives_whist_13_exactly(built_db):
    proc = academie("cite", "whist 13", "--json", "--db", built_db)
    assert (proc.returncode, proc.stderr) == (0, "")
    manifest = tomllib.loads((CORPUS / "manifest.toml").read_text(encoding="utf-8"))
    aduj = next(e for e in manifest["editions"] if e["id"] == "aduj")
    assert WHIST_13_RAW in (CORPUS / WHIST_FILE).read_text(encoding="utf-8")  # the file prints it so
    data = json.loads(proc.stdout)
    assert list(data) == ["citation", "edition_id", "edition_title", "source_file", "chapter_number", "game", "kind",
                          "number", "number_raw", "page", "text_clean", "text_raw"]
    assert data == {
        "citation": "aduj:whist.13",
        "edition_id": "aduj",
        "edition_title": aduj["title"],
        "source_file": WHIST_FILE,
        "chapter_number": None,  # the file has no export header to give it
        "game": "whist",
        "kind": "article",
        "number": 13,
        "number_raw": "i3",
        "page": 407,
        "text_clean": gold_article(13),
        "text_raw": WHIST_13_RAW,
    }


# -- rules --eval ------------------------------------------------------------------------------

def _consequences(specs):
    # as a multiset: a field may be missing from one consequence and not another
    return Counter((c.get("kind"), c.get("amount"), c.get("unit"), c.get("to")) for c in specs)


def test_rules_eval_prints_the_figures_of_the_hand_labels(built_db, db):
    """Every figure recomputed here from the labels and the rules table, apart from
    the scorer the command uses."""
    labels = yaml.safe_load(RULES_GOLD.read_text(encoding="utf-8"))
    rows = {r["citation"]: r for r in db.execute("SELECT citation, modality, bearer, consequences FROM rules")}
    assert all(g["citation"] in rows for g in labels)
    n = len(labels)
    modality = [g for g in labels if rows[g["citation"]]["modality"] == g["modality"]]
    bearer = [g for g in labels if rows[g["citation"]]["bearer"] == g.get("bearer")]
    paying = [g for g in labels if g["modality"] == "penalty"
              or any(c["kind"] in ("pay", "lose") for c in g.get("consequences") or [])]
    exact = [g for g in paying if _consequences(g.get("consequences") or [])
             == _consequences(json.loads(rows[g["citation"]]["consequences"]))]
    proc = academie("rules", "--eval", "--db", built_db)
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    assert lines[:4] == [
        f"tests/fixtures/rules_gold.yaml: {n} articles labelled by hand",
        f"modality accuracy      {len(modality) / n:6.1%}  ({len(modality)}/{n})",
        f"bearer accuracy        {len(bearer) / n:6.1%}  ({len(bearer)}/{n})",
        f"consequences exact     {len(exact) / len(paying):6.1%}  ({len(exact)}/{len(paying)} payment and penalty articles)",
    ]
    wrong = {(line.split()[0], line.split()[1]) for line in lines[4:]}
    assert wrong == ({(g["citation"], "modality") for g in labels if g not in modality}
                     | {(g["citation"], "bearer") for g in labels if g not in bearer}
                     | {(g["citation"], "consequences") for g in paying if g not in exact})
    assert len(lines) == 4 + len(wrong)


def test_rules_eval_on_labels_of_ones_own(built_db, db, tmp_path):
    whist_13 = db.execute("SELECT modality, bearer FROM rules WHERE citation = 'aduj:whist.13'").fetchone()
    labels = tmp_path / "labels.yaml"
    labels.write_text(
        # art. 10 of ch. 51 as printed: 'Celui qui donne mal paye un jeton à chaque joueur et mêle de nouveau.'
        '- {citation: "aduj:ch51.10", modality: penalty, bearer: dealer,'
        ' consequences: [{kind: pay, amount: 1, unit: jeton, to: each_other_player}, {kind: redeal}]}\n'
        '- {citation: "aduj:whist.13", modality: scoring, bearer: banker}\n'  # wrong on purpose
        '- {citation: "aduj:whist.99", modality: obligation}\n',  # no such article
        encoding="utf-8")
    proc = academie("rules", "--eval", labels, "--db", built_db)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines() == [
        f"{labels}: 3 articles labelled by hand, 1 not in the database (scored: 2)",
        "modality accuracy       50.0%  (1/2)",
        "bearer accuracy         50.0%  (1/2)",
        "consequences exact     100.0%  (1/1 payment and penalty articles)",
        f"  aduj:whist.13      modality      expected 'scoring', found {whist_13['modality']!r}",
        f"  aduj:whist.13      bearer        expected 'banker', found {whist_13['bearer']!r}",
        "  aduj:whist.99      article       expected 'present', found 'missing'",
    ]


@pytest.mark.parametrize("content,message", [
    (None, "cannot read the labels: No such file or directory"),
    ("- {citation: [unclosed\n", "not YAML: while parsing a flow sequence"),
    ("whist: 13\n", "not a list of labelled articles (each with a citation and a modality)"),
])
def test_rules_eval_on_labels_it_cannot_use(built_db, tmp_path, content, message):
    labels = tmp_path / "labels.yaml"
    if content is not None:
        labels.write_text(content, encoding="utf-8")
    proc = academie("rules", "--eval", labels, "--db", built_db)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", f"error: {labels}: {message}\n")


# -- eval --broken -----------------------------------------------------------------------------

def test_eval_broken_lists_the_words_the_cleaning_broke(built_db, db, tmp_path):
    from pipeline.clean.evaluate import evaluate_db

    scores = evaluate_db(db, GOLD_DIR)
    broken = [w for s in scores for w in s.broken_words]
    proc = academie("eval", GOLD_DIR, "--broken", "--db", built_db)
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    assert lines[len(scores) + 3].startswith("CER: of the raw page text")  # the legend under the table
    # after the header, the chapters, the rule, the total, the legend; before the calibration table
    listed = lines[len(scores) + 4: lines.index("", len(scores) + 4)]
    assert listed == ([f"broken: {g!r} → {m!r}" for g, m in broken]
                      or ["broken: none (no word right in the raw text is wrong in the clean text)"])

    # a gold where the page would print 'caries' in whist 13: the OCR had it right, the cleaning broke it
    one = tmp_path / "gold"
    one.mkdir()
    text = (GOLD_DIR / WHIST_FILE).read_text(encoding="utf-8")
    line = gold_article(13)
    assert text.count(line) == 1 and line.count("les cartes") == 1
    (one / WHIST_FILE).write_text(text.replace(line, line.replace("les cartes", "les caries")), encoding="utf-8")
    proc = academie("eval", one, "--broken", "--db", built_db)
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    assert lines[1].startswith(WHIST_FILE) and lines[3].startswith("total")
    whist_broken = [f"broken: {g!r} → {m!r}" for s in scores if s.chapter == WHIST_FILE for g, m in s.broken_words]
    assert sorted(lines[5: lines.index("", 5)]) == sorted(whist_broken + ["broken: 'caries' → 'cartes'"])
    assert int(lines[3].split()[-2]) == len(whist_broken) + 1  # the total's 'broken' column


# -- every reading command on a missing database ---------------------------------------------

READING = [
    ("cite", "whist 13"), ("cite", "whist 13", "--json"), ("outline",), ("outline", "--json"),
    ("explain", "aduj:whist.13"), ("rule", "aduj:ch51.10"), ("rules",), ("rules", "--status"), ("rules", "--eval"),
    ("eval", GOLD_DIR), ("eval", GOLD_DIR, "--broken"), ("fixes",), ("fixes", "--json"),
]


@pytest.mark.parametrize("command", READING, ids=lambda c: " ".join(map(str, c)).replace(str(GOLD_DIR), "GOLD"))
def test_reading_command_on_a_missing_database(tmp_path, command):
    db = tmp_path / "nothing" / "academie.db"
    proc = academie(*command, "--db", db)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"error: {db}: no database here; build it first with 'academie build --db {db}'\n"


@pytest.mark.parametrize("command", [c for c in READING if c != ("rules", "--eval")],
                         ids=lambda c: " ".join(map(str, c)).replace(str(GOLD_DIR), "GOLD"))
def test_reading_command_on_the_default_database_when_there_is_none(tmp_path, command):
    proc = academie(*command, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "error: build/academie.db: no database here; build it first with 'academie build'\n"


def test_rules_eval_on_the_default_database_when_there_is_none(tmp_path):
    # the database is looked for before the labels (here, neither is found)
    proc = academie("rules", "--eval", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "error: build/academie.db: no database here; build it first with 'academie build'\n"


def test_reading_a_file_that_is_not_a_database(tmp_path):
    junk = tmp_path / "academie.db"
    junk.write_text("whist 13\n", encoding="utf-8")
    proc = academie("cite", "whist 13", "--db", junk)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (f"error: {junk}: cannot read it as an Académie database (file is not a database); "
                           f"build it again with 'academie build --db {junk}'\n")
    proc = academie("outline", "--db", tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"error: {tmp_path}: a folder, not a database; give the database file (--db {junk})\n"


def test_reading_a_database_of_another_schema(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    proc = academie("fixes", "--db", other)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (f"error: {other}: cannot read it as an Académie database (no such table: corrections); "
                           f"build it again with 'academie build --db {other}'\n")


# -- malformed references ---------------------------------------------------------------------

HOW = "write a game and an article number ('whist 13', 'Whist, art. 13') or a citation ('aduj:whist.13')"


@pytest.mark.parametrize("command,message", [
    (("cite", ""), f"no reference given: {HOW}"),
    (("cite", "   "), f"no reference given: {HOW}"),
    (("cite", "whist"), f"cannot read 'whist' as a reference (no article number): {HOW}"),
    (("cite", "13"), f"cannot read '13' as a reference (no game before the number): {HOW}"),
    (("cite", "aduj:"), f"cannot read 'aduj:' as a reference (nothing follows the edition 'aduj:'): {HOW}"),
    (("cite", "aduj:whist"), f"cannot read 'aduj:whist' as a reference (no article number): {HOW}"),
    (("cite", "whist 99999999999999999999"),
     "whist has no article 99999999999999999999 in the database; nearest: whist 22, whist 23, whist 24 (articles: 1–24)"),
    (("rule", "13"), f"cannot read '13' as a reference (no game before the number): {HOW}"),
    (("explain", "nope"), "no passage cited 'nope'; a citation reads <edition>:<game>.<number>, e.g. 'aduj:whist.13'"),
    (("explain", ""), "no citation given: write one such as 'aduj:whist.13'"),
    (("explain", "aduj:whist.99"), "no passage cited 'aduj:whist.99'; near: aduj:whist.1, aduj:whist.10, "
                                   "aduj:whist.11, aduj:whist.12, aduj:whist.13"),
], ids=lambda v: repr(v) if isinstance(v, tuple) else "")
def test_malformed_reference_is_one_error_line(built_db, command, message):
    proc = academie(*command, "--db", built_db)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"error: {message}\n"


# -- clean on a file it cannot read ------------------------------------------------------------

def test_clean_a_binary_file(tmp_path):
    binary = tmp_path / "scan.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    proc = academie("clean", binary)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"error: {binary}: binary file: NUL byte at offset 8, not text\n"


def test_clean_a_missing_file(tmp_path):
    missing = tmp_path / "nowhere.txt"
    proc = academie("clean", missing)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"error: {missing}: cannot read: No such file or directory\n"


def test_clean_a_folder(tmp_path):
    proc = academie("clean", tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"error: {tmp_path}: cannot read: Is a directory\n"


@pytest.mark.slow  # two cleans of a chapter, one in three processes
def test_clean_in_processes_prints_what_one_process_prints():
    """The Whist chapter's paragraphs cleaned by three forked processes, each with
    memos of its own: every line, edit and suggestion (with its position and
    confidence) as one process prints them; article 13 among them, its number as the
    OCR printed it ('i3.': the number is the segmenter's to read, not the cleaning's)."""
    one = academie("clean", "--explain", CORPUS / WHIST_FILE)
    three = academie("clean", "--explain", "-j", "3", CORPUS / WHIST_FILE)
    assert (one.returncode, three.returncode) == (0, 0)
    assert three.stdout == one.stdout
    assert three.stderr == one.stderr
    assert len(one.stdout.splitlines()) > 30 and len(one.stderr.splitlines()) > 100
    assert any(line.startswith("i3. Personne ne doit prendre les cartes") for line in one.stdout.splitlines())


def test_clean_jobs_must_be_one_or_more(tmp_path):
    proc = academie("clean", "-j", "0", CORPUS / WHIST_FILE)
    assert proc.returncode == 2
    assert "Invalid value for '--jobs' / '-j': 0 is not in the range x>=1." in proc.stderr


# -- how the process ends ----------------------------------------------------------------------

def test_the_command_line_ends_with_its_exit_handlers_run_and_its_output_complete():
    """``pipeline.cli.end``, which the console script ends with: the exit handlers run,
    what was written is flushed (a pipe holds it all), a message given as the status is
    printed and the status is 1, as the interpreter does."""
    code = ("import atexit, sys; from pipeline.cli import end; atexit.register(lambda: print('handler ran'));"
            "sys.stdout.write('x' * 100_000); end('refused: a reason')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "x" * 100_000 + "handler ran\n", "refused: a reason\n")
    proc = subprocess.run([sys.executable, "-c", "from pipeline.cli import end; print('done'); end(None)"],
                          capture_output=True, text=True, env=ENV, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "done\n", "")


def test_clean_turns_the_collector_off_only_in_a_process_that_ends_with_it(tmp_path):
    """``academie clean`` leaves the cyclic garbage collector off to the process's end
    (its first collection after the stage walked every object the stage made, to free
    what the end leaves to the system anyway); a caller's process, a CliRunner's as
    here, keeps its collector."""
    from click.testing import CliRunner

    from pipeline import cli

    src = tmp_path / "ch.txt"
    src.write_text("Le jeu de la carte.\n", encoding="utf-8")
    code = ("import atexit, gc, sys; from pipeline import cli; "
            "atexit.register(lambda: print('collector on:', gc.isenabled())); "
            f"sys.argv = ['academie', 'clean', {str(src)!r}]; cli.main()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "Le jeu de la carte.\ncollector on: False\n")
    result = CliRunner().invoke(cli.cli, ["clean", str(src)])
    assert (result.exit_code, result.output, gc.isenabled()) == (0, "Le jeu de la carte.\n", True)


def test_a_clean_whose_reader_stops_early_ends_with_status_1_and_nothing_on_stderr(tmp_path):
    """``academie clean FILE | head -c 10``: the pipe closes while the command writes."""
    src = tmp_path / "long.txt"
    src.write_text("Le premier joueur donne les cartes.\n\n" * 20_000, encoding="utf-8")
    proc = subprocess.run(f"{sys.executable} -m pipeline.cli clean {src} 2>&1 | head -c 10; exit ${{PIPESTATUS[0]}}",
                          shell=True, executable="/bin/bash", capture_output=True, text=True, env=ENV, cwd=ROOT,
                          timeout=300)
    assert (proc.returncode, proc.stdout) == (1, "Le premier")
