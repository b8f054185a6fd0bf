"""The review page of `academie serve --edit`: an editor goes through the queue of
``pipeline.proof.review`` one item at a time, in the browser, and decides; each decision
is written into the corpus's ``proofs/`` by the functions ``academie proof`` uses, and
the database is rebuilt in the background and served anew.

- ``GET /review?token=…``   the token printed at start-up: sets the edit cookie (signed
                            with Datasette's secret) and redirects to ``/review``
- ``GET /review[.json]``    the item at position ``n`` of the queue (``?n=2``; 1, the top,
                            by default; ``?chapter=FILE`` for one chapter's): the print,
                            the engine's reading, the fix and its explanation, the clean and
                            raw text around it, the printed page, and the forms
- ``POST /review``          a decision (``action``: accept, reject, set, mark; or rebuild),
                            then a redirect (303) back to the queue

Without ``--edit`` there is no review page (a 404) and every write is a 405, as before.
With it, the server is still bound to 127.0.0.1, and a write is taken only from this
machine, from a page of this server (a browser's Origin), with the edit cookie (a
request without it is a 403 before its body is read) and Datasette's own CSRF token (``asgi-csrf``: the form's ``csrftoken`` must match the
``ds_csrftoken`` cookie, checked again here). The database file served is never
written: it is opened immutable, and a rebuild writes a new file, renamed over the old
path when complete, which is then served as a new database.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import sys
import threading
import time
from dataclasses import asdict, dataclass
from ipaddress import ip_address
from pathlib import Path
from urllib.parse import urlencode

from datasette import Response
from datasette.database import Database
from datasette.utils.asgi import Request
from itsdangerous import BadData
from markupsafe import Markup, escape

from ..decisions import ProofFileError
from ..proof.review import Item, ReviewError, accept, mark, queue, reject, set_item

REVIEW_PATH = "/review"
EDIT_COOKIE = "academie_edit"
SIGNING_NAMESPACE = "academie-edit"
CONTEXT = 240  # characters of text shown either side of the item
PAGE_STATUSES = ("proofread", "problematic")  # what the review page marks a page (validated: a second person's)


@dataclass(frozen=True)
class Edit:
    corpus: Path
    token: str


def edit_settings(datasette) -> Edit | None:
    """The review page's settings, when `academie serve --edit` gave them (plugin
    settings ``edit_corpus`` and ``edit_token``), else None: the site only reads."""
    config = datasette.plugin_config("academie") or {}
    corpus, token = config.get("edit_corpus"), config.get("edit_token")
    if not corpus or not token:
        return None
    return Edit(Path(corpus), str(token))


# -- who may write -------------------------------------------------------------------------------

def _fingerprint(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def edit_cookie(datasette, edit: Edit) -> str:
    """The edit cookie's value: the token's fingerprint, signed with Datasette's secret."""
    return datasette.sign({"t": _fingerprint(edit.token)}, SIGNING_NAMESPACE)


def has_token(datasette, edit: Edit, cookies: dict) -> bool:
    try:
        signed = datasette.unsign(cookies.get(EDIT_COOKIE, ""), SIGNING_NAMESPACE)
    except BadData:
        return False
    return isinstance(signed, dict) and secrets.compare_digest(str(signed.get("t", "")), _fingerprint(edit.token))


def from_this_machine(scope) -> bool:
    client = scope.get("client")
    try:
        return bool(client) and ip_address(client[0]).is_loopback
    except ValueError:
        return False


def same_origin(scope) -> bool:
    """A browser names the page a POST comes from (Origin): it must be one of this
    server's. Cookies are not kept apart by port, so a page served elsewhere on this
    machine could read the CSRF cookie, and would send the edit cookie with its POST; its
    Origin gives it away. A request without Origin is not a browser's form."""
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin")
    if origin is None:
        return True
    host = headers.get(b"host", b"").decode("latin-1")
    return bool(host) and origin.decode("latin-1") in (f"http://{host}", f"https://{host}")


def refuse_write(datasette, scope) -> tuple[int, str] | None:
    """Whether a request that is not a GET or HEAD may reach the review page, before its
    body is read: None if it may (Datasette's CSRF check comes next), else the status
    and why not. Every other write is a 405, as without --edit."""
    edit = edit_settings(datasette)
    if edit is None or scope["method"] != "POST" or scope["path"] != REVIEW_PATH:
        return 405, f"{scope['method']} is not allowed: the reading room only reads"
    if not from_this_machine(scope):
        return 403, "decisions are taken from this machine only"
    if not same_origin(scope):
        return 403, "a decision is taken from the review page only, not from another page (its Origin is not this site)"
    if not has_token(datasette, edit, Request(scope, None).cookies):
        return 403, ("a decision needs the token `academie serve --edit` printed at start-up: open the review page "
                     "with it (/review?token=…)")
    return None


