"""The edition as TEI P5: one document per edition, built from the database alone.

``edition_tei(conn, "aduj")`` builds the document with lxml; ``export(db, out)`` writes
one file per edition (``<out>/<edition>.xml``), each under a temporary name renamed
when complete. The reading room builds the same bytes on the fly (its downloads and
the DTS document endpoint), so a file and a download of it are byte for byte equal.

The document keeps both texts. Where the clean text differs from the raw text, the
difference is either

- a line or page join, encoded as TEI encodes the printed line: ``<lb/>`` for every
  line end of the OCR (``break="no"`` where the join leaves no space: a hyphenated
  word mended, ``rend="hyphen"`` where the printer's hyphen stood before it),
  ``<pb n="407"/>`` where a page starts and ``<fw type="header">`` for its running
  head; these are the ``layout.*`` fixes of line ends and page breaks;
- or any other correction: ``<choice><sic>what the OCR printed</sic><corr
  resp="#clean.real_word" type="spelling" cert="0.99">our reading</corr></choice>``,
  ``resp`` pointing at the fixes' taxonomy of the header (``classDecl``), ``type`` the
  correction's kind, ``cert`` its confidence. Inside ``sic``, line ends are ``<lb/>``.

Two readings of the document give the texts back (``read_raw``, ``read_clean``):

- the raw reading takes every text, ``sic`` not ``corr``, the running heads, "\\n" for
  an ``lb`` ("-\\n" when ``rend="hyphen"``), and a footnote where its ``<anchor
  corresp="#…"/>`` marks the place it was printed;
- the clean reading of a passage takes ``corr`` not ``sic``, leaves out running heads,
  page breaks, anchors and the footnotes placed in it (each is a passage of its own),
  and reads a run of line breaks (``lb``, with only ``pb``, ``fw`` or ``anchor``
  between them) as one space, or nothing when one of them has ``break="no"``.

A chapter's raw reading is its page text (``chapters.raw_text`` without the export's
header and footer lines, which are metadata and stand in the header's ``sourceDesc``);
its clean reading is its passages (the elements with an ``xml:id`` in its div), in
reading order, one per line: ``passages.text_clean`` joined as the database's contract
says. ``tests/test_tei.py`` proves both for every chapter.

The citation structure is declared in the header (``refsDecl``) and evaluated by
``cite_units``: its references are the database's citations without the edition
(``whist.13``); a second tree cites the printed pages (``//pb/@n``).
"""

from __future__ import annotations

import copy
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

TEI_NS = "http://www.tei-c.org/ns/1.0"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
DTS_NS = "https://w3id.org/api/dts#"
MEDIA_TYPE = "application/tei+xml"

LICENCE = "CC0-1.0"  # as schema/metadata.yml says (tests/test_tei.py checks they agree)
LICENCE_URL = "https://creativecommons.org/publicdomain/zero/1.0/"
LICENCE_TEXT = ("The texts are 18th- and 19th-century printings, in the public domain; the transcriptions, "
                "structure and corrections of this edition are dedicated to the public domain under CC0 1.0.")
STATUS = "texte numérisé non relu"

# the kinds of the database's passages, as citeType (DTS) and unit (TEI) names
GAME, ARTICLE, SECTION, PARAGRAPH, GLOSS, FOOTNOTE, PAGE = (
    "game", "article", "section", "paragraph", "gloss", "footnote", "page")


class ExportError(Exception):
    """The database cannot be written as TEI (it breaks its own contract); the message says where."""


# -- the citation structure -------------------------------------------------------------------

@dataclass(frozen=True)
class CiteStructure:
    """One ``citeStructure`` of the header: its unit, XPath (absolute for a tree's root,
    relative to the parent's match below it), the value it cites by, and its parts."""

    unit: str
    match: str
    use: str = "@n"
    delim: str | None = None
    children: tuple["CiteStructure", ...] = ()


def _notes_of(match: str = ".//note[@n]") -> CiteStructure:
    return CiteStructure(FOOTNOTE, match, delim=".")


# Every element with an @n in a game's div is a citable unit; its parent unit is the
# nearest one that contains it: a footnote is placed at its call, in the passage that
# calls it; the paragraphs that follow an article (whist.20.1) are in its div.
CITATIONS = CiteStructure(GAME, "/TEI/text/body/div[@type='chapter']/div[@type='game']", children=(
    CiteStructure(ARTICLE, ".//div[@type='article']", delim=".", children=(
        CiteStructure(PARAGRAPH, "p[@n]", delim=".", children=(_notes_of(),)),
        CiteStructure(GLOSS, "list/item[@n]", delim=".", children=(_notes_of(),)),
        _notes_of("p[not(@n)]//note[@n]"),
    )),
    CiteStructure(SECTION, ".//div[@type='section']/head[@n]", delim=".", children=(_notes_of(),)),
    CiteStructure(PARAGRAPH, ".//p[@n][not(ancestor::div[@type='article'])]", delim=".", children=(_notes_of(),)),
    CiteStructure(GLOSS, ".//item[@n][not(ancestor::div[@type='article'])]", delim=".", children=(_notes_of(),)),
    _notes_of(".//note[@n][not(ancestor::p or ancestor::head[@n] or ancestor::item or ancestor::div[@type='article'])]"),
))
PAGES = CiteStructure(PAGE, "/TEI/text/body//pb[@n]")
PAGES_TREE = "pages"


# -- small helpers ------------------------------------------------------------------------------

def local(el) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _t(tag: str) -> str:
    return f"{{{TEI_NS}}}{tag}"


_NCNAME = re.compile(r"^[^\W\d][\w.\-]*$")


