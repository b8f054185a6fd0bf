"""Bad input through the real command line: real processes, real files, no mocks.

A corpus made of the five real chapters plus bad files (empty, binary, latin-1, no
structure, 5 MB) must still build: one line per unreadable file, naming it and the
reason, the good chapters all in the database, exit code 1. A build that dies part-way
must leave the previous database byte for byte as it was. ``academie cite`` must say
what is wrong with a reference it cannot resolve.

Expected messages are the ones the code writes: pipeline/ingest.py (unreadable files),
pipeline/segment.py (no structure), pipeline/build.py and pipeline/cli.py (corpus
folder), pipeline/lookup.py (cite).
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.build import build
from tests.helpers import CORPUS, ROOT

# every test here runs `academie` in a process of its own
pytestmark = pytest.mark.slow

REAL_CHAPTERS = sorted(p.name for p in CORPUS.glob("*.txt"))
WHIST_FILE = "002_88808cca03487927.txt"  # the chapter with whist articles 1–24, pages 405–409

ENV = {**os.environ, "PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8"}

BIG_SIZE = 5_000_000
BINARY_NUL_AT = 1000

EMPTY_ERROR = "empty.txt: error: empty file: no text to read"
BINARY_ERROR = f"binary.txt: error: binary file: NUL byte at offset {BINARY_NUL_AT}, not text"
BIG_ERROR = (
    "big.txt: error: file too large: 5.0 MB, more than the 2.0 MB a chapter can be "
    "(split it, or raise --max-chapter-size)"
)
LATIN_WARNING = "latin.txt: warning: not valid UTF-8: decoded as cp1252"
PLAIN_WARNING = "plain.txt: warning: no structure found: no running heads, games, sections or articles"

LATIN_TEXT = """Règles du jeu de la Bête

1. Celui qui mêle les cartes doit les présenter à couper à son voisin de gauche.

2. Si une carte se trouve retournée, il faut refaire la donne sans pénalité.

3. Celui qui joue avant son tour paie une amende à la poule, et l'on rejoue le coup.
"""

PLAIN_TEXT = (
    "Il faisait beau ce jour-là et nous allâmes nous promener au jardin.\n"
    "Le soir venu, chacun rentra chez soi sans rien dire de plus.\n"
)


# -- helpers ------------------------------------------------------------------------------

def academie_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pipeline.cli", *map(str, args)]


def academie(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(academie_cmd(*args), capture_output=True, text=True, encoding="utf-8",
                          env=ENV, cwd=ROOT, timeout=timeout)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def copy_real_corpus(dest: Path, copies: int = 1) -> Path:
    """The real corpus: its manifest, its games list and its chapters (``copies`` times,
    under distinct names when more than once)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("manifest.toml", "games.toml"):
        shutil.copyfile(CORPUS / name, dest / name)
    for i in range(copies):
        for name in REAL_CHAPTERS:
            shutil.copyfile(CORPUS / name, dest / (name if copies == 1 else f"c{i:03d}_{name}"))
    return dest


def french_words(size: int) -> str:
    """About ``size`` bytes of French-looking prose, in paragraphs."""
    rng = random.Random(1694)
    words = ("le la les de du des et à un une celui qui joueur joueurs carte cartes partie jeu gagne perd "
             "levée levées atout roi dame valet coup main donne premier dernier écarté mise enjeu").split()
    out, n = [], 0
    while n < size:
        para = " ".join(" ".join(rng.choice(words) for _ in range(12)).capitalize() + "." for _ in range(6)) + "\n\n"
        out.append(para)
        n += len(para.encode("utf-8"))
    return "".join(out)


def tmp_leftovers(folder: Path, db_name: str = "academie.db") -> list[str]:
    return sorted(p.name for p in folder.glob(f".{db_name}.tmp-*"))


def stderr_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [l for l in proc.stderr.splitlines() if l.strip()]


# -- a corpus with bad files --------------------------------------------------------------

@pytest.fixture(scope="module")
def bad_corpus(tmp_path_factory) -> Path:
    corpus = copy_real_corpus(tmp_path_factory.mktemp("bad") / "corpus")
    (corpus / "empty.txt").write_bytes(b"")
    data = bytearray(os.urandom(4096)).replace(b"\x00", b"\x01")
    data[:4] = b"\x89PNG"  # never a BOM, so the file is not taken for UTF-16
    data[BINARY_NUL_AT] = 0
    (corpus / "binary.txt").write_bytes(bytes(data))
    (corpus / "latin.txt").write_bytes(LATIN_TEXT.encode("latin-1"))
    (corpus / "plain.txt").write_text(PLAIN_TEXT, encoding="utf-8")
    (corpus / "big.txt").write_text(french_words(BIG_SIZE), encoding="utf-8")
    assert (corpus / "big.txt").stat().st_size > BIG_SIZE
    return corpus


