"""Reading an ALTO chapter: one ALTO file (v2, v3 or v4, one or several ``Page``
elements) or a folder of per-page ALTO files → ``RawChapter`` with its structure.

The raw text is what the build reads of the XML: each ``TextLine``'s ``String``s
joined by their spaces (``SP``, or one space where the file gives none) and its line
end hyphen (``HYP``), one line per ``\\n``, a blank line between blocks and between
pages. Every word keeps its raw span, its ALTO id and the OCR's confidence, so a
passage can be traced back to the strings of the page image it was read from.
A file with no namespace is read as ALTO too: old exports omit it.
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import lru_cache
from pathlib import Path

import regex

from ..records import AltoBlock, AltoChapter, AltoLine, AltoPage, AltoWord, InputError, RawChapter

NAMESPACES = {
    "http://www.loc.gov/standards/alto/ns-v2#": "v2",
    "http://www.loc.gov/standards/alto/ns-v3#": "v3",
    "http://www.loc.gov/standards/alto/ns-v4#": "v4",
    "": "no namespace",
}
# A page's areas in reading order (the schema puts the bottom margin before the print space).
AREAS = ("TopMargin", "PrintSpace", "LeftMargin", "RightMargin", "BottomMargin")
# an ALTO page is mostly markup (coordinates, polygons, ids): some 10 to 50 bytes of
# XML per character of text, so a chapter's XML may be this many times a text chapter
MARKUP_FACTOR = 50
_LINE_BREAKS = regex.compile(r"[\r\n\t\f\v\u2028\u2029]")


def is_alto(path: Path) -> bool:
    """An ALTO chapter: an *.xml file, or a folder holding *.xml files."""
    if path.is_dir():
        return any(p.suffix.lower() == ".xml" for p in path.iterdir())
    return path.suffix.lower() == ".xml"


def natural_key(name: str) -> list:
    """'…_f2.xml' before '…_f10.xml', as page files are numbered."""
    return [int(t) if t.isdigit() else t.lower() for t in regex.split(r"(\d+)", name)]


def page_files(folder: Path) -> list[Path]:
    return sorted((p for p in folder.iterdir() if p.suffix.lower() == ".xml" and not p.is_dir()),
                  key=lambda p: natural_key(p.name))


def ingest_alto(path: Path, max_bytes: int, size_message) -> RawChapter:
    """The chapter of an ALTO file or folder; ``max_bytes`` is a text chapter's limit."""
    max_bytes *= MARKUP_FACTOR
    files = page_files(path) if path.is_dir() else [path]
    datas = []
    total = 0
    for f in files:
        try:
            total += f.stat().st_size
            if total > max_bytes:
                raise InputError(path.name, size_message(total, max_bytes))
            datas.append((f.name, f.read_bytes()))
        except OSError as exc:
            raise InputError(path.name, f"{f.name}: cannot read: {exc.strerror or exc}") from None
    return alto_chapter(datas, path.name)


def alto_chapter(files: list[tuple[str, bytes]], name: str) -> RawChapter:
    """A chapter from ALTO documents (file name, bytes), pages in the order given."""
    out = _Writer()
    encoding = "utf-8"
    tagged = False
    for file_name, data in files:
        label = file_name if len(files) > 1 else None
        root, encoding = _parse(data, name, label)
        zones = _zone_labels(root)
        tagged = tagged or bool(zones)
        for page in root.iter(_q(root, "Page")):
            out.page(page, file_name, root, zones)
    pages = tuple(p for p in out.pages if p.blocks)
    if not any(w for p in pages for line in p.lines for w in line.words):
        raise InputError(name, "no text: the ALTO has no String with content")
    digest = hashlib.sha256()
    for _, data in files:
        digest.update(data)
    return RawChapter(
        source_file=name,
        text=out.text(),
        sha256=digest.hexdigest(),
        encoding=encoding,
        size=sum(len(d) for _, d in files),
        alto=AltoChapter(pages, tagged),
    )


@lru_cache(maxsize=1)
def _parser():
    """The XML parser, made (and lxml imported, some 25 ms) only when an ALTO file is
    read: a text chapter's reading and ``academie clean`` need neither."""
    from lxml import etree

    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _parse(data: bytes, name: str, label: str | None):
    from lxml import etree

    where = f"{label}: " if label else ""
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        at = "" if "line" in exc.msg else f" (line {exc.lineno})"
        raise InputError(name, f"{where}malformed XML: {exc.msg}{at}") from None
    qname = etree.QName(root)
    ns = qname.namespace or ""
    if qname.localname.lower() != "alto":
        raise InputError(name, f"{where}not ALTO: the root element is {qname.localname!r}"
                         + (f" of {ns!r}" if ns else ""))
    if ns not in NAMESPACES:
        raise InputError(name, f"{where}unknown namespace {ns!r}: not ALTO v2, v3 or v4")
    docinfo = root.getroottree().docinfo
    return root, (docinfo.encoding or "utf-8").lower()