def xml_id(local_citation: str) -> str:
    """An XML name for a citation without its edition: itself where it is one
    ('whist.13'), else prefixed with '_' and cleaned ('_001-75e3c30c86ec1490.s7')."""
    if _NCNAME.match(local_citation):
        return local_citation
    return "_" + re.sub(r"[^\w.\-]", "_", local_citation)


# XML 1.0 cannot carry C0 controls (but tab and newline) nor U+FFFE/FFFF: such a
# character of the OCR is a <g type="control" n="U+000C"/>, read back as the character.
_ILLEGAL = re.compile("[\x00-\x08\x0b-\x1f\ufffe\uffff]")


def _append_text(el, text: str) -> None:
    """Append text at the end of ``el`` (after its last child)."""
    if not text:
        return
    pos = 0
    for m in _ILLEGAL.finditer(text):
        _append_plain(el, text[pos : m.start()])
        etree.SubElement(el, _t("g"), type="control", n=f"U+{ord(m.group()):04X}")
        pos = m.end()
    _append_plain(el, text[pos:])


def _append_plain(el, text: str) -> None:
    if not text:
        return
    # (its last child found from the end: lxml counts an element's children one by one, and a
    # paragraph of a run-on chapter has thousands, each asked for at each text appended)
    try:
        last = el[-1]
    except IndexError:
        el.text = (el.text or "") + text
    else:
        last.tail = (last.tail or "") + text


def _sub(parent, tag: str, text: str | None = None, **attrib):
    el = etree.SubElement(parent, _t(tag), {k.replace("xml_id", XML_ID): str(v) for k, v in attrib.items()
                                            if v is not None})
    if text:
        _append_text(el, text)
    return el


# -- what the database says about an edition ---------------------------------------------------

@dataclass
class _Passage:
    row: dict
    corrections: list[dict]
    local: str  # the citation without its edition
    scope: str  # the game, or the chapter's key
    nested_in: "_Passage | None" = None  # a footnote printed inside another passage's span
    caller: "_Passage | None" = None  # a footnote placed at its call, in this passage
    call_at: int | None = None  # clean offset of the end of the call in the caller
    calls: list["_Passage"] = field(default_factory=list)  # notes placed in this passage

    @property
    def kind(self) -> str:
        return self.row["kind"]

    @property
    def start(self) -> int:
        return self.row["raw_start"]

    @property
    def end(self) -> int:
        return self.row["raw_end"]


@dataclass
class _Chapter:
    row: dict
    pages: list[dict]
    heads: list[dict]  # running heads
    export: list[dict]  # the export's header and footer
    passages: list[_Passage]


def _rows(conn: sqlite3.Connection, sql: str, args=()) -> list[dict]:
    cur = conn.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def editions(conn: sqlite3.Connection) -> list[dict]:
    """The editions that have chapters, in the order of their ids."""
    return _rows(conn, "SELECT e.* FROM editions e WHERE EXISTS (SELECT 1 FROM chapters c WHERE c.edition_id = e.id) "
                       "ORDER BY e.id")


def _chapters(conn: sqlite3.Connection, edition: str) -> list[_Chapter]:
    out = []
    for c in _rows(conn, "SELECT * FROM chapters WHERE edition_id = ? ORDER BY id", (edition,)):
        furniture = _rows(conn, "SELECT * FROM furniture WHERE chapter_id = ? ORDER BY raw_start", (c["id"],))
        rows = _rows(conn, "SELECT * FROM passages WHERE chapter_id = ? ORDER BY seq", (c["id"],))
        corrections: dict[int, list[dict]] = {}
        for k in _rows(conn, 'SELECT k.* FROM corrections k JOIN passages p ON p.id = k.passage_id '
                             'WHERE p.chapter_id = ? ORDER BY k.clean_start, k.start, k."end"', (c["id"],)):
            corrections.setdefault(k["passage_id"], []).append(k)
        passages = [_Passage(r, corrections.get(r["id"], []), r["citation"].split(":", 1)[1],
                             r["game"] or c["citation_key"]) for r in rows]
        out.append(_Chapter(
            c, _rows(conn, "SELECT * FROM pages WHERE chapter_id = ? ORDER BY seq", (c["id"],)),
            [f for f in furniture if f["kind"] == "running_head"],
            [f for f in furniture if f["kind"] in ("export_header", "export_footer")], passages))
    return out


def _attach_notes(ch: _Chapter) -> None:
    """Which footnotes are printed inside another passage, and which are placed at their call."""
    from ..markers import note_calls, note_marker

    by_cite = {p.row["citation"]: p for p in ch.passages}
    for p in ch.passages:
        if p.kind != "footnote":
            continue
        holders = [q for q in ch.passages if q is not p and q.start <= p.start and p.end <= q.end
                   and (q.start, q.end) != (p.start, p.end)]
        p.nested_in = min(holders, key=lambda q: q.end - q.start) if holders else None
        caller = by_cite.get(p.row["note_for"]) if p.row["note_for"] else None
        mark = note_marker(p.row["text_clean"])
        number = mark.value if mark else None
        if number is None:
            m = re.search(r"\.n(\d+)(?:-\d+)?$", p.local)
            number = int(m.group(1)) if m else None
        if caller is None or caller.kind == "footnote" or number is None or not p.local.startswith(caller.local + "."):
            continue
        call = next((c for c in note_calls(caller.row["text_clean"]) if c.value == number), None)
        if call is None:
            continue
        p.caller, p.call_at = caller, call.end
        caller.calls.append(p)


# -- a passage's content: text, corrections, line and page breaks --------------------------------

@dataclass
class _Seg:
    """A stretch of a passage: unchanged text, or one correction (or a run of joined
    corrections), or something placed between (a page break, a footnote at its call)."""

    kind: str  # 'text', 'choice', 'run', 'pb', 'note'
    raw_a: int
    raw_b: int
    clean_a: int
    clean_b: int
    text: str = ""  # 'text': the text; 'run': the clean text it reads as
    corrections: list[dict] = field(default_factory=list)
    page: dict | None = None
    note: _Passage | None = None