@pytest.fixture(scope="module")
def bad_build(bad_corpus, tmp_path_factory):
    db = tmp_path_factory.mktemp("bad-db") / "academie.db"
    proc = academie("build", "--corpus", bad_corpus, "--db", db)
    return proc, db


@pytest.fixture()
def bad_conn(bad_build):
    conn = sqlite3.connect(bad_build[1])
    conn.row_factory = sqlite3.Row
    yield conn
    conn.close()


def test_bad_files_exit_code_and_summary(bad_build):
    proc, db = bad_build
    assert proc.returncode == 1, proc.stderr
    assert db.exists()
    assert tmp_leftovers(db.parent) == []
    lines = proc.stdout.strip().splitlines()
    # each chapter read, with the shape it was found in, then the two lines of the summary
    shapes = dict(line.split(": shape ") for line in lines[:-2])
    assert list(shapes) == REAL_CHAPTERS + ["latin.txt", "plain.txt"], proc.stdout
    assert (shapes["latin.txt"], shapes["plain.txt"]) == ("blank-separated, no pages", "line-per-paragraph, no pages")
    summary = lines[-2:]
    assert summary[0].startswith(f"{db}: 7 chapters, ")
    assert summary[0].endswith(", 3 errors")
    assert re.fullmatch(rf"\d+\.\d s, start-up \d+\.\d s \(spaCy's tokenizer \d+\.\d s\); 7 chapters processed, "
                        rf"0 from the cache \({re.escape(str(db.parent / 'cache'))}\); database written", summary[1])


def test_one_error_line_per_unreadable_file(bad_build):
    proc, _ = bad_build
    lines = stderr_lines(proc)
    errors = [l for l in lines if ": error: " in l]
    assert sorted(errors) == sorted([EMPTY_ERROR, BINARY_ERROR, BIG_ERROR]), proc.stderr
    for name in ("empty.txt", "binary.txt", "big.txt"):
        assert sum(l.startswith(f"{name}:") for l in lines) == 1, proc.stderr
    for name in REAL_CHAPTERS + ["latin.txt", "plain.txt"]:
        assert not any(l.startswith(f"{name}: error:") for l in lines), proc.stderr


def test_latin1_file_is_decoded_and_its_rules_are_in_the_database(bad_build, bad_conn):
    proc, _ = bad_build
    assert LATIN_WARNING in stderr_lines(proc)
    chapter = bad_conn.execute("SELECT * FROM chapters WHERE source_file = 'latin.txt'").fetchone()
    assert chapter is not None
    assert chapter["encoding"] == "cp1252"
    assert chapter["sha256"] == hashlib.sha256(LATIN_TEXT.encode("latin-1")).hexdigest()
    assert chapter["raw_text"] == LATIN_TEXT
    articles = bad_conn.execute(
        "SELECT number, text_clean FROM passages WHERE chapter_id = ? AND kind = 'article' ORDER BY seq",
        (chapter["id"],),
    ).fetchall()
    assert [a["number"] for a in articles] == [1, 2, 3]
    assert articles[0]["text_clean"] == "1. Celui qui mêle les cartes doit les présenter à couper à son voisin de gauche."
    # found by a word with an accent, and no mojibake anywhere in the chapter
    hits = bad_conn.execute(
        "SELECT p.number FROM passages p JOIN chapters c ON c.id = p.chapter_id "
        "WHERE c.source_file = 'latin.txt' AND p.text_clean LIKE '%retournée%pénalité%'"
    ).fetchall()
    assert [h["number"] for h in hits] == [2]
    assert not bad_conn.execute(
        "SELECT 1 FROM passages WHERE chapter_id = ? AND (text_clean LIKE '%Ã%' OR text_clean LIKE '%' || char(65533) || '%')",
        (chapter["id"],),
    ).fetchall()


def test_file_without_structure_is_built_with_a_warning(bad_build, bad_conn):
    proc, _ = bad_build
    assert PLAIN_WARNING in stderr_lines(proc)
    rows = bad_conn.execute(
        "SELECT p.kind, p.text_clean FROM passages p JOIN chapters c ON c.id = p.chapter_id "
        "WHERE c.source_file = 'plain.txt' ORDER BY p.seq"
    ).fetchall()
    assert [r["kind"] for r in rows] == ["paragraph", "paragraph"]
    assert [r["text_clean"] for r in rows] == PLAIN_TEXT.splitlines()


