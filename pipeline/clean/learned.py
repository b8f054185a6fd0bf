"""The learned channel table, ``pipeline/data/confusions_learned.tsv``: written by
``academie learn`` (clean/learn.py), read by ``ChannelModel.default`` beside the hand
table (confusions.toml), which stays its prior.

A TSV a reviewer can read: comment lines (``#``) say where the counts came from (one
line per source, with its figures) and how costs were made; then one row per
confusion seen, with its count in each source, the cost the evidence alone gives, the
prior's cost, and the cost used. ``printed`` and ``intended`` are JSON strings ("" is
nothing: a glyph the OCR lost, or one it added).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

TABLE = "confusions_learned.tsv"
_SOURCE = re.compile(r"^# source (?P<name>\S+): (?P<words>[\d,]+) words aligned, (?P<glyphs>[\d,]+) glyphs, "
                     r"(?P<misread>[\d,]+) misread; (?P<description>.*)$")


@dataclass(frozen=True)
class SourceInfo:
    """One source of evidence, as the table names it."""

    name: str
    words: int  # word tokens aligned (read right or misread)
    glyphs: int  # letters of the intended words
    misread: int  # confusions counted (each run of edits once)
    description: str

    @property
    def rate(self) -> float:
        return self.misread / self.glyphs if self.glyphs else 0.0


@dataclass(frozen=True)
class Row:
    printed: str
    intended: str
    counts: dict[str, tuple[int, int]]  # source → (times seen, times the intended glyphs occur there)
    learned: float  # the cost the evidence alone gives
    prior: float  # the hand table's cost of explaining the printed glyphs as the intended ones
    cost: float  # the cost used: the two interpolated

    @property
    def count(self) -> int:
        return sum(n for n, _ in self.counts.values())


@dataclass
class Table:
    sources: list[SourceInfo]
    rows: list[Row]
    calibration: float = 0.0
    prior_strength: float = 0.0
    default_strength: float = 0.0
    weight: float = 0.0
    notes: list[str] = field(default_factory=list)

    def costs(self) -> list[tuple[str, str, float]]:
        return [(r.printed, r.intended, r.cost) for r in self.rows]


def write_table(table: Table, path: Path) -> None:
    names = [s.name for s in table.sources]
    lines = [
        "# The OCR channel learned from aligned words: written by `academie learn` (pipeline/clean/learn.py),",
        "# read by ChannelModel with the hand table (confusions.toml) as its prior. Do not edit it: edit the prior,",
        "# or give `academie learn` more evidence, and run it again.",
        "#",
    ]
    for s in table.sources:
        lines.append(f"# source {s.name}: {s.words:,} words aligned, {s.glyphs:,} glyphs, {s.misread:,} misread; "
                     f"{s.description}")
    lines += [
        "#",
        f"# learned = -log10(count / exposure) / {table.weight:g} + {table.calibration:.3f}, where exposure is, summed over",
        "#   the sources, how often the intended glyphs occur there times that source's rate of misread glyphs, and",
        f"#   {table.calibration:.3f} (the calibration) puts learned costs on the prior's scale: the median difference",
        "#   over the hand table's confusions seen at least twice, or, for a letter whose listed confusions were seen",
        "#   often enough, over those (the evidence says what a letter is misread as, the hand table how often);",
        f"# cost = (k x prior + count x learned) / (k + count): the prior counts as k observations, k = "
        f"{table.prior_strength:g} for a confusion",
        f"#   the hand table lists, {table.default_strength:g} for one whose prior is a default cost (substitution, "
        "insertion, deletion, class merge).",
        "# A confusion this table does not list keeps the prior's cost. Each source column: times seen / times the",
        "# intended glyphs occur in its aligned words.",
        *[f"# {note}" for note in table.notes],
        "\t".join(["printed", "intended", *names, "count", "learned", "prior", "cost"]),
    ]
    for r in table.rows:
        cells = [json.dumps(r.printed, ensure_ascii=False), json.dumps(r.intended, ensure_ascii=False)]
        cells += [f"{r.counts.get(n, (0, 0))[0]}/{r.counts.get(n, (0, 0))[1]}" for n in names]
        cells += [str(r.count), f"{r.learned:.3f}", f"{r.prior:.3f}", f"{r.cost:.3f}"]
        lines.append("\t".join(cells))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_table(text: str) -> Table:
    sources, rows, header = [], [], None
    for line in text.splitlines():
        if line.startswith("#"):
            m = _SOURCE.match(line)
            if m:
                sources.append(SourceInfo(m["name"], int(m["words"].replace(",", "")),
                                          int(m["glyphs"].replace(",", "")), int(m["misread"].replace(",", "")),
                                          m["description"]))
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            continue
        if len(cells) != len(header):
            raise ValueError(f"{TABLE}: a row of {len(cells)} cells under a header of {len(header)}: {line!r}")
        names = header[2:-4]
        counts = {}
        for name, cell in zip(names, cells[2:-4]):
            n, exposure = cell.split("/")
            counts[name] = (int(n), int(exposure))
        rows.append(Row(json.loads(cells[0]), json.loads(cells[1]), counts,
                        float(cells[-3]), float(cells[-2]), float(cells[-1])))
    return Table(sources, rows)


def costs_of(text: str) -> list[tuple[str, str, float]]:
    """(printed, intended, cost) of every row: all the channel model needs."""
    out = []
    header = False
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if not header:
            header = True
            continue
        cells = line.split("\t")
        out.append((json.loads(cells[0]), json.loads(cells[1]), float(cells[-1])))
    return out


def default_path() -> Path:
    return Path(str(resources.files("pipeline.data").joinpath(TABLE)))


def load_default() -> list[tuple[str, str, float]]:
    """The committed table's costs; none if there is no table (the hand table alone)."""
    path = default_path()
    if not path.exists():
        return []
    return costs_of(path.read_text(encoding="utf-8"))
