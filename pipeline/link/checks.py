"""The corpus's checks of the treatise's own figures, run on the built chapters.

A corpus may hold a folder ``checks/`` of Python modules, one a game, say.
In them, a function decorated with ``@check(citation, claim)`` is a check: it receives
the clean text of the passage cited, reads there the figure the text states (with
``figure``, ``figures`` or ``number``) and returns it with the figure its own code
computes from the rules of the game, ``return text_says, code_says``. The engine knows
no passage, no phrase and no figure: it finds each check's passage by its citation,
runs the check, and records both sides and whether they agree (table ``checks``).

A check that cannot be run is kept, not dropped, because a check that silently
vanishes is a check that silently passes: its citation names no passage, or its
figure cannot be read from the text (``Unreadable``), or it raises. It becomes a build
warning naming its file and the reason, and a record with ``agrees = None`` and the
reason in ``error``. A module that cannot be imported is a warning too (its checks are
not known, so it has no records). A corpus without ``checks/`` has no checks and no
warning. Modules whose name starts with ``_`` hold what the checks share: they are
imported by the others (``from ._shared import …``), not run.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import sys
import types
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping, TypeVar

from ..records import BuiltChapter, CheckRecord, Diagnostic, Passage

F = TypeVar("F", bound=Callable)


@dataclass(frozen=True)
class CheckSpec:
    citation: str  # the passage whose figure is checked ('edition:game.p12.3')
    claim: str  # what is checked, in words
    note: str = ""  # the editor's note: how a disagreement is explained


def check(citation: str, claim: str, note: str = "") -> Callable[[F], F]:
    """Declare a function ``(clean_text) -> (text_says, code_says)`` a check of the
    passage ``citation``."""
    def mark(fn: F) -> F:
        fn.__check__ = CheckSpec(citation, claim, note)  # type: ignore[attr-defined]
        return fn
    return mark


class Unreadable(Exception):
    """The passage does not state the figure in a form the check can read."""


# The printing writes 'trente-un', 'vingt-un' where French now writes 'trente et un':
# text2num reads only the latter.
_OLD_ONE = re.compile(r"\b(vingt|trente|quarante|cinquante|soixante)-un\b")
# The OCR drops the hyphen of a compound ('trentesix'): a tens word glued to a unit.
_GLUED = re.compile(r"^(vingt|trente|quarante|cinquante|soixante)(deux|trois|quatre|cinq|six|sept|huit|neuf)$")
_ELISION = re.compile(r"^(?:qu|d|l|n|j)['’]")


def number(words: str) -> int:
    """A number as the treatise prints it, in digits ('85') or in French words
    ('treize', 'qu'onze', 'quarantes', 'trente-un', 'cinquante-deux', and 'trentesix'
    as the OCR glues it); the words are read by text2num."""
    from text_to_num import text2num

    w = _ELISION.sub("", words.strip().lower())
    if w.isdigit():
        return int(w)
    w = _GLUED.sub(r"\1-\2", _OLD_ONE.sub(r"\1 et un", w))
    try:
        return text2num(w, "fr")
    except ValueError:
        raise Unreadable(f"{words!r} is not a number") from None


def figures(text: str, pattern: str) -> tuple[int, ...]:
    """Every group of the first match of ``pattern`` in ``text``, read as a number."""
    m = re.search(pattern, text)
    if m is None:
        raise Unreadable(f"the text has nothing like /{pattern}/")
    return tuple(number(g) for g in m.groups())


def figure(text: str, pattern: str) -> int:
    """The number the one group of ``pattern`` finds in ``text``."""
    (n,) = figures(text, pattern)
    return n


@dataclass(frozen=True)
class LoadedCheck:
    name: str  # module:function ('game:some_check')
    file: str  # 'checks/game.py', as the build report names it
    fn: Callable[[str], tuple]
    spec: CheckSpec


def run_checks(folder: Path, built: list[BuiltChapter]) -> tuple[list[CheckRecord], list[Diagnostic]]:
    """Every check of the modules in ``folder`` run on its passage, in file then
    definition order, and a warning for each that could not be run."""
    found, diagnostics = load_checks(Path(folder))
    passages: dict[str, Passage] = {cite: p for c in built for p, cite in zip(c.seg.passages, c.citations)}
    records, warnings = run_loaded(found, passages)
    return records, diagnostics + warnings


def run_loaded(found: list[LoadedCheck], passages: Mapping[str, Passage]) -> tuple[list[CheckRecord], list[Diagnostic]]:
    """The checks loaded (``load_checks``), each on its passage of ``passages`` (by
    citation: those the checks cite are enough), with a warning for each not run."""
    records, diagnostics = [], []
    for c in found:
        record = _run(c, passages.get(c.spec.citation))
        if record.error:
            diagnostics.append(Diagnostic(c.file, "warning", f"check {c.name}: {record.error}"))
        records.append(record)
    return records, diagnostics


def load_checks(folder: Path) -> tuple[list[LoadedCheck], list[Diagnostic]]:
    """The checks of every module of ``folder``, imported as one package so that they
    can share helper modules; a module that cannot be imported is a warning."""
    if not folder.is_dir():
        return [], []
    # one package per folder, loaded afresh: two corpora never share modules, and an
    # edited check is read again by the next build of a long-lived process
    package = "academie_checks_" + hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:12]
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()  # a module added since the last run is found
    root = types.ModuleType(package)
    root.__path__ = [str(folder)]
    sys.modules[package] = root
    found: list[LoadedCheck] = []
    diagnostics: list[Diagnostic] = []
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # no __pycache__ left in the corpus folder
    try:
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            file = f"{folder.name}/{path.name}"
            try:
                module = importlib.import_module(f"{package}.{path.stem}")
            except Exception as exc:  # noqa: BLE001 - one bad module never stops the build
                diagnostics.append(Diagnostic(file, "warning", f"cannot import the checks: {type(exc).__name__}: {exc}"))
                continue
            found.extend(
                LoadedCheck(f"{path.stem}:{fn.__name__}", file, fn, fn.__check__)
                for fn in vars(module).values()
                if callable(fn) and isinstance(getattr(fn, "__check__", None), CheckSpec)
                and getattr(fn, "__module__", None) == module.__name__
            )
    finally:
        sys.dont_write_bytecode = writes_bytecode
    return found, diagnostics


def _run(c: LoadedCheck, passage: Passage | None) -> CheckRecord:
    record = CheckRecord(name=c.name, citation=None, game=None, claim=c.spec.claim, note=c.spec.note or None)
    if passage is None:
        return replace(record, error=f"no passage is cited {c.spec.citation} in the corpus")
    record = replace(record, citation=c.spec.citation, game=passage.game)
    try:
        result = c.fn(passage.text.text)
    except Unreadable as exc:
        return replace(record, error=f"cannot read the figure in {c.spec.citation}: {exc}")
    except Exception as exc:  # noqa: BLE001 - a faulty check is reported, the build goes on
        return replace(record, error=f"raised {type(exc).__name__}: {exc}")
    if not (isinstance(result, tuple) and len(result) == 2):
        return replace(record, error=f"returned {result!r}, not (text_says, code_says)")
    try:
        # compared as they are stored, so that (10, 2) and [10, 2] agree
        text_says, code_says = (json.loads(json.dumps(x, ensure_ascii=False)) for x in result)
    except (TypeError, ValueError) as exc:
        return replace(record, error=f"returned a figure that is not JSON: {exc}")
    return replace(record, text_says=text_says, code_says=code_says, agrees=text_says == code_says)
