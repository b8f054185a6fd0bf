"""Our cleaning against three peer spellcheckers, on the gold chapters: `.venv/bin/python bench/peers.py`.

The peers, as the project's issue defines them, each replace every word they do not
know by their best suggestion:

- pyspellchecker (``SpellChecker(language='fr')``, ``correction()``);
- Hunspell 1.7 (Debian's hunspell, hunspell-fr-classical), through its pipe mode;
- SymSpell (symspellpy) over wordfreq's French list (counts = round(freq × 1e9)),
  ``lookup(word, Verbosity.TOP, max_edit_distance=2)``.

A word is a run of letters (accents included; an apostrophe or a hyphen ends it);
punctuation and spacing are kept as they are. A word whose lower case the peer does not
know is replaced by the suggestion, if there is one, with the case of the word's first
letter. Words of one letter are left alone by default, as our corrector leaves them
('d'après', 'n'est', 's'il': pyspellchecker knows neither 'd' nor 'n' nor 's' and makes
'de'après', 'un'est', 'a'il'); ``--min-len 1`` applies the policy to them too.

Ours is the real pipeline: the clean reading text of ``process_chapter`` (the passages'
clean text, one a line). Every system gets the same input, the raw chapter file
(``corpus/<name>``, UTF-8, the whole file), and is scored with
``pipeline.clean.evaluate.score`` against ``tests/fixtures/gold/<name>``.

Speed is the correction step alone, single-threaded, wall time, median of the runs
after a discarded warm-up (see below), in characters of the raw chapter files per second, over
the 2 gold chapters and over the 5 corpus chapters. The one-off load (dictionary,
index) is timed apart. Ours is the clean stage (``clean(layout(ingest(path), res),
res)``, only ``clean`` timed) in three conditions:

- cold: a run starts with every cache of word decisions empty (the corrector's memo,
  the channel model's cost and glyph-group caches, the lexicon's memos), as in a
  fresh process whose candidate index is built; each run is then one pass over the
  chapters, in which words recurring across chapters are decided once, as in a build;
- cold, memo only: only ``Corrector._memo`` is emptied (the channel costs stay cached);
- warm: every cache kept from the previous passes, as a long book sees it.

The peers get a memo of their suggestions that is empty at the start of each run
(the same advantage as our cold runs: a word recurring in the run is looked up once).
A peer's pass over the gold chapters for the quality figures is its first timed run.
A system whose run takes over 2 s (pyspellchecker: ~12 s on the gold chapters) has
nothing a warm-up would warm: its first run counts and it gets 3 runs, not 5. For
the same reason pyspellchecker is timed on the 5 corpus chapters (~75 s a run) only
with ``--full``; the ratios to it are then on the 2 gold chapters alone.

Options: ``--runs N`` (default 5), ``--quick`` (3 runs), ``--full``, ``--min-len N``
(default 2), ``--broken`` (also list the peers' broken words). About a minute.

Figures are printed as a table and written to bench/out/peers.json. Nothing is
asserted; the script exits 0 whenever it could measure.
"""

from __future__ import annotations

import argparse
import functools
import json
import operator
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Callable

import regex

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
GOLD = ROOT / "tests" / "fixtures" / "gold"
OUT = ROOT / "bench" / "out" / "peers.json"

import pipeline.clean.correct  # noqa: E402
from pipeline.build import process_chapter  # noqa: E402
from pipeline.clean.book import corrector  # noqa: E402
from pipeline.corpus import chapter_files  # noqa: E402
from pipeline.clean import clean  # noqa: E402
from pipeline.clean.evaluate import Score, page_text, score  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.layout import layout  # noqa: E402
from pipeline.resources import Resources  # noqa: E402
from run import _git  # noqa: E402  (bench/run.py, beside this script)

TARGET_RATIO = 3.0  # ours ≥ 3× pyspellchecker's characters per second
WORD = regex.compile(r"\p{L}+")
_MISSING = object()