def test_good_chapters_all_built(bad_build, bad_conn, db):
    files = [r[0] for r in bad_conn.execute("SELECT source_file FROM chapters ORDER BY source_file")]
    assert files == sorted(REAL_CHAPTERS + ["latin.txt", "plain.txt"])
    whist = [r[0] for r in bad_conn.execute(
        "SELECT number FROM passages WHERE game = 'whist' AND kind = 'article' ORDER BY number")]
    assert whist == list(range(1, 25))
    # the real chapters' passages are exactly those of a build of the real corpus alone
    sql = ("SELECT c.source_file, p.seq, p.citation, p.kind, p.number, p.page, p.text_clean "
           "FROM passages p JOIN chapters c ON c.id = p.chapter_id WHERE c.source_file IN ({}) "
           "ORDER BY c.source_file, p.seq").format(",".join("?" * len(REAL_CHAPTERS)))
    assert [tuple(r) for r in bad_conn.execute(sql, REAL_CHAPTERS)] == [tuple(r) for r in db.execute(sql, REAL_CHAPTERS)]


def test_build_log_holds_the_same_diagnostics(bad_build, bad_conn):
    proc, _ = bad_build
    logged = [f"{r['source_file']}: {r['level']}: {r['message']}"
              for r in bad_conn.execute("SELECT * FROM build_log ORDER BY id")]
    # without -q, the build prints every error and warning; infos are only in the log
    printed = [l for l in logged if ": info: " not in l]
    assert stderr_lines(proc) == printed
    for line in (EMPTY_ERROR, BINARY_ERROR, BIG_ERROR, LATIN_WARNING, PLAIN_WARNING):
        assert logged.count(line) == 1, line


def test_max_chapter_size_admits_the_big_file(bad_corpus, tmp_path):
    db = tmp_path / "academie.db"
    # 5 MB through every stage: about a minute alone, more on a busy machine
    proc = academie("build", "--corpus", bad_corpus, "--db", db, "-q", "--max-chapter-size", str(6_000_000), timeout=600)
    assert proc.returncode == 1, proc.stderr  # empty.txt and binary.txt still fail
    lines = stderr_lines(proc)
    assert sorted(lines) == sorted([EMPTY_ERROR, BINARY_ERROR])  # -q: errors only
    summary = proc.stdout.strip().splitlines()[0]
    assert summary.startswith(f"{db}: 8 chapters, ")
    assert summary.endswith(", 2 errors")
    conn = sqlite3.connect(db)
    try:
        files = [r[0] for r in conn.execute("SELECT source_file FROM chapters ORDER BY source_file")]
        assert files == sorted(REAL_CHAPTERS + ["latin.txt", "plain.txt", "big.txt"])
        (sha,) = conn.execute("SELECT sha256 FROM chapters WHERE source_file = 'big.txt'").fetchone()
        assert sha == sha256(bad_corpus / "big.txt")
        assert not conn.execute("SELECT 1 FROM build_log WHERE source_file = 'big.txt' AND level = 'error'").fetchall()
    finally:
        conn.close()


def _unreadable_chapter(path: Path) -> None:
    """Make ``path`` a chapter file that exists (stat works) but cannot be opened.

    Not root: a chapter with mode 000. Root reads any mode, so there it is a symlink to
    a write-only sysfs attribute, which even root cannot open for reading."""
    if os.geteuid() != 0:
        path.write_text(LATIN_TEXT, encoding="utf-8")
        path.chmod(0)
        return
    for target in sorted(Path("/sys/bus").glob("*/drivers_probe")) + sorted(Path("/sys/bus").glob("*/rescan")):
        try:
            with open(target, "rb"):
                pass
        except PermissionError:
            path.symlink_to(target)
            return
        except OSError:
            continue
    pytest.skip("running as root, and no write-only sysfs file to make an unreadable chapter with")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_unreadable_chapter_is_one_error_line(tmp_path, jobs):
    corpus = copy_real_corpus(tmp_path / "corpus")
    _unreadable_chapter(corpus / "locked.txt")
    with pytest.raises(PermissionError):
        (corpus / "locked.txt").read_bytes()
    db = tmp_path / "academie.db"
    proc = academie("build", "--corpus", corpus, "--db", db, "-q", "-j", jobs)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    errors = [l for l in stderr_lines(proc) if ": error: " in l]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith("locked.txt: error: cannot read"), errors
    assert "Permission denied" in errors[0]
    conn = sqlite3.connect(db)
    try:
        files = [r[0] for r in conn.execute("SELECT source_file FROM chapters ORDER BY source_file")]
    finally:
        conn.close()
    assert files == REAL_CHAPTERS


