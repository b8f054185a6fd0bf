"""The parts of the package that are compiled, all optional extensions: where they
cannot be built (no C compiler), the install goes on and everything runs in Python.
Everything else about the package is in pyproject.toml.

- The channel's search (pipeline/clean/_search.pyx, the same as ``correct._dp``), the
  Littré's pairs' (pipeline/clean/_pairs.pyx, the same as ``sequence._fill``), and the
  known words one letter from a word (pipeline/clean/_edits.pyx, the same as
  ``context._edits1`` with the table), and the words within a few plain edits of
  another (pipeline/clean/_within.pyx, the same as ``correct.within`` by rapidfuzz),
  and the loop of the corrector's priors (pipeline/clean/_priors.pyx, the same as
  ``correct._prior_loop``), and the sequence model's tokens (pipeline/clean/_tokens.pyx,
  the same as ``sequence._TOKEN``).
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
    "pipeline/text.py",
]
# (annotations are documentation: typed, Cython would refuse a dict's subclass where `dict` is written)
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


# each module's digest as Cython reads it below (not once gcc is done: it may be edited meanwhile)
DIGESTS = {module_name(p): hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in COMPILED}


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
        if ext.name in DIGESTS:
            _digest_file(Path(self.get_ext_fullpath(ext.name))).write_text(DIGESTS[ext.name] + "\n", encoding="ascii")

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        for ext in self.extensions:
            built = Path(self.build_lib) / self.get_ext_filename(ext.name)
            if ext.name in DIGESTS and _digest_file(built).exists():
                inplace = Path(*ext.name.split(".")[:-1]) / built.name
                self.copy_file(str(_digest_file(built)), str(_digest_file(inplace)))


def _digest_file(compiled: Path) -> Path:
    return compiled.with_name(compiled.name + ".sha256")


def remove_stale_c() -> None:
    """The C Cython made of a module at an earlier install removed where it may not be
    made from the module as it is now (Cython judges by the files' times alone, which a
    copy or an archive can set back): its digest then written is not the module's."""
    for p in COMPILED:
        c = Path(p).with_suffix(".c")
        made = [d.read_text(encoding="ascii").strip() for d in Path(p).parent.glob(Path(p).stem + ".*.so.sha256")]
        if not made or any(d != DIGESTS[module_name(p)] for d in made):
            c.unlink(missing_ok=True)


remove_stale_c()
# (no debugging information: a quarter of gcc's time, and nothing that runs differs)
# (and no fused multiply-add: _pairs computes in C what Python computes, to the bit)
extensions = [Extension(name, [path], optional=True, extra_compile_args=["-g0", "-ffp-contract=off"])
              for name, path in [("pipeline.clean._search", "pipeline/clean/_search.pyx"),
                                 ("pipeline.clean._pairs", "pipeline/clean/_pairs.pyx"),
                                 ("pipeline.clean._edits", "pipeline/clean/_edits.pyx"),
                                 ("pipeline.clean._within", "pipeline/clean/_within.pyx"),
                                 ("pipeline.clean._priors", "pipeline/clean/_priors.pyx"),
                                 ("pipeline.clean._tokens", "pipeline/clean/_tokens.pyx")]
              + [(module_name(p), p) for p in COMPILED]]

setup(ext_modules=cythonize(extensions, quiet=True, compiler_directives=DIRECTIVES, nthreads=2),
      cmdclass={"build_ext": BuildExt})
