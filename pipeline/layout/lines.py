"""A chapter's lines, and the export's own furniture: its header and footer lines."""

from __future__ import annotations

from dataclasses import dataclass

import regex

from ..records import Furniture, Header

HEADER_RE = regex.compile(
    r"^‹\s*(?P<title>.*?)\s*Chapitre\s+(?P<number>\d+)\s+sur\s+(?P<total>\d+)\s*·\s*(?P<heading>.*?)\s*·\s*(?P<note>[^·]*?)\s*$"
)
FOOTER_RE = regex.compile(r"^\s*Page\s+\d+\s*$")


@dataclass
class Line:
    index: int
    start: int
    end: int
    text: str
    kind: str = "text"  # text, blank, header, footer, head

    @property
    def stripped(self) -> str:
        return self.text.strip()


def split_lines(raw: str) -> list[Line]:
    out = []
    pos = 0
    for i, text in enumerate(raw.split("\n")):
        out.append(Line(i, pos, pos + len(text), text))
        pos += len(text) + 1
    return out


def header_of(raw: str) -> Header | None:
    """The export's header of a chapter's text, as ``mark_export_lines`` reads it (its
    first line not blank), without splitting the whole text into lines."""
    first = len(raw) - len(raw.lstrip())
    start = raw.rfind("\n", 0, first) + 1
    end = raw.find("\n", first)
    end = len(raw) if end < 0 else end
    return _parse_header([Line(0, start, end, raw[start:end])])


def mark_export_lines(lines: list[Line]) -> Header | None:
    """Mark the export's header, its footers and the blank lines; return the header."""
    header = _parse_header(lines)
    for line in lines:
        if not line.stripped:
            line.kind = "blank"
        elif FOOTER_RE.match(line.text):
            line.kind = "footer"
    return header


def _parse_header(lines: list[Line]) -> Header | None:
    first = next((l for l in lines if l.stripped), None)
    if first is None:
        return None
    m = HEADER_RE.match(first.text.strip())
    if not m:
        return None
    first.kind = "header"
    return Header(
        edition_title=m["title"].strip(),
        number=int(m["number"]),
        total=int(m["total"]),
        heading=m["heading"].strip(),
        note=m["note"].strip(),
        start=first.start,
        end=first.end,
    )


def furniture(lines: list[Line]) -> list[Furniture]:
    kinds = {"header": "export_header", "footer": "export_footer", "head": "running_head"}
    return [Furniture(kinds[l.kind], l.start, l.end, l.text) for l in lines if l.kind in kinds]
