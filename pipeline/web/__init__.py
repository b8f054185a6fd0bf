"""The reading room: a Datasette plugin that turns the database into pages to read,
search and cite. Every page also answers as JSON (the same path ending in .json).

- ``/``                      editions → chapters → games, and a search box
- ``/chapter/<id>``          the chapter's passages in order, printed pages in the
                             margin, corrections marked; ``?raw=1`` shows the raw OCR
- ``/cite/<citation>``       one passage: clean and raw text, corrections, its rule,
                             its stub, the citation to copy (text and BibTeX)
- ``/game/<slug>``           all the passages of a game, across chapters and editions
- ``/search?q=…``            full-text search over clean, folded and raw text
- ``/review``                `academie serve --edit` only: the proofreading queue, one
                             item at a time, and the decisions (pipeline/web/review.py)

What does not exist is a 404: a page saying so, or for a ``.json`` path the JSON
``{"ok": false, "error": "…", "status": 404}``.

All text from the corpus goes through Jinja's escaping, or through ``markupsafe``
when the page marks it up; the OCR really contains '<|ue' and '>^'.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import sys
import unicodedata
from collections import OrderedDict
from pathlib import Path
from urllib.parse import unquote

from datasette import Response, hookimpl
from datasette.utils import sqlite_timelimit
from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup, escape

from . import downloads, dts
from .downloads import cached
from ..fixes import fix_names
from ..publish.queries import PASSAGE_SQL
from ..segment.citations import citation_path as cite_url
from ..text import fold, fold_letters
from .review import edit_bar, refuse_write, review_page


@hookimpl
def register_routes():
    return [
        (r"^/(?P<json>index\.json)?$", home),
        # a chapter id fits SQLite's integers: longer digits are no chapter (a 404), not an overflow;
        # methods other than GET and HEAD never reach a page (asgi_wrapper below)
        (r"^/chapter/(?P<id>\d{1,18})(?P<json>\.json)?$", chapter),
        (r"^/cite/(?P<citation>[^/]+)$", cite),
        (r"^/game/(?P<slug>[a-z0-9-]+?)(?P<json>\.json)?$", game),
        (r"^/search(?P<json>\.json)?$", search),
        (r"^/review(?P<json>\.json)?$", review_page),
        *downloads.ROUTES,  # the edition's files (pipeline/web/downloads.py)
        *dts.ROUTES,  # Distributed Text Services 1.0 under /dts/ (pipeline/web/dts.py)
    ]


DEFAULT_BASE_URL = "http://127.0.0.1:8001"


def base_url(datasette) -> str:
    """Where the reading room is served, for the URLs it gives out (a citation's,
    BibTeX's): from configuration (`academie serve --base-url`, plugin setting
    ``base_url``), never from the request's Host header, which any client may set."""
    config = datasette.plugin_config("academie") or {}
    return (config.get("base_url") or DEFAULT_BASE_URL).rstrip("/")


# -- errors ----------------------------------------------------------------------------------
# Datasette's own handler prints every exception with rich, which raises (and answers
# 500) for the 404s Datasette builds itself outside an `except` block: unrouted paths,
# a POST on a table. The reading room replaces it with one that answers the same pages
# (JSON for a .json path, Datasette's error.html otherwise) and logs one line, never a
# traceback.

@hookimpl
def asgi_wrapper(datasette):
    """The reading room only reads: a request with another method than GET or HEAD is a
    405 wherever it goes (Datasette's table pages would answer a POST with a 500). Under
    `academie serve --edit`, a POST to the review page is let through, from this machine
    and with the edit cookie only (else a 403, its body unread); Datasette's CSRF check
    comes next."""
    def wrap(app):
        async def read_only(scope, receive, send):
            if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD"):
                refused = refuse_write(datasette, scope)
                if refused is None:
                    await app(scope, receive, send)
                    return
                status, message = refused
                body = json.dumps({"ok": False, "error": message, "status": status}).encode()
                print(f"{scope['method']} {scope['path']}: {status} {message}", file=sys.stderr, flush=True)
                headers = [(b"content-type", b"application/json; charset=utf-8")]
                await send({"type": "http.response.start", "status": status,
                            "headers": headers + ([(b"allow", b"GET, HEAD")] if status == 405 else [])})
                await send({"type": "http.response.body", "body": body})
                return
            await app(scope, receive, send)

        return read_only

    return wrap


