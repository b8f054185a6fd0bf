"""Reading a chapter file: bytes on disk → ``RawChapter`` (an ALTO chapter: ``alto``).

Accepts UTF-8 (with or without BOM), UTF-16 with a BOM, and cp1252/latin-1, and
says which it used. Newlines become ``\\n`` and the text is put in Unicode NFC, so
that every later offset refers to one canonical text; the sha256 is of the bytes,
so the file itself can always be checked against the database.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from pathlib import Path

from ..records import Diagnostic, InputError, RawChapter
from .alto import ingest_alto, is_alto

# the control characters (Unicode category Cc: C0, DEL, C1) but the spacing ones
# (tab, newline, vertical tab, form feed, carriage return), counted in C: a loop over
# each character was a third of reading a book
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")

MAX_CHAPTER_BYTES = 2_000_000  # a printed chapter is tens of kilobytes; a bigger file is not one


def ingest(path: Path | str, max_bytes: int = MAX_CHAPTER_BYTES) -> RawChapter:
    path = Path(path)
    if is_alto(path):
        return ingest_alto(path, max_bytes, _too_large)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise InputError(path.name, _too_large(size, max_bytes))
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path.name, f"cannot read: {exc.strerror or exc}") from None
    return ingest_bytes(data, path.name)


def _too_large(size: int, max_bytes: int) -> str:
    return (f"file too large: {_size(size)}, more than the {_size(max_bytes)} a chapter can be "
            "(split it, or raise --max-chapter-size)")


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def ingest_bytes(data: bytes, name: str) -> RawChapter:
    if not data.strip():
        raise InputError(name, "empty file: no text to read")
    text, encoding = _decode(data, name)
    diagnostics = []
    if encoding in ("cp1252", "latin-1"):
        diagnostics.append(Diagnostic(name, "warning", f"not valid UTF-8: decoded as {encoding}"))
    elif encoding.startswith("utf-16"):
        diagnostics.append(Diagnostic(name, "info", f"decoded as {encoding}"))
    controls = len(_CONTROL.findall(text))
    if controls > max(2, len(text) // 200):
        raise InputError(name, f"binary file: {controls} control characters, not text")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    if not text.strip():
        raise InputError(name, "empty file: no text to read")
    return RawChapter(
        source_file=name,
        text=text,
        sha256=hashlib.sha256(data).hexdigest(),
        encoding=encoding,
        size=len(data),
        diagnostics=tuple(diagnostics),
    )


def _decode(data: bytes, name: str) -> tuple[str, str]:
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="strict"), "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16"), "utf-16"
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(name, f"binary file: NUL byte at offset {nul}, not text")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    # cp1252 leaves five bytes undefined; latin-1 maps them to C1 controls
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"
