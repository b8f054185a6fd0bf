"""The ingest stage: a chapter file's bytes → ``RawChapter``, the text every offset
of the database refers to."""

from .read import MAX_CHAPTER_BYTES, ingest, ingest_bytes

__all__ = ["MAX_CHAPTER_BYTES", "ingest", "ingest_bytes"]
