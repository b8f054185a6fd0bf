"""Every `$ academie …` example of the README is run and its output compared
(tests/readme_examples.py says how): the README shows real commands with their real
output, like sqlite-utils' generated CLI reference."""

from __future__ import annotations

import pytest

from tests.readme_examples import README, examples, matches, prepare, run

EXAMPLES = [ex for ex in examples(README.read_text(encoding="utf-8")) if ex.runs]


def test_the_readme_has_its_examples():
    commands = [ex.command.split()[1] for ex in EXAMPLES if ex.command.startswith("academie ")]
    # every reading command, the build first (the others read what it wrote)
    assert commands[0] == "build"
    assert {"build", "cite", "outline", "explain", "fixes", "clean", "eval", "rule", "rules", "serve"} <= set(commands)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    folder = prepare(tmp_path_factory.mktemp("readme") / "readme")
    return {ex.line: run(ex, folder) for ex in EXAMPLES}


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=[f"README.md:{ex.line}: {ex.command[:50]}" for ex in EXAMPLES])
def test_readme_example(outputs, example):
    actual = outputs[example.line]
    assert matches(example.expected, actual), (
        f"README.md:{example.line}: `{example.command}` prints\n" + "\n".join(actual)
        + "\n\nthe README says\n" + "\n".join(example.expected)
        + "\n\n(`make readme` rewrites the examples that changed: review and commit the diff)"
    )