@hookimpl
def startup(datasette):
    from datasette.plugins import pm

    default = pm.get_plugin("datasette.handle_exception")
    if default is not None:
        pm.unregister(default)


@hookimpl(trylast=True)
def handle_exception(datasette, request, exception):
    from datasette.utils.asgi import Base400
    from datasette.views.base import DatasetteError

    async def answer():
        title = None
        if isinstance(exception, Base400):
            status, message = exception.status, str(exception.args[0]) if exception.args else "bad request"
            if status == 404 and message in ("404", "Database not found"):
                message = f"no page at {request.path}"  # Datasette's words for a path it does not route
        elif isinstance(exception, DatasetteError):
            # Datasette raises these for what a request asks that it cannot do ('Cannot sort
            # table by (select 1)'), with 500 unless told otherwise: the request's fault, a 400
            status, message, title = exception.status, exception.message, exception.title
            if status == 500:
                status = 400
        else:
            status, message = 500, "internal error: the reading room could not answer (please report it)"
        detail = "" if status < 500 else f" ({type(exception).__name__}: {exception})"
        print(f"{request.method} {request.path}: {status} {message}{detail}", file=sys.stderr, flush=True)
        if request.path.endswith(".json"):
            return Response.json({"ok": False, "error": message, "status": status, "title": title}, status=status)
        template = datasette.jinja_env.select_template([f"{status}.html", "error.html"])
        return Response.html(await template.render_async({
            "ok": False, "error": message, "status": status, "title": title, "urls": datasette.urls,
            "app_css_hash": datasette.app_css_hash(), "menu_links": lambda: []}), status=status)

    return answer


# -- helpers ---------------------------------------------------------------------------------

def _db(datasette):
    return datasette.get_database()


def rows(conn, sql: str, params=()) -> list[dict]:
    """Every query of the reading room's pages goes through here (the tests record them
    to check each one's plan)."""
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


async def _read(datasette, fn):
    """``fn(conn)``: all of a page's queries, run together in Datasette's SQL thread under
    its time limit. One hand-over to that thread per page, not one per query: with eight
    clients at once, each hand-over waits for the interpreter's lock (a few ms), and a
    citation's page asks eight queries."""
    def run(conn):
        with sqlite_timelimit(conn, datasette.setting("sql_time_limit_ms")):
            return fn(conn)

    return await _db(datasette).execute_fn(run)


async def _rows(datasette, sql: str, params=()) -> list[dict]:
    return await _read(datasette, lambda conn: rows(conn, sql, params))


async def _page(datasette, request, template: str, context: dict, as_json: bool, status: int = 200) -> Response:
    if as_json:
        return Response.json(_jsonable({**context, **({"ok": False, "status": status} if status >= 400 else {})}),
                             status=status)
    context["json_url"] = (request.path.rstrip("/") or "/index") + ".json" + (
        f"?{request.query_string}" if request.query_string else "")
    context["edit"] = edit_bar(datasette)  # under --edit: the way to the review page, a rebuild pending
    return Response.html(await datasette.render_template(template, context, request=request), status=status)


def _not_found(message: str, as_json: bool, **extra) -> Response:
    """A 404 saying what was not found: one line of text, or JSON for a program."""
    return _error(message, 404, as_json, **extra)


def _error(message: str, status: int, as_json: bool, headers: dict | None = None, **extra) -> Response:
    if as_json:
        return Response.json({"ok": False, "error": message, "status": status, **extra}, status=status,
                             headers=headers)
    return Response.html(escape(message), status=status, headers=headers)


def _jsonable(value):
    if isinstance(value, Markup):
        return str(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if not k.endswith("_html")}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def short_title(title: str) -> str:
    """'Académie universelle des jeux … et un nouveau traité …' → 'Académie universelle des jeux'."""
    for cut in (" …", " ...", ":", ","):
        if cut in title:
            title = title.split(cut)[0]
    return title.strip()