# -- the page ------------------------------------------------------------------------------------

class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


async def review_page(datasette, request):
    from . import _error, _not_found

    as_json = bool(request.url_vars.get("json"))
    edit = edit_settings(datasette)
    if edit is None:
        return _not_found("No review page: `academie serve --edit` serves it", as_json)
    try:
        if not from_this_machine(request.scope):
            raise Refused(403, "the review page is served to this machine only")
        if request.method == "POST":
            return await _decide(datasette, request, edit)
        token = request.args.get("token")
        if token is not None:
            if not secrets.compare_digest(token.encode("utf-8"), edit.token.encode("utf-8")):
                raise Refused(403, "wrong token: open the review page with the URL `academie serve --edit` printed "
                                   "at start-up")
            response = Response.redirect(_review_url(_position(request.args.get("n")), request.args.get("chapter")),
                                         status=303)
            response.set_cookie(EDIT_COOKIE, edit_cookie(datasette, edit), httponly=True, samesite="strict")
            return response
        if not has_token(datasette, edit, request.cookies):
            raise Refused(403, "the review page needs the token `academie serve --edit` printed at start-up: open "
                               "the URL it gave (/review?token=…)")
        n = _position(request.args.get("n"), strict=True)
        return await _show(datasette, request, edit, n, request.args.get("chapter") or None, as_json)
    except Refused as exc:
        print(f"{request.method} {request.path}: {exc.status} {exc}", file=sys.stderr, flush=True)
        return _error(str(exc), exc.status, as_json)


MAX_POSITION = 10**6


def _position(value: str | None, strict: bool = False) -> int:
    """The position in the queue a request asks for: 1 by default."""
    if value is None or value == "":
        return 1
    if value.isascii() and value.isdigit() and 1 <= int(value) <= MAX_POSITION:
        return int(value)
    if strict:
        raise Refused(400, f"n is the position of an item in the queue (1, 2, 3…), not {value[:40]!r}")
    return 1


def _review_url(n: int = 1, chapter: str | None = None) -> str:
    query = {**({"n": n} if n > 1 else {}), **({"chapter": chapter} if chapter else {})}
    return REVIEW_PATH + (f"?{urlencode(query)}" if query else "")


async def _show(datasette, request, edit: Edit, n: int, chapter: str | None, as_json: bool):
    from . import _page, explain_fix, _explanations

    db = datasette.get_database()
    try:
        found = await db.execute_fn(lambda conn: _context(conn, edit.corpus, n, chapter))
    except ProofFileError as exc:  # a line of a proof file edited by hand that is no decision
        raise Refused(409, f"{exc}: the queue cannot be read until the line is mended") from None
    rebuild = rebuild_of(datasette, edit)
    context = {"n": n, "chapter": chapter, **found, "rebuild": rebuild.status()}
    item = found["item"]
    if item is not None:
        explain = await _explanations(datasette)
        context["explanation"] = explain_fix(item["fix"], explain)
        context["skip_url"] = _review_url(n + 1 if n < found["total"] else 1, chapter)
        context["previous_url"] = _review_url(n - 1, chapter) if n > 1 else None
        for side in ("clean", "raw"):
            part = found[side]
            context[f"{side}_html"] = (escape(part["before"])
                                       + Markup('<mark class="item" id="item-{}">{}</mark>').format(
                                           side, part["item"] or "‸")
                                       + escape(part["after"]))
    return await _page(datasette, request, "academie_review.html", context, as_json)


def _context(conn, corpus: Path, n: int, chapter: str | None) -> dict:
    """The item at position n of the queue, with its passage's text around it and the
    printed page it is on (read in one of Datasette's threads)."""
    items = queue(conn, corpus, chapter, limit=None)
    out = {"total": len(items), "item": None}
    if n > len(items):
        return out
    item = items[n - 1]
    p = conn.execute("SELECT p.id, p.citation, p.text_raw, p.text_clean, p.raw_start, p.chapter_id FROM passages p "
                     "WHERE p.citation = ?", (item.citation,)).fetchone()
    corrections = conn.execute('SELECT start, "end", clean_start, clean_end FROM corrections WHERE passage_id = ? '
                               "ORDER BY start, clean_start", (p["id"],)).fetchall()
    a, b = clean_span(corrections, p["raw_start"], item)
    page = conn.execute("SELECT number FROM pages WHERE chapter_id = ? AND raw_start <= ? ORDER BY raw_start DESC "
                        "LIMIT 1", (p["chapter_id"], item.start)).fetchone()
    out.update({
        "item": asdict(item),
        "chapter_id": p["chapter_id"],
        "page": page[0] if page else None,  # the printed page the word is on
        "clean": window(p["text_clean"], a, b),
        "raw": window(p["text_raw"], item.start - p["raw_start"], item.end - p["raw_start"]),
    })
    return out


