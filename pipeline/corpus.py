"""The corpus folder: chapter files, the manifest of editions, the games list.

The manifest (corpus/manifest.toml) names the editions and attributes the chapter
files that carry no export header. ``chapter_info`` combines what the header says
with what the manifest says, and says where the attribution came from; a file
neither names goes to the edition 'unknown', with a warning.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import regex

from .games import slugify
from .ingest.alto import is_alto
from .records import ChapterInfo, Diagnostic, Edition, Header
from .text import fold

def chapter_files(corpus: Path) -> list[Path]:
    """Every *.txt and *.xml (ALTO) of the folder (any case), broken links included:
    they get their error; and every folder of *.xml files (per-page ALTO), except
    one named *.txt (the build warns about it)."""
    out = []
    for p in corpus.iterdir():
        if p.is_dir():
            if p.suffix.lower() != ".txt" and is_alto(p):
                out.append(p)
        elif p.suffix.lower() in (".txt", ".xml"):
            out.append(p)
    return sorted(out)


UNKNOWN = Edition("unknown", "Unidentified edition", None, "Chapters whose edition is not known")


@dataclass
class Manifest:
    editions: dict[str, Edition]
    files: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | str) -> "Manifest":
        path = Path(path)
        if not path.exists():
            return cls({UNKNOWN.id: UNKNOWN})
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        editions = {}
        for e in data.get("editions", []):
            editions[e["id"]] = Edition(
                id=e["id"],
                title=e["title"],
                year=e.get("year"),
                source=e.get("source"),
                header_title=e.get("header_title"),
                chapters=e.get("chapters"),
            )
        editions.setdefault(UNKNOWN.id, UNKNOWN)
        files = {c["file"]: c for c in data.get("chapters", [])}
        return cls(editions, files)

    def edition_for_header(self, header: Header) -> Edition | None:
        title = _norm(header.edition_title)
        for e in self.editions.values():
            if e.header_title and title.startswith(_norm(e.header_title)):
                return e
        return None

    def chapter_info(self, source_file: str, header: Header | None) -> tuple[ChapterInfo, list[Diagnostic]]:
        notes: list[Diagnostic] = []
        entry = self.files.get(source_file, {})
        edition_id, how = None, "unknown"
        if header is not None:
            e = self.edition_for_header(header)
            if e is not None:
                edition_id, how = e.id, "header"
            else:
                notes.append(Diagnostic(source_file, "warning", f"header names an edition the manifest does not list: "
                                        f"{header.edition_title[:60]!r}; filed under 'unknown'"))
        if "edition" in entry:
            if edition_id and entry["edition"] != edition_id:
                notes.append(Diagnostic(source_file, "warning", f"manifest says edition {entry['edition']!r}, "
                                        f"header says {edition_id!r}; the header wins"))
            elif entry["edition"] not in self.editions:
                notes.append(Diagnostic(source_file, "error", f"manifest names an unknown edition {entry['edition']!r}"))
            elif not edition_id:
                edition_id, how = entry["edition"], "manifest"
        if edition_id is None:
            edition_id = UNKNOWN.id
            if header is None and not entry:
                notes.append(Diagnostic(source_file, "warning", "no export header and not in the manifest: "
                                        "filed under the edition 'unknown'"))
        number = header.number if header else entry.get("number")
        key = entry.get("key") or (f"ch{number}" if number else slugify(Path(source_file).stem))
        return ChapterInfo(
            source_file=source_file,
            edition_id=edition_id,
            edition_source=how if edition_id != UNKNOWN.id or how == "manifest" else "unknown",
            number=number,
            total=header.total if header else entry.get("total"),
            title=header.heading if header else entry.get("title"),
            key=key,
            note=entry.get("note"),
        ), notes


def _norm(text: str) -> str:
    return regex.sub(r"[\W_]+", " ", fold(text)).strip()