# --------------------------------------------------------------------------- peers


class Peer:
    """A spellchecker under the issue's policy: every unknown word → its best suggestion."""

    name = ""

    def __init__(self, min_len: int = 2):
        self.min_len = min_len

    def load(self) -> None:
        raise NotImplementedError

    def known(self, lower: str) -> bool:
        raise NotImplementedError

    def suggest(self, lower: str) -> str | None:
        raise NotImplementedError

    def correct(self, text: str, memo: dict | None = None) -> str:
        memo = {} if memo is None else memo
        known, suggest, min_len = self.known, self.suggest, self.min_len
        out: list[str] = []
        pos = 0
        for m in WORD.finditer(text):
            word = m.group()
            if len(word) < min_len:
                continue
            lower = word.lower()
            if known(lower):
                continue
            s = memo.get(lower, _MISSING)
            if s is _MISSING:
                s = memo[lower] = suggest(lower)
            if not s or s == lower:
                continue
            if word[0].isupper():
                s = s[0].upper() + s[1:]
            out.append(text[pos : m.start()])
            out.append(s)
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)


class PySpellChecker(Peer):
    name = "pyspellchecker"

    def load(self) -> None:
        from spellchecker import SpellChecker

        self.sp = SpellChecker(language="fr")
        self.dictionary = "its French word list (%d words)" % len(self.sp.word_frequency.dictionary)

    def known(self, lower: str) -> bool:
        return lower in self.sp

    def suggest(self, lower: str) -> str | None:
        return self.sp.correction(lower)


