"""The parts of the package that are compiled, all optional extensions: where they
cannot be built (no C compiler), the install goes on and everything runs in Python.
Everything else about the package is in pyproject.toml.

- The channel's search (pipeline/clean/_search.pyx, the same as ``correct._dp``).
- The clean stage's busiest modules, compiled by Cython as they are written (no type
  declared: the same Python, its calls and look-ups made in C rather than by the
  interpreter's loop; 16% fewer instructions for the stage, bench/README.md). Each
  compiled module has its source's digest written beside it (``<module>.so.sha256``):
  ``pipeline/__init__.py`` imports the source instead of a module compiled from another
  one, so that an edited module runs as edited, slower, until the next install."""

import hashlib
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the modules the clean stage spends its time in (bench/clean.py --breakdown)
COMPILED = [
    "pipeline/clean/book.py",
    "pipeline/clean/context.py",
    "pipeline/clean/correct.py",
    "pipeline/clean/sequence.py",
    "pipeline/clean/steps.py",
    "pipeline/lexicon.py",
    "pipeline/memos.py",
    "pipeline/resources.py",
]
# (annotations are documentation: typed, Cython would refuse a dict's subclass where `dict` is written)
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


class BuildExt(build_ext):
    """Writes each compiled module's source digest beside it once it is built, and
    copies it beside the module's source with the module (an editable install). Its
    modules are built two at a time (a module takes gcc 10-20 s)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = 2

    def build_extension(self, ext):
        super().build_extension(ext)
        source = _source(ext)
        if source is not None:
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
            _digest_file(Path(self.get_ext_fullpath(ext.name))).write_text(digest + "\n", encoding="ascii")

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        for ext in self.extensions:
            source = _source(ext)
            built = _digest_file(Path(self.build_lib) / self.get_ext_filename(ext.name))
            if source is not None and built.exists():
                self.copy_file(str(built), str(_digest_file(source.with_name(built.name[:-len(".sha256")]))))


def _source(ext) -> Path | None:
    """The module an extension is compiled from, if a module of Python."""
    source = Path(ext.name.replace(".", "/") + ".py")
    return source if source.exists() else None


def _digest_file(compiled: Path) -> Path:
    return compiled.with_name(compiled.name + ".sha256")


# (no debugging information: a quarter of gcc's time, and nothing that runs differs)
extensions = [Extension(name, [path], optional=True, extra_compile_args=["-g0"])
              for name, path in [("pipeline.clean._search", "pipeline/clean/_search.pyx")]
              + [(module_name(p), p) for p in COMPILED]]

setup(ext_modules=cythonize(extensions, quiet=True, compiler_directives=DIRECTIVES, nthreads=2),
      cmdclass={"build_ext": BuildExt})
