"""The one list of fixes (pipeline/fixes.py) and the database agree: every edit
names registered fixes, and each correction's kind is its fixes' kind."""

from __future__ import annotations

import regex

from pipeline.clean import STEPS
from pipeline.fixes import FIXES, KINDS, fix_names, kind_of, unknown

STAGES = {"layout", "clean", "segment", "proof"}


def test_every_fix_is_named_by_its_stage_and_explained_in_one_sentence():
    for name, fix in FIXES.items():
        assert regex.fullmatch(r"[a-z]+\.[a-z_]+", name), name
        assert fix.stage in STAGES and fix.kind in KINDS, name
        # one sentence: no full stop outside its examples ('…', (…))
        bare = regex.sub(r"(?<!\w)'[^']*'(?!\w)", "", regex.sub(r"\([^)]*\)", "", fix.explanation))
        assert fix.explanation[0].islower() and "." not in bare, name


def test_every_step_of_the_clean_stage_records_registered_fixes():
    assert not unknown(f for step in STEPS for f in step.fixes)
    assert all(FIXES[f].stage == "clean" for step in STEPS for f in step.fixes)


def test_the_kind_of_a_joined_correction_is_its_last_word_fix():
    assert kind_of("layout.page_break+layout.join_hyphenated") == "layout"
    assert kind_of("layout.continued+clean.non_word") == "spelling"
    assert kind_of("clean.digits_in_number+segment.article_number") == "number"
    assert fix_names("clean.bracket_p+clean.non_word") == ["clean.bracket_p", "clean.non_word"]
    assert unknown(["clean.bracket_p+clean.guess", "layout.reflow"]) == ["clean.guess"]


def test_the_database_fixes_table_is_the_registry(db):
    rows = {r["name"]: (r["stage"], r["kind"], r["explanation"]) for r in db.execute("SELECT * FROM fixes")}
    assert rows == {f.name: (f.stage, f.kind, f.explanation) for f in FIXES.values()}


def test_every_correction_and_suggestion_names_registered_fixes_and_their_kind(db):
    used = [r[0] for r in db.execute("SELECT DISTINCT fix FROM corrections UNION SELECT DISTINCT fix FROM suggestions")]
    assert used and not unknown(used)
    registered = {r[0] for r in db.execute("SELECT name FROM fixes")}
    assert {n for f in used for n in fix_names(f)} <= registered
    for fix, kind in db.execute("SELECT DISTINCT fix, kind FROM corrections"):
        assert kind == kind_of(fix), fix
    # the fix that turns the OCR's 'Lande' into 'bande', as the README says
    assert db.execute("SELECT fix FROM corrections WHERE before = 'Lande' AND after = 'bande'").fetchone()[0] \
        == "clean.real_word"