class _Builder:
    """Builds one edition's TEI body, chapter by chapter."""

    def __init__(self, chapters: list[_Chapter]):
        self.chapters = chapters
        self.floating: list[_Passage] = []  # footnotes called by none, to be placed once no article is open
        self.page_names: dict[int, str] = {}  # page row id → its pb/@n, unique in the edition
        self.ids: set[str] = set()
        used: dict[str, int] = {}
        for ch in chapters:
            for pg in ch.pages:
                if pg["number"] is None:
                    continue
                name = str(pg["number"])
                used[name] = used.get(name, 0) + 1
                self.page_names[pg["id"]] = name if used[name] == 1 else f"{name}-{used[name]}"

    # -- ids and names

    def _id(self, local_citation: str) -> str:
        ident = xml_id(local_citation)
        if ident in self.ids:
            raise ExportError(f"two passages would have the xml:id {ident!r} (citation …:{local_citation})")
        self.ids.add(ident)
        return ident

    @staticmethod
    def _n(p: _Passage, parent_ref: str) -> str:
        if not p.local.startswith(parent_ref + "."):
            raise ExportError(f"{p.row['citation']} is placed in {parent_ref!r} but is not cited under it")
        return p.local[len(parent_ref) + 1 :]

    # -- the raw text of a span, as markup

    def _tokens(self, ch: _Chapter, a: int, b: int, notes: list[_Passage]) -> list[tuple]:
        """The raw span [a, b) as tokens: ('lb',), ('hyphen',) before a line end, ('ws', c),
        ('char', c), ('fw', head), ('pb', page) where a page starts inside, ('note', passage)."""
        raw = ch.row["raw_text"]
        heads = {h["raw_start"]: h for h in ch.heads if a <= h["raw_start"] and h["raw_end"] <= b}
        starts = {pg["raw_start"]: pg for pg in ch.pages if a < pg["raw_start"] < b}
        spans = {n.start: n for n in notes if a <= n.start and n.end <= b}
        out: list[tuple] = []
        i = a
        while i < b:
            jump = heads[i]["raw_end"] if i in heads else (spans[i].end if i in spans else i + 1)
            for x in sorted(x for x in starts if i <= x < jump):
                out.append(("pb", starts.pop(x)))
            if i in heads:
                out.append(("fw", heads[i]))
                i = jump
                continue
            if i in spans:
                out.append(("note", spans[i]))
                i = jump
                continue
            c = raw[i]
            if c == "\n":
                out.append(("lb",))
            elif c == "-" and i + 1 < b and raw[i + 1] == "\n" and (i + 1) not in starts:
                out.append(("hyphen",))
            elif c.isspace():
                out.append(("ws", c))
            else:
                out.append(("char", c))
            i += 1
        return out

    def _segments(self, ch: _Chapter, p: _Passage) -> list[_Seg]:
        raw, clean = ch.row["raw_text"], p.row["text_clean"]
        segs: list[_Seg] = []
        pos_raw, pos_clean = p.start, 0
        for k in p.corrections:
            if k["start"] < pos_raw or k["clean_start"] < pos_clean:
                raise ExportError(f"{p.row['citation']}: corrections overlap at raw {k['start']}")
            if raw[pos_raw : k["start"]] != clean[pos_clean : k["clean_start"]]:
                raise ExportError(f"{p.row['citation']}: the text between corrections differs at raw {pos_raw}")
            if k["start"] > pos_raw:
                segs.append(_Seg("text", pos_raw, k["start"], pos_clean, k["clean_start"], raw[pos_raw : k["start"]]))
            segs.append(_Seg("choice", k["start"], k["end"], k["clean_start"], k["clean_end"], corrections=[k]))
            pos_raw, pos_clean = k["end"], k["clean_end"]
        if raw[pos_raw : p.end] != clean[pos_clean:]:
            raise ExportError(f"{p.row['citation']}: its raw and clean texts differ outside its corrections")
        if p.end > pos_raw:
            segs.append(_Seg("text", pos_raw, p.end, pos_clean, len(clean), raw[pos_raw : p.end]))
        segs = self._join_runs(ch, p, segs)
        # page breaks inside the passage, between or inside unchanged text
        for pg in ch.pages:
            x = pg["raw_start"]
            if not p.start < x < p.end:
                continue
            for i, s in enumerate(segs):
                if s.raw_a < x < s.raw_b and s.kind == "text":
                    k = x - s.raw_a
                    segs[i : i + 1] = [
                        _Seg("text", s.raw_a, x, s.clean_a, s.clean_a + k, s.text[:k]),
                        _Seg("pb", x, x, s.clean_a + k, s.clean_a + k, page=pg),
                        _Seg("text", x, s.raw_b, s.clean_a + k, s.clean_b, s.text[k:])]
                    break
                if s.raw_a == x and s.kind != "pb":
                    segs.insert(i, _Seg("pb", x, x, s.clean_a, s.clean_a, page=pg))
                    break
        # footnotes at their call
        for note in p.calls:
            at = note.call_at
            for i, s in enumerate(segs):
                if s.clean_a < at < s.clean_b and s.kind == "text":
                    k = at - s.clean_a
                    segs[i : i + 1] = [
                        _Seg("text", s.raw_a, s.raw_a + k, s.clean_a, at, s.text[:k]),
                        _Seg("note", s.raw_a + k, s.raw_a + k, at, at, note=note),
                        _Seg("text", s.raw_a + k, s.raw_b, at, s.clean_b, s.text[k:])]
                    break
                if s.clean_a >= at and s.kind != "note":
                    segs.insert(i, _Seg("note", s.raw_a, s.raw_a, s.clean_a, s.clean_a, note=note))
                    break
            else:
                segs.append(_Seg("note", p.end, p.end, len(clean), len(clean), note=note))
        return segs

    def _join_runs(self, ch: _Chapter, p: _Passage, segs: list[_Seg]) -> list[_Seg]:
        """Adjacent corrections made by the layout fixes of line ends and page breaks whose
        raw text is only line ends, hyphens before them, running heads, page starts and
        footnotes, and which together read as one space or nothing: one run of breaks."""
        nested = [q for q in self.chapters_nested(ch) if q.nested_in is p]

        def candidate(s: _Seg) -> bool:
            k = s.corrections[0] if s.kind == "choice" else None
            if k is None or not all(name.startswith("layout.") for name in k["fix"].split("+")):
                return False
            return all(t[0] in ("lb", "hyphen", "fw", "pb", "note") for t in self._tokens(ch, s.raw_a, s.raw_b, nested))

        out: list[_Seg] = []
        i = 0
        while i < len(segs):
            if not candidate(segs[i]):
                out.append(segs[i])
                i += 1
                continue
            j = i
            while j + 1 < len(segs) and candidate(segs[j + 1]):
                j += 1
            group = segs[i : j + 1]
            after = "".join(s.corrections[0]["after"] for s in group)
            tokens = self._tokens(ch, group[0].raw_a, group[-1].raw_b, nested)
            has_lb = any(t[0] == "lb" for t in tokens)
            if after == "" or (after == " " and has_lb):
                out.append(_Seg("run", group[0].raw_a, group[-1].raw_b, group[0].clean_a, group[-1].clean_b,
                                text=after, corrections=[s.corrections[0] for s in group]))
            else:
                out.extend(group)
            i = j + 1
        return out

    @staticmethod
    def chapters_nested(ch: _Chapter) -> list[_Passage]:
        return [q for q in ch.passages if q.nested_in is not None]

    # -- emitting markup

    def _emit_tokens(self, el, ch: _Chapter, tokens: list[tuple], joined: bool | None) -> None:
        """Tokens as markup in ``el``. ``joined``: None inside ``sic`` (the raw as printed),
        True for a run read as nothing (``break="no"``), False for one read as a space."""
        hyphen = False
        for t in tokens:
            kind = t[0]
            if kind in ("char", "ws"):
                _append_text(el, t[1])
            elif kind == "hyphen":
                if joined is None:
                    _append_text(el, "-")
                else:
                    hyphen = True
            elif kind == "lb":
                lb = _sub(el, "lb")
                if joined:
                    lb.set("break", "no")
                if hyphen:
                    lb.set("rend", "hyphen")
                hyphen = False
            elif kind == "fw":
                _sub(el, "fw", t[1]["text"], type="header")
            elif kind == "pb":
                self._pb(el, t[1], joined)
            elif kind == "note":
                self._note_here(el, ch, t[1])

    def _pb(self, el, page: dict, joined: bool | None = None) -> None:
        pb = _sub(el, "pb", n=self.page_names.get(page["id"]))
        if joined:
            pb.set("break", "no")

    def _note_here(self, el, ch: _Chapter, note: _Passage) -> None:
        """Where a footnote was printed: an anchor pointing at it (it is placed at its call,
        or after the passage it was printed in)."""
        _sub(el, "anchor", type="footnote", corresp=f"#{xml_id(note.local)}")
        if note.caller is None and note not in self.floating:
            self.floating.append(note)

    def _content(self, el, ch: _Chapter, p: _Passage, ref: str, label: str | None = None) -> None:
        """A passage's text into ``el``; ``ref``: the citable unit it belongs to, for the
        footnotes placed at their calls; ``label``: a glossary entry's term, marked as
        the ``label`` of its ``item`` where the clean text begins with it."""
        segs = self._segments(ch, p)
        if label and p.row["text_clean"].startswith(label):
            cut = len(label)
            for i, s in enumerate(segs):
                if s.kind == "text" and s.clean_a < cut < s.clean_b:
                    k = cut - s.clean_a
                    segs[i : i + 1] = [_Seg("text", s.raw_a, s.raw_a + k, s.clean_a, cut, s.text[:k]),
                                       _Seg("text", s.raw_a + k, s.raw_b, cut, s.clean_b, s.text[k:])]
                    break
            k = next((i for i, s in enumerate(segs) if s.clean_a >= cut), len(segs))
            self._emit(_sub(el, "label"), ch, p, segs[:k], ref)
            segs = segs[k:]
        self._emit(el, ch, p, segs, ref)

    def _emit(self, el, ch: _Chapter, p: _Passage, segs: list[_Seg], ref: str) -> None:
        nested = [q for q in self.chapters_nested(ch) if q.nested_in is p]
        for s in segs:
            if s.kind == "text":
                _append_text(el, s.text)
            elif s.kind == "pb":
                self._pb(el, s.page)
            elif s.kind == "note":
                self._note(el, ch, s.note, ref)
            elif s.kind == "run":
                self._emit_tokens(el, ch, self._tokens(ch, s.raw_a, s.raw_b, nested), joined=s.text == "")
            else:
                k = s.corrections[0]
                choice = _sub(el, "choice")
                sic = _sub(choice, "sic")
                self._emit_tokens(sic, ch, self._tokens(ch, s.raw_a, s.raw_b, nested), joined=None)
                _sub(choice, "corr", k["after"], resp=" ".join(f"#{n}" for n in k["fix"].split("+")),
                     type=k["kind"], cert=_cert(k["confidence"]))

    def _note(self, parent, ch: _Chapter, note: _Passage, parent_ref: str) -> None:
        el = _sub(parent, "note", place="foot", n=self._n(note, parent_ref), xml_id=self._id(note.local))
        self._content(el, ch, note, note.local)

    # -- a chapter

    def chapter(self, body, ch: _Chapter, file_id: str) -> None:
        """The chapter's div: its page text, passage by passage, in games, sections,
        articles and glossaries, with what lies between them."""
        _attach_notes(ch)
        div = _sub(body, "div", type="chapter", n=ch.row["number"], corresp=f"#{file_id}")
        st = _Open(div)
        inside = [(p.start, p.end) for p in ch.passages if p.nested_in is None]
        pages = [pg for pg in ch.pages if not any(a < pg["raw_start"] < b for a, b in inside)]
        exports = [(f["raw_start"], f["raw_end"]) for f in ch.export]
        pos = 0
        for p in ch.passages:
            if p.nested_in is not None:
                continue
            if p.kind == "footnote" and (p.caller is not None or (st.article is not None and p.scope == st.game_ref)):
                # placed at its call, or (uncalled) after the article it is printed in: here, an anchor
                self._gap(st.container(), ch, pos, p.start, pages, exports)
                self._note_here(st.container(), ch, p)
                pos = p.end
                continue
            in_article = (st.article is not None and p.kind not in ("article", "section", "heading", "footnote")
                          and p.scope == st.game_ref and p.local.startswith(st.article_ref + "."))
            if st.glossary is not None and (p.kind != "gloss" or (st.article is not None and not in_article)):
                st.glossary = None
            if st.article is not None and not in_article:
                st.article = st.article_ref = st.glossary = None
                self._flush(st, ch)
            if p.kind == "heading" or p.scope != st.game_ref:
                self._flush(st, ch)
                st.game = st.section = st.glossary = None
            if p.kind == "section":
                st.section = st.glossary = None
            self._gap(st.container(), ch, pos, p.start, pages, exports)
            pos = p.end
            if st.game is None:
                st.game_ref = p.scope
                st.game = _sub(div, "div", type="game", n=p.scope, subtype=None if p.row["game"] else "unidentified")
            block = st.article if st.article is not None else (st.section if st.section is not None else st.game)
            if p.kind == "heading":
                self._content(_sub(st.game, "head", xml_id=self._id(p.local)), ch, p, p.local)
            elif p.kind == "section":
                st.section = _sub(st.game, "div", type="section")
                head = _sub(st.section, "head", n=self._n(p, st.game_ref), xml_id=self._id(p.local))
                self._content(head, ch, p, p.local)
            elif p.kind == "article":
                st.article_ref = p.local
                st.article = _sub(block, "div", type="article", n=self._n(p, st.game_ref), xml_id=self._id(p.local))
                self._content(_sub(st.article, "p"), ch, p, p.local)
            elif p.kind == "gloss":
                if st.glossary is None:
                    st.glossary = _sub(block, "list", type="glossary")
                item = _sub(st.glossary, "item", n=self._n(p, st.unit_ref()), xml_id=self._id(p.local))
                self._content(item, ch, p, p.local, label=p.row["term"])
            elif p.kind == "footnote":
                note = _sub(st.container(), "note", place="foot", n=self._n(p, st.game_ref), xml_id=self._id(p.local))
                self._content(note, ch, p, p.local)
            else:
                para = _sub(block, "p", n=self._n(p, st.unit_ref()), xml_id=self._id(p.local))
                self._content(para, ch, p, p.local)
            if st.article is None:
                self._flush(st, ch)
        st.article = st.article_ref = st.glossary = None
        self._flush(st, ch)
        self._gap(st.container(), ch, pos, len(ch.row["raw_text"]), pages, exports, last=True)

    def _flush(self, st: "_Open", ch: _Chapter) -> None:
        """The footnotes printed inside a passage or an article but called by none: after
        it, in its section or game, now that no article is open."""
        if not self.floating:
            return
        if st.game is None:
            raise ExportError(f"{ch.row['source_file']}: footnotes outside any game's div: "
                              + ", ".join(n.row["citation"] for n in self.floating))
        st.glossary = None
        for note in self.floating:
            self._note(st.container(), ch, note, st.game_ref)
        self.floating = []

    def _gap(self, el, ch: _Chapter, a: int, b: int, pages: list[dict], exports: list, last: bool = False) -> None:
        """The raw text between passages: whitespace, page breaks, running heads, the places
        footnotes were printed; what is none of these (the contract says nothing is) goes
        into an <ab type="unplaced">. The export's header and footer are left out."""
        raw = ch.row["raw_text"]
        i = a
        stray = None
        while i < b:
            while pages and pages[0]["raw_start"] <= i:
                self._pb(el, pages.pop(0))
            cut = next(((x, y) for x, y in exports if x <= i < y), None)
            if cut:
                i = cut[1]
                continue
            head = next((h for h in ch.heads if h["raw_start"] == i), None)
            if head:
                stray = None
                _sub(el, "fw", head["text"], type="header")
                i = head["raw_end"]
                continue
            c = raw[i]
            if c.isspace():
                stray = None
                _append_text(el, c)
            else:
                if stray is None:
                    stray = _sub(el, "ab", type="unplaced")
                _append_text(stray, c)
            i += 1
        while last and pages:
            self._pb(el, pages.pop(0))
        while pages and pages[0]["raw_start"] <= b:
            self._pb(el, pages.pop(0))


