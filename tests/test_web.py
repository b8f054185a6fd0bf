"""The reading room, read in-process: conftest's ``room`` is Datasette configured as
`academie serve` configures it (tests.helpers.ReadingRoom; tests/test_serve.py checks
that the two agree), with the plugin in pipeline/web, on the database the session
built. Requests go through Datasette's in-process client, no socket. Every page is read
twice, as HTML and as JSON, the way a person and a program would."""

from __future__ import annotations

import json
import re
import unicodedata
from urllib.parse import unquote, urlencode

import pytest

from pipeline.web import citation_text, fts_query, short_title


def fetch(room, path: str) -> tuple[int, str]:
    r = room.get(path)
    return r.status_code, r.text


def html(room, path: str) -> str:
    status, body = fetch(room, path)
    assert status == 200, (path, body[:300])
    return body


def data(room, path: str) -> dict:
    status, body = fetch(room, path)
    assert status == 200, (path, body[:300])
    return json.loads(body)


def search(room, **params) -> list[dict]:
    return data(room, "/search.json?" + urlencode(params))["results"]


# -- home --------------------------------------------------------------------------------------

def test_home_lists_editions_chapters_and_games_with_counts(room, db):
    home = data(room, "/index.json")
    assert [e["id"] for e in home["editions"]] == ["adj", "aduj", "unknown"]
    chapters = [c for e in home["editions"] for c in e["chapters"]]
    assert sorted(c["source_file"] for c in chapters) == sorted(
        r[0] for r in db.execute("SELECT source_file FROM chapters"))
    whist = [g for c in chapters for g in c["games"] if g["game"] == "whist"]
    assert [(g["name"], g["articles"]) for g in whist] == [("Whist", 24)]
    assert home["totals"]["articles"] == db.execute("SELECT count(*) FROM passages WHERE kind = 'article'").fetchone()[0]
    page = html(room, "/")
    assert '<form class="search" action="/search"' in page
    assert '<a href="/game/whist">Whist</a>' in page


def test_chapter_games_counts_each_chapters_games_as_its_passages_do(db):
    """The build-time table the home page reads: a chapter's games, their passages and
    articles, the first place each appears (whist: 24 articles in its one chapter)."""
    table = [tuple(r) for r in db.execute("SELECT chapter_id, game, first_seq, passages, articles FROM chapter_games "
                                          "ORDER BY chapter_id, first_seq")]
    assert table == [tuple(r) for r in db.execute("""
        SELECT chapter_id, game, min(seq), count(*), sum(kind = 'article') FROM passages WHERE game IS NOT NULL
        GROUP BY chapter_id, game ORDER BY chapter_id, min(seq)""")]
    whist = [r for r in table if r[1] == "whist"]
    assert len(whist) == 1 and whist[0][4] == 24
    assert len({r[0] for r in table}) < len(table)  # a chapter of several games


def links(page: str, prefix: str) -> set[str]:
    return set(re.findall(r'href="(' + re.escape(prefix) + r'[^"#?]*)', page))


def test_every_article_is_two_links_from_home(room, db):
    reached: set[str] = set()
    for game in links(html(room, "/"), "/game/"):
        reached |= {unquote(href[len("/cite/"):]) for href in links(html(room, game), "/cite/")}
    articles = {r[0] for r in db.execute("SELECT citation FROM passages WHERE kind = 'article' AND game IS NOT NULL")}
    assert articles and articles <= reached
    # articles of no known game are two links away through their chapter
    for cid, citation in db.execute("SELECT chapter_id, citation FROM passages WHERE kind = 'article' AND game IS NULL"):
        assert f"/chapter/{cid}" in links(html(room, "/"), "/chapter/")
        assert "/cite/" + citation in {unquote(h) for h in links(html(room, f"/chapter/{cid}"), "/cite/")}


# -- citation page ---------------------------------------------------------------------------

