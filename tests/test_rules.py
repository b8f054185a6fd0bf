"""Articles as executable rules: extraction, stubs, hand encodings and their
scenario cases. (The treatise's own figures checked by code: tests/test_checks.py.)"""

from __future__ import annotations

import ast
import re
import importlib
import inspect
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import yaml

from pipeline.link.model import Effect, Event, Table, effects
from pipeline.link.rules import Extractor, components_needed, score_rules
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
    from spacy.tokenizer import Tokenizer

    assert Extractor().nlp is extractor.nlp
    assert type(extractor.nlp) is Tokenizer  # the patterns read tokens' text only: no pipeline at all


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


# -- stubs: every rule's stub is on disk as stored, and runs ---------------------------------

NORMS = {"obligation", "prohibition", "permission", "penalty", "scoring"}


def test_every_article_and_every_normative_paragraph_of_a_game_has_a_rule(db):
    rows = db.execute(
        "SELECT r.citation, r.modality, p.kind, p.game FROM rules r JOIN passages p ON p.id = r.passage_id").fetchall()
    articles = {r[0] for r in db.execute("SELECT citation FROM passages WHERE kind = 'article'")}
    assert articles <= {r["citation"] for r in rows}
    others = [r for r in rows if r["kind"] != "article"]
    assert others  # the paragraphs of a game that state a norm are read as rules too
    # each of them, not one per kind: a paragraph, of a game, stating a norm
    wrong = [(r["citation"], r["kind"], r["modality"], r["game"]) for r in others
             if r["kind"] != "paragraph" or r["modality"] not in NORMS or r["game"] is None]
    assert wrong == []


