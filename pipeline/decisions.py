"""An editor's decisions, kept with the corpus: ``corpus/proofs/<chapter>.jsonl``.

One JSON object a line, in the order the decisions were taken; a later decision on
the same span (or the same page or passage) replaces an earlier one when applied, but
nothing is ever removed from the file. Each names its span twice: by raw offsets and
by its raw text with a little context, so that it is found again if the chapter file
changes (``anchor``). A file is written whole to a temporary name and renamed, under a
lock, so that two writers lose nothing and a writer killed mid-write leaves the file
as it was.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from .files import remove_stale, temporary

ACTIONS = ("set", "accept", "reject", "mark")
STATUSES = ("not proofread", "problematic", "proofread", "validated")
CONTEXT = 24  # characters of raw text kept either side of a span, to find it again


@dataclass(frozen=True)
class Decision:
    action: str  # set, accept, reject, mark
    file: str  # the chapter file, as in corpus/
    start: int  # raw span, when the decision was taken
    end: int
    text: str  # raw_text[start:end] then
    before: str = ""  # the raw text just before the span, and just after
    after: str = ""
    reading: str | None = None  # set: what the page prints
    fix: str | None = None  # accept, reject: the engine's fix decided on
    status: str | None = None  # mark: one of STATUSES
    target: str | None = None  # mark: 'page 407' or a citation; otherwise the citation of the passage, for people
    who: str = ""
    when: str = ""
    note: str | None = None
    id: str = field(default="")

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown action {self.action!r}: one of {', '.join(ACTIONS)}")
        if self.action == "mark" and self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}: one of {', '.join(STATUSES)}")
        if self.action == "set" and self.reading is None:
            raise ValueError("a 'set' decision needs the reading the page prints")
        if not self.id:
            key = json.dumps([self.action, self.file, self.start, self.end, self.reading, self.status, self.when])
            object.__setattr__(self, "id", "d" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:8])

    def describe(self) -> str:
        where = self.target or f"raw {self.start}–{self.end}"
        if self.action == "set":
            return f"set {self.reading!r} for {self.text!r} ({where})"
        if self.action == "mark":
            return f"mark {where} {self.status!r}"
        return f"{self.action} {self.fix or 'the reading'} of {self.text!r} ({where})"


def decision(action: str, file: str, raw: str, start: int, end: int, **fields) -> Decision:
    """A new decision on ``raw[start:end]``, with its context, who and when."""
    return Decision(action, file, start, end, raw[start:end], raw[max(0, start - CONTEXT):start],
                    raw[end:end + CONTEXT], who=fields.pop("who", None) or _who(),
                    when=fields.pop("when", None) or datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    **fields)


def _who() -> str:
    return os.environ.get("ACADEMIE_EDITOR") or os.environ.get("USER") or "editor"


def proof_file(corpus: Path, chapter_file: str) -> Path:
    return Path(corpus) / "proofs" / (Path(chapter_file).stem + ".jsonl")


class ProofFileError(Exception):
    """A line of a proof file that is not a decision; the message names file and line."""


def load(path: Path) -> list[Decision]:
    """The decisions of a proof file, in order; none if there is no file. A line that
    is not a decision is an error naming the file and the line (it is never skipped:
    a decision is never silently dropped)."""
    return parse(path.read_text(encoding="utf-8"), path.name) if path.exists() else []


def parse(text: str, name: str) -> list[Decision]:
    """The decisions of a proof file's text (``name`` for the errors)."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(Decision(**json.loads(line)))
        except (ValueError, TypeError) as exc:
            raise ProofFileError(f"{name}:{number}: not a decision: {exc}") from None
    return out


def append(path: Path, decision: Decision) -> Decision:
    """Add a decision to its file: under a lock, the file rewritten whole to a
    temporary name and renamed, so that concurrent writers lose nothing and a writer
    killed mid-write leaves the file as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        remove_stale(path)
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old and not old.endswith("\n"):
            old += "\n"
        tmp = temporary(path)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(old + json.dumps(_record(decision), ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    return decision


def _record(d: Decision) -> dict:
    # a diff-friendly line: empty fields left out, the id first
    rec = {k: v for k, v in asdict(d).items() if v not in (None, "")}
    return {"id": rec.pop("id"), **rec}


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    lock = path.with_name(f".{path.name}.lock")
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def anchor(d: Decision, raw: str) -> tuple[int, int] | None:
    """Where the decision's span is in ``raw`` now: where it was, if its text is still
    there; else where its text stands with its context, or with the context of one
    side; else where its text stands alone, if only once. None if it cannot be found."""
    if raw[d.start:d.end] == d.text:
        return d.start, d.end
    for before, after in ((d.before, d.after), (d.before, ""), ("", d.after)):
        needle = before + d.text + after
        if not (before or after):
            break
        hits = _find_all(raw, needle)
        if len(hits) == 1:
            start = hits[0] + len(before)
            return start, start + len(d.text)
    hits = _find_all(raw, d.text) if d.text else []
    if len(hits) == 1:
        return hits[0], hits[0] + len(d.text)
    return None


def _find_all(text: str, needle: str) -> list[int]:
    out, at = [], text.find(needle)
    while at >= 0:
        out.append(at)
        at = text.find(needle, at + 1)
    return out