def test_citation_page_answers_as_json_for_programs(room):
    cite = data(room, "/cite/aduj:whist.13.json")
    assert (cite["p"]["citation"], cite["p"]["number"], cite["p"]["page"], cite["p"]["game"]) == (
        "aduj:whist.13", 13, 407, "whist")
    assert cite["citation_text"] == "Académie universelle des jeux, Whist, art. 13, p. 407"
    assert (cite["previous"], cite["next"]) == ("aduj:whist.12", "aduj:whist.14")
    assert cite["url"].endswith("/cite/aduj:whist.13")
    assert "  pages = {407}," in cite["bibtex"].splitlines()
    assert "  title = {Whist, art. 13}," in cite["bibtex"].splitlines()
    assert cite["bibtex"].startswith("@incollection{aduj_whist_13,")
    assert cite["rule"]["stub_function"] and "def " in cite["rule"]["stub_source"]
    # its corrections, raw and clean, as the corrections table has them
    assert ("caries", "cartes") in {(c["before"], c["after"]) for c in cite["corrections"]}
    assert cite["p"]["text_raw"].startswith("i3. Personne")
    assert cite["p"]["text_clean"].startswith("13. Personne")


def test_each_article_leads_to_the_articles_of_its_game_and_edition_around_it(room, db):
    """Previous and next: the game's articles of the same edition, in reading order
    (chapter, then place in it), across chapters; none before the first or after the last."""
    order = {}
    for citation, game, edition in db.execute("""
            SELECT p.citation, p.game, c.edition_id FROM passages p JOIN chapters c ON c.id = p.chapter_id
            WHERE p.kind = 'article' AND p.game IS NOT NULL ORDER BY p.chapter_id, p.seq"""):
        order.setdefault((game, edition), []).append(citation)
    assert len(order[("whist", "aduj")]) == 24
    for articles in order.values():
        for k, citation in enumerate(articles):
            cite = data(room, f"/cite/{citation}.json")
            assert (cite["previous"], cite["next"]) == (articles[k - 1] if k else None,
                                                        articles[k + 1] if k + 1 < len(articles) else None), citation


def test_an_articles_neighbours_cross_chapters_but_not_editions():
    """Whist's articles in chapters 1 and 2 of edition a, 3 of edition b, 4 of a again:
    an article's neighbours are those of its edition, across its chapters, in reading order."""
    import sqlite3

    from pipeline.publish.write import schema_sql
    from pipeline.web import _passage_rows

    conn = sqlite3.connect(":memory:")
    conn.executescript(schema_sql())
    conn.executemany("INSERT INTO editions (id, title) VALUES (?, ?)", [("a", "A"), ("b", "B")])
    conn.execute("INSERT INTO games VALUES ('whist', 'Whist')")
    for cid, edition in ((1, "a"), (2, "a"), (3, "b"), (4, "a")):
        conn.execute("INSERT INTO chapters (id, edition_id, source_file, sha256, raw_text, encoding, edition_source, "
                     "layout_form, citation_key, passages, articles) VALUES (?, ?, ?, '', '', 'utf-8', 'header', "
                     "'blank-separated', ?, 0, 0)", (cid, edition, f"{cid}.txt", str(cid)))
    placed = [(1, 0, "a:whist.1", "article"), (1, 1, "a:whist.p1", "paragraph"), (1, 2, "a:whist.2", "article"),
              (2, 0, "a:whist.3", "article"), (3, 0, "b:whist.1", "article"), (4, 5, "a:whist.5", "article"),
              (4, 1, "a:whist.4", "article")]
    for pid, (cid, seq, citation, kind) in enumerate(placed, 1):
        conn.execute("INSERT INTO passages (id, citation, chapter_id, seq, game, kind, text_raw, text_clean, "
                     "text_search, raw_start, raw_end) VALUES (?, ?, ?, ?, 'whist', ?, '', '', '', 0, 0)",
                     (pid, citation, cid, seq, kind))
    around = {c: _passage_rows(conn, c)[-2:] for _, _, c, _ in placed}
    assert around == {
        "a:whist.1": (None, "a:whist.2"), "a:whist.p1": (None, None), "a:whist.2": ("a:whist.1", "a:whist.3"),
        "a:whist.3": ("a:whist.2", "a:whist.4"), "b:whist.1": (None, None), "a:whist.4": ("a:whist.3", "a:whist.5"),
        "a:whist.5": ("a:whist.4", None)}