def test_every_stub_on_disk_is_its_stored_source_and_runs(db, built_db):
    """The package the build wrote beside the database is what rules.stub_source
    says, function by function, and nothing else; each stub runs."""
    package = built_db.parent / "academie_rules"
    rows = {r["citation"]: r for r in db.execute("SELECT * FROM rules")}
    on_disk = {}
    for f in sorted(package.rglob("*.py")):
        module = ".".join(f.relative_to(built_db.parent).with_suffix("").parts)
        for node in ast.parse(f.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                assert (module, node.name) not in on_disk
                on_disk[(module, node.name)] = node
    assert set(on_disk) == {(r["stub_module"], r["stub_function"]) for r in rows.values()}
    assert len(on_disk) == len(rows)
    sys.path.insert(0, str(built_db.parent))
    try:
        table = Table.seated(["A", "B", "C", "D"], dealer="A")
        for cite, row in rows.items():
            module = importlib.import_module(row["stub_module"])
            assert Path(module.__file__).is_relative_to(package), module.__file__
            fn = getattr(module, row["stub_function"])
            assert inspect.getsource(fn) == row["stub_source"], cite
            assert fn.__doc__.startswith(f"{cite} · "), cite
            try:
                out = fn(table, Event("A"))
            except NotImplementedError as exc:
                assert row["status"] == "stub" and str(exc).startswith(f"{cite}: not encoded yet: ")
            except ValueError as exc:  # an encoded rule that needs the event's kind to decide
                assert row["status"] == "encoded" and str(exc).startswith(f"{cite}: cannot read the event ''")
            else:
                assert row["status"] in ("generated", "encoded")
                assert all(isinstance(e, Effect) for e in out)
    finally:
        sys.path.remove(str(built_db.parent))
        for name in [m for m in sys.modules if m == "academie_rules" or m.startswith("academie_rules.")]:
            del sys.modules[name]


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


@pytest.mark.slow  # commands in a fresh interpreter
def test_rule_command_reads_the_event_an_encoded_rule_needs(built_db):
    run = lambda *a: subprocess.run([sys.executable, "-m", "pipeline.cli", *a, "--db", str(built_db)],  # noqa: E731
                                    capture_output=True, text=True, cwd=ROOT)
    vole = run("rule", "hombre 61", "--players", "A,B,C", "--actor", "B", "--event", "9/9")
    assert vole.returncode == 0, vole.stderr
    assert vole.stdout.splitlines()[0] == "aduj:hombre.61  (encoded; scoring, binds player)"
    assert vole.stdout.splitlines()[-1] == "B scores double pot  [aduj:hombre.61]"
    short = run("rule", "hombre 61", "--players", "A,B,C", "--actor", "B", "--event", "8/9")
    assert short.returncode == 0 and short.stdout.splitlines()[-1] == "no effect"
    missing = run("rule", "hombre 61", "--players", "A,B,C", "--actor", "B")
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == (
        "error: aduj:hombre.61: cannot read the event '': say how many tricks the actor took of how many were "
        "played ('9/9', '8/9'), and the vole's fixed value if any ('9/9, agreed 12')\n")
    stranger = run("rule", "adj:quinze.69", "--players", "A,B,C", "--actor", "C", "--event", "fault E")
    assert stranger.returncode == 2
    assert stranger.stderr == "error: adj:quinze.69: 'E', whose fault the event says it was, is not at the table (A, B, C)\n"


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


# -- the model: what of it the patterns need ------------------------------------------------------

def test_the_components_loaded_are_those_the_patterns_read():
    assert components_needed([[{"LOWER": "paye"}, {"OP": "?"}], [{"ORTH": "Si"}]]) == ()
    assert components_needed([[{"LOWER": "il"}, {"LEMMA": "payer"}]]) == (
        "tok2vec", "morphologizer", "attribute_ruler", "lemmatizer")
    assert components_needed([[{"DEP": "nsubj"}], [{"POS": "VERB", "OP": "+"}]]) == (
        "tok2vec", "morphologizer", "parser", "attribute_ruler")
    assert Extractor().components == ()  # rules.toml's patterns: lower-cased text only


@pytest.mark.slow  # two builds of the corpus, one with the whole model (seconds to load)
def test_the_rules_table_is_the_same_with_the_whole_model(built_db, tmp_path, monkeypatch):
    from pipeline.build import build
    from pipeline.link.rules import model_components
    from pipeline.resources import Resources
    from tests.helpers import CORPUS, table_rows

    whole = model_components()
    monkeypatch.setattr(Extractor, "components", property(lambda self: whole))
    assert {"tok2vec", "morphologizer", "parser", "lemmatizer", "ner"} <= set(Extractor().nlp.pipe_names)
    build(CORPUS, tmp_path / "whole.db", res=Resources(CORPUS))
    reference = table_rows(tmp_path / "whole.db")["rules"]
    rules = table_rows(built_db)["rules"]
    assert len(rules) == len(reference) == 127
    for row, expected in zip(rules, reference):
        assert row == expected


# -- the tokenizer and the matchers: fast, and the tokens and matches of spaCy's own ------------

def _reference_matches(extractor, doc) -> list[tuple[str, int, int]]:
    """What spaCy's Matcher finds with every pattern, in its order."""
    from spacy.matcher import Matcher

    matcher = Matcher(doc.vocab)
    for label, patterns in extractor.patterns.items():
        matcher.add(label, patterns)
    return [(doc.vocab.strings[m], s, e) for m, s, e in matcher(doc)]


def test_the_matches_are_those_of_spacys_matcher_in_its_order(extractor):
    # a wildcard pattern ('ne … peut'), choices, two recipients at one place ('à chacun', 'à chacun des joueurs')
    text = ("3. Si celui qui mêle ne le peut, il paye deux jetons à chacun des joueurs, et personne ne doit "
            "regarder; le banquier perd ce qu'il y a au jeu s'il n'y a pas moyen de refaire.")
    doc = extractor.nlp(text)
    found = extractor.matches(doc)
    assert found == _reference_matches(extractor, doc)
    assert [m for m in found if m[1] == 14] == [("TO_each_other_player", 14, 16), ("TO_each_other_player", 14, 18)]
    assert ("MOD_prohibition", 6, 9) in found  # "ne le peut": the Matcher's wildcard pattern


TOKENS = ["L'", 'anti-jeu', "d'", "aujourd'hui", ':', 'celui-ci', 'a', '-t', '-il', 'payé', '3', 'jetons', '(',
          'voyez', 'p.', '12', ')', 'au', 'contre-jeu', ',', "qu'", 'on', 'dit', '«', "entr'acte", '»', '?',
          'Vingt-et-un', ',', "l'", 'arrière-main', '.']


def test_the_tokenizer_is_the_french_model_s(extractor):
    # the tokens spacy.load("fr_core_news_sm") gives: 'anti-jeu', 'entr'acte', 'Vingt-et-un' whole by the
    # language's token_match (without it: 'anti', '-', 'jeu'), 'a-t-il' and 'aujourd'hui' by its exceptions
    text = ("L'anti-jeu d'aujourd'hui : celui-ci a-t-il payé 3 jetons (voyez p. 12) au contre-jeu, qu'on dit "
            "« entr'acte » ? Vingt-et-un, l'arrière-main.")
    doc = extractor.nlp(text)
    assert [t.text for t in doc] == TOKENS
    assert [t.lower_ for t in doc][:2] == ["l'", "anti-jeu"]


def test_factor_merges_the_alternatives_that_differ_in_one_place():
    from pipeline.link.tokenizer import factor

    pattern = r"(?i)(?:^anti-[a-zé]+$)|(?:^contre-[a-zé]+$)|(?:^[a-zé]+-la-[a-zé]+$)|(?:^[a-zé]+-en-[a-zé]+$)|(?:^x\d$)"
    merged = factor(pattern, big=4)
    assert merged == r"(?i)(?:^x\d$)|(?:(?:^anti-|^contre-)[a-zé]+$)|(?:^[a-zé]+(?:-la-|-en-)[a-zé]+$)"
    words = ["anti-jeu", "Contre-Jeu", "anti-", "pet-en-air", "saut-la-mouton", "saut-de-ski", "x1", "x", "anti-jeu\n"]
    assert [bool(re.match(merged, w)) for w in words] == [bool(re.match(pattern, w)) for w in words] == [
        True, True, False, True, True, False, True, False, True]
    # no class long enough: the alternatives, each unwrapped, are one
    assert factor(pattern, big=100) == (
        r"(?i)(?:(?:^anti-[a-zé]+$|^contre-[a-zé]+$|^[a-zé]+-la-[a-zé]+$|^[a-zé]+-en-[a-zé]+$|^x\d$))")


@pytest.mark.parametrize("pattern", [
    r"(?:(a)-[a-z]+\1$)|(?:(b)-[a-z]+\2$)",  # a back-reference: which group is which would change
    r"(?:^a-[a-z]+$)|(?:^b-[a-z]+$",  # a group left open
    r"(?:^a-[a-z]++$)|(?:^b-[a-z]++$)",  # a possessive quantifier of the long class
])
def test_factor_leaves_alone_what_it_cannot_prove_the_same(pattern):
    from pipeline.link.tokenizer import factor

    assert factor(pattern, big=4) == pattern


@pytest.mark.slow  # spacy.load's tokenizer (seconds: the French language class), on the corpus and a made-up book
def test_the_tokens_are_those_of_spacy_load_on_the_corpus_and_a_book(extractor, built_db, tmp_path):
    import sqlite3

    import spacy

    from pipeline.corpus import chapter_files
    from pipeline.link.rules import MODEL, model_components
    from tests.helpers import CORPUS

    sys.path.insert(0, str(ROOT / "bench"))
    from book import Seed, make_library

    make_library(tmp_path / "book", 1, 20, Seed())
    texts = [f.read_text(encoding="utf-8") for folder in (CORPUS, tmp_path / "book") for f in chapter_files(folder)]
    texts += [t for (t,) in sqlite3.connect(built_db).execute("SELECT text_clean FROM passages")]
    reference = spacy.load(MODEL, exclude=list(model_components())).tokenizer
    assert "spacy.lang.fr" in sys.modules and extractor.nlp.vocab is not reference.vocab
    tokens = lambda doc: [(t.text, t.idx, t.whitespace_, t.lower_) for t in doc]  # noqa: E731
    assert len(texts) > 240
    for text in texts:
        assert tokens(extractor.nlp(text)) == tokens(reference(text))


@pytest.mark.slow  # spaCy's Matcher with every pattern: seconds on the corpus
def test_the_matches_are_those_of_spacys_matcher_on_the_corpus(extractor):
    from pipeline.corpus import chapter_files
    from tests.helpers import CORPUS

    for f in chapter_files(CORPUS):
        doc = extractor.nlp(f.read_text(encoding="utf-8"))
        assert extractor.matches(doc) == _reference_matches(extractor, doc), f.name


@pytest.mark.slow  # a fresh interpreter, to see what it imports
def test_loading_the_rules_never_imports_spacys_french_class():
    code = ("import sys; from pipeline.link import load_rules; from pipeline.resources import Resources\n"
            "load_rules(Resources('corpus')); print('spacy.tokenizer' in sys.modules, 'spacy.lang.fr' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "True False", out.stderr