def _cert(confidence: float) -> str:
    return str(round(float(confidence), 3))


@dataclass
class _Open:
    """The divs open while a chapter is written: its game, section, article, glossary."""

    chapter: object
    game: object = None
    game_ref: str | None = None
    section: object = None
    article: object = None
    article_ref: str | None = None
    glossary: object = None

    def container(self):
        for el in (self.glossary, self.article, self.section, self.game):
            if el is not None:
                return el
        return self.chapter

    def unit_ref(self) -> str:
        return self.article_ref if self.article is not None else self.game_ref


# -- the header -------------------------------------------------------------------------------------

def _cite_structure_xml(parent, s: CiteStructure) -> None:
    el = _sub(parent, "citeStructure", unit=s.unit, match=s.match, use=s.use, delim=s.delim)
    for child in s.children:
        _cite_structure_xml(el, child)


def _file_ids(chapters: list[_Chapter]) -> list[str]:
    out, seen = [], set()
    for ch in chapters:
        stem = Path(ch.row["source_file"]).stem
        ident = "file." + re.sub(r"[^\w.\-]", "_", stem)
        k = 2
        while ident in seen:
            ident = f"file.{stem}-{k}"
            k += 1
        seen.add(ident)
        out.append(ident)
    return out


def _header(tei, edition: dict, chapters: list[_Chapter], file_ids: list[str], fixes: list[dict]) -> None:
    from ..fixes import KINDS

    header = _sub(tei, "teiHeader")
    file_desc = _sub(header, "fileDesc")
    title_stmt = _sub(file_desc, "titleStmt")
    _sub(title_stmt, "title", edition["title"], type="main")
    _sub(title_stmt, "title", "édition électronique d'après un texte numérisé non relu: OCR corrigé, structuré et "
                              "citable", type="sub")
    resp = _sub(title_stmt, "respStmt")
    _sub(resp, "resp", "OCR cleaning, structure, citations and TEI encoding (automatic; every correction "
                       "names its fix)")
    _sub(resp, "name", "Académie (academie build, academie export tei)")
    pub = _sub(file_desc, "publicationStmt")
    _sub(pub, "publisher", "Académie")
    _sub(pub, "idno", edition["id"], type="edition")
    availability = _sub(pub, "availability", status="free")
    licence = _sub(availability, "licence", target=LICENCE_URL)
    _append_text(licence, f"{LICENCE}: {LICENCE_TEXT}")
    source = _sub(file_desc, "sourceDesc")
    book = _sub(source, "bibl", type="edition")
    _sub(book, "title", edition["title"])
    if edition.get("year"):
        _sub(book, "date", str(edition["year"]), when=str(edition["year"]))
    if edition.get("chapter_count"):
        _sub(book, "extent", f"{edition['chapter_count']} chapters")
    if edition.get("source"):
        _sub(book, "note", edition["source"], type="source")
    files = _sub(source, "listBibl", type="exports")
    for ch, ident in zip(chapters, file_ids):
        c = ch.row
        bibl = _sub(files, "bibl", type="export", xml_id=ident)
        _sub(bibl, "idno", c["source_file"], type="file")
        _sub(bibl, "idno", c["sha256"], type="sha256")
        if c["number"]:
            _sub(bibl, "biblScope", str(c["number"]), unit="chapter", n=c["number"])
        for f in ch.export:
            _sub(bibl, "note", f["text"], type=f["kind"].replace("_", "-"))
            if f["kind"] == "export_header" and STATUS in f["text"]:
                _sub(bibl, "note", STATUS, type="status")
        said = {"header": "the export's header names the edition",
                "unknown": "neither an export header nor the manifest names the edition"}
        _sub(bibl, "note", c["note"] or said.get(c["edition_source"], c["edition_source"]), type="attribution",
             subtype=c["edition_source"])
        _sub(bibl, "note", f"read as {c['encoding']}; layout {c['layout_form']}", type="encoding")
    encoding = _sub(header, "encodingDesc")
    project = _sub(encoding, "projectDesc")
    _sub(project, "p", "Each chapter file of the corpus is one div type=\"chapter\". Line ends of the OCR are lb, "
                       "printed pages pb, running heads fw; every other correction of the OCR is a choice of sic and "
                       "corr, whose resp points at the fix that made it (classDecl) and whose cert is its "
                       "confidence. Footnotes stand at their call; an anchor marks where each was printed.")
    refs = _sub(encoding, "refsDecl", default="true", n="citations")
    _cite_structure_xml(refs, CITATIONS)
    pages = _sub(encoding, "refsDecl", n=PAGES_TREE)
    _cite_structure_xml(pages, PAGES)
    classes = _sub(encoding, "classDecl")
    taxonomy = _sub(classes, "taxonomy", xml_id="fixes")
    _sub(taxonomy, "desc", "The fixes of the pipeline (pipeline/fixes.py, the database's table fixes), by kind: "
                           "every corr points at the fixes that made it.")
    kinds: dict[str, object] = {}
    for f in fixes:
        if f["kind"] not in kinds:
            kinds[f["kind"]] = cat = _sub(taxonomy, "category", xml_id=f"kind.{f['kind']}")
            _sub(cat, "catDesc", f"{f['kind']}: {KINDS.get(f['kind'], f['kind'])}")
        cat = _sub(kinds[f["kind"]], "category", xml_id=f["name"], n=f["stage"])
        _sub(cat, "catDesc", f"{f['name']}: {f['explanation']}")
    profile = _sub(header, "profileDesc")
    langs = _sub(profile, "langUsage")
    _sub(langs, "language", "French", ident="fr")