def test_citation_page_shows_text_raw_corrections_rule_and_citation_to_copy(room):
    page = html(room, "/cite/aduj:whist.13")
    assert '<h1 id="citation">aduj:whist.13</h1>' in page
    assert 'value="Académie universelle des jeux, Whist, art. 13, p. 407"' in page
    assert '<mark class="fix" tabindex="0" title="OCR: &#39;caries&#39;' in page
    assert 'data-raw="caries">cartes</mark>' in page
    assert '<pre class="raw" id="raw-text">i3. Personne' in page
    assert '<span class="part modality"' in page
    assert 'href="/cite/aduj:whist.12" rel="prev"' in page and 'href="/cite/aduj:whist.14" rel="next"' in page
    assert 'href="/chapter/' in page and '#whist.13">in its chapter</a>' in page


def test_a_disagreement_between_text_and_code_is_shown_where_it_is_cited(room, db):
    (citation,) = db.execute("SELECT citation FROM checks WHERE agrees = 0").fetchone()
    page = html(room, "/cite/" + citation)
    assert '<span class="disagree">they disagree</span>' in page


def test_unknown_citation_is_a_404_naming_near_citations(room):
    status, page = fetch(room, "/cite/aduj:whist.99")
    assert status == 404
    assert "No passage is cited aduj:whist.99" in page
    assert '<a href="/cite/aduj:whist.13">aduj:whist.13</a>' in page
    # and for a program, the same as JSON
    r = room.get("/cite/aduj:whist.99.json")
    assert (r.status_code, r.headers["content-type"]) == (404, "application/json; charset=utf-8")
    assert r.json() == {"ok": False, "status": 404, "error": "No passage is cited aduj:whist.99",
                        "near": ["aduj:whist.1", "aduj:whist.10", "aduj:whist.11", "aduj:whist.12",
                                 "aduj:whist.13", "aduj:whist.14", "aduj:whist.15", "aduj:whist.16"]}


@pytest.mark.parametrize("path,error", [
    ("/cite/aduj:nothing.json", "No passage is cited aduj:nothing"),
    ("/chapter/999.json", "No chapter 999 in the database"),
    ("/game/nothing.json", "No game 'nothing' in the database"),
])
def test_a_json_path_to_nothing_is_a_json_404(room, path, error):
    r = room.get(path)
    assert (r.status_code, r.headers["content-type"]) == (404, "application/json; charset=utf-8")
    assert r.json() == {"ok": False, "status": 404, "error": error, **({"near": []} if "/cite/" in path else {})}


@pytest.mark.parametrize("path,error", [
    ("/chapter/999", "No chapter 999 in the database"),
    ("/game/nothing", "No game &#39;nothing&#39; in the database"),
])
def test_a_page_of_nothing_is_a_404_saying_so(room, path, error):
    r = room.get(path)
    assert (r.status_code, r.headers["content-type"], r.text) == (404, "text/html; charset=utf-8", error)


def test_cite_command_prints_the_reading_room_url(built_db):
    from click.testing import CliRunner

    from pipeline.cli import cli

    result = CliRunner().invoke(cli, ["cite", "Whist, art. 13", "--db", str(built_db), "--url"])
    assert result.exit_code == 0, result.output
    assert result.output == "http://127.0.0.1:8001/cite/aduj:whist.13\n"
    result = CliRunner().invoke(cli, ["cite", "whist 13", "--db", str(built_db), "--url", "--base-url", "https://example.org/"])
    assert result.output == "https://example.org/cite/aduj:whist.13\n"


# -- chapter reading view ----------------------------------------------------------------------

def whist_chapter(db) -> int:
    return db.execute("SELECT chapter_id FROM passages WHERE citation = 'aduj:whist.13'").fetchone()[0]


def test_chapter_view_has_pages_in_the_margin_anchors_and_marked_corrections(room, db):
    cid = whist_chapter(db)
    page = html(room, f"/chapter/{cid}")
    # every printed page is marked once: in the margin between passages, or inline
    # where the page turns inside a passage
    first, last = db.execute("SELECT min(page), max(page) FROM passages WHERE chapter_id = ?", [cid]).fetchone()
    for number in range(first, last + 1):
        margin = page.count(f'<div class="pagemark" id="page-{number}"><span>p. {number}</span></div>')
        inline = page.count(f'<span class="pb" role="note" aria-label="page break">p. {number}</span>')
        assert margin + inline == 1, (number, margin, inline)
    assert '<p class="passage article" id="whist.13">' in page
    assert page.count('<mark class="fix" tabindex="0"') == db.execute(
        """SELECT count(*) FROM corrections k JOIN passages p ON p.id = k.passage_id
           WHERE p.chapter_id = ? AND k.kind != 'layout'""", [cid]).fetchone()[0]
    assert 'id="show-raw"' in page


