"""The review page of `academie serve --edit`: the proofreading queue decided in the
browser, each decision written into the corpus's proofs/ by the functions `academie
proof` uses, the database rebuilt and served anew, and nothing written without the
token and Datasette's CSRF token.

In-process first (tests.helpers.ReadingRoom with the edit settings `serve --edit`
passes; the rebuild, a process, is only recorded there): the page, the decisions, the
refusals, the swap of the served database. Then, marked slow, the real thing: `academie
serve --edit` in Chromium with the keyboard, two writers at once over HTTP, a server
killed in the middle of a write. Every test works on a copy of the corpus in tmp_path.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import signal
import sqlite3
import threading
import time
import urllib.parse
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from itsdangerous import URLSafeSerializer
from markupsafe import escape

from pipeline.build import build
from pipeline.decisions import load, proof_file
from pipeline.proof.review import accept, mark, queue, reject
from pipeline.web.review import SIGNING_NAMESPACE, Rebuild, _fingerprint, clean_span, serve_anew
from tests.helpers import CORPUS, ROOT, SHOTS, ReadingRoom, chromium, serving, serving_process

TOKEN = "t0ken-for-the-tests-" + "k" * 12


def escape_(text: str) -> str:
    """As the pages escape text (markupsafe: &#39; for ')."""
    return str(escape(text))


def copy_corpus(dest: Path) -> Path:
    shutil.copytree(CORPUS, dest, ignore=shutil.ignore_patterns("__pycache__", "proofs"))
    return dest


class Editor:
    """One browser's worth of cookies against the in-process reading room."""

    def __init__(self, room: ReadingRoom):
        self.room = room
        self.cookies: dict[str, str] = {}

    def _keep(self, r):
        # as a browser does: a cookie set is kept, one set empty to expire is dropped
        for header in r.headers.get_list("set-cookie"):
            name, _, value = header.split(";", 1)[0].partition("=")
            if value.strip('"'):
                self.cookies[name] = value
            else:
                self.cookies.pop(name, None)
        return r

    def get(self, path: str, **kw):
        return self._keep(self.room.get(path, cookies=self.cookies, **kw))

    def post(self, data: dict, path: str = "/review", **kw):
        return self._keep(self.room.post(path, data=data, cookies=self.cookies, **kw))

    def login(self) -> Editor:
        r = self.get(f"/review?token={TOKEN}")
        assert (r.status_code, r.headers["location"]) == (303, "/review")
        return self

    def csrftoken(self) -> str:
        page = self.get("/review").text
        token = re.search(r'name="csrftoken" value="([^"]+)"', page).group(1)
        assert token == self.cookies["ds_csrftoken"]  # the form's token is the cookie's (asgi-csrf)
        return token

    def decide(self, action: str, item: str, **fields):
        return self.post({"csrftoken": self.csrftoken(), "action": action, "item": item, "n": "1", **fields})

    def messages(self) -> list[str]:
        return [html.unescape(m) for m in re.findall(r'<p class="message-\w+">(.*?)</p>', self.get("/review").text)]


@pytest.fixture(scope="module")
def edit_room(built_db, tmp_path_factory):
    """The reading room with `serve --edit`'s settings on the corpus's database, a copy of
    the corpus beside it."""
    corpus = copy_corpus(tmp_path_factory.mktemp("edit") / "corpus")
    room = ReadingRoom(built_db, plugin={"edit_corpus": str(corpus), "edit_token": TOKEN})
    yield room, corpus
    room.close()


@pytest.fixture()
def editing(edit_room):
    """The edit room as a test finds it: no decision yet, no rebuild pending. The rebuild
    (a process of its own, tested slow below) is recorded, not run: ``started`` gets the
    number of decisions pending each time one is started."""
    room, corpus = edit_room
    shutil.rmtree(corpus / "proofs", ignore_errors=True)
    started: list[int] = []
    rebuild = room.ds._academie_rebuild = Rebuild(room.ds, corpus)
    rebuild.start = lambda: started.append(rebuild.pending)
    return room, corpus, started


def decisions_in(corpus: Path) -> list:
    folder = corpus / "proofs"
    return [d for path in sorted(folder.glob("*.jsonl")) for d in load(path)] if folder.exists() else []


# -- the page --------------------------------------------------------------------------------------

def test_the_page_shows_the_top_item_in_its_text_with_its_printed_page_and_fix(editing, db):
    room, corpus, _ = editing
    ed = Editor(room).login()
    items = queue(db, corpus, limit=None)
    top = items[0]
    data = ed.get("/review.json").json()
    assert data["item"] == asdict(top)
    assert (data["n"], data["total"], data["skip_url"], data["previous_url"]) == (1, len(items), "/review?n=2", None)
    # the printed page the word is on: the last page of its chapter starting before it
    pages = db.execute("SELECT g.raw_start, g.number FROM pages g JOIN chapters c ON c.id = g.chapter_id "
                       "WHERE c.source_file = ? ORDER BY g.raw_start", (top.source_file,)).fetchall()
    assert data["page"] == [number for start, number in pages if start <= top.start][-1]
    p = db.execute("SELECT text_raw, text_clean, raw_start FROM passages WHERE citation = ?", (top.citation,)).fetchone()
    raw, clean = data["raw"], data["clean"]
    assert raw["item"] == top.before and clean["item"] == (top.after if top.kind == "fix" else top.before)
    # the text around it is the passage's, where the item is
    shown = raw["before"].removeprefix("…") + raw["item"] + raw["after"].removesuffix("…")
    assert p["text_raw"].find(shown) + len(raw["before"].removeprefix("…")) == top.start - p["raw_start"]
    assert clean["before"].removeprefix("…") + clean["item"] + clean["after"].removesuffix("…") in p["text_clean"]
    explanations = dict(db.execute("SELECT name, explanation FROM fixes").fetchall())
    assert data["explanation"] == "; then ".join(explanations[name] for name in top.fix.split("+"))

    page = ed.get("/review").text
    assert f'<h2 id="item" data-item="{top.id}">' in page
    assert f'<mark class="item" id="item-raw">{escape_(top.before)}</mark>' in page
    for form in ("form-accept", "form-reject", "form-set", "form-mark-proofread", "form-mark-problematic"):
        assert f'<form method="post" action="/review" id="{form}">' in page
    assert f'<input type="hidden" name="target" value="page {data["page"]}">' in page
    assert '<a href="/review?n=2" id="skip"><kbd>s</kbd> Skip</a>' in page
    assert decisions_in(corpus) == []  # reading the page writes nothing


def test_every_item_of_the_queue_is_found_in_the_clean_text(db, tmp_path):
    """Where the page marks an item in the reading text: what the engine wrote (a fix),
    or the word as printed (a suggestion), for the whole queue."""
    items = queue(db, tmp_path, limit=None)
    assert len(items) > 100
    for item in items:
        pid, raw_start, text = db.execute("SELECT id, raw_start, text_clean FROM passages WHERE citation = ?",
                                          (item.citation,)).fetchone()
        corrections = db.execute('SELECT start, "end", clean_start, clean_end FROM corrections WHERE passage_id = ? '
                                 "ORDER BY start, clean_start", (pid,)).fetchall()
        a, b = clean_span(corrections, raw_start, item)
        assert text[a:b] == (item.after if item.kind == "fix" else item.before), item.id


def test_skip_goes_down_the_queue_and_writes_nothing(editing, db):
    room, corpus, started = editing
    ed = Editor(room).login()
    items = queue(db, corpus, limit=None)
    assert ed.get("/review.json?n=2").json()["item"]["id"] == items[1].id
    last = ed.get(f"/review.json?n={len(items)}").json()
    assert (last["item"]["id"], last["skip_url"], last["previous_url"]) == (items[-1].id, "/review", f"/review?n={len(items) - 1}")
    beyond = ed.get(f"/review?n={len(items) + 1}")
    assert beyond.status_code == 200 and f"No item {len(items) + 1}: the queue has {len(items)}." in beyond.text
    bad = ed.get("/review.json?n=0")
    assert (bad.status_code, bad.json()["error"]) == (400, "n is the position of an item in the queue (1, 2, 3…), not '0'")
    chapter = "002_88808cca03487927.txt"
    assert ed.get(f"/review.json?chapter={chapter}").json()["item"]["id"] == queue(db, corpus, chapter, limit=1)[0].id
    assert decisions_in(corpus) == [] and started == []


# -- decisions -------------------------------------------------------------------------------------

def test_each_action_writes_its_decision_and_brings_one_rebuild(editing, db):
    room, corpus, started = editing
    ed = Editor(room).login()
    items = queue(db, corpus, limit=None)
    top = items[0]
    r = ed.decide("reject", top.id)
    assert (r.status_code, r.headers["location"]) == (303, "/review")
    [d] = load(proof_file(corpus, top.source_file))
    assert (d.action, d.file, d.start, d.end, d.text, d.fix, d.target) == (
        "reject", top.source_file, top.start, top.end, top.before, top.fix, top.citation)
    assert ed.messages() == [f"corpus/proofs/{Path(top.source_file).stem}.jsonl: {d.describe()} [{d.id}]"]
    # one rebuild started, for one decision; the pages say it is pending
    assert started == [1]
    assert ed.get("/review.json").json()["rebuild"]["note"] == "1 decision pending a rebuild (rebuilding now)"
    assert ('<span class="pending" id="pending" role="status">1 decision pending a rebuild (rebuilding now)</span>'
            in ed.get("/cite/aduj:whist.13").text)
    # decided, the item leaves the queue
    assert ed.get("/review.json").json()["item"]["id"] != top.id

    fix = next(i for i in queue(db, corpus, limit=None) if i.kind == "fix")
    suggestion = next(i for i in queue(db, corpus, limit=None) if i.kind == "suggestion")
    ed.decide("accept", fix.id)
    ed.decide("accept", suggestion.id)  # taking a suggestion is setting its reading
    typed = next(i for i in queue(db, corpus, limit=None) if i.source_file == "002_88808cca03487927.txt")
    ed.decide("set", typed.id, reading="quelque chose")
    ed.post({"csrftoken": ed.csrftoken(), "action": "mark", "n": "3", "target": "page 407",
             "chapter_file": "002_88808cca03487927.txt", "status": "problematic"})
    got = [(d.action, d.file, d.start, d.end, d.reading, d.fix, d.status, d.target) for d in decisions_in(corpus)
           if d.id != load(proof_file(corpus, top.source_file))[0].id]
    page_407 = db.execute("SELECT g.raw_start, g.head_end FROM pages g JOIN chapters c ON c.id = g.chapter_id "
                          "WHERE c.source_file = '002_88808cca03487927.txt' AND g.number = 407").fetchone()
    expected = [("accept", fix.source_file, fix.start, fix.end, fix.after, fix.fix, None, fix.citation),
                ("set", suggestion.source_file, suggestion.start, suggestion.end, suggestion.after, suggestion.fix,
                 None, suggestion.citation),
                ("set", typed.source_file, typed.start, typed.end, "quelque chose", typed.fix, None, typed.citation),
                ("mark", "002_88808cca03487927.txt", page_407[0], page_407[1], None, None, "problematic", "page 407")]
    assert sorted(got, key=str) == sorted(expected, key=str)
    # one rebuild at a time: the decisions taken while it runs wait for the next
    assert started == [1]
    assert ed.get("/review.json").json()["rebuild"]["pending"] == 5


@pytest.mark.parametrize("fields, message", [
    ({"action": "set", "reading": "   "}, "nothing written: no reading typed: type what the page prints, or accept or "
                                         "reject the engine's reading"),
    ({"action": "set", "reading": "deux\nlignes"}, "nothing written: 'deux\\nlignes' has a control character (a line "
                                                   "break, a tab…): type the words as printed, on one line"),
    ({"action": "accept", "item": "aduj:whist.13@1"}, "nothing written: no fix or suggestion aduj:whist.13@1 to decide "
                                                      "(already decided, or not in the database: 'academie proof queue' "
                                                      "lists them)"),
    ({"action": "mark", "target": "page 9999", "status": "proofread"}, "nothing written: no page 9999 in the database"),
])
def test_a_decision_that_names_nothing_writes_nothing_and_says_why(editing, db, fields, message):
    room, corpus, started = editing
    ed = Editor(room).login()
    top = queue(db, corpus, limit=1)[0]
    r = ed.post({"csrftoken": ed.csrftoken(), "item": top.id, **fields})
    assert (r.status_code, r.headers["location"]) == (303, "/review")
    assert ed.messages() == [message]
    assert decisions_in(corpus) == [] and started == []


@pytest.mark.parametrize("fields, status, error", [
    ({"action": "delete"}, 400, "unknown action 'delete': one of accept, reject, set, mark, rebuild"),
    ({"action": "mark", "status": "validated", "target": "page 407"}, 400,
     "unknown status 'validated': the review page marks proofread or problematic"),
])
def test_an_unknown_action_or_status_is_a_400(editing, fields, status, error):
    room, corpus, started = editing
    ed = Editor(room).login()
    r = ed.post({"csrftoken": ed.csrftoken(), **fields})
    assert (r.status_code, r.text) == (status, escape_(error))
    assert decisions_in(corpus) == [] and started == []


# -- who may write ---------------------------------------------------------------------------------

def _forged(secret: str, token: str) -> str:
    return URLSafeSerializer(secret, SIGNING_NAMESPACE).dumps({"t": _fingerprint(token)})


NO_TOKEN = "a decision needs the token `academie serve --edit` printed at start-up: open the review page with it " \
           "(/review?token=…)"


@pytest.mark.parametrize("case", ["no cookie at all", "no edit cookie", "edit cookie of another token",
                                  "edit cookie of another secret", "edit cookie garbled", "no CSRF token",
                                  "wrong CSRF token", "CSRF token of another cookie", "Authorization header, no CSRF",
                                  "from another page"])
def test_a_write_without_the_token_or_the_csrf_token_is_a_403_and_writes_nothing(editing, db, case):
    room, corpus, started = editing
    ed = Editor(room).login()
    csrf = ed.csrftoken()
    item = queue(db, corpus, limit=1)[0].id
    form = {"csrftoken": csrf, "action": "reject", "item": item}
    cookies, headers = dict(ed.cookies), {}
    if case == "no cookie at all":
        cookies = {}
    elif case == "no edit cookie":
        del cookies["academie_edit"]
    elif case == "edit cookie of another token":
        cookies["academie_edit"] = room.ds.sign({"t": _fingerprint("another-token-of-32-characters..")},
                                                SIGNING_NAMESPACE)
    elif case == "edit cookie of another secret":
        cookies["academie_edit"] = _forged("another secret", TOKEN)
    elif case == "edit cookie garbled":
        cookies["academie_edit"] = cookies["academie_edit"][:-3] + "xyz"
    elif case == "no CSRF token":
        del form["csrftoken"]
    elif case == "wrong CSRF token":
        form["csrftoken"] = csrf[:-3] + "xyz"
    elif case == "CSRF token of another cookie":
        other = Editor(room).login()
        form["csrftoken"] = other.csrftoken()
    elif case == "Authorization header, no CSRF":  # asgi-csrf lets these through: the page does not
        del form["csrftoken"]
        headers["Authorization"] = "Bearer anything"
    elif case == "from another page":  # a page served elsewhere on this machine sends the cookies
        headers["Origin"] = "http://127.0.0.1:9999"
    r = room.post("/review", data=form, cookies=cookies, headers=headers)
    assert r.status_code == 403, r.text
    expected = {
        "no cookie at all": NO_TOKEN, "no edit cookie": NO_TOKEN, "edit cookie of another token": NO_TOKEN,
        "edit cookie of another secret": NO_TOKEN, "edit cookie garbled": NO_TOKEN,
        "no CSRF token": "form-urlencoded POST field did not match cookie",
        "wrong CSRF token": "form-urlencoded POST field did not match cookie",
        "CSRF token of another cookie": "form-urlencoded POST field did not match cookie",
        "Authorization header, no CSRF": escape_("a decision needs the form's CSRF token (csrftoken): decide from "
                                                     "the review page"),
        "from another page": "a decision is taken from the review page only, not from another page (its Origin is not "
                             "this site)",
    }[case]
    assert expected in (r.json()["error"] if r.headers["content-type"].startswith("application/json") else r.text)
    assert decisions_in(corpus) == [] and started == []


def test_the_review_page_needs_the_token_to_be_read_too(editing):
    room, corpus, _ = editing
    r = room.get("/review")
    assert (r.status_code, r.text) == (403, "the review page needs the token `academie serve --edit` printed at "
                                             "start-up: open the URL it gave (/review?token=…)")
    r = room.get("/review?token=not-the-token")
    assert (r.status_code, "academie_edit" in r.cookies) == (403, False)
    assert r.text == "wrong token: open the review page with the URL `academie serve --edit` printed at start-up"
    assert room.get("/review.json").json() == {
        "ok": False, "status": 403, "error": "the review page needs the token `academie serve --edit` printed at "
                                            "start-up: open the URL it gave (/review?token=…)"}
    r = room.get(f"/review?token={TOKEN}&n=3")
    assert (r.status_code, r.headers["location"]) == (303, "/review?n=3")
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("academie_edit=") and "HttpOnly" in cookie and "SameSite=strict" in cookie


def test_the_review_page_is_for_this_machine_only(editing, db):
    room, corpus, started = editing
    ed = Editor(room).login()
    form = {"csrftoken": ed.csrftoken(), "action": "reject", "item": queue(db, corpus, limit=1)[0].id}

    async def from_elsewhere():
        transport = httpx.ASGITransport(app=room.ds.app(), client=("192.0.2.7", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost", cookies=ed.cookies) as client:
            return await client.get(f"/review?token={TOKEN}"), await client.post("/review", data=form)

    page, write = room.loop.run_until_complete(from_elsewhere())
    assert (page.status_code, page.text) == (403, "the review page is served to this machine only")
    assert (write.status_code, write.json()["error"]) == (403, "decisions are taken from this machine only")
    assert decisions_in(corpus) == [] and started == []


def test_without_edit_there_is_no_review_page_and_every_write_is_a_405(room):
    r = room.get(f"/review?token={TOKEN}")
    assert (r.status_code, r.text) == (404, "No review page: `academie serve --edit` serves it")
    r = room.post("/review", data={"action": "reject", "item": "aduj:whist.13@4886"})
    assert (r.status_code, r.headers["allow"], r.json()) == (405, "GET, HEAD", {
        "ok": False, "status": 405, "error": "POST is not allowed: the reading room only reads"})
    assert 'id="edit-bar"' not in room.get("/").text


# -- the rebuild and the served database -----------------------------------------------------------

def test_one_rebuild_at_a_time_and_decisions_taken_meanwhile_bring_one_more():
    async def scenario():
        r = Rebuild(datasette=None, corpus=Path("corpus"))
        gate, builds = asyncio.Event(), []

        async def build_once():  # the build process, stood in for: each waits for the gate
            builds.append(r.pending)
            await gate.wait()
            gate.clear()
            return True

        r._build = build_once
        r.decided()
        await asyncio.sleep(0)
        assert (builds, r.note()) == ([1], "1 decision pending a rebuild (rebuilding now)")
        r.decided()
        r.decided()
        await asyncio.sleep(0)
        assert (builds, r.note()) == ([1], "3 decisions pending a rebuild (rebuilding now)")
        gate.set()
        for _ in range(5):
            await asyncio.sleep(0)
        assert (builds, r.note()) == ([1, 2], "2 decisions pending a rebuild (rebuilding now)")
        gate.set()
        await r.task
        assert (builds, r.pending, r.running, r.note()) == ([1, 2], 0, False, None)

        async def fails():
            r.error = "001.txt: error: binary file"
            return False

        r._build = fails
        r.decided()
        await r.task
        assert r.note() == "1 decision pending a rebuild; the last rebuild failed: 001.txt: error: binary file"

    asyncio.run(scenario())


def test_a_rebuilt_database_is_served_anew_under_its_name(built_db, tmp_path):
    served = tmp_path / "academie.db"
    shutil.copy(built_db, served)
    room = ReadingRoom(served)

    async def texts():
        # enough requests at once for every one of Datasette's threads to open a connection
        answers = await asyncio.gather(*[room.ds.client.get("/cite/aduj:whist.13.json") for _ in range(12)])
        return {a.json()["p"]["text_clean"][:20] for a in answers}

    try:
        assert room.loop.run_until_complete(texts()) == {"13. Personne ne doit"}
        newer = tmp_path / "newer.db"
        shutil.copy(served, newer)
        with sqlite3.connect(newer) as conn:
            conn.execute("UPDATE passages SET text_clean = '13. Rebuilt, and served' WHERE citation = 'aduj:whist.13'")
        newer.replace(served)  # as a build does: a new file renamed over the path
        serve_anew(room.ds, "academie")
        assert room.loop.run_until_complete(texts()) == {"13. Rebuilt, and ser"}
        [db] = room.get("/-/databases.json").json()
        assert (db["name"], db["path"], db["is_mutable"]) == ("academie", str(served), False)
    finally:
        room.close()


# -- the words an editor checked ------------------------------------------------------------------

CHAPTER = """‹ Nouvelle académie des jeux Chapitre 3 sur 40 · BOS · texte numérisé non relu

BOS 41

1. Celui qui donne mal doit pajer une fiche à chaque joueur, et mêle de nouveau.

2. Le joueur qui renonce paye le douLle de la mise, et perd la partie.

BOS 42

3. On ne peut plus revenir sur la donne lorsque la première carie est jouée.
"""


def test_the_words_an_editor_checked_are_marked_in_the_chapter_and_on_the_citation_page(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "boston.txt").write_text(CHAPTER, encoding="utf-8")
    db = tmp_path / "a.db"
    assert build(corpus, db).published
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    items = {i.before: i for i in queue(conn, corpus, limit=None)}
    reject(conn, corpus, items["carie"].id)
    accept(conn, corpus, items["douLle"].id)
    mark(conn, corpus, "page 42", "proofread")
    conn.close()
    assert build(corpus, db).published
    room = ReadingRoom(db)
    try:
        cite = room.get("/cite/unknown:ch3.3").text
        assert re.search(r'<mark class="fix checked" tabindex="0" title="checked by an editor · OCR: &#39;carie&#39; · '
                         r'clean.real_word\+proof.reject \(1.00\): [^"]+" data-raw="carie">carie</mark>', cite)
        assert ('<tr class="checked" title="checked by an editor"><td><code>carie</code></td><td><code>carie</code>'
                in cite)
        chapter = room.get("/chapter/1").text
        assert re.search(r'<mark class="fix checked" [^>]*data-raw="douLle">double</mark>', chapter)
        # what no one checked stays the engine's
        assert re.search(r'<mark class="fix" tabindex="0" title="OCR: &#39;pajer&#39; [^>]*>payer</mark>', chapter)
        assert '<span>p. 42 <em class="status proofread">proofread</em></span>' in chapter
        assert "<span>p. 41</span>" in chapter
    finally:
        room.close()


# -- the real thing: `academie serve --edit` -----------------------------------------------------

@pytest.fixture()
def workspace(built_db, tmp_path):
    """A copy of the corpus, and of the database built from it, to serve and edit."""
    corpus = copy_corpus(tmp_path / "corpus")
    db = tmp_path / "academie.db"
    shutil.copy(built_db, db)
    return corpus, db


def login(base: str) -> tuple[httpx.Client, str]:
    """An HTTP client with the edit cookie and the CSRF token of the review page."""
    client = httpx.Client(base_url=base, timeout=60)
    r = client.get(f"/review?token={TOKEN}")
    assert (r.status_code, r.headers["location"]) == (303, "/review")
    page = client.get("/review").text
    return client, re.search(r'name="csrftoken" value="([^"]+)"', page).group(1)


@pytest.mark.slow  # processes
def test_serve_edit_prints_the_review_page_with_its_token_and_never_serves_the_token(workspace, tmp_path):
    corpus, db = workspace
    log = tmp_path / "serve.log"
    with serving(db, log, "--edit", "--corpus", str(corpus), "--token", TOKEN) as base:
        port = base.rsplit(":", 1)[1]
        assert log.read_text(encoding="utf-8").splitlines()[:2] == [
            f"The reading room: http://127.0.0.1:{port}/  (the tables: http://127.0.0.1:{port}/academie)",
            f"The review page: http://127.0.0.1:{port}/review?token={TOKEN}  (decisions go into {corpus}/proofs/; "
            "every write needs this token)"]
        for path in ("/-/metadata.json", "/-/settings.json", "/-/plugins.json", "/review", "/", "/academie.json"):
            assert TOKEN not in httpx.get(base + path).text, path
        assert httpx.get(base + "/review").status_code == 403
        r = httpx.post(base + "/review", data={"action": "reject", "item": "x"})
        assert r.status_code == 403 and decisions_in(corpus) == []
    # without --token: a random one, every start
    with serving(db, log, "--edit", "--corpus", str(corpus), env={"ACADEMIE_TOKEN": ""}) as base:
        token = re.search(r"/review\?token=(\S+)", log.read_text(encoding="utf-8")).group(1)
        assert len(token) == 32 and token != TOKEN
        assert httpx.get(f"{base}/review?token={token}").status_code == 303


@pytest.mark.slow  # processes
@pytest.mark.parametrize("options, error", [
    (["--token", "short"], "error: the token is too short to guard writes: give at least 16 characters (or none: a "
                           "random one is made)"),
    (["--corpus", "nowhere"], "error: nowhere: no corpus folder here; give the one the database was built from "
                              "(--corpus)"),
    (["--metadata", "{older}"], "error: {older} does not give the plugin the edit settings: --edit needs its plugins: "
                                "academie: edit_corpus and edit_token read from $ACADEMIE_EDIT_CORPUS and "
                                "$ACADEMIE_EDIT_TOKEN, as schema/metadata.yml has them"),
])
def test_serve_edit_refuses_a_short_token_a_missing_corpus_and_metadata_without_its_settings(built_db, tmp_path,
                                                                                             options, error):
    import subprocess
    import sys

    # metadata written before --edit: the plugin would never hear of the token
    older = tmp_path / "metadata.yml"
    text = (ROOT / "schema" / "metadata.yml").read_text(encoding="utf-8")
    older.write_text(re.sub(r"    edit_corpus:\n.*\n    edit_token:\n.*\n", "", text), encoding="utf-8")
    assert "ACADEMIE_BASE_URL" in older.read_text(encoding="utf-8") and "ACADEMIE_EDIT_TOKEN" not in older.read_text(encoding="utf-8")
    options = [o.format(older=older) for o in options]
    proc = subprocess.run([sys.executable, "-m", "pipeline.cli", "serve", "--db", str(built_db), "--edit", *options],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (proc.returncode, proc.stderr) == (2, error.format(older=older) + "\n")


def _decided(corpus: Path) -> list[tuple]:
    return [(d.action, d.file, d.start, d.end, d.reading, d.status, d.target) for d in decisions_in(corpus)]


# Each decision starts a rebuild in a process of its own, which on a two-core machine running
# the rest of the suite can hold the next page load for several seconds: the waits are for
# the page to change, however long the machine takes, not for a deadline.
WAIT = 60_000


@pytest.mark.slow  # a server and a browser
def test_three_items_reviewed_with_the_keyboard_in_chromium_then_the_rebuilt_text_served(workspace, tmp_path):
    from playwright.sync_api import expect

    corpus, db = workspace
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    conn.row_factory = sqlite3.Row
    with serving(db, tmp_path / "serve.log", "--edit", "--corpus", str(corpus), "--token", TOKEN) as base, \
            chromium() as browser:
        context = browser.new_context(base_url=base, viewport={"width": 1100, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"/review?token={TOKEN}")
        assert page.url == base + "/review"  # the token is not left in the address bar
        expected = []

        def top(n: int = 1):
            item = queue(conn, corpus, limit=n)[n - 1]
            expect(page.locator("#item")).to_have_attribute("data-item", item.id, timeout=WAIT)
            # the item is drawn before the page's keys are bound: a key pressed between is lost
            expect(page.locator("body")).to_have_attribute("data-keys", "ready", timeout=WAIT)
            return item

        # 1. a: accept
        first = top()
        page.screenshot(path=str(SHOTS / "12-review-first-item.png"), full_page=True)
        page.keyboard.press("a")
        expected.append(("set" if first.kind == "suggestion" else "accept", first.source_file, first.start, first.end,
                         first.after if first.kind == "suggestion" else None, None, first.citation))
        expect(page.locator(".message-info")).to_have_text(re.compile(re.escape(first.citation)), timeout=WAIT)
        # 2. r: reject
        second = top()
        page.keyboard.press("r")
        expected.append(("reject", second.source_file, second.start, second.end, None, None, second.citation))
        expect(page.locator(".message-info")).to_have_text(re.compile(r"reject .*" + re.escape(second.citation)), timeout=WAIT)
        # s: skip, nothing written
        skipped = top()
        page.keyboard.press("s")
        page.wait_for_url(base + "/review?n=2", timeout=WAIT)
        # 3. e: type the reading, Enter
        third = top(2)
        reading = third.before if third.kind == "fix" else third.after  # the one the text does not show
        page.keyboard.press("e")
        expect(page.locator("#reading")).to_be_focused(timeout=WAIT)
        page.keyboard.type(reading)
        page.screenshot(path=str(SHOTS / "13-review-typing-a-reading.png"), full_page=True)
        page.keyboard.press("Enter")
        expected.append(("set", third.source_file, third.start, third.end, reading, None, third.citation))
        expect(page.locator(".message-info")).to_have_text(re.compile(re.escape(f"set {reading!r}")), timeout=WAIT)
        # p: mark the page of the item shown
        shown = top(2)
        page_number = page.evaluate("document.querySelector('#form-mark-proofread [name=target]').value")
        page.keyboard.press("p")
        expect(page.locator(".message-info")).to_have_text(re.compile(f"mark {page_number} 'proofread'"), timeout=WAIT)
        page.screenshot(path=str(SHOTS / "14-review-after-four-keys.png"), full_page=True)
        assert skipped.id not in {f"{t[6]}@{t[2]}" for t in _decided(corpus)}

        decided = _decided(corpus)
        marked = [d for d in decided if d[0] == "mark"]
        assert [d for d in decided if d[0] != "mark"] == expected
        assert [(d[1], d[5], d[6]) for d in marked] == [(shown.source_file, "proofread", page_number)]

        # the pages say a rebuild is pending, until it is served
        expect(page.locator("#pending")).to_contain_text("pending a rebuild", timeout=WAIT)
        started = time.monotonic()
        while page.locator("#pending").count():
            assert time.monotonic() - started < 240, "the rebuild did not land in 240 s"
            time.sleep(2)
            page.reload()
        expect(page.locator("#rebuilt")).to_contain_text("The text served has every decision", timeout=WAIT)
        page.screenshot(path=str(SHOTS / "15-review-rebuilt.png"), full_page=True)

        # the served text has every decision, marked as checked
        for action, file, start, end, reading_, _, citation in expected:
            served = httpx.get(f"{base}/cite/{citation}.json").json()
            [c] = [c for c in served["corrections"] if (c["start"], c["end"]) == (start, end)]
            assert c["fix"].endswith({"set": "proof.set", "reject": "proof.reject", "accept": "proof.accept"}[action])
            if reading_ is not None:
                assert c["after"] == reading_ and reading_ in served["p"]["text_clean"]
        page.goto(f"/cite/{third.citation}")
        checked = page.locator("#clean-text mark.fix.checked")
        expect(checked.first).to_be_visible()
        assert reading in checked.all_inner_texts()
        assert page.locator("#clean-text mark.fix.checked").first.get_attribute("title").startswith(
            "checked by an editor · ")
        page.screenshot(path=str(SHOTS / "16-checked-by-an-editor.png"), full_page=True)
        assert errors == []
        context.close()
    conn.close()


class _Attacker(BaseHTTPRequestHandler):
    """A page served elsewhere on this machine that tries to decide for the editor: it
    reads the CSRF cookie (cookies are not kept apart by port) and posts a decision."""
    target = ""
    item = ""

    def do_GET(self):
        body = f"""<!doctype html><title>elsewhere</title><script>
        var csrf = (document.cookie.match(/ds_csrftoken=([^;]+)/) || [])[1] || "";
        fetch("{self.target}/review", {{method: "POST", mode: "no-cors", credentials: "include",
          headers: {{"content-type": "application/x-www-form-urlencoded"}},
          body: "action=reject&item={urllib.parse.quote(self.item)}&csrftoken=" + encodeURIComponent(csrf)}})
          .finally(function () {{ document.title = "sent " + (csrf ? "with" : "without") + " the CSRF token"; }});
        </script>""".encode()
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.slow  # a server and a browser
def test_a_page_elsewhere_on_this_machine_cannot_decide_in_the_editors_browser(workspace, tmp_path):
    corpus, db = workspace
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    conn.row_factory = sqlite3.Row
    item = queue(conn, corpus, limit=1)[0].id
    conn.close()
    log = tmp_path / "serve.log"
    with serving(db, log, "--edit", "--corpus", str(corpus), "--token", TOKEN) as base, chromium() as browser:
        _Attacker.target, _Attacker.item = base, item
        attacker = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
        threading.Thread(target=attacker.serve_forever, daemon=True).start()
        try:
            context = browser.new_context(base_url=base)
            page = context.new_page()
            page.goto(f"/review?token={TOKEN}")  # the editor is at work: both cookies are set
            page.goto(f"http://127.0.0.1:{attacker.server_address[1]}/")
            page.wait_for_function("document.title.startsWith('sent')")
            assert page.title() == "sent with the CSRF token"  # the cookie was readable: the Origin stops it
            context.close()
        finally:
            attacker.shutdown()
    assert decisions_in(corpus) == []
    assert ("POST /review: 403 a decision is taken from the review page only, not from another page (its Origin is "
            "not this site)") in log.read_text(encoding="utf-8")


@pytest.mark.slow  # a server
def test_two_writers_at_once_lose_nothing(workspace, tmp_path):
    corpus, db = workspace
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    conn.row_factory = sqlite3.Row
    items = queue(conn, corpus, limit=40)
    conn.close()
    with serving(db, tmp_path / "serve.log", "--edit", "--corpus", str(corpus), "--token", TOKEN) as base:
        writers = [login(base), login(base)]
        start = threading.Barrier(2)
        answers: list[list[int]] = [[], []]

        def write(k: int):
            client, csrf = writers[k]
            start.wait()
            for item in items[k::2]:
                r = client.post("/review", data={"csrftoken": csrf, "action": ("accept", "reject")[k], "item": item.id})
                answers[k].append(r.status_code)

        threads = [threading.Thread(target=write, args=(k,)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert answers == [[303] * 20, [303] * 20]
    decided = {(d.file, d.start, d.end): d.action for d in decisions_in(corpus)}
    assert len(decisions_in(corpus)) == 40
    assert decided == {(i.source_file, i.start, i.end): ("reject" if k % 2 else
                                                         "accept" if i.kind == "fix" else "set")
                       for k, i in enumerate(items)}
    for path in (corpus / "proofs").glob("*.jsonl"):
        assert all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


# a hook the server loads (sitecustomize, first on its PYTHONPATH): a proof file's
# rename waits, once the new file is complete under its temporary name, for the kill
PAUSE_BEFORE_RENAME = """
import os, time
_replace = os.replace
def replace(src, dst, *args, **kwargs):
    pause = os.environ.get("ACADEMIE_TEST_PAUSE")
    if pause and str(dst).endswith(".jsonl"):
        with open(pause, "w") as f:
            f.write(str(src))
        time.sleep(600)
    return _replace(src, dst, *args, **kwargs)
os.replace = replace
"""


@pytest.mark.slow  # a server, killed
def test_a_server_killed_during_a_write_leaves_a_valid_proof_file(workspace, tmp_path):
    corpus, db = workspace
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    conn.row_factory = sqlite3.Row
    chapter = queue(conn, corpus, limit=1)[0].source_file
    _, first = reject(conn, corpus, queue(conn, corpus, chapter, limit=1)[0].id)  # the file has a decision
    target = queue(conn, corpus, chapter, limit=1)[0]  # the next of the same chapter, decided as the server dies
    conn.close()
    path = proof_file(corpus, chapter)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(PAUSE_BEFORE_RENAME, encoding="utf-8")
    pause = tmp_path / "paused"
    env = {"PYTHONPATH": f"{hook}:{ROOT}", "ACADEMIE_TEST_PAUSE": str(pause)}
    with serving_process(db, tmp_path / "serve.log", "--edit", "--corpus", str(corpus), "--token", TOKEN,
                         env=env) as (base, proc):
        client, csrf = login(base)
        post = threading.Thread(target=_swallow, args=(lambda: client.post(
            "/review", data={"csrftoken": csrf, "action": "reject", "item": target.id}),), daemon=True)
        post.start()
        deadline = time.monotonic() + 30
        while not pause.exists():
            assert time.monotonic() < deadline, "the write never reached its rename"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)  # the new file complete under its temporary name, not yet renamed
        proc.wait()
        post.join(timeout=10)
    # the proof file is as it was: every line a decision; the one being written is not there
    assert load(path) == [first]
    leftover = path.with_name(f".{path.name}.tmp-{proc.pid}")
    assert pause.read_text(encoding="utf-8") == str(leftover)
    lines = [json.loads(line) for line in leftover.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["action"], r["start"]) for r in lines] == [(first.id, "reject", first.start),
                                                                   (lines[1]["id"], "reject", target.start)]
    # a server started again writes, and clears what the killed one left
    with serving(db, tmp_path / "serve2.log", "--edit", "--corpus", str(corpus), "--token", TOKEN) as base:
        client, csrf = login(base)
        r = client.post("/review", data={"csrftoken": csrf, "action": "reject", "item": target.id})
        assert r.status_code == 303
    assert [(d.action, d.start) for d in load(path)] == [("reject", first.start), ("reject", target.start)]
    assert load(path)[0] == first
    assert not leftover.exists()


def _swallow(fn):
    try:
        fn()
    except httpx.HTTPError:
        pass  # the server was killed under it


def test_a_proof_file_mended_badly_by_hand_is_said_not_a_500(editing):
    room, corpus, started = editing
    ed = Editor(room).login()
    csrf = ed.csrftoken()
    (corpus / "proofs").mkdir()
    (corpus / "proofs" / "002_88808cca03487927.jsonl").write_text('{"action": "set"}\n', encoding="utf-8")
    r = ed.get("/review.json")
    assert (r.status_code, r.json()["error"]) == (
        409, "002_88808cca03487927.jsonl:1: not a decision: Decision.__init__() missing 4 required positional "
             "arguments: 'file', 'start', 'end', and 'text': the queue cannot be read until the line is mended")
    r = ed.post({"csrftoken": csrf, "action": "reject", "item": "aduj:whist.13@4886"})
    assert (r.status_code, started) == (303, [])
    # the message waits in Datasette's signed cookie for the page, which says the same
    assert room.ds.unsign(ed.cookies["ds_messages"], "messages") == [[
        "nothing written: 002_88808cca03487927.jsonl:1: not a decision: Decision.__init__() missing 4 required "
        "positional arguments: 'file', 'start', 'end', and 'text'", room.ds.ERROR]]


def test_a_failed_rebuild_is_said_and_can_be_asked_for_again(editing, db):
    room, corpus, started = editing
    ed = Editor(room).login()
    ed.decide("reject", queue(db, corpus, limit=1)[0].id)
    rebuild = room.ds._academie_rebuild
    rebuild.running, rebuild.error = False, "002_88808cca03487927.txt: error: empty file: no text to read"
    page = ed.get("/review").text
    assert ('<p class="pending" id="pending" role="status">1 decision pending a rebuild; the last rebuild failed: '
            "002_88808cca03487927.txt: error: empty file: no text to read</p>") in page
    assert '<form method="post" action="/review" id="form-rebuild">' in page
    r = ed.post({"csrftoken": ed.csrftoken(), "action": "rebuild", "n": "1"})
    assert (r.status_code, r.headers["location"], started) == (303, "/review", [1, 1])
    assert ed.messages() == ["rebuilding the database"]
    assert len(decisions_in(corpus)) == 1  # asking for a rebuild decides nothing
    assert 'id="form-rebuild"' not in ed.get("/review").text  # one is running