def clean_span(corrections, raw_start: int, item: Item) -> tuple[int, int]:
    """Where the item is in its passage's clean text: the span its correction wrote (a
    fix), or the printed word, each end moved by the corrections before it (a
    suggestion; a word hyphenated across a page break has the join inside it)."""
    for start, end, clean_start, clean_end in corrections:
        if (start, end) == (item.start, item.end):
            return clean_start, clean_end

    def moved(x: int, insertions_at_x: bool) -> int:
        return x - raw_start + sum((ce - cs) - (end - start) for start, end, cs, ce in corrections
                                   if end < x or end == x and (start < x or insertions_at_x))

    return moved(item.start, True), moved(item.end, False)


def window(text: str, a: int, b: int, width: int = CONTEXT) -> dict:
    """text[a:b] with up to ``width`` characters either side, cut at a space; '…' where
    the text goes on."""
    lo, hi = max(0, a - width), min(len(text), b + width)
    if lo > 0:
        space = text.find(" ", lo, a)
        lo = space + 1 if space >= 0 else lo
    if hi < len(text):
        space = text.rfind(" ", b, hi)
        hi = space if space >= 0 else hi
    return {"before": ("…" if lo > 0 else "") + text[lo:a], "item": text[a:b],
            "after": text[b:hi] + ("…" if hi < len(text) else "")}


# -- decisions -----------------------------------------------------------------------------------

ACTIONS = ("accept", "reject", "set", "mark", "rebuild")


async def _decide(datasette, request, edit: Edit):
    if not has_token(datasette, edit, request.cookies):  # the ASGI wrapper refused it already; and here
        raise Refused(403, "a decision needs the token `academie serve --edit` printed at start-up")
    form = await request.post_vars()
    # asgi-csrf has compared the form's token with the ds_csrftoken cookie; it lets a
    # request through without that check in cases (no cookie at all, an Authorization
    # header) that a decision never is: compared again here
    if not secrets.compare_digest(form.get("csrftoken", "").encode("utf-8"),
                                  request.scope["csrftoken"]().encode("utf-8")):
        raise Refused(403, "a decision needs the form's CSRF token (csrftoken): decide from the review page")
    action = form.get("action", "")
    if action not in ACTIONS:
        raise Refused(400, f"unknown action {action[:40]!r}: one of {', '.join(ACTIONS)}")
    back = _review_url(_position(form.get("n")), form.get("chapter") or None)
    rebuild = rebuild_of(datasette, edit)
    if action == "rebuild":
        rebuild.request()
        datasette.add_message(request, "rebuilding the database", datasette.INFO)
        return Response.redirect(back, status=303)
    item, corpus = form.get("item", ""), edit.corpus
    if action == "accept":
        def run(conn):
            return accept(conn, corpus, item)
    elif action == "reject":
        def run(conn):
            return reject(conn, corpus, item)
    elif action == "set":
        reading = form.get("reading", "")

        def run(conn):
            return set_item(conn, corpus, item, reading)
    else:
        status, target, chapter_file = form.get("status", ""), form.get("target", ""), form.get("chapter_file") or None
        if status not in PAGE_STATUSES:
            raise Refused(400, f"unknown status {status[:40]!r}: the review page marks {' or '.join(PAGE_STATUSES)}")

        def run(conn):
            return mark(conn, corpus, target, status, chapter_file)
    try:
        path, d = await datasette.get_database().execute_fn(run)
    except (ReviewError, ProofFileError) as exc:
        datasette.add_message(request, f"nothing written: {exc}", datasette.ERROR)
        return Response.redirect(back, status=303)
    where = f"{corpus.name}/proofs/{path.name}"
    print(f"POST {REVIEW_PATH}: {where}: {d.describe()} [{d.id}]", file=sys.stderr, flush=True)
    rebuild.decided()
    datasette.add_message(request, f"{where}: {d.describe()} [{d.id}]", datasette.INFO)
    return Response.redirect(back, status=303)


# -- the rebuild ---------------------------------------------------------------------------------