def test_footnotes_and_their_calls_link_to_each_other(room, db):
    notes = db.execute("SELECT chapter_id, citation, note_for FROM passages WHERE kind = 'footnote'").fetchall()
    assert notes
    for cid, note, called_from in notes:
        page = html(room, f"/chapter/{cid}")
        anchor, call = note.split(":", 1)[1], called_from.split(":", 1)[1]
        assert f'<p class="passage footnote" id="{anchor}"><a class="call" href="#{call}" title="back to the call">' in page
        assert f'<a class="call" href="#{anchor}" title="the footnote">note (1)</a>' in page


def test_chapter_view_switches_to_the_raw_ocr_and_back(room, db):
    cid = whist_chapter(db)
    clean = data(room, f"/chapter/{cid}.json")
    assert "raw_text" not in clean["chapter"]
    assert "".join(p["text_clean"] for p in clean["passages"]) == "".join(
        r[0] for r in db.execute("SELECT text_clean FROM passages WHERE chapter_id = ? ORDER BY seq", [cid]))
    raw = data(room, f"/chapter/{cid}.json?raw=1")
    assert raw["chapter"]["raw_text"] == db.execute("SELECT raw_text FROM chapters WHERE id = ?", [cid]).fetchone()[0]
    page = html(room, f"/chapter/{cid}?raw=1")
    assert '<pre class="raw" id="raw-text">' in page and f'<a href="/chapter/{cid}" id="show-clean">' in page


def test_chapters_link_to_their_neighbours(room, db):
    ids = [c["id"] for e in data(room, "/index.json")["editions"] for c in e["chapters"]]
    assert sorted(ids) == sorted(r[0] for r in db.execute("SELECT id FROM chapters"))
    for k, cid in enumerate(ids):
        ch = data(room, f"/chapter/{cid}.json")
        assert ch["previous"] == (ids[k - 1] if k else None)
        assert ch["next"] == (ids[k + 1] if k + 1 < len(ids) else None)
    assert fetch(room, "/chapter/999999") == (404, "No chapter 999999 in the database")


# -- game page ---------------------------------------------------------------------------------

def test_game_page_gathers_a_game_across_chapters(room, db):
    game = data(room, "/game/hombre.json")
    assert [p["citation"] for p in game["passages"]] == [
        r[0] for r in db.execute(
            "SELECT citation FROM passages p JOIN chapters c ON c.id = p.chapter_id "
            "WHERE game = 'hombre' ORDER BY c.edition_id, p.chapter_id, p.seq")]
    assert [p["number"] for p in game["passages"] if p["kind"] == "article"] == list(range(50, 79))
    assert fetch(room, "/game/no-such-game")[0] == 404


# -- search ------------------------------------------------------------------------------------

def test_search_ranks_hits_with_snippets_and_citations(room):
    hits = search(room, q="renonce")
    assert hits and all(h["url"] == "/cite/" + h["citation"] for h in hits)
    assert all("renonce" in h["snippet"].lower() for h in hits[:3])
    page = html(room, "/search?q=renonce")
    assert "<mark>renonce</mark>" in page.lower()
    assert f'<a class="hit" href="/cite/{hits[0]["citation"]}">' in page


def test_search_finds_damaged_accented_and_period_spelled_passages(room, db):
    def raw_of(citation):
        return db.execute("SELECT text_raw, text_clean FROM passages WHERE citation = ?", [citation]).fetchone()

    # 'bande' finds passages whose OCR reads 'Lande'
    assert any("Lande" in raw_of(h["citation"])[0] for h in search(room, q="bande"))
    # 'regle' finds 'règle'
    assert any("règle" in raw_of(h["citation"])[1] for h in search(room, q="regle"))
    # 'avait' finds the period spelling 'avoit'
    assert any("avoit" in raw_of(h["citation"])[1] for h in search(room, q="avait"))
    # a word only the raw OCR has still finds its passage
    assert "aduj:whist.13" in [h["citation"] for h in search(room, q="caries")]


