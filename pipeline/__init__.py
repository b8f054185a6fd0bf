"""Académie: OCR'd chapters of historical game treatises → a clean, structured,
citable edition, published as a SQLite database served by Datasette.

Stages (each a pure function of the record before it): ingest → layout → clean →
segment → publish. See README.md for the database contract and the CLI.
"""

__version__ = "0.1.0"
