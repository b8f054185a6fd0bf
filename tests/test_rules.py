"""Articles as executable rules: extraction, stubs, hand encodings and their
scenario cases, and the treatise's own numbers checked by code."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import yaml

from pipeline.link.checks import all_checks, tre_sette_deck, tre_sette_points, ways_to_make, whist_game_value, whist_rubber
from pipeline.link.model import Effect, Event, Table, effects
from pipeline.link.rules import Extractor, score_rules
from pipeline.link.stubs import load_stub

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "tests" / "fixtures" / "rules_gold.yaml"


@pytest.fixture(scope="module")
def extractor():
    return Extractor()


# -- extraction, on sentences written for the tests --------------------------------------------

@pytest.mark.parametrize("text,modality,bearer,consequences", [
    ("3. Celui qui mêle mal paye deux fiches à chaque joueur et mêle de nouveau.", "penalty", "dealer",
     [{"kind": "pay", "amount": 2, "unit": "fiche", "to": "each_other_player"}, {"kind": "redeal"}]),
    ("4. Personne ne peut regarder le talon avant la fin du coup.", "prohibition", "any_player", []),
    ("5. Si quelqu'un renonce, les adversaires sont en droit de marquer deux points.", "scoring", "adversaries",
     [{"kind": "score", "amount": 2, "unit": "point"}]),
    ("6. Il est libre au banquier de refuser une mise trop forte.", "permission", "banker", []),
    ("7. Chacun doit jouer à son tour.", "obligation", "each_player", []),
    ("8. Lorsqu'un joueur abandonne la partie, il perd ce qui est engagé.", "penalty", "player",
     [{"kind": "lose", "amount": "stake"}]),
    ("9. On appelle brelan trois cartes de même valeur.", "definition", "any_player", []),
    ("10. Celui qui ne le fait pas, met trois jetons au jeu.", "penalty", "player",
     [{"kind": "pay", "amount": 3, "unit": "jeton", "to": "pot"}]),
])
def test_extraction_of_rules_written_for_the_tests(extractor, text, modality, bearer, consequences):
    r = extractor.extract(text)
    assert (r.modality, r.bearer, [c.spec() for c in r.consequences]) == (modality, bearer, consequences)


def test_the_model_is_loaded_once_per_process_tokenizer_only(extractor):
    assert Extractor().nlp is extractor.nlp
    assert extractor.nlp.pipe_names == []  # the patterns read tokens' text only


def test_parts_keep_their_offsets(extractor):
    text = "3. Celui qui mêle mal paye deux fiches à chaque joueur."
    r = extractor.extract(text)
    a, b = r.spans["condition"]
    assert text[a:b] == "Celui qui mêle mal"
    c = r.consequences[0]
    assert text[c.start:c.end] == "paye deux fiches à chaque joueur"


def test_extractor_meets_its_targets_on_the_hand_labels(db):
    from pipeline.publish.lookup import rules_found

    labels = yaml.safe_load(GOLD.read_text(encoding="utf-8"))
    assert len(labels) >= 40
    score = score_rules(rules_found(db), labels)
    assert score.articles == len(labels)
    assert score.modality_accuracy >= 0.90
    assert score.consequences_accuracy >= 0.80


# -- stubs: every article's runs ----------------------------------------------------------------

def test_every_article_has_a_rule_and_a_stub_that_runs(db, built_db):
    articles = {r[0] for r in db.execute("SELECT citation FROM passages WHERE kind = 'article'")}
    rows = {r["citation"]: r for r in db.execute("SELECT * FROM rules")}
    assert articles <= set(rows)  # every article, and the paragraphs that state a norm
    others = {r[0]: r[1] for r in db.execute(
        "SELECT p.kind, r.modality FROM rules r JOIN passages p ON p.id = r.passage_id WHERE p.kind != 'article'")}
    assert set(others) <= {"paragraph"} and set(others.values()) <= {"obligation", "prohibition", "permission", "penalty", "scoring"}
    sys.path.insert(0, str(built_db.parent))
    try:
        table = Table.seated(["A", "B", "C", "D"], dealer="A")
        for cite, row in rows.items():
            fn = getattr(importlib.import_module(row["stub_module"]), row["stub_function"])
            assert cite in fn.__doc__ and row["stub_source"] == _source(row)
            try:
                out = fn(table, Event("A"))
            except NotImplementedError as exc:
                assert row["status"] == "stub" and str(exc).startswith(f"{cite}: not encoded yet: ")
            else:
                assert row["status"] in ("generated", "encoded")
                assert all(isinstance(e, Effect) for e in out)
    finally:
        sys.path.remove(str(built_db.parent))


def _source(row):
    return row["stub_source"]


def test_generated_stub_returns_the_effects_of_its_article(db):
    row = db.execute("SELECT * FROM rules WHERE citation = 'aduj:ch51.10'").fetchone()
    assert row["status"] == "generated"
    assert "10. Celui qui donne mal paye un jeton à chaque joueur et mêle de nouveau." in row["stub_source"]
    fn = load_stub(row["stub_source"])
    out = fn(Table.seated(["A", "B", "C"], dealer="C"), Event("C", "deals wrongly"))
    assert [str(e) for e in out] == [
        "C pays 1 jeton to A  [aduj:ch51.10]", "C pays 1 jeton to B  [aduj:ch51.10]", "C deals again  [aduj:ch51.10]"]


def _cases():
    for f in sorted(resources.files("pipeline.link.encoded").joinpath("cases").iterdir(), key=lambda f: f.name):
        if f.name.endswith(".yaml"):
            for case in yaml.safe_load(f.read_text(encoding="utf-8")):
                yield pytest.param(case, id=f"{f.name}:{case['citation']}:{case['name'][:30]}")


@pytest.mark.parametrize("case", list(_cases()))
def test_scenario_cases(db, case):
    row = db.execute("SELECT stub_source FROM rules WHERE citation = ?", (case["citation"],)).fetchone()
    assert row is not None, f"{case['citation']} has no rule"
    table = Table.seated(case["players"], dealer=case.get("dealer"))
    got = load_stub(row[0])(table, Event(case["actor"], case.get("event", "")))
    expected = [Effect(e["kind"], e["actor"], e.get("to"), e.get("amount"), e.get("unit"), case["citation"])
                for e in case["expect"]]
    assert got == expected, case["name"]


def test_encoded_rules_replace_their_stubs(db):
    from pipeline.link.model import ENCODED

    encoded = {r[0] for r in db.execute("SELECT citation FROM rules WHERE status = 'encoded'")}
    assert encoded == set(ENCODED) and encoded


def test_table_roles():
    t = Table.seated(["A", "B", "C", "D"], dealer="B")
    assert (t.partner("A"), t.adversaries("A"), t.others("C")) == ("C", ["B", "D"], ["A", "B", "D"])
    assert t.resolve("dealer", Event("D")) == ["B"]
    spec = [{"kind": "pay", "amount": 1, "unit": "fiche", "to": "adversaries"}]
    assert [str(e) for e in effects(t, Event("A"), "player", spec, "x:1")] == ["A pays 1 fiche to B  [x:1]", "A pays 1 fiche to D  [x:1]"]
    with pytest.raises(ValueError, match="'E' is not at the table"):
        t.partner("E")


@pytest.mark.slow  # the command line, in a process of its own
def test_rule_command(built_db):
    run = lambda *a: subprocess.run([sys.executable, "-m", "pipeline.cli", *a, "--db", str(built_db)],  # noqa: E731
                                    capture_output=True, text=True, cwd=ROOT)
    out = run("rule", "aduj:ch51.10", "--players", "A,B,C", "--actor", "B")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-3:] == ["B pays 1 jeton to A  [aduj:ch51.10]", "B pays 1 jeton to C  [aduj:ch51.10]",
                                            "B deals again  [aduj:ch51.10]"]
    stub = run("rule", "whist 2")
    assert stub.returncode == 3 and stub.stderr.startswith("aduj:whist.2 (stub): aduj:whist.2: not encoded yet: ")
    status = run("rules", "--status")
    total = status.stdout.splitlines()[-2].split()
    assert status.returncode == 0 and total[:2] == ["total", "69"] and total[-2:] == ["5", "9"]


@pytest.mark.slow  # a fresh interpreter, to see what it imports
def test_reading_the_database_never_imports_spacy(built_db):
    code = (
        "import sys; from click.testing import CliRunner; from pipeline.cli import cli\n"
        f"r = CliRunner().invoke(cli, ['cite', 'whist 13', '--db', {str(built_db)!r}]); assert r.exit_code == 0, r.output\n"
        f"r = CliRunner().invoke(cli, ['rule', 'aduj:ch51.10', '--db', {str(built_db)!r}]); assert r.exit_code == 0, r.output\n"
        "print('spacy' in sys.modules, 'wordfreq' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False False", out.stderr


# -- the treatise's numbers, each test citing the passage it checks ------------------------------

def test_trente_et_quarante_ways_of_making_each_point():
    """aduj:trente-et-quarante.p302.2: 'le point de 31 arrivera treize fois … celui de 40, quatre fois'."""
    assert [ways_to_make(p) for p in range(31, 41)] == [13, 12, 11, 10, 9, 8, 7, 6, 5, 4]
    total = sum(ways_to_make(p) for p in range(31, 41))
    assert total == 85  # aduj:trente-et-quarante.p302.3: 'se monte à 85'
    assert total ** 2 == 7225  # '… le carré de cette somme est la quantité où tous les différens événemens …'


def test_tre_sette_pack_order_and_points():
    """aduj:tre-sette.p304.3 (forty cards), p305.2 (the order), p306.1 ('dix points et deux figures')."""
    deck = tre_sette_deck()
    assert len(deck) == 40 and not any(r in ("8", "9", "10") for r, _ in deck)
    assert tre_sette_points(deck) == (10, 2)
    assert tre_sette_points(deck)[0] + 1 == 11  # 'La dernière levée fait seule un point'


def test_whist_rubber_in_fiches():
    """aduj:whist.p405.5–p405.13: simple, double, triple; seven, nine and six fiches; the vole."""
    assert [whist_game_value(p) for p in (7, 5, 4, 1, 0)] == [1, 1, 2, 2, 3]
    assert whist_rubber([3, 2]) == 7 and whist_rubber([3, 2], consolation=4) == 9
    assert whist_rubber([3, 2], third_lost=1) == 6
    assert whist_rubber([3, 3]) == 8 and whist_rubber([3, 3], consolation=4) == 10


def test_checks_find_their_passages_and_name_the_one_disagreement(db):
    rows = db.execute("SELECT * FROM checks").fetchall()
    assert len(rows) == len(all_checks()) >= 30
    assert all(r["citation"] for r in rows if r["game"] is not None)
    # the text gives two values for a whist game won when the losers have four points
    disagreements = [(r["citation"], json.loads(r["text_says"]), json.loads(r["code_says"])) for r in rows if not r["agrees"]]
    assert disagreements == [("aduj:whist.p405.7", 3, 2)]
    hombre = [r["citation"] for r in rows if r["game"] == "hombre"]
    assert hombre == ["aduj:hombre.76", "aduj:hombre.77", "aduj:hombre.78"]
    doublets = {r["claim"] for r in rows if r["game"] == "trictrac" and r["agrees"]}
    assert "the double 6 is called sonnez" in doublets and "the double two is the only doublet without a name" in doublets