def test_a_long_passages_snippet_is_cut_around_its_first_hit_without_fts5():
    """A passage longer than LONG_PASSAGE (an export run on, no article to part it) has
    its snippet cut in Python: FTS5's snippet() took 1.4 s a search on a passage of 1 MB."""
    from pipeline.web import END, START, long_snippet

    text = "Le jeu se joue à quatre. " + "Un joueur mêle les cartes. " * 2000 + "Celui qui renonce paye la remise et perd."
    assert long_snippet(text, '"renonce"') == f"…cartes. Celui qui {START}renonce{END} paye la remise et perd"
    assert long_snippet("La Règle du jeu, que la règle dit", '"regle"') == \
        f"La {START}Règle{END} du jeu, que la {START}règle{END} dit"  # (accents and case folded, as the index folds them)
    assert long_snippet(text, '"absent" "mot"') == "Le jeu se joue à quatre. Un joueur mêle les cartes. Un joueur mêle…"
    assert long_snippet("", '"jeu"') == ""


@pytest.mark.slow  # a corpus of its own built
def test_a_search_of_a_long_passage_marks_the_word_found(tmp_path):
    from pipeline.build import build
    from pipeline.web import LONG_PASSAGE
    from tests.helpers import ReadingRoom

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    body = "Un joueur mêle les cartes et donne. " * 1000
    assert len(body) > LONG_PASSAGE
    (corpus / "001_long.txt").write_text(f"1. {body}Celui qui renonce paye la remise.\n\n2. Celui qui renonce perd.\n",
                                         encoding="utf-8")
    build(corpus, tmp_path / "a.db")
    room = ReadingRoom(tmp_path / "a.db")
    try:
        hits = {h["number"]: h["snippet"] for h in search(room, q="renonce")}
        assert hits == {1: "…donne. Celui qui renonce paye la remise", 2: "2. Celui qui renonce perd."}
        assert "Celui qui <mark>renonce</mark> paye la remise" in html(room, "/search?q=renonce")
    finally:
        room.close()


def test_a_search_asked_again_is_answered_without_the_index_until_forgotten(room, monkeypatch):
    from collections import OrderedDict

    import pipeline.web

    monkeypatch.setattr(pipeline.web, "_searches", OrderedDict())
    monkeypatch.setattr(pipeline.web, "SEARCH_CACHE", 3)
    ranked: list[str] = []
    real = pipeline.web.rows

    def recording(conn, sql, params=()):
        if "passages_fts MATCH" in sql:
            ranked.append(params["q"])
        return real(conn, sql, params)

    monkeypatch.setattr(pipeline.web, "rows", recording)
    first = search(room, q="carte")
    assert first and search(room, q="carte") == first and search(room, q="Carte") == first
    assert search(room, q="carte", game="whist") != first
    assert ranked == ['"carte"', '"Carte"', '"carte"']  # the index asked once per different search
    search(room, q="bande")  # a fourth: the oldest, "carte" with no filter, is forgotten
    assert search(room, q="carte") == first
    assert ranked == ['"carte"', '"Carte"', '"carte"', '"bande"', '"carte"']
    # five readers asking a new search at once: one ranking, the same page for each
    import asyncio

    async def at_once():
        return await asyncio.gather(*(room.ds.client.get("/search.json?q=r%C3%A8gle") for _ in range(5)))

    pages = room.loop.run_until_complete(at_once())
    assert ranked[5:] == ['"règle"'] and len({r.text for r in pages}) == 1 and pages[0].status_code == 200


def test_search_filters_by_game_kind_and_edition(room):
    hits = search(room, q="joueur", game="whist", kind="article", edition="aduj")
    assert hits
    assert {(h["game"], h["kind"], h["edition_id"]) for h in hits} == {("whist", "article", "aduj")}
    assert search(room, q="joueur", game="whist", edition="adj") == []


@pytest.mark.parametrize("q", ['l\'as "', "AND OR (", "NEAR(", "*", "qu''il -x", '"', '"""', "\x00", "renonce\x00"])
def test_any_query_is_a_valid_search(room, q):
    assert fetch(room, "/search?" + urlencode({"q": q}))[0] == 200


WHIST_13 = ("13. Personne ne doit prendre les cartes ni les regarder pendant qu'on donne; et au cas que celui qui "
            "donne donnât mal, il faudrait qu'il redonnât; mais il n'est pas obligé de le faire si une carte se "
            "tourne en donnant.")