# -- the document ---------------------------------------------------------------------------------

def edition_tei(conn: sqlite3.Connection, edition_id: str) -> etree._ElementTree:
    """The TEI document of an edition, built from the database."""
    found = [e for e in editions(conn) if e["id"] == edition_id]
    if not found:
        raise ExportError(f"no edition {edition_id!r} with chapters in the database")
    edition = found[0]
    chapters = _chapters(conn, edition_id)
    fixes = _rows(conn, "SELECT * FROM fixes ORDER BY rowid")
    tei = etree.Element(_t("TEI"), nsmap={None: TEI_NS})
    tei.set(XML_ID, xml_id(f"edition.{edition_id}"))
    tei.set("{http://www.w3.org/XML/1998/namespace}lang", "fr")
    file_ids = _file_ids(chapters)
    _header(tei, edition, chapters, file_ids, fixes)
    etree.indent(tei[0])
    tei[0].tail = "\n"
    text = _sub(tei, "text")
    body = _sub(text, "body")
    builder = _Builder(chapters)
    builder.ids.update({"fixes", *(f["name"] for f in fixes), *(f"kind.{f['kind']}" for f in fixes), *file_ids,
                        tei.get(XML_ID)})
    for ch, ident in zip(chapters, file_ids):
        builder.chapter(body, ch, ident)
        body[-1].tail = "\n"
    body.text = "\n"
    return etree.ElementTree(tei)


