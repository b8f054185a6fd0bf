"""The corpus's checks of the treatise's figures (corpus/checks/) and the engine that
runs them (pipeline.link.checks).

Every check is run on passages written here, one stating the figure the rules give and
one stating a wrong figure: a check that cannot disagree would check nothing. The
runner is tried on a corpus made up in a temporary folder, and the real corpus's
table is held to the figures its printed pages state.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from pipeline.build import build
from pipeline.link.checks import Unreadable, figure, figures, load_checks, number, run_checks

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "corpus" / "checks"


@pytest.fixture(scope="module")
def corpus_checks() -> dict:
    """module:function → the check function, for every check of corpus/checks/."""
    found, diagnostics = load_checks(CHECKS)
    assert diagnostics == []
    return {c.name: c.fn for c in found}


# -- reading the figure the text states ---------------------------------------------------------

@pytest.mark.parametrize("words, value", [
    ("85", 85), ("treize", 13), ("Treize", 13), ("qu'onze", 11), ("qu’une", 1), ("quarantes", 40),
    ("cinquante-deux", 52), ("trente-un", 31), ("vingt-un", 21), ("trentesix", 36), ("quatre-vingts", 80),
])
def test_number_reads_digits_and_french_words_as_the_treatise_prints_them(words, value):
    assert number(words) == value


@pytest.mark.parametrize("words", ["fiches", "trenteX", "", "quarante et"])
def test_number_refuses_what_is_not_a_number(words):
    with pytest.raises(Unreadable) as exc:
        number(words)
    assert str(exc.value) == f"{words!r} is not a number"


def test_figure_reads_the_group_of_the_pattern_and_says_when_the_text_has_none():
    assert figure("on reçoit dix cartes à chaque tour", r"([\w'’-]+) cartes") == 10
    assert figures("il gagne huit, si la mise est de deux fiches", r"gagne (\w+), .* de (\w+) fiches") == (8, 2)
    with pytest.raises(Unreadable) as exc:
        figure("on reçoit des cartes", r"([\w'’-]+) fiches")
    assert str(exc.value) == "the text has nothing like /([\\w'’-]+) fiches/"


# -- each check of the corpus: made-up passages, one right, one wrong ---------------------------

# (check, a passage stating the figure the rules give, what the check returns on it,
#  the same passage with a wrong figure, what it returns on that)
CASES = [
    ("trente_et_quarante:ways_of_each_point",
     "Le point de 31 viendra treize fois, celui de 32 douze fois, 33 onze fois, 34 dix fois, 35 neuf fois, "
     "36 huit fois, 37 sept fois, 38 six fois, 39 cinq fois, et 40 quatre fois.",
     ([13, 12, 11, 10, 9, 8, 7, 6, 5, 4], [13, 12, 11, 10, 9, 8, 7, 6, 5, 4]),
     "Le point de 31 viendra dix fois, celui de 32 douze fois, 33 onze fois, 34 dix fois, 35 neuf fois, "
     "36 huit fois, 37 sept fois, 38 six fois, 39 cinq fois, et 40 quatre fois.",
     ([10, 12, 11, 10, 9, 8, 7, 6, 5, 4], [13, 12, 11, 10, 9, 8, 7, 6, 5, 4])),
    ("trente_et_quarante:ways_add_up",
     "Ces nombres réunis montent à 85.", (85, 85),
     "Ces nombres réunis montent à 58.", (58, 85)),
    ("tre_sette:forty_cards",
     "On ôte les huit, les neuf et les dix: il ne reste que quarante cartes.", (40, 40),
     "On ôte les huit, les neuf et les dix: il ne reste que trente-six cartes.", (36, 40)),
    ("tre_sette:ten_cards_each",
     "Le donneur distribue dix cartes à chaque joueur.", (10, 10),
     "Le donneur distribue neuf cartes à chaque joueur.", (9, 10)),
    ("tre_sette:ten_points_and_two_figures",
     "Le jeu entier donne dix points et deux figures.", ((10, 2), (10, 2)),
     "Le jeu entier donne onze points et une figures.", ((11, 1), (10, 2))),
    ("whist:one_two_or_three_fiches",
     "Une partie se paye une, deux ou trois fiches.", ([1, 2, 3], [1, 2, 3]),
     "Une partie se paye une, deux, trois ou quatre fiches.", ([1, 2, 3, 4], [1, 2, 3])),
    ("whist:simple_at_five",
     "Elle ne vaut qu'une fiche lorsque les perdants ont six points.", (1, 1),
     "Elle ne vaut qu'une fiche lorsque les perdants ont deux points.", (1, 2)),
    ("whist:double_at_four",
     "Elle en vaut deux lorsqu'ils ont trois points.", (2, 2),
     "Elle en vaut deux lorsqu'ils ont sept points.", (2, 1)),
    ("whist:triple_at_four",
     "Elle se paye deux fiches quand ils ont quatre points.", (2, 2),
     "Elle se paye trois fiches quand ils ont quatre points.", (3, 2)),
    ("whist:triple_at_none",
     "Elle se paye trois fiches quand les perdants n'ont aucun point.", (3, 3),
     "Elle se paye trois fiches quand les perdants ont un points.", (3, 2)),
    ("whist:rubber_of_seven",
     "Les gagnants gagnent sept fiches avec une partie triple et une double.", (7, 7),
     "Les gagnants gagnent huit fiches avec une partie triple et une double.", (8, 7)),
    ("whist:rubber_of_nine",
     "Et ils en gagnent huit, si la consolation serait de trois fiches.", (8, 8),
     "Et ils en gagnent neuf, si la consolation serait de trois fiches.", (9, 8)),
    ("whist:rubber_of_six",
     "Le robre est réduit à six fiches.", (6, 6),
     "Le robre est réduit à cinq fiches.", (5, 6)),
    ("whist:vole_of_eight",
     "Pour la vole ils gagnent neuf, si la consolation est de trois fiches.", (9, 9),
     "Pour la vole ils gagnent huit, si la consolation est de trois fiches.", (8, 9)),
    ("whist:vole_of_ten",
     "Ou ils en gagnent onze, s'il a été convenu qu'elle serait de cinq.", (11, 11),
     "Ou ils en gagnent dix, s'il a été convenu qu'elle serait de cinq.", (10, 11)),
    ("whist:thirteen_cards_each",
     "On donne treize cartes à chacun.", (13, 13),
     "On donne douze cartes à chacun.", (12, 13)),
    ("hombre:eight_cards_in_three_packets",
     "On joue avec neuf cartes, données par deux fois trois et une fois trois.", (9, 9),
     "On joue avec huit cartes, données par deux fois trois et une fois trois.", (8, 9)),
    ("hombre:talon_of_fourteen",
     "Le talon est composé de quatorze cartes.", (14, 14),
     "Le talon est composé de seize cartes.", (16, 14)),
    ("guinguette:thirty_six_cards",
     "À quatre on ne joue qu'avec trente-six cartes.", (36, 36),
     "À quatre on ne joue qu'avec trente-deux cartes.", (32, 36)),
    ("treize:fifty_two_cards",
     "Un jeu entier composé de cinquante-deux cartes.", (52, 52),
     "Un jeu entier composé de cinquante-quatre cartes.", (54, 52)),
]


def test_every_check_of_the_corpus_is_tried_here(corpus_checks):
    assert sorted(corpus_checks) == sorted(name for name, *_ in CASES)


@pytest.mark.parametrize("name, right, right_says, wrong, wrong_says", CASES, ids=[c[0] for c in CASES])
def test_a_check_agrees_with_the_right_figure_and_disagrees_with_a_wrong_one(
        corpus_checks, name, right, right_says, wrong, wrong_says):
    check = corpus_checks[name]
    assert check(right) == right_says
    assert check(wrong) == wrong_says
    assert _as_stored(right_says[0]) == _as_stored(right_says[1])
    assert _as_stored(wrong_says[0]) != _as_stored(wrong_says[1])


def _as_stored(figure_):
    """A figure as the checks table stores and compares it (JSON: a tuple is a list)."""
    return json.loads(json.dumps(figure_))


@pytest.mark.parametrize("name", sorted(n for n, *_ in CASES))
def test_a_check_cannot_read_a_passage_that_states_no_figure(corpus_checks, name):
    with pytest.raises(Unreadable):
        corpus_checks[name]("Ce passage ne dit rien de ce qu'on y cherche.")


# -- the runner, on a corpus made up here -------------------------------------------------------

CHAPTER = """BOS 41