class HunspellPeer(Peer):
    """Hunspell 1.7 with Debian's French dictionary (hunspell, hunspell-fr-classical:
    the 'classique' spelling, closest to the books'), through its ispell pipe mode
    (`hunspell -a`): the C engine itself, one process, a word a line."""

    name = "hunspell"
    DICTIONARY = "fr_FR"

    def load(self) -> None:
        import shutil

        if not shutil.which("hunspell"):
            raise ImportError("hunspell is not installed (Debian: apt-get install hunspell hunspell-fr-classical; "
                              "make bench does)")
        self.proc = subprocess.Popen(["hunspell", "-d", self.DICTIONARY, "-a", "-i", "utf-8"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        banner = self.proc.stdout.readline()
        if "Hunspell" not in banner:
            raise ImportError(f"hunspell -d {self.DICTIONARY} did not start: {banner.strip()!r}")
        self.last: tuple[str, tuple[bool, str | None]] = ("", (True, None))
        self.dictionary = f"Debian's {self.DICTIONARY} (hunspell-fr-classical), {banner.strip()}"

    def _ask(self, lower: str) -> tuple[bool, str | None]:
        # no cache across runs, as for the other peers (Peer.correct keeps a memo per
        # run): only the last answer, asked again by suggest() after known()
        hit = self.last[1] if self.last[0] == lower else None
        if hit is None:
            # '^' keeps a word from being read as a pipe-mode command
            self.proc.stdin.write("^" + lower + "\n")
            self.proc.stdin.flush()
            lines = []
            while (line := self.proc.stdout.readline()) not in ("\n", ""):
                lines.append(line.rstrip("\n"))
            first = lines[0] if lines else "*"
            if first[:1] in "*+-":
                hit = (True, None)
            elif first.startswith("&"):
                hit = (False, first.split(": ", 1)[1].split(", ")[0])
            else:
                hit = (False, None)
            self.last = (lower, hit)
        return hit

    def known(self, lower: str) -> bool:
        return self._ask(lower)[0]

    def suggest(self, lower: str) -> str | None:
        return self._ask(lower)[1]


class SymSpellPeer(Peer):
    name = "symspell"

    def load(self) -> None:
        import wordfreq
        from symspellpy import SymSpell, Verbosity

        # wordfreq caches its lists: empty the caches so the load reads them (our
        # lexicon, loaded before, reads the same list)
        wordfreq.get_frequency_dict.cache_clear()
        wordfreq.get_frequency_list.cache_clear()
        freq = wordfreq.get_frequency_dict("fr")
        self.ss = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
        for w, f in freq.items():
            self.ss.create_dictionary_entry(w, max(1, round(f * 1e9)))
        self.words = self.ss.words
        self.top = Verbosity.TOP
        self.dictionary = "wordfreq 'fr' (%d words), max edit distance 2, prefix length 7" % len(self.words)

    def known(self, lower: str) -> bool:
        return lower in self.words

    def suggest(self, lower: str) -> str | None:
        found = self.ss.lookup(lower, self.top, max_edit_distance=2)
        return found[0].term if found else None


# --------------------------------------------------------------------------- ours


def export_free(path: Path) -> str:
    """The chapter's page text: its raw text without the export's header and footer lines."""
    lay = layout(ingest(path), Resources(CORPUS))
    return page_text(lay.chapter.text, [(f.start, f.end) for f in lay.furniture if f.kind.startswith("export_")])


def reading_text(path: Path, res: Resources) -> str:
    seg = process_chapter(path, res)
    return "\n".join(p.text.text for p in seg.passages)


# The caches of word decisions: (owner, attribute). A fresh process whose candidate
# index is built has them all empty; `ours, cold` empties them all before each run,
# `ours, cold (memo only)` only the first.
DECISION_CACHES = (("corrector", "_memo"), ("corrector.model", "_cost_cache"), ("corrector.model", "_groups_cache"),
                   ("lexicon", "_best_memo"), ("lexicon", "_period_memo"))


def forget_decisions(res: Resources, everything: bool) -> list[str]:
    """Empty the caches of word decisions (those that exist): the names emptied. The
    sentence's decisions, which the chapters of a book share, go with the first."""
    from pipeline.clean import context

    for shared in context._SHARED.values():
        shared.pop("decided", None)
    done = ["context decisions"]
    for owner, attr in DECISION_CACHES if everything else DECISION_CACHES[:1]:
        obj = res
        for part in owner.split("."):
            obj = corrector(obj) if part == "corrector" else getattr(obj, part)
        cache = getattr(obj, attr, None)
        if cache is not None:
            cache.clear()
            done.append(f"{owner}.{attr}")
    return done


def time_ours(paths: list[Path], res: Resources, forget: Callable[[], None] | None) -> tuple[float, float]:
    """One pass of the clean stage over the chapters: (wall, cpu) seconds of clean alone.
    Layout runs before each chapter's clean, as in the pipeline (it fills some of the
    lexicon's memo, as it does in a build), untimed."""
    if forget:
        forget()
    wall = cpu = 0.0
    for p in paths:
        lay = layout(ingest(p), res)
        t0, c0 = time.perf_counter(), time.process_time()
        clean(lay, res)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
    return wall, cpu


def run_peer(peer: Peer, texts: list[str]) -> tuple[list[str], float, float]:
    """One run of a peer over the texts, its memo empty at the start: (outputs, wall, cpu)."""
    memo: dict = {}
    t0, c0 = time.perf_counter(), time.process_time()
    outs = [peer.correct(t, memo) for t in texts]
    return outs, time.perf_counter() - t0, time.process_time() - c0


def median_runs(fn: Callable[[], tuple[float, float]], runs: int, first: tuple[float, float] | None = None,
                slow: float = 2.0, slow_runs: int = 3) -> dict:
    """The median of ``runs`` runs after a discarded warm-up. ``first`` is a run
    already made, the same as ``fn()``, used as the warm-up. A system whose run takes
    over ``slow`` seconds has nothing a warm-up would warm (pyspellchecker: ~10 s for
    the gold chapters): its first run counts and it gets ``slow_runs`` runs in all."""
    r = first if first is not None else fn()
    samples = [r] if r[0] > slow else []
    n = min(runs, slow_runs) if r[0] > slow else runs
    while len(samples) < n:
        samples.append(fn())
    walls = [w for w, _ in samples]
    return {"seconds": statistics.median(walls), "runs_s": walls, "warm_up": r[0] <= slow,
            "cpu_over_wall": sum(c for _, c in samples) / sum(walls)}


# --------------------------------------------------------------------------- report


def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "?"


def score_dict(s: Score) -> dict:
    return {"characters": s.characters, "words": s.words, "cer_raw": s.cer_raw, "cer_clean": s.cer_clean,
            "reduction": s.reduction, "wrong_raw": s.wrong_raw, "fixed": s.fixed, "fixed_rate": s.fixed_rate,
            "right_raw": s.right_raw, "broken": s.broken, "broken_rate": s.broken_rate,
            "broken_words": [list(b) for b in s.broken_words]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per speed figure, after a warm-up (default 5)")
    ap.add_argument("--quick", action="store_true", help="3 runs instead of 5")
    ap.add_argument("--full", action="store_true",
                    help="also time pyspellchecker on the 5 corpus chapters (~75 s a run, 3 runs)")
    ap.add_argument("--min-len", type=int, default=2,
                    help="peers leave words shorter than this alone (default 2, as our corrector; 1 = every word)")
    ap.add_argument("--broken", action="store_true", help="also list the peers' broken words (ours are always listed)")
    args = ap.parse_args()
    runs = 3 if args.quick else max(1, args.runs)

    t_start = time.perf_counter()
    load0 = os.getloadavg()
    progress = lambda msg: print(f"  … {msg} ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr, flush=True)  # noqa: E731

    golds = sorted(GOLD.glob("*.txt"))
    gold_paths = [CORPUS / g.name for g in golds]
    corpus_paths = chapter_files(CORPUS)
    # the page text: the export's header and footer lines are metadata, not OCR (the gold drops them)
    raw = {p.name: export_free(p) for p in [*corpus_paths, *gold_paths]}
    sets = {"gold": gold_paths, "corpus": corpus_paths}
    chars = {k: sum(len(raw[p.name]) for p in ps) for k, ps in sets.items()}

    # ---- one-off loads (ours first: nothing of wordfreq is loaded yet)
    progress("loading ours (lexicon, resources, candidate index)")
    load: dict[str, dict] = {}
    t0 = time.perf_counter()
    res = Resources(CORPUS)
    res.lexicon  # noqa: B018
    t1 = time.perf_counter()
    res.catalogue, res.digits, res.vocabulary  # noqa: B018
    domain = getattr(pipeline.clean.correct, "Domain", None)  # the games' vocabulary, where the pipeline has it
    if domain is not None:
        domain.default()
    corrector(res).index  # noqa: B018  (the corpus's word counts, then the index)
    t2 = time.perf_counter()
    load["ours"] = {"seconds": t2 - t0, "lexicon_s": t1 - t0, "resources_and_index_s": t2 - t1,
                    "what": "lexicon (wordfreq 'fr' + period spellings), catalogue, digit model, vocabulary, "
                            "domain terms, corpus word counts, candidate index"}
    peers: list[Peer] = [PySpellChecker(args.min_len), SymSpellPeer(args.min_len), HunspellPeer(args.min_len)]
    for peer in peers:
        progress(f"loading {peer.name}")
        t0 = time.perf_counter()
        try:
            peer.load()
        except ImportError as exc:
            sys.exit(f"error: {exc}: install the bench extras, .venv/bin/pip install -e '.[bench]' (make bench does)")
        load[peer.name] = {"seconds": time.perf_counter() - t0, "what": peer.dictionary}

    # ---- quality on the gold chapters (a peer's pass is also its first timed run)
    systems = ["ours", *(p.name for p in peers)]
    outputs: dict[str, dict[str, str]] = {s: {} for s in systems}
    progress("ours on the gold chapters (process_chapter)")
    for path in gold_paths:
        outputs["ours"][path.name] = reading_text(path, res)
    first_run: dict[str, tuple[float, float]] = {}
    for peer in peers:
        progress(f"{peer.name} on the gold chapters")
        outs, wall, cpu = run_peer(peer, [raw[p.name] for p in gold_paths])
        outputs[peer.name] = dict(zip((p.name for p in gold_paths), outs))
        first_run[peer.name] = (wall, cpu)
    quality: dict[str, dict] = {}
    for s in systems:
        scores = [score(g.name, raw[g.name], outputs[s][g.name], g.read_text(encoding="utf-8")) for g in golds]
        total = functools.reduce(operator.add, scores)
        quality[s] = {"chapters": {sc.chapter: score_dict(sc) for sc in scores}, "total": score_dict(total)}

    # ---- speed of the correction step alone
    conditions = {"ours_cold": True, "ours_cold_memo_only": False, "ours_warm": None}
    speed: dict[str, dict[str, dict]] = {s: {} for s in (*conditions, *(p.name for p in peers))}
    cleared = {}
    for key, paths in sets.items():
        progress(f"speed, ours, {key} chapters: cold, cold (memo only), warm; warm-up + {runs} runs each")
        for cond, everything in conditions.items():
            forget = None if everything is None else (
                lambda e=everything: cleared.__setitem__(e, forget_decisions(res, e)))
            speed[cond][key] = median_runs(lambda: time_ours(paths, res, forget), runs)
        texts = [raw[p.name] for p in paths]
        for peer in peers:
            if key == "corpus" and peer.name == "pyspellchecker" and not args.full:
                continue  # ~75 s a run: --full
            progress(f"speed, {peer.name}, {key} chapters")
            speed[peer.name][key] = median_runs(lambda: run_peer(peer, texts)[1:], runs,
                                                first=first_run[peer.name] if key == "gold" else None)
    base = speed["pyspellchecker"]
    for by_set in speed.values():
        for key, m in by_set.items():
            m["characters"] = chars[key]
            m["chars_per_s"] = chars[key] / m["seconds"]
    for by_set in speed.values():
        for key, m in by_set.items():
            m["ratio_to_pyspellchecker"] = m["chars_per_s"] / base[key]["chars_per_s"] if key in base else None
    total_runtime = time.perf_counter() - t_start

    target = {"ours_over_pyspellchecker_chars_per_s_min": TARGET_RATIO}
    for cond in ("ours_cold", "ours_warm"):
        target[cond] = {k: m["ratio_to_pyspellchecker"] for k, m in speed[cond].items() if k in base}
    results = {
        "quality": quality,
        "speed": speed,
        "load": load,
        "target": target,
        "settings": {"peer_min_word_length": args.min_len, "runs": runs,
                     "cold_clears": {"ours_cold": cleared.get(True), "ours_cold_memo_only": cleared.get(False)},
                     "gold_chapters": [g.name for g in golds], "corpus_chapters": [p.name for p in corpus_paths],
                     "characters": chars},
        "meta": {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
                 "versions": {p: _version(p) for p in ("pyspellchecker", "symspellpy", "wordfreq")},
                 "runtime_s": total_runtime, "loadavg_start": load0, "loadavg_end": os.getloadavg(), **_git()},
    }

    # ---- table
    g = results["meta"]
    print("=" * 118)
    print(f"Académie vs peer spellcheckers · {g['when']} · commit {g['commit']}"
          f"{' (pipeline modified)' if g['pipeline_dirty'] else ''}")
    print(f"Python {g['python']} · pyspellchecker {g['versions']['pyspellchecker']} · symspellpy "
          f"{g['versions']['symspellpy']} · wordfreq {g['versions']['wordfreq']} · load average (1 min) before: "
          f"{load0[0]:.2f}")
    print(f"input: the page text of the chapter files (without the export header line); the peers replace every unknown word of {args.min_len} letters or more "
          f"by their best suggestion")
    print()
    print(f"Quality on the gold chapters (fixed: % of the words wrong in raw; broken: % of the words right in raw)")
    hdr = (f"{'system':16}{'chapter':27}{'chars':>6}{'CER raw':>9}{'CER after':>10}{'reduction':>10}"
           f"{'wrong':>7}{'fixed':>7}{'fixed %':>8}{'right':>7}{'broken':>7}{'broken %':>9}")
    print(hdr)
    for s in systems:
        rows = [*quality[s]["chapters"].items(), ("total", quality[s]["total"])]
        for i, (name, q) in enumerate(rows):
            print(f"{s if i == 0 else '':16}{name:27}{q['characters']:6d}{q['cer_raw']:9.2%}"
                  f"{q['cer_clean']:10.2%}{q['reduction']:10.1%}{q['wrong_raw']:7d}{q['fixed']:7d}"
                  f"{q['fixed_rate']:8.1%}{q['right_raw']:7d}{q['broken']:7d}{q['broken_rate']:9.2%}")
        print("-" * len(hdr))
    print()
    print(f"Speed of the correction step alone: one process, one thread, wall time, median of the runs, in characters "
          f"of the raw files per second")
    labels = {"ours_cold": "ours, cold", "ours_cold_memo_only": "ours, cold (memo only)", "ours_warm": "ours, warm"}
    hdr = (f"{'system':24}{'load s':>8}"
           + "".join(f"{f'{k}: {len(ps)} ch., {chars[k]:,} c.':>26}{'× pyspell':>11}{'runs':>6}"
                     for k, ps in sets.items()) + f"{'cpu/wall':>10}")
    print(hdr)
    for sysname, by_set in speed.items():
        ld = f"{load[sysname]['seconds']:8.2f}" if sysname in load else (
            f"{load['ours']['seconds']:8.2f}" if sysname == "ours_cold" else f"{'″':>8}")
        cols = ""
        for k in sets:
            m = by_set.get(k)
            if m is None:
                cols += f"{'not run (--full)':>26}{'':>11}{'':>6}"
                continue
            ratio = f"{m['ratio_to_pyspellchecker']:10.1f}×" if m["ratio_to_pyspellchecker"] else f"{'-':>11}"
            cols += f"{m['chars_per_s']:26,.0f}{ratio}{len(m['runs_s']):6d}"
        cw = min(m["cpu_over_wall"] for m in by_set.values())
        print(f"{labels.get(sysname, sysname):24}{ld}{cols}{cw:10.2f}")
    print(f"load: ours = {load['ours']['lexicon_s']:.2f} s lexicon + {load['ours']['resources_and_index_s']:.2f} s "
          f"resources and candidate index; " + "; ".join(f"{p.name}: {load[p.name]['what']}" for p in peers))
    print("cold: every cache of word decisions emptied before each run (" + ", ".join(cleared.get(True) or [])
          + "); memo only: " + ", ".join(cleared.get(False) or []) + "; warm: all kept. "
          "Peers: a memo of suggestions, empty at each run.")
    for cond in ("ours_cold", "ours_warm"):
        for k, r in target[cond].items():
            print(f"target ours ≥ {TARGET_RATIO:g}× pyspellchecker, {labels[cond]}, {k} chapters: {r:.1f}× → "
                  f"{'met' if r >= TARGET_RATIO else 'NOT MET'}")
    print()
    ob = quality["ours"]["total"]["broken_words"]
    print(f"ours, words broken ({len(ob)}){': gold word → what the cleaning made of it' if ob else ''}")
    for gw, made in ob:
        print(f"  {gw!r} → {made!r}")
    for p in peers:
        pb = quality[p.name]["total"]["broken_words"]
        print(f"{p.name}, words broken ({len(pb)}){'' if args.broken else ' (--broken lists them)'}")
        if args.broken:
            for gw, made in pb:
                print(f"  {gw!r} → {made!r}")
    print("=" * 118)
    print(f"runtime {total_runtime:.0f} s; figures in {OUT.relative_to(ROOT)}")

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