def chapter_heading(c: dict) -> str:
    """'Chapter 102 of 130', or the pages of a chapter the export did not number."""
    if c.get("number"):
        return f"Chapter {c['number']}" + (f" of {c['total']}" if c.get("total") else "")
    if c.get("first_page") is not None:
        pages = f"pp. {c['first_page']}–{c['last_page']}" if c["last_page"] != c["first_page"] else f"p. {c['first_page']}"
        return f"Unnumbered chapter, {pages}"
    return f"Unnumbered chapter ({c['source_file']})"


def citation_text(p: dict) -> str:
    """'Académie universelle des jeux, Whist, art. 13, p. 407': book, game, article and
    page, as a historian cites; a passage with neither number nor page is named by
    its citation instead."""
    return ", ".join([short_title(p["edition_title"]), *_locators(p)])


def _locators(p: dict) -> list[str]:
    out = [p["game_name"]] if p.get("game_name") else []
    if p["kind"] == "article" and p["number"] is not None:
        out.append(f"art. {p['number']}")
    elif p["kind"] == "section" and p["number"] is not None:
        out.append(f"§ {p['number']}")
    if p["page"] is not None:
        out.append(f"p. {p['page']}")
    elif not out or p["number"] is None:
        out.append(p["citation"])
    return out


def bibtex(p: dict, base: str) -> str:
    key = "".join(c if c.isalnum() else "_" for c in p["citation"])
    title = ", ".join(part for part in _locators(p) if not part.startswith("p. "))  # the page has its own field
    lines = [
        f"@incollection{{{key},",
        f"  title = {{{title}}},",
        f"  booktitle = {{{p['edition_title']}}},",
    ]
    if p["page"] is not None:
        lines.append(f"  pages = {{{p['page']}}},")
    lines += [f"  note = {{Cited as {p['citation']}}},", f"  url = {{{base}{cite_url(p['citation'])}}}", "}"]
    return "\n".join(lines)


def marked_text(text: str, corrections: list[dict], page: int | None, explain: dict[str, str],
                statuses: dict[int, str] | None = None) -> Markup:
    """The clean text with each correction of the words marked (its OCR form, fix and
    explanation on hover or focus; layout edits are not marked; a correction an editor
    decided marked as checked), and the printed page where the passage crosses a page
    break, with its status if an editor marked it (``statuses``: page → status)."""
    out, pos, pages = [], 0, page
    for c in sorted(corrections, key=lambda c: (c["clean_start"], c["clean_end"])):
        a, b = c["clean_start"], c["clean_end"]
        if a < pos:
            continue
        out.append(escape(text[pos:a]))
        fix = c["fix"]
        if "layout.page_break" in fix_names(fix):
            pages = pages + 1 if pages is not None else None
            label = f"p. {pages}" if pages is not None else "page"
            if pages is not None and (statuses or {}).get(pages):
                label += f" · {statuses[pages]}"
            out.append(Markup('<span class="pb" role="note" aria-label="page break">{}</span>').format(label))
            out.append(escape(text[a:b]))
        elif c["kind"] == "layout":
            out.append(escape(text[a:b]))
        else:
            shown = text[a:b] or "·"
            note = f"OCR: {c['before']!r} · {fix} ({c['confidence']:.2f}): {explain_fix(fix, explain)}"
            if checked_by_an_editor(fix):
                out.append(Markup('<mark class="fix checked" tabindex="0" title="{}" data-raw="{}">{}</mark>').format(
                    f"{CHECKED} · {note}", c["before"], shown))
            else:
                out.append(Markup('<mark class="fix" tabindex="0" title="{}" data-raw="{}">{}</mark>').format(
                    note, c["before"], shown))
        pos = b
    out.append(escape(text[pos:]))
    return Markup("").join(out)


CHECKED = "checked by an editor"


def checked_by_an_editor(fix: str) -> bool:
    """A correction an editor decided (corpus/proofs/): one of its fixes is a proof.* fix."""
    return any(name.startswith("proof.") for name in fix_names(fix))


async def _explanations(datasette) -> dict[str, str]:
    """Fix name → explanation, from the database's own ``fixes`` table (read once: the
    database is served immutable)."""
    return await cached(datasette, "explanations", lambda conn: {
        r["name"]: r["explanation"] for r in rows(conn, "SELECT name, explanation FROM fixes")})