BOSTON (jeu du).

On joue avec un jeu entier de cinquante-deux cartes, et chacun des quatre joueurs en reçoit treize.

1. Celui qui donne mal paye une fiche à chacun des joueurs.

2. Celui qui renonce paye trois fiches à chacun des joueurs.
"""

CHECKS_MODULE = '''
from pipeline.link.checks import check, figure

from ._shared import PLAYERS


@check("unknown:boston.p41.1", "the whole pack dealt to four gives each thirteen cards")
def thirteen_each(text):
    return figure(text, r"en reçoit ([\\w-]+)"), 52 // PLAYERS


@check("unknown:boston.2", "a renounce costs two fiches", note="the made-up rule says two")
def renounce(text):
    return figure(text, r"paye ([\\w-]+) fiches"), 2


@check("unknown:boston.99", "an article the chapter does not have")
def missing(text):
    return 1, 1


@check("unknown:boston.1", "a figure the text does not state")
def unreadable(text):
    return figure(text, r"([\\w-]+) jetons"), 1


@check("unknown:boston.1", "two sides equal as stored, a tuple and a list")
def tuple_and_list(text):
    return (1, 2), [1, 2]


@check("unknown:boston.1", "a check whose code fails")
def raises(text):
    return 1, 1 // 0


@check("unknown:boston.1", "a check that returns one figure")
def one_side(text):
    return 1


def helper(text):
    """Not a check: no @check."""
'''


@pytest.fixture(scope="module")
def made_up(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("made_up_checks")
    (corpus / "boston.txt").write_text(CHAPTER, encoding="utf-8")
    (corpus / "checks").mkdir()
    (corpus / "checks" / "boston.py").write_text(CHECKS_MODULE, encoding="utf-8")
    (corpus / "checks" / "_shared.py").write_text("PLAYERS = 4\n", encoding="utf-8")
    (corpus / "checks" / "broken.py").write_text("from pipeline.link.checks import check\n\ndef (\n", encoding="utf-8")
    db = corpus / "made_up.db"
    report = build(corpus, db)
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    yield corpus, report, conn
    conn.close()


def test_the_runner_reports_each_check_it_cannot_run_as_a_warning_naming_its_file(made_up):
    _, report, _ = made_up
    assert [str(d) for d in report.diagnostics if d.file.startswith("checks/")] == [
        "checks/broken.py: warning: cannot import the checks: SyntaxError: invalid syntax (broken.py, line 3)",
        "checks/boston.py: warning: check boston:missing: no passage is cited unknown:boston.99 in the corpus",
        "checks/boston.py: warning: check boston:unreadable: cannot read the figure in unknown:boston.1: "
        "the text has nothing like /([\\w-]+) jetons/",
        "checks/boston.py: warning: check boston:raises: raised ZeroDivisionError: integer division or modulo by zero",
        "checks/boston.py: warning: check boston:one_side: returned 1, not (text_says, code_says)",
    ]
    assert not report.errors
    assert (report.checks, report.disagreements) == (3, 1)


def test_the_runner_writes_every_check_and_why_it_could_not_run(made_up):
    _, _, db = made_up
    rows = [tuple(r) for r in db.execute(
        "SELECT name, game, citation, text_says, code_says, agrees, note, error FROM checks ORDER BY id")]
    assert rows == [
        ("boston:thirteen_each", "boston", "unknown:boston.p41.1", "13", "13", 1, None, None),
        ("boston:renounce", "boston", "unknown:boston.2", "3", "2", 0, "the made-up rule says two", None),
        ("boston:missing", None, None, None, None, None, None,
         "no passage is cited unknown:boston.99 in the corpus"),
        ("boston:unreadable", "boston", "unknown:boston.1", None, None, None, None,
         "cannot read the figure in unknown:boston.1: the text has nothing like /([\\w-]+) jetons/"),
        ("boston:tuple_and_list", "boston", "unknown:boston.1", "[1, 2]", "[1, 2]", 1, None, None),
        ("boston:raises", "boston", "unknown:boston.1", None, None, None, None,
         "raised ZeroDivisionError: integer division or modulo by zero"),
        ("boston:one_side", "boston", "unknown:boston.1", None, None, None, None,
         "returned 1, not (text_says, code_says)"),
    ]
    # the warnings are in the build log too, under the check's file
    assert db.execute("SELECT count(*) FROM build_log WHERE source_file = 'checks/boston.py'").fetchone()[0] == 4


def test_the_runner_leaves_no_bytecode_in_the_corpus(made_up):
    corpus, _, _ = made_up
    assert not (corpus / "checks" / "__pycache__").exists()


def test_a_corpus_without_checks_has_no_checks_and_no_warning(tmp_path):
    assert run_checks(tmp_path / "checks", []) == ([], [])
    (tmp_path / "boston.txt").write_text(CHAPTER, encoding="utf-8")
    report = build(tmp_path, tmp_path / "plain.db")
    assert [d for d in report.diagnostics if d.file.startswith("checks")] == []
    assert (report.checks, report.disagreements) == (0, 0)
    with sqlite3.connect(tmp_path / "plain.db") as db:
        assert db.execute("SELECT count(*) FROM checks").fetchone()[0] == 0


def test_an_edited_check_is_read_again_by_the_next_run(tmp_path):
    (tmp_path / "checks").mkdir()
    module = tmp_path / "checks" / "edited.py"
    module.write_text('from pipeline.link.checks import check\n\n@check("x:y.1", "first")\ndef c(text):\n    return 1, 1\n')
    assert [c.spec.claim for c in load_checks(tmp_path / "checks")[0]] == ["first"]
    module.write_text('from pipeline.link.checks import check\n\n@check("x:y.1", "second")\ndef c(text):\n    return 1, 1\n')
    assert [c.spec.claim for c in load_checks(tmp_path / "checks")[0]] == ["second"]


def test_the_engine_names_no_passage_and_quotes_no_text():
    source = (ROOT / "pipeline" / "link" / "checks.py").read_text(encoding="utf-8")
    assert not re.search(r"\b(aduj|adj|unknown):[a-z]", source)
    assert not re.search(r"whist|hombre|tre-sette|trente-et-quarante|trictrac|fiches", source)


# -- the real corpus ----------------------------------------------------------------------------

def test_the_corpus_checks_state_the_figures_of_the_printed_page_and_one_disagreement(db):
    rows = [(r["name"], r["citation"], json.loads(r["text_says"]), json.loads(r["code_says"]), r["agrees"])
            for r in db.execute("SELECT * FROM checks ORDER BY id")]
    assert rows == [
        ("guinguette:thirty_six_cards", "aduj:guinguette.p160.2", 36, 36, 1),
        ("hombre:eight_cards_in_three_packets", "aduj:hombre.77", 8, 8, 1),
        ("hombre:talon_of_fourteen", "aduj:hombre.78", 14, 14, 1),
        ("tre_sette:forty_cards", "aduj:tre-sette.p304.3", 40, 40, 1),
        ("tre_sette:ten_cards_each", "aduj:tre-sette.p305.4", 10, 10, 1),
        ("tre_sette:ten_points_and_two_figures", "aduj:tre-sette.p306.2", [10, 2], [10, 2], 1),
        ("treize:fifty_two_cards", "unknown:treize.u1", 52, 52, 1),
        ("trente_et_quarante:ways_of_each_point", "aduj:trente-et-quarante.p302.2",
         [13, 12, 11, 10, 9, 8, 7, 6, 5, 4], [13, 12, 11, 10, 9, 8, 7, 6, 5, 4], 1),
        ("trente_et_quarante:ways_add_up", "aduj:trente-et-quarante.p302.3", 85, 85, 1),
        ("whist:one_two_or_three_fiches", "aduj:whist.p405.4", [1, 2, 3], [1, 2, 3], 1),
        ("whist:simple_at_five", "aduj:whist.p405.5", 1, 1, 1),
        ("whist:double_at_four", "aduj:whist.p405.6", 2, 2, 1),
        ("whist:triple_at_four", "aduj:whist.p405.7", 3, 2, 0),
        ("whist:triple_at_none", "aduj:whist.p405.8", 3, 3, 1),
        ("whist:rubber_of_seven", "aduj:whist.p405.11", 7, 7, 1),
        ("whist:rubber_of_nine", "aduj:whist.p405.11", 9, 9, 1),
        ("whist:rubber_of_six", "aduj:whist.p405.12", 6, 6, 1),
        ("whist:vole_of_eight", "aduj:whist.p405.13", 8, 8, 1),
        ("whist:vole_of_ten", "aduj:whist.p405.13", 10, 10, 1),
        ("whist:thirteen_cards_each", "aduj:whist.15", 13, 13, 1),
    ]
    assert [(r["game"], r["note"]) for r in db.execute("SELECT game, note FROM checks WHERE agrees = 0")] == [
        ("whist", "disagreement: the text gives two values for a game won when the losers have four points, "
                  "double in the sentence before and triple here; with the next sentence (triple when they have "
                  "none) it cannot be both: the printed 'quatre' is probably a misprint"),
    ]
    assert db.execute("SELECT count(*) FROM checks WHERE error IS NOT NULL OR agrees IS NULL").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM build_log WHERE source_file LIKE 'checks/%'").fetchone()[0] == 0