# -- atomic replacement of the database ---------------------------------------------------

@pytest.fixture()
def good_db(built_db, tmp_path) -> tuple[Path, str]:
    """A complete database from an earlier good build, and its sha256."""
    out = tmp_path / "out"
    out.mkdir()
    db = out / "academie.db"
    shutil.copyfile(built_db, db)
    return db, sha256(db)


# The real `academie build`, stopped at an exact point of its run: this wrapper makes
# one function of the pipeline, once it has returned, write the point's name on a pipe
# to the test and wait for the test's signal. Nothing else of the build is changed.
PAUSED_BUILD = """
import os, signal, sys, time
# Ctrl-C as a terminal gives it: a process started in the background by a shell
# without job control (CI's) inherits SIGINT ignored, and Python then leaves it so
signal.signal(signal.SIGINT, signal.default_int_handler)
import pipeline.build, pipeline.publish.write as write
from pipeline.cli import cli

point, fd = sys.argv[1], int(sys.argv[2])
del sys.argv[1:3]
module, name = {
    "reading": (pipeline.build, "process_chapter"),  # a chapter processed, nothing written yet
    "writing": (write, "_write_checks"),  # the temporary database half written: rows in, no index, no vacuum
    "written": (write, "_complete"),  # the temporary database complete and closed, not yet renamed
}[point]
real = getattr(module, name)

def paused(*args, **kwargs):
    out = real(*args, **kwargs)
    os.write(fd, point.encode() + b"\\n")
    while True:
        time.sleep(0.05)  # until the test's signal (signal.pause() could miss one come just before it)
    return out

setattr(module, name, paused)
cli(prog_name="academie")
"""


PAUSE_TIMEOUT = 120  # seconds: a build of the small corpus pauses within a few


@pytest.fixture()
def small_corpus(tmp_path) -> Path:
    """A corpus of one short chapter: a build of it is seconds, and writes the database
    the same way as any."""
    corpus = tmp_path / "small"
    corpus.mkdir()
    for name in ("manifest.toml", "games.toml"):
        shutil.copyfile(CORPUS / name, corpus / name)
    (corpus / "plain.txt").write_text(PLAIN_TEXT, encoding="utf-8")
    return corpus


def _paused_build(corpus: Path, db: Path, point: str) -> subprocess.Popen:
    """`academie build` of CORPUS into DB, returned once it has paused at POINT."""
    read, write = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", PAUSED_BUILD, point, str(write),
                                 "build", "--corpus", str(corpus), "--db", str(db), "-q"],
                                env=ENV, cwd=ROOT, pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as said:  # one line when paused; end of file if the build ended first
        line = said.readline() if select.select([said], [], [], PAUSE_TIMEOUT)[0] else b""
    if line != point.encode() + b"\n":
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"the build did not pause at {point} (exit code {proc.returncode}): {err.decode()}")
    return proc


def _stop(proc: subprocess.Popen, sig: int) -> tuple[int, str]:
    """Send SIG to the paused build; its exit code and standard error."""
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err.decode()


def _intact(db: Path, before: str) -> None:
    assert sha256(db) == before
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [r[0] for r in conn.execute("SELECT source_file FROM chapters ORDER BY source_file")] == REAL_CHAPTERS
    finally:
        conn.close()


def test_sigkill_while_reading_chapters_leaves_the_old_database(good_db, small_corpus):
    """Killed while it reads chapters: nothing is written yet, the old database is
    intact and no temporary file exists."""
    db, before = good_db
    proc = _paused_build(small_corpus, db, "reading")
    assert sorted(p.name for p in db.parent.iterdir()) == ["academie.db"]
    assert _stop(proc, signal.SIGKILL)[0] == -signal.SIGKILL
    _intact(db, before)
    assert sorted(p.name for p in db.parent.iterdir()) == ["academie.db"]