@pytest.mark.parametrize("q,words", [
    ('"', []),
    ('"""', []),
    ("\x00", []),
    ("renonce\x00", ["renonce"]),
    (" ".join(["le"] * 800), ["le"]),  # took 46 s in SQLite before a word counted once
], ids=["quote", "three quotes", "NUL", "word and NUL", "800 times one word"])
def test_hostile_search_answers_200_with_valid_json(room, q, words):
    r = room.get("/search.json?" + urlencode({"q": q}))
    assert (r.status_code, r.headers["content-type"]) == (200, "application/json; charset=utf-8")
    found = json.loads(r.text)
    assert found["words"] == words and "\x00" not in found["q"]
    if not words:
        assert found["results"] == []
    else:  # what the words alone find
        assert found["results"] and found["results"] == search(room, q=" ".join(words))


def test_a_search_of_too_many_words_is_cut_with_a_400_before_it_reaches_the_index(room):
    r = room.get("/search?" + urlencode({"q": " ".join(f"w{i}" for i in range(800))}))
    assert r.status_code == 400
    assert "the search has 800 different words; at most 32 are looked for at once" in r.text
    pasted = room.get("/search.json?" + urlencode({"q": " ".join([WHIST_13] * 20)}))  # 820 words, 39 different
    found = json.loads(pasted.text)
    assert (pasted.status_code, found["status"], found["results"]) == (400, 400, [])
    assert found["error"] == "the search has 39 different words; at most 32 are looked for at once: keep the words that matter"
    words = " ".join(WHIST_13.split()[:20])  # 20 different words of the article find it
    assert [h["citation"] for h in data(room, "/search.json?" + urlencode({"q": words}))["results"]] == ["aduj:whist.13"]


def test_fts_query_quotes_each_word_once():
    assert fts_query('l\'as "pique" OR') == '"l\'as" "pique" "OR"'
    assert fts_query("   ") == ""
    assert fts_query('" "" \x00') == ""
    assert fts_query("Règle regle REGLE as\x00pique") == '"Règle" "as" "pique"'


def test_citation_text_names_book_game_article_and_page():
    p = {"edition_title": "Académie universelle des jeux … et un traité", "game_name": "Whist", "kind": "article",
         "number": 13, "page": 407, "citation": "aduj:whist.13"}
    assert citation_text(p) == "Académie universelle des jeux, Whist, art. 13, p. 407"
    assert citation_text({**p, "kind": "paragraph", "number": None, "game_name": None, "page": None,
                          "citation": "unknown:ch51.u2"}) == "Académie universelle des jeux, unknown:ch51.u2"
    assert citation_text({**p, "kind": "paragraph", "number": None}) == "Académie universelle des jeux, Whist, p. 407"
    assert short_title("Académie des jeux: contenant les principaux jeux") == "Académie des jeux"


# -- the tables and canned queries, as Datasette serves them ----------------------------------

def test_passage_by_citation(room):
    rows = data(room, "/academie/passages.json?_shape=array&citation=aduj:whist.13")
    assert [(r["citation"], r["number"], r["page"], r["game"], r["kind"]) for r in rows] == [
        ("aduj:whist.13", 13, 407, "whist", "article")]


def test_full_text_search_of_the_table_finds_only_hombre(room):
    rows = data(room, "/academie/passages.json?_search=matadors&_shape=array")
    assert sorted(r["citation"] for r in rows) == [f"aduj:hombre.{n}" for n in (52, 55, 56, 57, 58, 68, 73)]
    for r in rows:
        folded = "".join(c for c in unicodedata.normalize("NFKD", r["text_clean"]) if not unicodedata.combining(c))
        assert "matadors" in folded.lower(), r["citation"]


@pytest.mark.parametrize("game", ["whist", " Whist "])
def test_canned_query_article(room, game):
    rows = data(room, "/academie/article.json?" + urlencode({"game": game, "number": 13, "_shape": "array"}))
    assert [(r["citation"], r["game"], r["number"], r["number_raw"], r["page"], r["edition"], r["source_file"])
            for r in rows] == [("aduj:whist.13", "Whist", 13, "i3", 407, "aduj", "002_88808cca03487927.txt")]
    assert rows[0]["text_clean"] == WHIST_13
    assert data(room, "/academie/article.json?game=whist&number=99&_shape=array") == []


