"""Reading the built database: citing a passage, outlining the chapters.

Only the standard library's sqlite3 is used here, so that ``academie cite`` answers
fast: it never loads the lexicon or the pipeline.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..text import fold
from .queries import PASSAGE_SQL


class LookupError_(Exception):
    """A reference that names nothing, or several things; the message says which."""


def connect(db_path: Path | str) -> sqlite3.Connection:
    path = Path(db_path)
    if not path.exists():
        raise LookupError_(f"{path}: no database here; build it first with 'academie build'")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


_REF = re.compile(
    r"^\s*(?:(?P<edition>[\w-]+)\s*:\s*)?(?P<game>.*?)[\s,.]*(?:\b(?:art(?:icle)?|§|no?)\.?\s*)?(?P<number>\d+)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Reference:
    edition: str | None
    game: str
    number: int


def parse_reference(text: str) -> Reference | None:
    m = _REF.match(text)
    if not m or not m["game"].strip(" ,."):
        return None
    return Reference(m["edition"], m["game"].strip(" ,."), int(m["number"]))


_HOW = "write a game and an article number ('whist 13', 'Whist, art. 13') or a citation ('aduj:whist.13')"
_MAX_SQLITE_INT = 2**63 - 1


def _unreadable(text: str) -> str:
    """Why ``text`` is not a reference, and how to write one."""
    if not text.strip():
        return f"no reference given: {_HOW}"
    edition, colon, rest = text.strip().partition(":")
    if colon and not rest.strip():
        why = f"nothing follows the edition '{edition.strip()}:'"
    elif re.search(r"\d\s*$", text):
        why = "no game before the number"
    else:
        why = "no article number"
    return f"cannot read {text!r} as a reference ({why}): {_HOW}"


def cite(conn: sqlite3.Connection, text: str) -> sqlite3.Row:
    """The passage a reference names: a citation ('aduj:whist.13') or a game and an
    article number ('Whist, art. 13', 'whist 13', 'whist.13'), any case, accents optional."""
    row = conn.execute(PASSAGE_SQL + " WHERE lower(p.citation) = lower(?)", (text.strip(),)).fetchone()
    if row:
        return row
    ref = parse_reference(text)
    if ref is None:
        raise LookupError_(_unreadable(text))
    games = conn.execute("SELECT slug, name FROM games").fetchall()
    wanted = fold(ref.game).replace(" ", "-")
    slugs = [g["slug"] for g in games if fold(g["slug"]) == wanted or fold(g["name"]).replace(" ", "-") == wanted]
    if not slugs:
        names = {g["slug"]: g["name"] for g in games}
        near = difflib.get_close_matches(wanted, list(names), n=5, cutoff=0.5)
        hint = f"; did you mean: {', '.join(near)}?" if near else f"; games: {', '.join(sorted(names))}"
        raise LookupError_(f"no game {ref.game!r} in the database{hint}")
    slug = slugs[0]
    sql = PASSAGE_SQL + " WHERE p.game = ? AND p.kind = 'article' AND p.number = ?"
    args: list = [slug, ref.number]
    if ref.edition:
        sql += " AND c.edition_id = ?"
        args.append(ref.edition)
    # a number beyond SQLite's integers names no article (and must not reach the query)
    rows = conn.execute(sql + " ORDER BY p.citation", args).fetchall() if ref.number <= _MAX_SQLITE_INT else []
    if len(rows) == 1:
        return rows[0]
    if len(rows) > 1:
        listed = ", ".join(r["citation"] for r in rows)
        raise LookupError_(f"{ref.game} {ref.number} is ambiguous: {listed}; give the citation")
    numbers = [r[0] for r in conn.execute(
        "SELECT DISTINCT number FROM passages WHERE game = ? AND kind = 'article' ORDER BY number", (slug,))]
    if numbers:
        near = sorted(numbers, key=lambda n: abs(n - ref.number))[:3]
        raise LookupError_(f"{slug} has no article {ref.number} in the database; nearest: "
                           f"{', '.join(f'{slug} {n}' for n in sorted(near))} (articles: {_ranges(numbers)})")
    raise LookupError_(f"{slug} has no numbered articles in the database")


def _ranges(numbers: list[int]) -> str:
    out = []
    start = prev = numbers[0]
    for n in numbers[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(f"{start}–{prev}" if prev != start else f"{start}")
        if n is not None:
            start = prev = n
    return ", ".join(out)


def outline(conn: sqlite3.Connection) -> list[dict]:
    """Chapters → games → sections and articles, with their pages."""
    chapters = []
    for c in conn.execute("SELECT * FROM chapters ORDER BY id"):  # ids follow reading order
        games: list[dict] = []
        for p in conn.execute(
            "SELECT citation, game, kind, number, page, substr(text_clean, 1, 80) AS text FROM passages "
            "WHERE chapter_id = ? ORDER BY seq", (c["id"],)
        ):
            if not games or games[-1]["game"] != p["game"]:
                games.append({"game": p["game"], "items": []})
            if p["kind"] in ("heading", "section", "article"):
                games[-1]["items"].append(
                    {"kind": p["kind"], "number": p["number"], "page": p["page"], "citation": p["citation"],
                     "text": p["text"]}
                )
        chapters.append(
            {"source_file": c["source_file"], "edition": c["edition_id"], "number": c["number"],
             "title": c["title"], "games": games}
        )
    return chapters


def explain(conn: sqlite3.Connection, citation: str) -> dict:
    """A passage's raw text, clean text, and every edit between them."""
    if not citation.strip():
        raise LookupError_("no citation given: write one such as 'aduj:whist.13'")
    row = conn.execute(PASSAGE_SQL + " WHERE lower(p.citation) = lower(?)", (citation.strip(),)).fetchone()
    if row is None:
        prefix = citation.strip().split(".")[0]
        near = [r[0] for r in conn.execute(
            "SELECT citation FROM passages WHERE substr(lower(citation), 1, ?) = lower(?) ORDER BY citation LIMIT 5",
            (len(prefix), prefix))]
        hint = f"; near: {', '.join(near)}" if near else "; a citation reads <edition>:<game>.<number>, e.g. 'aduj:whist.13'"
        raise LookupError_(f"no passage cited {citation!r}{hint}")
    corrections = [dict(r) for r in conn.execute(
        'SELECT start, "end", before, after, fix, kind, confidence, clean_start, clean_end FROM corrections '
        "WHERE passage_id = ? ORDER BY clean_start", (row["id"],))]
    suggestions = [dict(r) for r in conn.execute(
        'SELECT start, "end", before, suggestion, fix, confidence FROM suggestions WHERE passage_id = ? ORDER BY start',
        (row["id"],))]
    used = {name for c in corrections + suggestions for name in c["fix"].split("+")}
    fixes = {r["name"]: dict(r) for r in conn.execute("SELECT * FROM fixes ORDER BY name") if r["name"] in used}
    return {"passage": dict(row), "corrections": corrections, "suggestions": suggestions, "fixes": fixes}