def passage_tei(conn: sqlite3.Connection, citation: str) -> str:
    """A passage's element as the export writes it (an article's div, a paragraph …)."""
    edition, _, ref = citation.partition(":")
    tree = edition_tei(conn, edition)
    found = tree.getroot().xpath("//*[@xml:id = $id]", id=xml_id(ref))
    if not found:
        raise ExportError(f"no element for {citation!r} in the TEI of {edition}")
    return etree.tostring(found[0], encoding="unicode", with_tail=False)


def tei_bytes(tree: etree._ElementTree) -> bytes:
    """The document as a file: UTF-8, with its declaration, ending in a newline."""
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8") + b"\n"


@dataclass(frozen=True)
class Written:
    """A TEI document ``export`` wrote, and what it holds."""

    path: Path
    edition: str
    chapters: int
    passages: int
    pages: int  # the printed pages it cites (pb with a number)
    size: int


def summary(path: Path, edition: str, tree: etree._ElementTree, size: int) -> Written:
    body = tree.getroot().find(_t("text")).find(_t("body"))
    return Written(path, edition, sum(1 for d in body if local(d) == "div"),
                   sum(1 for e in body.iter() if e.get(XML_ID)), sum(1 for e in body.iter(_t("pb")) if e.get("n")),
                   size)


