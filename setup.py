"""The one part of the package that is compiled: the channel's search
(pipeline/clean/_search.pyx, the same as ``correct._dp``), an optional extension: where
it cannot be built (no C compiler), the install goes on and the search runs in Python.
Everything else about the package is in pyproject.toml."""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize([Extension("pipeline.clean._search", ["pipeline/clean/_search.pyx"], optional=True)],
                            quiet=True))
