"""Académie: OCR'd chapters of historical game treatises → a clean, structured,
citable edition, published as a SQLite database served by Datasette.

The stages, in the order data flows, each a package: ingest → layout → clean →
segment (per chapter, pure functions of the record before), then link → publish (the
whole corpus); ``web`` serves what publish wrote. ``chapter.CHAPTER_STAGES`` lists
them; ``build`` runs them; ``cli`` is the command line. Modules at this level are
what several stages share. See README.md for the database contract and the CLI.

Some modules run compiled (setup.py); importing the package puts in place the finder
that imports a compiled module only while it is made from its source as it is now.
"""

__version__ = "0.1.0"

import hashlib as _hashlib
import os as _os
import sys as _sys
from importlib.machinery import ExtensionFileLoader as _ExtensionFileLoader
from importlib.machinery import PathFinder as _PathFinder
from importlib.util import spec_from_file_location as _spec_from_file_location
from pathlib import Path as _Path


class _CompiledIfCurrent:
    """Imports a module of the package that setup.py compiled only while it is its
    source's: a module edited since (its digest no longer the one written beside the
    compiled file at install) is imported from its source, slower and never stale,
    until the next install compiles it again. With ACADEMIE_FROM_SOURCE=1 every one
    is (for a profiler or a debugger, which see no line of a compiled module)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith(__name__ + "."):
            return None
        spec = _PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, _ExtensionFileLoader):
            return spec
        source = _source_of(name, spec.origin)
        if not source.exists():
            return spec  # compiled from no module of its own (pipeline/clean/_search.pyx)
        if _os.environ.get("ACADEMIE_FROM_SOURCE") == "1":
            return _spec_from_file_location(name, source)
        try:
            built = _Path(spec.origin + ".sha256").read_text(encoding="ascii").strip()
        except OSError:
            built = None
        if built != _hashlib.sha256(source.read_bytes()).hexdigest():
            return _spec_from_file_location(name, source)
        return spec


def compiled_modules() -> list[str]:
    """The package's modules imported so far that run compiled (setup.py)."""
    return sorted(name for name, m in list(_sys.modules.items())
                  if name.startswith(__name__ + ".") and isinstance(getattr(m, "__loader__", None), _ExtensionFileLoader)
                  and _source_of(name, m.__file__).exists())


def _source_of(name: str, compiled: str) -> _Path:
    """The module of Python a compiled module of the package is made from (beside it)."""
    return _Path(compiled).with_name(name.rpartition(".")[2] + ".py")


_sys.meta_path.insert(0, _CompiledIfCurrent)