def export(db: Path | str | sqlite3.Connection, out: Path | str) -> list[Written]:
    """Write one TEI document per edition of the database (a path, or an open connection)
    into ``out`` (``<edition>.xml``), each under a temporary name renamed over the file
    only when complete; what was written, in the order of the editions' ids. Every
    document is built before any is written."""
    from ..files import remove_stale, temporary
    from .lookup import connect

    out = Path(out)
    conn = db if isinstance(db, sqlite3.Connection) else connect(db)
    try:
        documents = []
        for e in editions(conn):
            tree = edition_tei(conn, e["id"])
            documents.append((e["id"], tree, tei_bytes(tree)))
    finally:
        if conn is not db:
            conn.close()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for ident, tree, data in documents:
        target = out / f"{ident}.xml"
        remove_stale(target)
        tmp = temporary(target)
        try:
            tmp.write_bytes(data)
            tmp.replace(target)
        finally:
            tmp.unlink(missing_ok=True)
        written.append(summary(target, ident, tree, len(data)))
    return written


# -- reading the texts back ----------------------------------------------------------------------

def _anchored(root) -> dict[str, object]:
    """xml:id → footnote, for the footnotes an anchor marks the printed place of."""
    targets = {a.get("corresp", "")[1:] for a in root.iter() if local(a) == "anchor" and a.get("corresp")}
    return {el.get(XML_ID): el for el in root.iter() if local(el) == "note" and el.get(XML_ID) in targets}


def read_raw(el, anchored: dict | None = None) -> str:
    """What the OCR printed, read from ``el``: ``sic``, running heads, '\\n' per ``lb``
    ('-\\n' with ``rend="hyphen"``), and each footnote where its anchor stands."""
    anchored = _anchored(el.getroottree().getroot()) if anchored is None else anchored
    out: list[str] = []

    def content(e) -> None:
        out.append(e.text or "")
        for c in e:
            node(c)
            out.append(c.tail or "")

    def node(e) -> None:
        tag = local(e)
        if tag == "choice":
            for c in e:
                if local(c) == "sic":
                    content(c)
        elif tag == "lb":
            out.append(("-" if e.get("rend") == "hyphen" else "") + "\n")
        elif tag == "pb":
            pass
        elif tag == "anchor":
            note = anchored.get(e.get("corresp", "")[1:])
            if note is not None:
                content(note)
        elif tag == "note" and e.get(XML_ID) in anchored:
            pass
        elif tag == "g" and (e.get("n") or "").startswith("U+"):
            out.append(chr(int(e.get("n")[2:], 16)))
        else:
            content(e)

    content(el)
    return "".join(out)


_BREAK, _NO_BREAK, _MARK = object(), object(), object()


def read_clean(el) -> str:
    """Our reading of the passage ``el``: ``corr``, no running heads, page breaks or
    anchors, no passage placed in it (a footnote, the paragraphs in an article's div), and a run of line breaks as one space (nothing
    when one has ``break="no"``)."""
    items: list = []

    def content(e) -> None:
        items.append(e.text or "")
        for c in e:
            node(c)
            items.append(c.tail or "")

    def node(e) -> None:
        tag = local(e)
        if e.get(XML_ID) is not None:  # a passage of its own (a footnote, a paragraph after an article)
            items.append(_MARK)
        elif tag == "choice":
            for c in e:
                if local(c) == "corr":
                    content(c)
        elif tag == "lb":
            items.append(_NO_BREAK if e.get("break") == "no" else _BREAK)
        elif tag in ("pb", "fw", "anchor"):
            items.append(_MARK)
        elif tag == "g" and (e.get("n") or "").startswith("U+"):
            items.append(chr(int(e.get("n")[2:], 16)))
        else:
            content(e)

    if local(el) == "div":  # an article: its own paragraph, not what lies between it and the next
        for c in el:
            if local(c) == "p" and c.get(XML_ID) is None:
                content(c)
    else:
        content(el)
    out: list[str] = []
    run: list = []
    for item in items:
        if isinstance(item, str):
            if not item:
                continue
            if run:
                out.append(_join(run))
                run = []
            out.append(item)
        else:
            run.append(item)
    if run:
        out.append(_join(run))
    return "".join(out)