def test_canned_query_search(room):
    rows = data(room, "/academie/search.json?q=matadors&_shape=array")
    assert sorted(r["citation"] for r in rows) == [f"aduj:hombre.{n}" for n in (52, 55, 56, 57, 58, 68, 73)]
    assert all("[matadors]" in r["snippet"].lower() for r in rows)
    # quotes and apostrophes are words, not FTS5 syntax
    assert [r["citation"] for r in data(room, "/academie/search.json?" + urlencode(
        {"q": 'n\'est pas obligé "de le faire', "_shape": "array"}))] == ["aduj:whist.13"]


def test_canned_query_page(room):
    rows = data(room, "/academie/page.json?game=hombre&page=161&_shape=array")
    assert [r["citation"] for r in rows] == [f"aduj:hombre.{n}" for n in range(50, 61)]
    assert {(r["kind"], r["page"], r["edition"]) for r in rows} == {("article", 161, "aduj")}


def test_canned_query_corrections_of(room, db):
    rows = data(room, "/academie/corrections_of.json?citation=aduj:whist.13&_shape=array")
    assert [(r["fix"], r["before"], r["after"]) for r in rows] == [
        ("segment.article_number", "i3.", "13."),
        ("clean.real_word", "caries", "cartes"),
        ("clean.bracket_p+clean.non_word", "])endanl", "pendant"),
        ("clean.elision", " ", "'"),
        ("clean.spacing", " ", ""),
        ("clean.spacing", " ", ""),
        ("clean.real_word", "carie", "carte"),
    ]
    raw, start = db.execute("SELECT c.raw_text, p.raw_start FROM passages p JOIN chapters c ON c.id = p.chapter_id "
                            "WHERE p.citation = 'aduj:whist.13'").fetchone()
    for r in rows:  # each row places its edit exactly, in the raw and in the clean text
        assert raw[r["start"]:r["end"]] == r["before"] and WHIST_13[r["clean_start"]:r["clean_end"]] == r["after"]
    assert rows[0]["start"] == start


# -- safety ------------------------------------------------------------------------------------

def test_planted_markup_renders_as_text_on_every_page(planted_room):
    room = planted_room
    cite = data(room, "/search.json?q=planted")["results"][0]["citation"]
    pages = {
        "chapter": html(room, "/chapter/1"),
        "raw chapter": html(room, "/chapter/1?raw=1"),
        "citation": html(room, "/cite/" + cite),
        "game": html(room, "/game/" + cite.split(":")[1].split(".")[0]),
        "search": html(room, "/search?q=planted"),
        "home": html(room, "/"),
    }
    for name, page in pages.items():
        assert "<script>alert" not in page, name
        assert "<img src=x" not in page, name
        assert "<|ue" not in page, name
    for name in ("chapter", "raw chapter", "game"):
        assert "&lt;script&gt;alert(" in pages[name], name
        assert "&lt;img src=x onerror=alert(2)&gt;" in pages[name], name
    assert "&lt;script&gt;alert(&#34;planted&#34;)&lt;/script&gt;" in pages["citation"]
    assert "&lt;|ue &gt;^ «[" in pages["raw chapter"]
    # and a program reading the JSON gets the text exactly as the book has it
    found = data(room, "/cite/" + cite + ".json")
    assert '<script>alert("planted")</script>' in found["p"]["text_raw"]


# -- what a hostile but fair client asks (issue "Hold under fire") ---------------------------------

@pytest.mark.parametrize("method,path,status", [
    ("GET", "/x/y/z/w/v", 404),  # Datasette's own 404 page failed (rich needs an exception being handled): 500
    ("GET", "/academie/passages/1/2/3", 404),
    ("GET", "/cite/../../etc/passwd", 404),
    ("GET", "/academie/passages?_sort=(select%201)", 400),  # Datasette's 'Cannot sort table by …' was a 500
    ("GET", "/chapter/99999999999999999999999", 404),  # an overflow of SQLite's integers was a 500
    ("GET", "/chapter/99999999999999999999999.json", 404),
    ("POST", "/academie/passages", 405),  # 'You may only POST to a canned query': a 500
    ("POST", "/academie/passages/1", 405),
    ("PUT", "/cite/aduj:whist.13", 405),
    ("TRACE", "/", 405),  # answered 200
    ("DELETE", "/search.json", 405),
])
def test_errors_are_4xx_pages_never_500(room, method, path, status):
    r = room.request(method, path)
    assert r.status_code == status, r.text[:200]
    assert "Traceback" not in r.text