def test_a_build_run_in_a_process_of_its_caller_gives_back_the_terminate_handler(small_corpus, tmp_path):
    """`academie build` unwinds on SIGTERM through a handler of its own while it builds;
    called in a process that goes on (a test, a program using the CLI), it sets back the
    one it found: processes forked later (a pool the caller terminates) keep the default,
    which ends them, and do not unwind as if they were the build."""
    from click.testing import CliRunner

    from pipeline.cli import cli

    before = signal.getsignal(signal.SIGTERM)
    result = CliRunner().invoke(cli, ["build", "-q", "--corpus", str(small_corpus), "--db", str(tmp_path / "a.db")])
    assert result.exit_code == 0, result.output
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.parametrize("point", ["writing", "written"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_kill_while_publishing_leaves_the_old_database(good_db, small_corpus, res, sig, point):
    """Killed while it writes the new database, or once it is written but not yet
    renamed: the served path is untouched. SIGTERM unwinds the build, which removes
    its temporary file; SIGKILL cannot be caught, so the hidden `.academie.db.tmp-<pid>`
    stays until the next build, which removes the leftovers of dead processes."""
    db, before = good_db
    proc = _paused_build(small_corpus, db, point)
    tmp = db.with_name(f".{db.name}.tmp-{proc.pid}")  # `academie` runs in the Popen process itself
    assert tmp_leftovers(db.parent) == [tmp.name] and tmp.stat().st_size > 0
    code, err = _stop(proc, sig)
    _intact(db, before)
    if sig == signal.SIGTERM:
        assert (code, err) == (128 + signal.SIGTERM, "")  # it unwound, and removed its file
        assert sorted(p.name for p in db.parent.iterdir()) == ["academie.db", "cache"]
    else:
        assert code == -signal.SIGKILL
        assert sorted(p.name for p in db.parent.iterdir()) == [tmp.name, "academie.db", "cache"]
    # a later build is not hindered by what the killed one left, and clears it away
    report = build(small_corpus, db, res=res)
    assert not report.errors
    assert sorted(p.name for p in db.parent.iterdir()) == ["academie.db", "academie_rules", "cache"]
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert [r[0] for r in conn.execute("SELECT source_file FROM chapters")] == ["plain.txt"]
    finally:
        conn.close()


def test_interrupt_while_publishing_leaves_the_old_database_and_no_tmp(good_db, small_corpus):
    """Ctrl-C while it writes the new database: the build stops as click stops on
    Ctrl-C, the old database is intact, and the temporary file is removed."""
    db, before = good_db
    proc = _paused_build(small_corpus, db, "writing")
    assert tmp_leftovers(db.parent) == [f".{db.name}.tmp-{proc.pid}"]
    assert _stop(proc, signal.SIGINT) == (1, "\nAborted!\n")
    _intact(db, before)
    assert sorted(p.name for p in db.parent.iterdir()) == ["academie.db", "cache"]


def test_missing_corpus_folder_leaves_the_old_database(good_db, tmp_path):
    db, before = good_db
    missing = tmp_path / "no-such-corpus"
    proc = academie("build", "--corpus", missing, "--db", db)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {missing}: corpus folder not found\n"
    assert proc.stdout == ""
    assert sha256(db) == before
    assert tmp_leftovers(db.parent) == []


def test_corpus_without_chapters_leaves_the_old_database(good_db, tmp_path):
    db, before = good_db
    corpus = tmp_path / "empty-corpus"
    corpus.mkdir()
    shutil.copyfile(CORPUS / "manifest.toml", corpus / "manifest.toml")
    shutil.copyfile(CORPUS / "games.toml", corpus / "games.toml")
    proc = academie("build", "--corpus", corpus, "--db", db)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {corpus}: no chapter files (*.txt, ALTO *.xml) in the corpus folder\n"
    assert sha256(db) == before
    assert tmp_leftovers(db.parent) == []


# -- academie cite --------------------------------------------------------------------------

def test_cite_unknown_game_suggests_the_nearest(built_db):
    proc = academie("cite", "wist 13", "--db", built_db)
    assert proc.returncode == 1
    assert proc.stderr == "error: no game 'wist' in the database; did you mean: whist?\n"
    assert proc.stdout == ""


def test_cite_unknown_article_names_the_nearest(built_db):
    proc = academie("cite", "whist 99", "--db", built_db)
    assert proc.returncode == 1
    assert proc.stderr == (
        "error: whist has no article 99 in the database; nearest: whist 22, whist 23, whist 24 (articles: 1–24)\n"
    )
    assert proc.stdout == ""


@pytest.mark.parametrize("reference", ["Whist, art. 13", "whist 13", "whist.13", "WHIST 13", "aduj:whist.13"])
def test_cite_forms_of_one_reference(built_db, reference):
    proc = academie("cite", reference, "--db", built_db)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    first = proc.stdout.splitlines()[0]
    assert re.match(r"aduj:whist\.13\s", first), first
    assert "page 407" in first
    assert "13. Personne ne doit prendre les cartes" in proc.stdout