def fixes(conn: sqlite3.Connection) -> list[dict]:
    """Every fix the build can make, with its stage, kind, explanation and how many
    corrections of the database it made (alone or with others)."""
    counts: dict[str, int] = {}
    for fix, n in conn.execute("SELECT fix, count(*) FROM corrections GROUP BY fix"):
        for name in fix.split("+"):
            counts[name] = counts.get(name, 0) + n
    return [{**dict(r), "corrections": counts.get(r["name"], 0)}
            for r in conn.execute("SELECT * FROM fixes ORDER BY rowid")]


def rule_row(conn: sqlite3.Connection, citation: str) -> sqlite3.Row:
    """An article's rule, with its stub: by citation or by reference ('whist 13')."""
    passage = cite(conn, citation)
    row = conn.execute(
        "SELECT r.*, p.text_clean FROM rules r JOIN passages p ON p.id = r.passage_id WHERE r.passage_id = ?",
        (passage["id"],),
    ).fetchone()
    if row is None:
        raise LookupError_(f"{passage['citation']} is a {passage['kind']}, not an article: it has no rule")
    return row


def rules_status(conn: sqlite3.Connection) -> list[dict]:
    """Per edition and game: articles, and how many rules are generated, stubs,
    encoded by hand, and tested by scenario cases."""
    tested = _tested_citations()
    out = []
    for r in conn.execute(
        "SELECT c.edition_id AS edition, coalesce(p.game, '(' || c.citation_key || ')') AS game, "
        "sum(p.kind = 'article') AS n_articles, sum(p.kind != 'article') AS n_paragraphs, "
        "group_concat(r.citation || '|' || r.status) AS items FROM rules r "
        "JOIN passages p ON p.id = r.passage_id JOIN chapters c ON c.id = p.chapter_id "
        "GROUP BY c.edition_id, game ORDER BY c.edition_id, game"
    ):
        items = [i.rsplit("|", 1) for i in r["items"].split(",")]
        statuses = [s for _, s in items]
        out.append({
            "edition": r["edition"], "game": r["game"], "articles": r["n_articles"], "paragraphs": r["n_paragraphs"],
            "generated": statuses.count("generated"), "stub": statuses.count("stub"),
            "encoded": statuses.count("encoded"), "tested": sum(1 for c, _ in items if c in tested),
        })
    return out


def _tested_citations() -> set[str]:
    """Citations that have scenario cases (pipeline/link/encoded/cases/*.yaml)."""
    from importlib import resources

    import yaml

    out = set()
    for f in resources.files("pipeline.link.encoded").joinpath("cases").iterdir():
        if f.name.endswith(".yaml"):
            out |= {case["citation"] for case in yaml.safe_load(f.read_text(encoding="utf-8")) or []}
    return out


def rules_found(conn: sqlite3.Connection) -> dict[str, dict]:
    """The extracted rules as ``score_rules`` reads them."""
    import json

    return {
        r["citation"]: {"modality": r["modality"], "bearer": r["bearer"],
                        "consequences": [{k: v for k, v in c.items() if k not in ("start", "end")}
                                         for c in json.loads(r["consequences"])]}
        for r in conn.execute("SELECT citation, modality, bearer, consequences FROM rules")
    }