class ServedDatabase(Database):
    """An immutable database whose threads keep connections of its own.

    Datasette 0.65 keeps each thread's connection under the database's name
    (``datasette.database.connections``), so a database replaced under the same name
    would still be read through the old file's connections (datasette#2465, fixed after
    0.65): this one keeps them under itself."""

    def __init__(self, ds, path: str):
        super().__init__(ds, path=path, is_mutable=False)
        self._local = threading.local()

    async def execute_fn(self, fn):
        if self.ds.executor is None:
            return await super().execute_fn(fn)

        def in_thread():
            conn = getattr(self._local, "conn", None)
            if conn is None:
                conn = self.connect()
                self.ds._prepare_connection(conn, self.name)
                self._local.conn = conn
            return fn(conn)

        return await asyncio.get_running_loop().run_in_executor(self.ds.executor, in_thread)


def serve_anew(datasette, name: str) -> Database:
    """Serve the file at the database's path as it is now, under the same name: the
    old database is removed and the new one added in one step of the event loop, so no
    request finds neither."""
    old = datasette.databases[name]
    new = ServedDatabase(datasette, old.path)
    datasette.remove_database(name)
    return datasette.add_database(new, name=name, route=old.route)


def build_command(corpus: Path, db: Path) -> list[str]:
    """The real build, in a process of its own (the server never loads the pipeline's
    models), into the database's path: a temporary file renamed when complete."""
    return [sys.executable, "-m", "pipeline.cli", "build", "--corpus", str(corpus), "--db", str(db), "--quiet"]


class Rebuild:
    """The database rebuilt after decisions: one build at a time; a decision taken during
    a build brings another after it. Until a build that has a decision lands, the pages
    say it is pending."""

    def __init__(self, datasette, corpus: Path):
        self.ds = datasette
        self.corpus = corpus
        self.pending = 0  # decisions written that the database served does not have yet
        self.running = False
        self.again = False
        self.error: str | None = None
        self.seconds: float | None = None  # how long the last build took
        self.summary: str | None = None  # its last line
        self.task: asyncio.Task | None = None

    def decided(self) -> None:
        self.pending += 1
        self.request()

    def request(self) -> None:
        if self.running:
            self.again = True
        else:
            self.running = True
            self.start()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            again = True
            while again:
                self.again = False
                taken = self.pending
                if await self._build():
                    self.pending -= taken
                again = self.again
        except Exception as exc:  # noqa: BLE001 - the server goes on; the pages say it
            self.error = f"{type(exc).__name__}: {exc}"
            print(f"rebuild: {self.error}", file=sys.stderr, flush=True)
        finally:
            self.running = False

    async def _build(self) -> bool:
        db = self.ds.get_database()
        path = Path(db.path)
        before = _stamp(path)
        t0 = time.monotonic()
        proc = await asyncio.create_subprocess_exec(*build_command(self.corpus, path), stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
        self.seconds = round(time.monotonic() - t0, 1)
        lines = [line for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
        errors = [line for line in lines if ": error: " in line or line.startswith("error: ")]
        if _stamp(path) == before:
            self.error = "; ".join(errors) or (lines[-1] if lines else f"the build exited with {proc.returncode}")
            print(f"rebuild: {path} not written after {self.seconds:.1f} s: {self.error}", file=sys.stderr, flush=True)
            return False
        serve_anew(self.ds, db.name)
        # written: a chapter that could not be read is in the summary's count of errors
        self.error = None
        self.summary = lines[-1] if lines else ""
        print(f"rebuild: {path} rebuilt in {self.seconds:.1f} s and served: {self.summary}", file=sys.stderr,
              flush=True)
        return True

    def status(self) -> dict:
        return {"pending": self.pending, "running": self.running, "error": self.error, "seconds": self.seconds,
                "summary": self.summary, "note": self.note()}

    def note(self) -> str | None:
        """What the pages say while the text shown lacks decisions, or a rebuild failed."""
        parts = []
        if self.pending:
            parts.append(f"{self.pending} decision{'' if self.pending == 1 else 's'} pending a rebuild"
                         + (" (rebuilding now)" if self.running else ""))
        if self.error:
            parts.append(f"the last rebuild failed: {self.error}")
        return "; ".join(parts) or None


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def rebuild_of(datasette, edit: Edit) -> Rebuild:
    rebuild = getattr(datasette, "_academie_rebuild", None)
    if rebuild is None:
        rebuild = datasette._academie_rebuild = Rebuild(datasette, edit.corpus)
    return rebuild


def edit_bar(datasette) -> dict | None:
    """What every page of the reading room shows under --edit: the way to the review
    page, and whether the text shown lacks decisions."""
    edit = edit_settings(datasette)
    if edit is None:
        return None
    return {"review": REVIEW_PATH, "note": rebuild_of(datasette, edit).note()}
