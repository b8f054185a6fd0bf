"""Property-based tests (Hypothesis): any text, in any encoding ingest accepts, goes
through the pipeline without a traceback, and the invariants hold: the raw text is
untouched, every edit is undone exactly, every edit names a registered fix, nothing
of the page is lost, and the same text reads the same in every encoding."""

from __future__ import annotations

import codecs
import unicodedata

import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from pipeline.build import CHAPTER_STAGES
from pipeline.clean import fix_and_explain
from pipeline.fixes import unknown
from pipeline.ingest import ingest_bytes
from pipeline.records import InputError
from pipeline.resources import Resources
from pipeline.text import restore_raw
from tests.helpers import CORPUS

# explorations of many inputs: in `make test`, not in the fast tier
pytestmark = pytest.mark.slow

# What an OCR export of these books is made of: French letters, digits, the
# punctuation and debris of old type, the marks of running heads and notes, line
# and page breaks, and the characters that print nothing.
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéèêëàâîïôûùçœæÉÈÀÇŒſﬁﬂ"
MARKS = "0123456789 .,;:!?'’«»()[]|^-—*°&■\\/\"<>"
CONTROL = "\u200b\u200e\u202e\u2066\u00ad\ufeff\t"
WORDS = ["Celui", "qui", "renonce", "paye", "une", "fiche", "Lande", "fur", "i3.", "TRE 3o3", "4o6 VV I S",
         "ARTICLE SIXIÈME.", "XIV.", "(1)", "(^i)", "com-", "mence", "Page 2", "WHIST (jeu du).", "jo.", "1°."]

chunk = st.one_of(
    st.text(alphabet=LETTERS + MARKS + CONTROL, min_size=1, max_size=12),
    st.sampled_from(WORDS),
    st.sampled_from(["\n", "\n\n", " ", "\r\n", "\f"]),
)
texts = st.lists(chunk, min_size=1, max_size=60).map("".join)

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)


@pytest.fixture(scope="module")
def res():
    return Resources(CORPUS)


def _chapter(text: str, res: Resources):
    raw = ingest_bytes(text.encode("utf-8"), "hypothesis.txt")
    record = raw
    for stage in CHAPTER_STAGES[1:]:
        record = stage.run(record, res)
    return raw, record


@SETTINGS
@given(text=texts)
@example(text="TRE 3o3\n\n1. Celui qui re\u200bnonce\n\n(1) Note.")
def test_any_text_goes_through_every_stage_and_nothing_is_lost(res, text):
    try:
        raw, seg = _chapter(text, res)
    except InputError as exc:
        assert str(exc).startswith("hypothesis.txt: ") and "\n" not in str(exc)
        return
    assert raw.text == unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    covered = [False] * len(raw.text)
    for p in seg.passages:
        corrections = p.text.corrections()
        assert restore_raw(p.text.text, corrections, p.text.raw_start) == p.text.raw_text
        assert not unknown(c.fix for c in corrections)
        for i in range(p.text.raw_start, p.text.raw_end):
            covered[i] = True
    for f in seg.layout.furniture:
        assert raw.text[f.start:f.end] == f.text
        for i in range(f.start, f.end):
            covered[i] = True
    assert "".join(c for i, c in enumerate(raw.text) if not covered[i] and not c.isspace()) == ""


@SETTINGS
@given(text=texts)
def test_fix_and_explain_round_trips_any_text(res, text):
    clean, corrections = fix_and_explain(text, res)
    assert restore_raw(clean, corrections, 0) == text
    assert not unknown(c.fix for c in corrections)


ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "cp1252", "nfd"]


def _encode(text: str, encoding: str) -> bytes:
    if encoding == "nfd":
        return unicodedata.normalize("NFD", text).encode("utf-8")
    if encoding == "utf-16-le-bom":
        return codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    return text.encode(encoding)


@SETTINGS
@given(text=st.lists(st.one_of(st.sampled_from(WORDS), st.text(alphabet=LETTERS.replace("ſﬁﬂŒœ", "") + " .,;'\n",
                                                                 min_size=1, max_size=10)),
                     min_size=1, max_size=30).map(" ".join))
def test_the_same_text_reads_the_same_in_every_encoding(res, text):
    """cp1252 is read only when the bytes are not UTF-8, so the text holds no character
    whose cp1252 bytes could be UTF-8 (none of the French letters)."""
    assume(text.strip())
    readings = set()
    for encoding in ENCODINGS:
        try:
            data = _encode(text, encoding)
        except UnicodeEncodeError:
            continue
        raw, seg = _chapter_bytes(data, res)
        readings.add((raw.text, tuple(p.text.text for p in seg.passages)))
    assert len(readings) == 1


def _chapter_bytes(data: bytes, res: Resources):
    raw = ingest_bytes(data, "hypothesis.txt")
    record = raw
    for stage in CHAPTER_STAGES[1:]:
        record = stage.run(record, res)
    return raw, record


@st.composite
def chapter_files(draw):
    """Bytes of a chapter file: a text in one of the encodings ingest reads, or bytes
    that are no text at all."""
    kind = draw(st.sampled_from(["text", "text", "text", "bytes", "empty"]))
    if kind == "bytes":
        return draw(st.binary(min_size=1, max_size=300))
    if kind == "empty":
        return draw(st.sampled_from([b"", b" \n\n ", codecs.BOM_UTF8]))
    text = draw(texts)
    encoding = draw(st.sampled_from(ENCODINGS))
    try:
        return _encode(text, encoding)
    except UnicodeEncodeError:
        return text.encode("utf-8")


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.lists(chapter_files(), min_size=1, max_size=3))
def test_any_corpus_builds_or_says_why_in_one_line_per_file(tmp_path_factory, files):
    from pipeline.build import build

    folder = tmp_path_factory.mktemp("corpus")
    corpus = folder / "corpus"
    corpus.mkdir()
    for i, data in enumerate(files):
        (corpus / f"c{i}.txt").write_bytes(data)
    report = build(corpus, folder / "a.db")
    for d in report.diagnostics:
        assert "\n" not in str(d) and "Traceback" not in str(d)
        assert not d.message.startswith("internal error"), str(d)
    readable = report.chapters
    assert report.published == bool(readable) and (folder / "a.db").exists() == bool(readable)
    if readable:
        db = __import__("sqlite3").connect(folder / "a.db")
        fixes = [r[0] for r in db.execute("SELECT DISTINCT fix FROM corrections")]
        assert not unknown(fixes)
        for raw, clean, start in db.execute("SELECT text_raw, text_clean, id FROM passages"):
            rows = db.execute('SELECT start, "end", before, after, fix, confidence, clean_start, clean_end '
                              "FROM corrections WHERE passage_id = ?", (start,)).fetchall()
            from pipeline.text import Correction
            assert restore_raw(clean, [Correction(*r) for r in rows], 0) == raw


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=chapter_files())
def test_academie_clean_on_any_file_prints_text_or_one_error_line(tmp_path_factory, data):
    from click.testing import CliRunner

    from pipeline.cli import cli

    path = tmp_path_factory.mktemp("clean") / "page.txt"
    path.write_bytes(data)
    result = CliRunner().invoke(cli, ["clean", str(path), "--explain", "--corpus", str(CORPUS)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    if result.exit_code:
        errors = [l for l in result.output.splitlines() if l.startswith("error: ")]
        assert result.exit_code == 2 and len(errors) == 1 and errors[0].startswith(f"error: {path}: ")