def _q(root, tag: str) -> str:
    from lxml import etree

    ns = etree.QName(root).namespace
    return f"{{{ns}}}{tag}" if ns else tag


def _zone_labels(root) -> dict[str, str]:
    """Tag id → zone type: 'MainZone:column#1' → 'MainZone' (SegmOnto's type, without subtype or number)."""
    out = {}
    for tag in root.iter(_q(root, "OtherTag"), _q(root, "LayoutTag"), _q(root, "StructureTag")):
        label = (tag.get("LABEL") or "").strip()
        if tag.get("ID") and label:
            out[tag.get("ID")] = regex.split(r"[:#]", label, maxsplit=1)[0]
    return out


def _float(v: str | None) -> float | None:
    try:
        return float(v) if v is not None else None
    except ValueError:
        return None


def _confidence(string) -> float | None:
    """The OCR's certainty of a String: WC (0 unsure – 1 sure), and the character
    confidences CC (0 sure – 9 unsure each) by its least sure character; the lower."""
    values = []
    wc = _float(string.get("WC"))
    if wc is not None and 0.0 <= wc <= 1.0:
        values.append(wc)
    cc = (string.get("CC") or "").strip()
    if cc:
        digits = cc.split() if " " in cc else list(cc)
        try:
            worst = max(float(d) for d in digits)
        except ValueError:
            worst = None
        if worst is not None and 0.0 <= worst <= 9.0:
            values.append(1.0 - worst / 9.0)
    return min(values) if values else None


class _Writer:
    """Builds the raw text and records every span as it goes."""

    def __init__(self):
        self.parts: list[str] = []
        self.pos = 0
        self.pages: list[AltoPage] = []
        self.started = False  # something was written: the next block needs a blank line first

    def _write(self, s: str) -> None:
        self.parts.append(s)
        self.pos += len(s)

    def text(self) -> str:
        return "".join(self.parts)

    def page(self, page, file_name: str, root, zones: dict[str, str]) -> None:
        blocks = []
        for area_name in AREAS:
            for area in page.findall(_q(root, area_name)):
                for block in area.iter(_q(root, "TextBlock")):
                    b = self.block(block, root, zones, None if area_name == "PrintSpace" else area_name)
                    if b is not None:
                        blocks.append(b)
        self.pages.append(AltoPage(page.get("ID"), file_name, tuple(blocks)))

    def block(self, block, root, zones, area: str | None) -> AltoBlock | None:
        lines = []
        for line in block.iter(_q(root, "TextLine")):
            pieces = self._line_pieces(line, root)
            if not any(text.strip() for text, _ in pieces if _ is not None):
                continue
            self._write("\n" if lines else ("\n\n" if self.started else ""))
            self.started = True
            start = self.pos
            words = []
            for text, string in pieces:
                at = self.pos
                self._write(text)
                if string is not None:
                    words.append(AltoWord(string.get("ID") or line.get("ID"), at, self.pos, _confidence(string),
                                          string.get("SUBS_CONTENT") if string.get("SUBS_TYPE") == "HypPart1" else None))
            lines.append(AltoLine(line.get("ID"), start, self.pos, _float(line.get("HPOS")),
                                  _float(line.get("HEIGHT")), tuple(words)))
        if not lines:
            return None
        refs = (block.get("TAGREFS") or "").split()
        zone = next((zones[r] for r in refs if r in zones), None) or area
        return AltoBlock(block.get("ID"), zone, tuple(lines))

    def _line_pieces(self, line, root) -> list[tuple[str, object]]:
        """The line's text in order: (a String's content, the String), (a space or the
        hyphen, None); no space at either end."""
        out: list[tuple[str, object]] = []
        string_tag, sp_tag, hyp_tag = _q(root, "String"), _q(root, "SP"), _q(root, "HYP")
        for el in line:
            if el.tag == string_tag:
                content = _LINE_BREAKS.sub(" ", unicodedata.normalize("NFC", el.get("CONTENT") or "")).strip()
                if not content:
                    continue
                if out and out[-1][1] is not None:
                    out.append((" ", None))  # two Strings with no SP between: still two words
                out.append((content, el))
            elif el.tag == sp_tag and out and out[-1][1] is not None:
                out.append((" ", None))
            elif el.tag == hyp_tag and out:
                if out[-1][1] is None:
                    out.pop()
                out.append((unicodedata.normalize("NFC", el.get("CONTENT") or "-"), None))
        while out and out[-1] == (" ", None):
            out.pop()
        return out