def explain_fix(fix: str, explain: dict[str, str]) -> str:
    """A correction's explanation: that of each fix it names, in order."""
    return "; then ".join(explain.get(name, name) for name in fix_names(fix))


def highlighted_parts(text: str, rule: dict | None) -> Markup:
    """The text with the parts of its rule highlighted: modality, bearer, condition, effects."""
    if not rule:
        return escape(text)
    spans = []
    for part, (a, b) in json.loads(rule["spans"]).items():
        spans.append((a, b, part))
    for c in json.loads(rule["consequences"]):
        spans.append((c["start"], c["end"], f"effect {c['kind']}"))
    out, pos = [], 0
    for a, b, part in sorted(spans):
        if a < pos:
            continue
        out.append(escape(text[pos:a]))
        out.append(Markup('<span class="part {}" title="{}">{}</span>').format(part.split()[0], part, text[a:b]))
        pos = b
    out.append(escape(text[pos:]))
    return Markup("").join(out)


# -- pages -----------------------------------------------------------------------------------

async def _editions(datasette) -> list[dict]:
    return await cached(datasette, "edition rows", lambda conn: rows(conn, "SELECT * FROM editions ORDER BY id"))


# chapters listed on a page of the home page: a library has thousands
CHAPTERS_PER_PAGE = 200


