"""The publish stage: the built chapters → the SQLite database (``write``), with its
full-text layer (``search``); and reading it back (``lookup``, ``queries``), which
the command line and the reading room (``pipeline.web``) share.

Nothing is imported here: reading the database (``academie cite``) must not load the
writer, sqlite-utils or the lexicon.
"""

from __future__ import annotations


def publish(*args, **kwargs):
    """``write.publish``: the database, written to a temporary file renamed when complete."""
    from .write import publish as write

    return write(*args, **kwargs)