def _join(run: list) -> str:
    return "" if _NO_BREAK in run or _BREAK not in run else " "


@dataclass(frozen=True)
class ChapterReading:
    source_file: str
    raw: str  # the raw reading of its div: the page text
    clean: str  # its passages' clean readings in reading order, one per line
    passages: list[tuple[str, str]]  # (xml:id, clean reading) in reading order


def chapter_readings(tree) -> list[ChapterReading]:
    """Each chapter div of the document, read both ways."""
    root = tree.getroot() if hasattr(tree, "getroot") else tree
    anchored = _anchored(root)
    files = {f"#{b.get(XML_ID)}": next((i.text for i in b if local(i) == "idno" and i.get("type") == "file"), None)
             for b in root.iter() if local(b) == "bibl" and b.get("type") == "export"}
    out = []
    for div in root.iter():
        if local(div) != "div" or div.get("type") != "chapter":
            continue
        order = list(div.iter())
        place = {id(e): k for k, e in enumerate(order)}
        where = {}
        for e in order:
            if local(e) == "anchor" and e.get("corresp", "")[1:] in anchored:
                where[e.get("corresp")[1:]] = place[id(e)]
        passages = [e for e in order if e.get(XML_ID)]
        passages.sort(key=lambda e: where.get(e.get(XML_ID), place[id(e)]))
        readings = [(e.get(XML_ID), read_clean(e)) for e in passages]
        out.append(ChapterReading(files.get(div.get("corresp")), read_raw(div, anchored),
                                  "\n".join(text for _, text in readings), readings))
    return out


# -- the citation trees, evaluated -------------------------------------------------------------------

@dataclass
class Unit:
    """A citable unit: its reference, where it is in the tree, and the elements it cites."""

    identifier: str
    level: int
    parent: str | None
    cite_type: str
    elements: list = field(default_factory=list)  # in the namespace-free copy of the document


def plain_copy(tree) -> etree._ElementTree:
    """A copy of the document without the TEI namespace, so that the header's XPaths
    (written without prefixes, TEI being the documents' default namespace) select in it."""
    root = copy.deepcopy(tree.getroot() if hasattr(tree, "getroot") else tree)
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag.startswith(f"{{{TEI_NS}}}"):
            el.tag = el.tag.split("}", 1)[1]
    etree.cleanup_namespaces(root)
    return etree.ElementTree(root)


def declared_trees(plain) -> dict[str | None, list]:
    """The refsDecl of a (namespace-free) document: tree name (None for the default) →
    its root citeStructure elements."""
    out: dict[str | None, list] = {}
    for refs in plain.getroot().iter("refsDecl"):
        name = None if refs.get("default") == "true" else (refs.get("n") or refs.get(XML_ID))
        out[name] = [c for c in refs if c.tag == "citeStructure"]
    return out


def cite_units(plain, tree: str | None = None) -> list[Unit]:
    """The citable units of a citation tree, in document order (pre-order, depth first), by
    evaluating its citeStructure as the TEI Guidelines say: each unit's reference is its
    parent's, then @delim, then the value of @use on the node @match selects; a unit cited
    twice (a game continued in a later chapter) is listed once, with all its elements."""
    trees = declared_trees(plain)
    if tree not in trees:
        raise KeyError(tree)
    order = {e: k for k, e in enumerate(plain.getroot().iter())}
    found: dict[str, Unit] = {}
    out: list[Unit] = []

    def walk(context, structures, parent: Unit | None, level: int) -> None:
        hits = []
        for s in structures:
            nodes = context.xpath(s.get("match")) if parent is not None else plain.xpath(s.get("match"))
            for node in nodes:
                hits.append((order[node], node, s))
        for _, node, s in sorted(hits, key=lambda h: h[0]):
            value = node.xpath(f"string({s.get('use')})")
            ref = (parent.identifier + (s.get("delim") or "") if parent is not None else "") + value
            unit = found.get(ref)
            if unit is None:
                unit = found[ref] = Unit(ref, level, parent.identifier if parent else None, s.get("unit"))
                out.append(unit)
            unit.elements.append(node)
            children = [c for c in s if c.tag == "citeStructure"]
            if children:
                walk(node, children, unit, level + 1)

    walk(plain.getroot(), trees[tree], None, 1)
    # pre-order, depth first: the units of a game continued in a later chapter follow its first ones
    children: dict[str | None, list[Unit]] = {}
    for u in out:
        children.setdefault(u.parent, []).append(u)
    ordered: list[Unit] = []

    def visit(parent: str | None) -> None:
        for u in children.get(parent, []):
            ordered.append(u)
            visit(u.identifier)

    visit(None)
    return ordered


def citation_trees_json(plain) -> list[dict]:
    """The document's citation trees as DTS CitationTree objects (the default first)."""
    def structure(s) -> dict:
        out = {"@type": "CiteStructure", "citeType": s.get("unit")}
        children = [structure(c) for c in s if c.tag == "citeStructure"]
        if children:
            out["citeStructure"] = children
        return out

    trees = declared_trees(plain)
    out = []
    for name in sorted(trees, key=lambda n: n is not None):
        tree = {"@type": "CitationTree"}
        if name is not None:
            tree["identifier"] = name
        tree["citeStructure"] = [structure(s) for s in trees[name]]
        out.append(tree)
    return out