async def home(datasette, request):
    as_json = bool(request.url_vars.get("json"))
    totals = await cached(datasette, "totals", lambda conn: rows(conn, """
        SELECT count(*) AS chapters, coalesce(sum(passages), 0) AS passages, coalesce(sum(articles), 0) AS articles
        FROM chapters""")[0])
    pages = max(1, -(-totals["chapters"] // CHAPTERS_PER_PAGE))
    try:
        number = int(request.args.get("page") or 1)
    except ValueError:
        number = 0
    if not 1 <= number <= pages:
        return _not_found(f"No page {request.args.get('page')} of the home page: pages 1 to {pages}", as_json)
    # chapter ids run 1, 2, 3 … in reading order: a page is a range of them
    first, last = (number - 1) * CHAPTERS_PER_PAGE + 1, number * CHAPTERS_PER_PAGE
    editions = await _editions(datasette)
    # a page's list is the same at every request (the database is immutable): made once,
    # HTML included, as rendering two hundred chapters costs more than reading them
    listed, listed_html = await cached(datasette, f"home {CHAPTERS_PER_PAGE} {number}",
                                       lambda conn: _chapter_list(conn, editions, first, last))
    context = {"editions": listed, "editions_html": listed_html, "totals": totals,
               "page": {"number": number, "pages": pages, "first": first, "last": min(last, totals["chapters"]),
                        "previous": number - 1 or None, "next": number + 1 if number < pages else None},
               "downloads": await downloads.files(datasette)}
    return await _page(datasette, request, "academie_home.html", context, as_json)


def _chapter_list(conn, editions: list[dict], first: int, last: int) -> tuple[list[dict], Markup]:
    """The editions with chapters among chapters ``first`` to ``last``, each with its
    chapters and each chapter with its games; and their HTML."""
    chapters = rows(conn, """
        SELECT id, edition_id, number, title, source_file, passages, articles, first_page, last_page
        FROM chapters WHERE id BETWEEN ? AND ? ORDER BY id""", [first, last])
    games = rows(conn, """
        SELECT x.chapter_id, x.game, g.name, x.passages, x.articles
        FROM chapter_games x JOIN games g ON g.slug = x.game WHERE x.chapter_id BETWEEN ? AND ?
        ORDER BY x.chapter_id, x.first_seq""", [first, last])
    by_chapter: dict[int, list[dict]] = {}
    for g in games:
        by_chapter.setdefault(g["chapter_id"], []).append(g)
    by_edition: dict[str, list[dict]] = {}
    for c in chapters:
        c["games"] = by_chapter.get(c["id"], [])
        c["heading"] = chapter_heading(c)
        by_edition.setdefault(c["edition_id"], []).append(c)
    listed = [{**e, "short_title": short_title(e["title"]), "chapters": by_edition[e["id"]]}
              for e in editions if e["id"] in by_edition]
    return listed, Markup(_LISTS.get_template("_academie_chapters.html").render(editions=listed))


# Lists rendered once and kept (the home page's chapters, a search's results) go through
# a plain Jinja environment on the same templates: Datasette's renders asynchronously,
# several times slower on a long list, which awaits nothing.
_LISTS = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True)


async def chapter(datasette, request):
    cid = int(request.url_vars["id"])
    info = await _rows(datasette, "SELECT c.*, e.title AS edition_title FROM chapters c JOIN editions e ON e.id = c.edition_id WHERE c.id = ?", [cid])
    if not info:
        return _not_found(f"No chapter {cid} in the database", bool(request.url_vars.get("json")))
    ch = info[0]
    raw = request.args.get("raw") == "1"
    passages = await _rows(datasette, PASSAGE_SQL + " WHERE p.chapter_id = ? ORDER BY p.seq", [cid])
    explain = await _explanations(datasette)
    corrections = await _rows(datasette, """
        SELECT k.passage_id, k.clean_start, k.clean_end, k.before, k.after, k.fix, k.kind, k.confidence
        FROM corrections k JOIN passages p ON p.id = k.passage_id WHERE p.chapter_id = ?""", [cid])
    # the pages an editor marked (corpus/proofs/): proofread, problematic, validated
    statuses = {r["number"]: r["status"] for r in await _rows(datasette, """
        SELECT number, status FROM pages WHERE chapter_id = ? AND number IS NOT NULL AND status != 'not proofread'""",
                                                                [cid])}
    last_page = None  # the page the reading has reached, breaks inside passages included
    for p in passages:
        p["url"] = cite_url(p["citation"])
        p["page_break"] = p["page"] is not None and p["page"] != last_page
        p["page_status"] = statuses.get(p["page"]) if p["page_break"] else None
        own = [k for k in corrections if k["passage_id"] == p["id"]]
        p["text_html"] = marked_text(p["text_clean"], own, p["page"], explain, statuses)
        if p["page"] is not None:
            last_page = p["page"] + sum("layout.page_break" in fix_names(k["fix"]) for k in own)
        p["anchor"] = p["citation"].split(":", 1)[1]
    notes: dict[str, list[dict]] = {}
    for p in passages:
        if p["note_for"]:
            notes.setdefault(p["note_for"], []).append({"anchor": p["anchor"], "label": p["text_clean"][:3]})
            p["called_from"] = p["note_for"].split(":", 1)[1]
    for p in passages:
        p["notes"] = notes.get(p["citation"], [])
    neighbours = (await _rows(datasette, """
        SELECT (SELECT max(id) FROM chapters WHERE id < :id) AS previous, (SELECT min(id) FROM chapters WHERE id > :id) AS next""",
                               {"id": cid}))[0]
    ch.pop("raw_text") if not raw else None
    pages = [p["page"] for p in passages if p["page"] is not None]
    ch["heading"] = chapter_heading({**ch, "first_page": min(pages, default=None), "last_page": max(pages, default=None)})
    context = {
        "chapter": ch, "passages": passages, "raw": raw,
        "previous": neighbours["previous"], "next": neighbours["next"],
        "edition_short": short_title(ch["edition_title"]), "heading": ch["heading"],
    }
    return await _page(datasette, request, "academie_chapter.html", context, bool(request.url_vars.get("json")))


async def cite(datasette, request):
    # a client may percent-encode the colon ('aduj%3Awhist.13'): the same citation
    citation = unquote(request.url_vars["citation"])
    as_json = citation.endswith(".json")
    if as_json:
        citation = citation[: -len(".json")]
    found = await _read(datasette, lambda conn: _passage_rows(conn, citation))
    if found is None:
        near = await _rows(datasette, "SELECT citation FROM passages WHERE citation LIKE ? ORDER BY citation LIMIT 8",
                           [citation.split(".")[0] + "%"])
        if as_json:
            return _not_found(f"No passage is cited {citation}", True, near=[n["citation"] for n in near])
        body = await datasette.render_template("academie_missing.html", {"citation": citation, "near": near}, request=request)
        return Response.html(body, status=404)
    p, corrections, suggestions, rule, checks, notes, previous, next_ = found
    explain = await _explanations(datasette)
    base = base_url(datasette)
    context = {
        "p": p,
        "text_html": marked_text(p["text_clean"], corrections, p["page"], explain),
        "parts_html": highlighted_parts(p["text_clean"], rule),
        "corrections": [{**c, "explanation": explain_fix(c["fix"], explain), "checked": checked_by_an_editor(c["fix"])}
                        for c in corrections if c["kind"] != "layout"],
        "layout_edits": sum(1 for c in corrections if c["kind"] == "layout"),
        "suggestions": suggestions,
        "rule": {**rule, "consequences": json.loads(rule["consequences"])} if rule else None,
        "checks": checks,
        "notes": notes,
        "citation_text": citation_text(p),
        "bibtex": bibtex(p, base),
        "url": base + cite_url(citation),
        "chapter_url": f"/chapter/{p['chapter_id']}#{p['citation'].split(':', 1)[1]}",
        "previous": previous,
        "next": next_,
    }
    return await _page(datasette, request, "academie_cite.html", context, as_json)


# the article of the same game and edition just before (after) a passage, in reading
# order: found from the passage's place in the index on (game, kind, chapter_id, seq),
# within the edition's chapters, whatever the size of the library
_NEIGHBOUR_SQL = """
SELECT p.citation FROM passages p
WHERE p.game = :game AND p.kind = 'article' AND (p.chapter_id, p.seq) {op} (:chapter, :seq)
  AND p.chapter_id BETWEEN (SELECT min(id) FROM chapters WHERE edition_id = :edition)
                       AND (SELECT max(id) FROM chapters WHERE edition_id = :edition)
  AND p.chapter_id IN (SELECT id FROM chapters WHERE edition_id = :edition)
ORDER BY p.chapter_id {order}, p.seq {order} LIMIT 1"""


def _passage_rows(conn, citation: str):
    """What a citation's page shows, read in one go; None if no passage is so cited."""
    found = rows(conn, PASSAGE_SQL + " WHERE p.citation = ?", [citation])
    if not found:
        return None
    p = found[0]
    corrections = rows(conn, "SELECT * FROM corrections WHERE passage_id = ? ORDER BY clean_start", [p["id"]])
    suggestions = rows(conn, "SELECT * FROM suggestions WHERE passage_id = ? ORDER BY start", [p["id"]])
    rules = rows(conn, "SELECT * FROM rules WHERE passage_id = ?", [p["id"]])
    checks = rows(conn, "SELECT * FROM checks WHERE citation = ?", [citation])
    notes = rows(conn, "SELECT citation, text_clean FROM passages WHERE note_for = ?", [citation])
    previous = next_ = None
    if p["kind"] == "article" and p["game"]:
        at = {"game": p["game"], "chapter": p["chapter_id"], "seq": p["seq"], "edition": p["edition_id"]}
        previous, next_ = (next(iter(rows(conn, _NEIGHBOUR_SQL.format(op=op, order=order), at)), {}).get("citation")
                           for op, order in (("<", "DESC"), (">", "ASC")))
    return p, corrections, suggestions, rules[0] if rules else None, checks, notes, previous, next_


async def game(datasette, request):
    slug = request.url_vars["slug"]
    names = await _rows(datasette, "SELECT * FROM games WHERE slug = ?", [slug])
    if not names:
        return _not_found(f"No game {slug!r} in the database", bool(request.url_vars.get("json")))
    passages = await _rows(datasette, PASSAGE_SQL + " WHERE p.game = ? ORDER BY c.edition_id, p.chapter_id, p.seq", [slug])
    for p in passages:
        p["url"] = cite_url(p["citation"])
    context = {"game": names[0], "passages": passages,
               "articles": sum(p["kind"] == "article" for p in passages)}
    return await _page(datasette, request, "academie_game.html", context, bool(request.url_vars.get("json")))


MAX_QUERY_WORDS = 32


def printable(text: str) -> str:
    """The text without control characters (NUL included), each made a space."""
    return "".join(" " if unicodedata.category(c).startswith("C") else c for c in text)


def distinct_words(q: str) -> list[str]:
    """The words of a search: quotes and control characters are not words, and a word
    given twice (case and accents aside, as the index reads them) counts once."""
    words, seen = [], set()
    for w in printable(q).replace('"', " ").split():
        if fold(w) not in seen:
            seen.add(fold(w))
            words.append(w)
    return words


def query_words(q: str) -> list[str]:
    """The words a search looks for: its distinct words, the first MAX_QUERY_WORDS of
    them, so that no text makes a slow search (every word must be found)."""
    return distinct_words(q)[:MAX_QUERY_WORDS]


def fts_query(q: str) -> str:
    """Each word quoted, so that any input is a valid FTS5 query ('l'as', 'qu''il');
    empty when the text has no word."""
    return " ".join('"' + w + '"' for w in query_words(q))


START, END = "\x02", "\x03"
SNIPPET_LAYERS = (("s_clean", "clean"), ("s_raw", "raw OCR"), ("s_folded", "folded text"))


# A passage longer than this (a chapter an export ran on, with no article to part it)
# has its snippet cut here, from its first LONG_READ characters: FTS5's snippet() weighs
# a window at each of the passage's hits, and a 1 MB passage took 1.4 s a search
LONG_PASSAGE = 20_000
LONG_READ = 200_000
SNIPPET_TOKENS = 14

# SQLite cuts the snippets of the best hundred only, after ranking every match (the
# ranking is most of a common word's time on a library: see SEARCH_CACHE)
_SHORT = f"length(p.text_clean) <= {LONG_PASSAGE} AND length(p.text_raw) <= {LONG_PASSAGE}"
SEARCH_SQL = f"""
SELECT p.citation, p.game, g.name AS game_name, p.kind, p.number, p.page, c.edition_id,
       CASE WHEN {_SHORT} THEN snippet(passages_fts, 0, '{START}', '{END}', '…', {SNIPPET_TOKENS}) END AS s_clean,
       CASE WHEN {_SHORT} THEN snippet(passages_fts, 2, '{START}', '{END}', '…', {SNIPPET_TOKENS}) END AS s_raw,
       CASE WHEN {_SHORT} THEN snippet(passages_fts, 1, '{START}', '{END}', '…', {SNIPPET_TOKENS}) END AS s_folded,
       CASE WHEN NOT ({_SHORT}) THEN substr(p.text_clean, 1, {LONG_READ}) END AS long_clean,
       CASE WHEN NOT ({_SHORT}) THEN substr(p.text_raw, 1, {LONG_READ}) END AS long_raw
FROM passages_fts JOIN passages p ON p.rowid = passages_fts.rowid
JOIN chapters c ON c.id = p.chapter_id LEFT JOIN games g ON g.slug = p.game
WHERE passages_fts MATCH :q
  AND (:game = '' OR p.game = :game) AND (:kind = '' OR p.kind = :kind)
  AND (:edition = '' OR c.edition_id = :edition)
ORDER BY rank LIMIT 100"""


# Searches answered lately, kept with their results: the database is immutable, so a
# search asked again (a link followed back, the same word by many readers) is answered
# without ranking its matches again, which takes a common word a tenth of a second on
# a library of ten books. The oldest is forgotten first. What is kept is the search's
# task, so that readers asking the same search at once wait for one ranking, not one each.
SEARCH_CACHE = 256
_searches: OrderedDict[tuple, asyncio.Future] = OrderedDict()


async def _search(datasette, query: str, filters: dict[str, str]) -> tuple[list[dict], Markup]:
    """The hits of an FTS5 ``query`` with the page's filters, as the page shows them, and
    their HTML (shared between requests: not to be changed)."""
    asked = (downloads.database_key(datasette), query, tuple(sorted(filters.items())))
    task = _searches.get(asked)
    if task is None:
        task = _searches[asked] = asyncio.ensure_future(_search_now(datasette, query, filters))
        while len(_searches) > SEARCH_CACHE:
            _searches.popitem(last=False)
    else:
        _searches.move_to_end(asked)
    try:
        return await asyncio.shield(task)  # a reader who leaves does not cancel the others' search
    except Exception:
        if _searches.get(asked) is task:  # a search that failed (over time) is not kept
            del _searches[asked]
        raise


async def _search_now(datasette, query: str, filters: dict[str, str]) -> tuple[list[dict], Markup]:
    results = await _rows(datasette, SEARCH_SQL, {"q": query, **filters})
    for r in results:
        r["url"] = cite_url(r["citation"])
        long_clean, long_raw = r.pop("long_clean"), r.pop("long_raw")
        if long_clean is not None:
            r["s_clean"] = long_snippet(long_clean, query)
            r["s_raw"] = long_snippet(long_raw, query) if START not in r["s_clean"] else None
        # where the words were found, in the order a reader wants to see it
        layer, snip = next(((name, r[key]) for key, name in SNIPPET_LAYERS if START in (r[key] or "")),
                           ("clean", r["s_clean"]))
        for key, _ in SNIPPET_LAYERS:
            r.pop(key)
        r["layer"] = layer
        r["snippet_html"] = _snippet_html(snip)
        r["snippet"] = snip.replace(START, "").replace(END, "")
    return results, Markup(_LISTS.get_template("_academie_results.html").render(results=results))


_TOKEN = re.compile(r"[^\W_]+")  # (what FTS5's unicode61 tokenizer reads as a word: letters and digits)


def long_snippet(text: str, query: str, size: int = SNIPPET_TOKENS) -> str:
    """A snippet as FTS5's snippet() cuts it ('…' for the text left out, the query's
    words between START and END), of ``size`` words from a little before the first of
    them in ``text``; the text's first words if none is there (found in another layer).
    Linear in the text: for passages whose snippet() would take seconds (LONG_PASSAGE)."""
    wanted = {fold_letters(t) for t in _TOKEN.findall(query)}
    folded = fold_letters(text)  # (of the text's length: its offsets are the text's)
    before: list[re.Match] = []
    window: list[re.Match] = []
    for m in _TOKEN.finditer(folded):
        if window:
            window.append(m)
            if len(window) == size:
                break
        elif m.group() in wanted:
            window = before[-3:] + [m]
        else:
            before = before[-2:] + [m]
    if not window:  # (none of its words: the start of the text)
        window = list(itertools.islice(_TOKEN.finditer(folded), size))
    if not window:
        return ""
    out, pos = [], window[0].start()
    for m in window:
        out.append(text[pos : m.start()])
        word = text[m.start() : m.end()]
        out.append(f"{START}{word}{END}" if m.group() in wanted else word)
        pos = m.end()
    body = "".join(out)
    head = "…" if _TOKEN.search(folded, 0, window[0].start()) else ""
    tail = "…" if _TOKEN.search(folded, window[-1].end()) else ""
    return head + body + tail


def _snippet_html(snippet: str) -> Markup:
    return Markup(str(escape(snippet)).replace(START, "<mark>").replace(END, "</mark>"))


async def search(datasette, request):
    q = printable(request.args.get("q") or "").strip()
    filters = {k: request.args.get(k) or "" for k in ("game", "kind", "edition")}
    distinct = distinct_words(q)
    words = distinct[:MAX_QUERY_WORDS]
    results, results_html = [], Markup("")
    error = None
    if len(distinct) > MAX_QUERY_WORDS:
        # cut before it reaches the index: every word must be found, and a search of
        # hundreds would hold a connection the other pages wait for
        error = (f"the search has {len(distinct)} different words; at most {MAX_QUERY_WORDS} are looked for at once: "
                 "keep the words that matter")
        words = []
    if words:
        results, results_html = await _search(datasette, fts_query(q), filters)
    games = await cached(datasette, "games", lambda conn: rows(conn, "SELECT slug, name FROM games ORDER BY name"))
    editions = [{"id": e["id"]} for e in await _editions(datasette)]
    context = {"q": q, "words": words, "error": error, "filters": filters,
               "results": results, "results_html": results_html, "games": games, "editions": editions,
               "kinds": ["article", "paragraph", "section", "heading", "gloss", "footnote"]}
    return await _page(datasette, request, "academie_search.html", context, bool(request.url_vars.get("json")),
                       status=400 if error else 200)
