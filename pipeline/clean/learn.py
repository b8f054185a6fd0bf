"""Learning the OCR channel from aligned words: ``academie learn``.

The channel model (``correct.ChannelModel``) says how likely the OCR was to print one
thing for another. Its prior is the hand table, ``confusions.toml``; this module
estimates the cost of each confusion from evidence and writes the learned table
(``confusions_learned.tsv``, see ``learned.py``), which the channel model reads beside
the prior. The build reads the committed table; it never learns.

1. Word pairs (printed, intended), from each source:
   - an aligned book: paragraph pairs (its OCR, its proofread text) aligned word by
     word (``--aligned FILE.jsonl``), or the word pairs kept from such a book
     (``pipeline/data/aligned/*.tsv``: each pair with its count, not the text);
   - the corpus itself: the corrector's own fixes of high confidence, made with the
     channel learned so far, round after round until they no longer change (a hard
     EM), each word it left alone counting as read right;
   - gold chapters (``--gold``): the text the corrector is given against the
     hand-corrected one. For measuring by cross-validation only: a table learned from
     a gold chapter is never measured on that chapter (``cross_validate``).
2. Each misread word is aligned glyph by glyph with the channel learned so far
   (``ChannelModel.align``). A run of adjacent edits that changes the length is one
   confusion ('tf' for 'u', 'rn' for 'm'); a run of substitutions counts glyph by glyph.
3. A confusion (printed a, intended b) seen n times has an exposure: how often b
   occurs in each source's intended words, times that source's rate of misread glyphs
   (in a cleanly printed book an error is rarer, and tells as much). Its learned cost
   is -log10(n / exposure) / weight + calibration, the weight being the corrector's
   (zipf points per unit of cost) and the calibration putting learned costs on the
   prior's scale; the cost used shrinks it towards the prior, which counts as
   ``prior_strength`` observations.

Costs are learned per glyph confusion (character n-grams), never per word.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import regex
from rapidfuzz.distance import Levenshtein

from .. import data
from ..text import base_letter, fold_letters
from .correct import ChannelModel
from .learned import Row, SourceInfo, Table
from .settings import ChannelSettings, CleanSettings

# a word as the corrector sees one (letters, with the digits and debris the OCR puts
# inside words), and the apostrophe of an elision kept inside, so that 'Tor' and
# "l'or" are one word each
_WORD = regex.compile(r"[\p{L}\d][\p{L}\d'’^|!&]*[\p{L}\d]|\p{L}")
WORD_FIXES = ("clean.non_word", "clean.real_word")  # the corrector's fixes the corpus source learns from

Progress = Callable[[str], None]


@dataclass
class Source:
    """Aligned words of one source: (printed, intended) → count; printed == intended is
    a word read right."""

    name: str
    description: str
    pairs: Counter = field(default_factory=Counter)

    @property
    def misread(self) -> int:
        return sum(n for (p, w), n in self.pairs.items() if p != w)


# -- sources ---------------------------------------------------------------------------------------

def word_pairs(printed_text: str, intended_text: str, max_distance: float) -> Counter:
    """The words of two versions of a text aligned one to one: the words they share,
    and each misread word with the word it stands for, when the two are close enough
    to be a misreading (not a rewording)."""
    a, b = _WORD.findall(printed_text), _WORD.findall(intended_text)
    out: Counter = Counter()
    for op in Levenshtein.opcodes(a, b):
        if op.tag == "equal":
            out.update((w, w) for w in a[op.src_start : op.src_end])
        elif op.tag == "replace" and op.src_end - op.src_start == op.dest_end - op.dest_start:
            for p, w in zip(a[op.src_start : op.src_end], b[op.dest_start : op.dest_end]):
                if misreading(p, w, max_distance):
                    out[(p, w)] += 1
    return out


def misreading(printed: str, word: str, max_distance: float) -> bool:
    """A pair the OCR could have made: a word with letters, close in its letters, not a
    number, and not the same letters in another case (an editor's change)."""
    if printed.isdigit() or word.isdigit() or not any(c.isalpha() for c in word):
        return False
    a, b = printed.lower(), word.lower()
    if a == b:
        return False
    if a.startswith(b) or a.endswith(b) or b.startswith(a) or b.endswith(a):
        return False  # a word cut at a line end ('Deuxiè' for 'Deuxième'), or a word's ending changed by an editor
    if Levenshtein.normalized_distance(fold_letters(printed), fold_letters(word)) <= max_distance:
        return True
    # a short word with two glyphs misread ('cl' for 'et') is far in letters, near in shapes
    return _PRIOR_SHAPES.cost(printed, word, False) <= 1.0


class _PriorShapes:
    """The hand table's channel, made when first needed (to judge a short pair)."""

    model: ChannelModel | None = None

    def cost(self, printed: str, word: str, long_s: bool) -> float:
        if self.model is None:
            self.model = ChannelModel(data.load("confusions"))
        return self.model.cost(printed, word, long_s)


_PRIOR_SHAPES = _PriorShapes()


def aligned_source(path: Path, settings: ChannelSettings) -> Source:
    """An aligned book: a JSONL file of paragraph pairs ({"ocr": …, "proofread": …}),
    or a TSV of word pairs with counts (printed, intended, count), as ``write_pairs``
    keeps them."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    src = Source(path.stem, f"aligned words of {path.name}")
    if path.suffix == ".jsonl":
        for line in text.splitlines():
            if line.strip():
                d = json.loads(line)
                src.pairs += word_pairs(d["ocr"], d["proofread"], settings.max_distance)
        return src
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            if line.startswith("# source:"):
                src.description = line[len("# source:"):].strip()
            continue
        p, w, n = line.split("\t")
        if p == "printed":
            continue
        src.pairs[(json.loads(p), json.loads(w))] += int(n)
    return src


def write_pairs(src: Source, path: Path, origin: str) -> None:
    """Keep a source's word pairs with their counts, not its text: every misread pair,
    and the words read right as (word, word). Enough to learn from again."""
    lines = [
        f"# source: {origin}",
        "# The word pairs of an aligned book (what its OCR printed, what the proofread text has), with how often",
        "# each occurs; (word, word) is a word read right. Word pairs and counts only: the text is not kept.",
        "printed\tintended\tcount",
    ]
    for (p, w), n in sorted(src.pairs.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"{json.dumps(p, ensure_ascii=False)}\t{json.dumps(w, ensure_ascii=False)}\t{n}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def default_aligned() -> list[Path]:
    """The word pairs the project keeps (pipeline/data/aligned/*.tsv)."""
    from importlib import resources

    folder = Path(str(resources.files("pipeline.data").joinpath("aligned")))
    return sorted(folder.glob("*.tsv")) if folder.is_dir() else []


def _corrector_input(path: Path, res, model: ChannelModel | None):
    """A chapter's blocks as the corrector is given them: after layout and every clean
    step but the corrector's own."""
    from ..build import CHAPTER_STAGES, process_chapter
    from . import clean_text
    from .book import chapter_context, corrector
    from .steps import STEPS

    corrector(res, model)
    stages = tuple(s for s in CHAPTER_STAGES if s.name in ("ingest", "layout"))
    lay = process_chapter(path, res, stages=stages)
    games = sorted({p.head_game for p in lay.pages if p.head_game})
    ctx = chapter_context(lay.chapter.text, res, lay.chapter.source_file, games)
    return [clean_text(b.text, ctx, STEPS[:-1]).text for b in lay.blocks]


def gold_source(gold_files: Iterable[Path], corpus: Path, settings: ChannelSettings) -> Source:
    """Gold chapters: the text the corrector is given (the corpus chapter of the same
    name, after layout and the first clean steps) against the hand-corrected text."""
    from ..resources import Resources

    gold_files = list(gold_files)
    res = Resources(corpus)
    src = Source("gold", "gold chapters " + ", ".join(g.name for g in gold_files))
    for gold in gold_files:
        text = "\n".join(_corrector_input(Path(corpus) / gold.name, res, None))
        src.pairs += word_pairs(text, gold.read_text(encoding="utf-8"), settings.max_distance)
    return src


def corpus_source(corpus: Path, model: ChannelModel, settings: ChannelSettings,
                  exclude: Iterable[str] = ()) -> Source:
    """The corpus cleaned with ``model``: each fix of the corrector made with at least
    ``min_confidence`` is a misread word, every other word of the clean text one read
    right (``exclude``: file names left out)."""
    from ..corpus import chapter_files
    from ..ingest import MAX_CHAPTER_BYTES, ingest
    from ..layout import layout
    from ..records import InputError
    from ..resources import Resources
    from . import clean
    from .book import corrector

    res = Resources(corpus)
    corrector(res, model)
    skip = set(exclude)
    src = Source("corpus", f"the corrector's fixes of confidence ≥ {settings.min_confidence:g} in {Path(corpus).name}/")
    for path in chapter_files(Path(corpus)):
        if path.name in skip:
            continue
        try:
            lay = clean(layout(ingest(path, max_bytes=res.max_chapter_bytes or MAX_CHAPTER_BYTES), res), res)
        except InputError:
            continue
        for block in lay.blocks:
            fixed: Counter = Counter()
            for k in block.text.corrections():
                if (k.fix in WORD_FIXES and k.confidence >= settings.min_confidence
                        and _WORD.fullmatch(k.before) and _WORD.fullmatch(k.after)):
                    src.pairs[(k.before, k.after)] += 1
                    fixed[k.after] += 1
            for w in _WORD.findall(block.text.text):
                if fixed[w]:
                    fixed[w] -= 1
                else:
                    src.pairs[(w, w)] += 1
    return src


def decisions_source(corpus: Path, settings: ChannelSettings) -> Source:
    """What editors decided (corpus/proofs/): a reading typed, or a fix of the engine
    accepted, is each misread word with the word it stands for; a fix rejected is a
    word the OCR read right. The surest evidence there is: every decision counts."""
    from ..decisions import load

    src = Source("decisions", f"the editors' decisions in {Path(corpus).name}/proofs/")
    folder = Path(corpus) / "proofs"
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        for d in load(path):
            if d.action in ("set", "accept") and d.reading is not None:
                src.pairs.update(word_pairs(d.text, d.reading, settings.max_distance))
            elif d.action == "reject":
                src.pairs.update((w, w) for w in _WORD.findall(d.text))
    return src


# -- counting --------------------------------------------------------------------------------------

def events(steps: list[tuple[str, str]], max_glyphs: int) -> list[tuple[str, str]]:
    """The confusions of an alignment: each run of edits that changes the length as one
    (up to ``max_glyphs`` glyphs a side), substitutions glyph by glyph; changes of
    accent or case alone are not confusions of glyph shape and are left out."""
    out: list[tuple[str, str]] = []
    run: list[tuple[str, str]] = []

    def flush():
        if not run:
            return
        a, b = "".join(p for p, _ in run), "".join(w for _, w in run)
        one_to_one = all(len(p) == 1 and len(w) == 1 for p, w in run)
        if one_to_one or len(a) > max_glyphs or len(b) > max_glyphs:
            out.extend(run)
        else:
            out.append((a, b))
        run.clear()

    for p, w in steps:
        if p == w:
            flush()
        else:
            run.append((p, w))
    flush()
    return [(a, b) for a, b in out
            if not (len(a) == 1 and len(b) == 1 and base_letter(a) == base_letter(b))]


@dataclass
class Counts:
    """One source's confusions, and what their exposure is measured on."""

    info: SourceInfo
    confusions: Counter  # (printed, intended) → times seen
    intended: Counter  # intended word → times aligned

    def occurrences(self, glyphs: str) -> int:
        """How often the intended glyphs occur in the source's intended words ('' : every glyph)."""
        if not glyphs:
            return self.info.glyphs
        return sum(n * w.count(glyphs) for w, n in self.intended.items() if glyphs in w)


def count(src: Source, model: ChannelModel, settings: ChannelSettings) -> Counts:
    confusions: Counter = Counter()
    intended: Counter = Counter()
    for (p, w), n in src.pairs.items():
        intended[w] += n
        if p == w:
            continue
        for a, b in events(model.align(p, w), settings.max_event_glyphs):
            if not model.long_s_event(a, b):
                confusions[(a, b)] += n
    glyphs = sum(n * len(w) for w, n in intended.items())
    info = SourceInfo(src.name, sum(intended.values()), glyphs, sum(confusions.values()), src.description)
    return Counts(info, confusions, intended)


def estimate(counts: list[Counts], prior: ChannelModel, settings: ChannelSettings, weight: float) -> Table:
    """The learned table from the sources' counts (see the module's docstring)."""
    seen: Counter = Counter()
    for c in counts:
        seen.update(c.confusions)
    raw: dict[tuple[str, str], tuple[float, float, dict]] = {}
    for (a, b), n in seen.items():
        per_source = {c.info.name: (c.confusions.get((a, b), 0), c.occurrences(b)) for c in counts}
        exposure = sum(occ * c.info.rate for c, (_, occ) in zip(counts, per_source.values()))
        learned = -math.log10(n / (exposure + 1.0)) / weight
        raw[(a, b)] = (learned, prior.cost(a, b, False), per_source)
    # the calibration: the median gap between the prior and the evidence, over the
    # confusions the hand table lists (its defaults say nothing) seen at least twice,
    # each as often as it was seen; and for each letter meant whose listed confusions
    # were seen often enough, the median gap over those: the evidence then says what a
    # letter is misread as, the hand table how often
    def median_gap(keys) -> float | None:
        gaps = sorted(g for key in keys for g in [raw[key][1] - raw[key][0]] * seen[key])
        return gaps[len(gaps) // 2] if gaps else None

    def listed(key: tuple[str, str]) -> bool:  # the hand table's own: its pairs, and its debris dropped
        return key in prior.prior or (key[1] == "" and key[0] in prior.debris)

    calibration = median_gap([key for key in raw if seen[key] >= 2 and listed(key)])
    if calibration is None:
        calibration = median_gap([key for key in raw if seen[key] >= 2]) or 0.0
    by_letter: dict[str, list] = {}
    for key in raw:
        if listed(key):
            by_letter.setdefault(key[1], []).append(key)
    letter_calibration = {b: median_gap(keys) for b, keys in by_letter.items()
                          if sum(seen[key] for key in keys) >= settings.letter_min_count}
    rows = []
    for (a, b), (lc, pc, per_source) in raw.items():
        n = seen[(a, b)]
        # the hand table's own confusions are informed beliefs; its defaults are not
        k = settings.prior_strength if listed((a, b)) else settings.default_strength
        learned = max(0.05, lc + letter_calibration.get(b, calibration))
        cost = max(0.05, (k * pc + n * learned) / (k + n))
        rows.append(Row(a, b, per_source, round(learned, 3), round(pc, 3), round(cost, 3)))
    rows.sort(key=lambda r: (-r.count, r.cost, r.printed, r.intended))
    return Table([c.info for c in counts], rows, round(calibration, 3), settings.prior_strength,
                 settings.default_strength, weight)


# -- learning --------------------------------------------------------------------------------------

def prior_model() -> ChannelModel:
    return ChannelModel(data.load("confusions"))


def learn(sources: list[Source], corpus: Path | None = None, settings: ChannelSettings | None = None,
          exclude: Iterable[str] = (), progress: Progress | None = None) -> Table:
    """The learned table: from ``sources`` (aligned books, gold chapters), and, when a
    ``corpus`` is given, from its editors' decisions (corpus/proofs/) and its own
    fixes, cleaned again with each table learned until the fixes no longer change (at
    most ``rounds`` times)."""
    clean_settings = CleanSettings.default()
    settings = settings or clean_settings.channel
    weight = clean_settings.corrector.weight
    prior = prior_model()
    say = progress or (lambda message: None)
    if corpus is not None:
        decided = decisions_source(corpus, settings)
        if decided.pairs:
            sources = [*sources, decided]
            say(f"decisions: {sum(decided.pairs.values())} words decided by editors, {decided.misread} misread")
    table = estimate([count(s, prior, settings) for s in sources], prior, settings, weight)
    if corpus is None:
        return table
    previous: Counter | None = None
    for round_ in range(1, settings.rounds + 1):
        model = ChannelModel(data.load("confusions"), table.costs())
        fixes = corpus_source(corpus, model, settings, exclude)
        say(f"corpus, round {round_}: {fixes.misread} fixes of confidence ≥ {settings.min_confidence:g}")
        table = estimate([count(s, model, settings) for s in (*sources, fixes)], prior, settings, weight)
        table.notes.append(f"corpus, round {round_}: {fixes.misread} fixes")
        misread = Counter({k: n for k, n in fixes.pairs.items() if k[0] != k[1]})
        if misread == previous:
            break
        previous = misread
    return table


# -- measuring -------------------------------------------------------------------------------------

@dataclass
class Fold:
    """One measure of a channel on one gold chapter, and what the channel learned from."""

    setup: str
    chapter: str
    score: object  # evaluate.Score
    learned_from: str


def measure(model: ChannelModel, corpus: Path, gold: Path):
    """A gold chapter cleaned with ``model`` and scored (as ``academie eval`` scores it)."""
    from ..build import process_chapter
    from ..resources import Resources
    from .book import corrector
    from .evaluate import score_chapter

    res = Resources(corpus)
    corrector(res, model)
    seg = process_chapter(Path(corpus) / gold.name, res)
    return score_chapter(seg, gold.read_text(encoding="utf-8"))


def cross_validate(gold_dir: Path, corpus: Path, aligned: list[Source],
                   progress: Progress | None = None) -> list[Fold]:
    """Each gold chapter measured with: the hand table alone; the channel learned from
    the aligned books and the corpus's fixes (no gold); the same with the other gold
    chapters' words added (never the measured one's); and the first again with the
    corpus's fixes learned without the measured chapter (its own text kept out too)."""
    settings = CleanSettings.default().channel
    golds = sorted(Path(gold_dir).glob("*.txt"))
    golds = [g for g in golds if (Path(corpus) / g.name).exists()]
    say = progress or (lambda message: None)
    folds: list[Fold] = []
    hand = prior_model()
    for g in golds:
        folds.append(Fold("hand table", g.name, measure(hand, corpus, g), "confusions.toml"))
    say("learning from the aligned books and the corpus")
    model = ChannelModel(data.load("confusions"), learn(aligned, corpus, settings).costs())
    names = ", ".join(s.name for s in aligned)
    for g in golds:
        folds.append(Fold("learned", g.name, measure(model, corpus, g), f"{names}, corpus"))
    for g in golds:
        others = [o for o in golds if o != g]
        say(f"learning without {g.name}")
        alone = ChannelModel(data.load("confusions"), learn(aligned, corpus, settings, exclude=[g.name]).costs())
        folds.append(Fold("learned, chapter unseen", g.name, measure(alone, corpus, g),
                          f"{names}, corpus without {g.name}"))
        if others:
            with_gold = learn([*aligned, gold_source(others, corpus, settings)], corpus, settings)
            folds.append(Fold("learned + other gold", g.name,
                              measure(ChannelModel(data.load("confusions"), with_gold.costs()), corpus, g),
                              f"{names}, corpus, gold of {', '.join(o.name for o in others)}"))
    return folds
