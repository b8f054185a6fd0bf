"""Académie: OCR'd chapters of historical game treatises → a clean, structured,
citable edition, published as a SQLite database served by Datasette.

The stages, in the order data flows, each a package: ingest → layout → clean →
segment (per chapter, pure functions of the record before), then link → publish (the
whole corpus); ``web`` serves what publish wrote. ``build.CHAPTER_STAGES`` lists
them; ``build`` runs them; ``cli`` is the command line. Modules at this level are
what several stages share. See README.md for the database contract and the CLI.
"""

__version__ = "0.1.0"