def test_an_unrouted_json_path_is_a_json_error_saying_what_was_not_found(room):
    r = room.get("/x/y.json")
    assert (r.status_code, json.loads(r.text)) == (404, {"ok": False, "error": "no page at /x/y.json", "status": 404,
                                                         "title": None})
    r = room.request("POST", "/academie/passages.json")
    assert (r.status_code, r.headers["allow"]) == (405, "GET, HEAD")
    assert json.loads(r.text)["error"] == "POST is not allowed: the reading room only reads"


def test_a_percent_encoded_colon_names_the_same_citation(room):
    assert data(room, "/cite/aduj%3Awhist.13.json")["p"]["citation"] == "aduj:whist.13"
    assert "13. Personne ne doit prendre les cartes" in html(room, "/cite/aduj%3Awhist.13")


def test_links_given_out_come_from_configuration_never_from_the_host_header(room):
    r = room.loop.run_until_complete(room.ds.client.get("/cite/aduj:whist.13.json", headers={"host": "evil.example"}))
    cited = json.loads(r.text)
    assert cited["url"] == "http://127.0.0.1:8001/cite/aduj:whist.13"  # the default: `academie serve`'s address
    assert "url = {http://127.0.0.1:8001/cite/aduj:whist.13}" in cited["bibtex"]
    assert "evil.example" not in r.text


# -- a large edition: every page's queries use indexes ----------------------------------------------

PAGES = ["/", "/?page=1", "/chapter/1", "/chapter/3", "/cite/aduj:whist.13", "/cite/aduj:hombre.61", "/cite/aduj:whist.1",
         "/cite/aduj:whist.24",
         "/search?q=carte", "/search?q=carte&game=whist&kind=article&edition=aduj", "/game/whist"]


def test_no_page_reads_every_passage(room, built_db, monkeypatch):
    """On a library's database, a page that scanned the passages would read millions of
    rows: each query of each page finds its passages through an index (EXPLAIN QUERY PLAN)."""
    import sqlite3

    import pipeline.web
    from pipeline.web import downloads

    asked: list[tuple[str, object]] = []
    real = pipeline.web.rows

    def recording(conn, sql, params=()):
        asked.append((sql, params))
        return real(conn, sql, params)

    monkeypatch.setattr(pipeline.web, "rows", recording)
    conn = sqlite3.connect(built_db)
    scans = {}
    for path in PAGES:
        asked.clear()
        # what is read once per database is read again, so that its queries are seen too
        monkeypatch.setattr(downloads, "_cache", {})
        monkeypatch.setattr(pipeline.web, "_searches", type(pipeline.web._searches)())
        html(room, path)
        assert asked, path
        for sql, params in asked:
            plan = [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
            full = [step for step in plan if re.search(r"\bSCAN (p|passages)\b", step)]
            if full:
                scans[path] = (sql, full)
    conn.close()
    assert not scans


def test_the_home_page_lists_chapters_by_pages(room, db, monkeypatch):
    import pipeline.web

    monkeypatch.setattr(pipeline.web, "CHAPTERS_PER_PAGE", 2)
    pages = [data(room, f"/index.json?page={n}") for n in (1, 2, 3)]
    listed = [[c["id"] for e in p["editions"] for c in e["chapters"]] for p in pages]
    assert [sorted(ids) for ids in listed] == [[1, 2], [3, 4], [5]]
    assert [(p["page"]["previous"], p["page"]["next"], p["page"]["pages"]) for p in pages] == [
        (None, 2, 3), (1, 3, 3), (2, None, 3)]
    assert pages[1]["totals"] == {"chapters": 5, "passages": 220, "articles": 69}
    counted = {c["id"]: (c["passages"], c["articles"], c["first_page"], c["last_page"])
               for p in pages for e in p["editions"] for c in e["chapters"]}
    assert counted == {r[0]: tuple(r[1:]) for r in db.execute(
        "SELECT chapter_id, count(*), sum(kind = 'article'), min(page), max(page) FROM passages GROUP BY chapter_id")}
    page = html(room, "/?page=2")
    assert 'href="/?page=1" rel="prev"' in page and 'href="/?page=3" rel="next"' in page
    assert fetch(room, "/?page=4")[0] == 404 and fetch(room, "/?page=x")[0] == 404
