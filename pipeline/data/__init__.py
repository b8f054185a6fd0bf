"""The pipeline's data: vocabularies, confusion costs, patterns and settings, kept
apart from the code as TOML files, one per subject. ``load`` reads one."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    """The parsed contents of ``pipeline/data/<name>.toml`` (shared: do not modify)."""
    return tomllib.loads(resources.files(__name__).joinpath(f"{name}.toml").read_text(encoding="utf-8"))


def settings(cls, name: str, section: str | None = None):
    """A settings dataclass filled from ``<name>.toml`` (or one of its sections): each
    field from the key of its name, a nested dataclass from a table. A key missing or
    unknown is an error naming the file, so a typo never falls back silently."""
    values = load(name)
    where = f"pipeline/data/{name}.toml"
    if section is not None:
        values = values[section]
        where += f" [{section}]"
    return _fill(cls, values, where)


def _fill(cls, values: dict, where: str):
    import dataclasses
    import typing

    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    missing = [n for n in names if n not in values]
    extra = [k for k in values if k not in names]
    if missing or extra:
        raise ValueError(f"{where}: settings of {cls.__name__}: "
                         + "; ".join(filter(None, [missing and f"missing {', '.join(missing)}",
                                                    extra and f"unknown {', '.join(extra)}"])))
    out = {}
    for n in names:
        v = values[n]
        if dataclasses.is_dataclass(hints[n]):
            v = _fill(hints[n], v, f"{where} [{n}]")
        elif hints[n] is float and isinstance(v, int):
            v = float(v)
        out[n] = v
    return cls(**out)
