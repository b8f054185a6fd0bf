"""Benchmark of the Académie pipeline: `make bench` (or `.venv/bin/python bench/run.py`).

Measures, on the seed corpus (1×) and on a synthetic corpus 50 times larger (the
five chapters copied 50 times under new names, with the manifest extended so the
copies get the same editions):

- per stage (ingest, layout, clean, segment), in-process, single process (jobs=1),
  warm: seconds and characters per second, start-up excluded;
- citations, link (the rules, with spaCy) and publish (writing the SQLite database),
  in-process, warm;
- the whole build as users run it, `academie build --corpus DIR --db X -q`, as a
  subprocess (wall time, start-up included) and its peak memory (max RSS);
- the start-up alone: what `academie build` does before it reads the first chapter;
- `academie cite "whist 13"` latency against the 1× database.

Every time is the median of several runs (time.perf_counter). Figures are printed as
a table and written to bench/out/latest.json. Targets are reported as ratios; nothing
is asserted, and the script exits 0 whenever it could measure.

Options: --runs N (runs for both corpora), --quick (fewer runs), --scale K (default
50), --profile (cProfile of the four stages on the 1× corpus, top functions).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
OUT = ROOT / "bench" / "out" / "latest.json"

import pipeline.build as pb  # noqa: E402  (the installed project, editable)
from pipeline.build import CHAPTER_STAGES, CORPUS_STAGES, StageTimes, process_chapter  # noqa: E402
from pipeline.clean.book import corpus_counts, corrector  # noqa: E402
from pipeline.corpus import chapter_files  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.publish.write import publish as write_database  # noqa: E402
from pipeline.resources import Resources  # noqa: E402

STAGES = (*(s.name for s in CHAPTER_STAGES), "rules", "cache", "start-up", "start-up: spaCy")  # per chapter; then CORPUS_STAGES
TARGET_MBPS = 1.0  # ingest+layout+segment, MB/s (1 MB = 1e6 characters)
TARGET_SCALING = 55.0  # (50× build − start-up) / (1× build − start-up), at most
TARGET_CITE_S = 0.3  # `academie cite` latency, less than

# Peak memory of a subprocess. resource.getrusage(RUSAGE_CHILDREN).ru_maxrss is the
# largest max-RSS of *all* children this process has waited for so far, not of the
# last one: measured from this script, every build after the 50× one would report
# the 50× figure. So each measured command runs under a fresh `python -c` wrapper
# whose only child is that command: the wrapper's RUSAGE_CHILDREN is exactly the
# command's peak RSS (the wrapper itself is not counted: RUSAGE_CHILDREN excludes
# the caller). The wrapper also times the command with perf_counter, so its own
# interpreter start-up is not in the wall time. (GNU /usr/bin/time -v would give the
# same figure but is not everywhere and some versions misreport ru_maxrss.)
WRAPPER = r"""
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "rc": p.returncode, "maxrss": rss, "stdout": p.stdout[-2000:], "stderr": p.stderr[-2000:]}))
"""

# The start-up of `academie build`: the interpreter, the console script's import of
# the CLI, the imports `build` makes (rich, the whole pipeline with regex and
# sqlite_utils) and the shared resources (games catalogue, lexicon with wordfreq,
# digit model, vocabulary, the correction engine's candidate index and the book's
# word counts), i.e. all it does before reading the first chapter.
# What is left in a build is proportional to the corpus, except publish's fixed cost
# (schema, empty FTS index, VACUUM: a few ms, measured separately) and process exit.
STARTUP = r"""
import sys
from pipeline.cli import cli
import rich.console, rich.progress
from pipeline.build import build
from pipeline.clean.book import corpus_counts, corrector
from pipeline.resources import Resources
r = Resources(sys.argv[1])
r.catalogue; r.lexicon; r.digits; r.vocabulary; corrector(r).index; corpus_counts(r)
"""


# --------------------------------------------------------------------------- corpus


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        # a JSON string is a valid TOML basic string (json never writes '\/')
        return json.dumps(v, ensure_ascii=False)
    raise TypeError(f"manifest value not supported by the bench: {v!r}")


def make_scaled_corpus(src: Path, dst: Path, k: int) -> None:
    """`k` copies of every chapter of `src` as `kNN_<name>`, with games.toml and a
    manifest whose [[chapters]] entries are repeated for every copy."""
    dst.mkdir(parents=True)
    files = chapter_files(src)
    width = max(2, len(str(k - 1)))
    prefix = lambda i, name: f"k{i:0{width}d}_{name}"  # noqa: E731
    for i in range(k):
        for f in files:
            shutil.copyfile(f, dst / prefix(i, f.name))
    shutil.copyfile(src / "games.toml", dst / "games.toml")
    manifest_text = (src / "manifest.toml").read_text(encoding="utf-8")
    entries = tomllib.loads(manifest_text).get("chapters", [])
    extra = ["", f"# --- added by bench/run.py: the manifest's entries for the {k} copies ---"]
    for i in range(k):
        for e in entries:
            extra.append("")
            extra.append("[[chapters]]")
            for key, value in e.items():
                if key == "file":
                    value = prefix(i, value)
                extra.append(f"{key} = {_toml_value(value)}")
    if not manifest_text.endswith("\n"):
        manifest_text += "\n"
    (dst / "manifest.toml").write_text(manifest_text + "\n".join(extra) + "\n", encoding="utf-8")
    tomllib.loads((dst / "manifest.toml").read_text(encoding="utf-8"))  # fail here, not in the build


def corpus_chars(corpus: Path) -> tuple[int, int, int]:
    files = chapter_files(corpus)
    return len(files), sum(f.stat().st_size for f in files), sum(len(ingest(f).text) for f in files)


# --------------------------------------------------------------------------- in-process


def _warm_resources(corpus: Path) -> Resources:
    # loaded before timing: the lexicon, catalogue, digits and vocabulary, the
    # corrector's index and the book's counts are start-up, in no stage
    res = Resources(corpus)
    res.catalogue, res.lexicon, res.digits, res.vocabulary, corrector(res).index  # noqa: B018
    corpus_counts(res)
    return res


def measure_inprocess(corpus: Path, runs: int, tmp: Path) -> dict:
    """`runs` timed build() calls after one warm-up; medians per figure."""
    res = _warm_resources(corpus)
    db = tmp / f"inproc-{corpus.name}.db"
    samples: list[dict] = []
    for i in range(runs + 1):  # run 0 is the warm-up
        times = StageTimes()
        t0 = time.perf_counter()
        c0 = time.process_time()
        report = pb.build(corpus, db, jobs=1, times=times, res=res, full=True)
        total = time.perf_counter() - t0
        cpu = time.process_time() - c0
        if i == 0:
            continue
        s = {st: times.seconds.get(st, 0.0) for st in (*STAGES, *CORPUS_STAGES)}
        s.update(build_total=total, build_cpu=cpu)
        s["other"] = total - sum(s[k] for k in (*STAGES, *CORPUS_STAGES))
        samples.append(s)
    per_file: dict[str, list[dict[str, float]]] = {}
    for _ in range(runs):
        for f in chapter_files(corpus):
            t = StageTimes()
            try:
                process_chapter(f, res, t)
            except Exception:  # noqa: BLE001 - a bad chapter is the build's to report
                pass
            per_file.setdefault(f.name, []).append(t.seconds)
    med = {k: statistics.median(s[k] for s in samples) for k in samples[0]}
    med["report"] = {"chapters": report.chapters, "passages": report.passages, "articles": report.articles,
                     "warnings": len(report.warnings), "errors": len(report.errors)}
    med["samples"] = samples
    med["per_file"] = {name: {st: statistics.median(r.get(st, 0.0) for r in rs) for st in STAGES}
                       for name, rs in per_file.items()}
    return med


def measure_publish_fixed(tmp: Path, runs: int) -> float:
    """publish() of an empty database: the schema, the FTS index, VACUUM."""
    from pipeline.corpus import Manifest

    eds = list(Manifest.load(CORPUS / "manifest.toml").editions.values())
    out = []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        write_database(tmp / "empty.db", eds, [], [], [])
        if i:
            out.append(time.perf_counter() - t0)
    return statistics.median(out)


# --------------------------------------------------------------------------- subprocesses

# The environment of the measured commands. Users' Python caches bytecode (.pyc);
# an environment with PYTHONDONTWRITEBYTECODE set (as some sandboxes and CI have)
# recompiles every edited module of the pipeline at each start (~40 ms). The
# commands get instead a bytecode cache of their own in the temporary folder
# (PYTHONPYCACHEPREFIX), filled by the warm-up run, so nothing is written in the
# tree and start-up is what a user with a warm cache sees.
SUB_ENV = dict(os.environ)
SUB_ENV.pop("PYTHONDONTWRITEBYTECODE", None)


# the same pure-Python work every time (dict lookups, string slicing, float arithmetic):
# how fast the machine is at the moment, since its speed varies by more than two to
# one from one hour to the next; figures of two runs compare through it
REFERENCE = r"""
import json, time
t = time.perf_counter()
table = {str(i): i * 0.5 for i in range(20_000)}
total = 0.0
for k in range(60):
    for i in range(20_000):
        s = str(i)
        total += table.get(s[:-1] or s, 0.0) * 1.0001 + len(s[1:])
print(json.dumps({"reference_s": time.perf_counter() - t}))
"""


def reference_loop(runs: int = 3) -> float:
    """The reference loop's time in a fresh process, the median of ``runs``."""
    times = []
    for _ in range(runs):
        p = subprocess.run([sys.executable, "-c", REFERENCE], capture_output=True, text=True, check=True)
        times.append(json.loads(p.stdout)["reference_s"])
    return statistics.median(times)


def run_wrapped(argv: list[str], cwd: Path = ROOT) -> dict:
    p = subprocess.run([sys.executable, "-c", WRAPPER, *argv], cwd=cwd, env=SUB_ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, check=True)
    r = json.loads(p.stdout)
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS
    r["maxrss_mb"] = r["maxrss"] / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return r


def measure_wrapped(commands: dict[str, tuple[list[str], object]], runs: int) -> dict[str, dict]:
    """One discarded warm-up run of each command (OS file cache, .pyc files), then
    `runs` rounds. The commands of a round run one after the other, interleaved, so a
    drift in machine load touches them alike: the scaling ratio subtracts the
    start-up from the 1x build, a small difference of two close figures."""
    got: dict[str, list[dict]] = {name: [] for name in commands}
    for i in range(runs + 1):
        for name, (argv, before) in commands.items():
            if before:
                before()
            r = run_wrapped(argv)
            if r["rc"] != 0:
                print(f"warning: {' '.join(argv)} exited {r['rc']}: {r['stderr'].strip()[-500:]}", file=sys.stderr)
            if i:
                got[name].append(r)
    return {
        name: {
            "wall_s": statistics.median(r["wall"] for r in res),
            "wall_runs_s": [r["wall"] for r in res],
            "maxrss_mb": max(r["maxrss_mb"] for r in res),
            "rc": max(r["rc"] for r in res),
            "stdout": res[-1]["stdout"].strip(),
        }
        for name, res in got.items()
    }


def measure_cite(academie: str, db: Path, runs: int) -> dict:
    argv = [academie, "cite", "whist 13", "--db", str(db)]
    subprocess.run(argv, cwd=ROOT, env=SUB_ENV, capture_output=True)  # warm-up, discarded
    times, out, rc = [], "", 0
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(argv, cwd=ROOT, env=SUB_ENV, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        out, rc = p.stdout, max(rc, p.returncode)
    return {"median_s": statistics.median(times), "runs_s": times, "rc": rc,
            "first_line": out.splitlines()[0] if out else ""}


# --------------------------------------------------------------------------- profile


def profile_stages(corpus: Path, top: int = 25) -> str:
    res = _warm_resources(corpus)
    files = chapter_files(corpus)
    for f in files:
        process_chapter(f, res)  # warm-up
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        for f in files:
            process_chapter(f, res)
    prof.disable()
    buf = io.StringIO()
    st = pstats.Stats(prof, stream=buf)
    st.sort_stats("tottime").print_stats(top)
    st.sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


# --------------------------------------------------------------------------- report


def _git() -> dict:
    def g(*a):
        try:
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": g("rev-parse", "--short", "HEAD"),
            "pipeline_dirty": bool(g("status", "--porcelain", "--", "pipeline", "schema", "pyproject.toml"))}


def fmt_rate(chars: float, s: float) -> str:
    return f"{chars / s / 1e6:7.3f}" if s > 0 else "      -"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=None, help="runs per measurement, both corpora (default 5 for 1×, 3 for 50×)")
    ap.add_argument("--quick", action="store_true", help="fewer runs: 2 for 1×, 1 for 50×, 3 for cite")
    ap.add_argument("--scale", type=int, default=50, help="copies of the corpus in the large one (default 50)")
    ap.add_argument("--profile", action="store_true", help="also cProfile the four stages on the 1× corpus")
    args = ap.parse_args()

    runs1, runsK, runs_cite = (2, 1, 3) if args.quick else (5, 3, 7)
    if args.runs is not None:
        runs1 = runsK = max(1, args.runs)
    K = args.scale
    academie = str(Path(sys.executable).parent / "academie")
    if not Path(academie).exists():
        academie = shutil.which("academie") or sys.exit("error: no 'academie' command; run 'make install'")

    t_start = time.perf_counter()
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="academie-bench-") as tmpdir:
        tmp = Path(tmpdir)
        SUB_ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        big = tmp / f"corpus-{K}x"
        make_scaled_corpus(CORPUS, big, K)
        corpora = {"1x": CORPUS, f"{K}x": big}
        keys = list(corpora)
        nruns = {"1x": runs1, f"{K}x": runsK}

        info = {key: dict(zip(("chapters", "bytes", "chars"), corpus_chars(c))) for key, c in corpora.items()}

        progress = lambda msg: print(f"  … {msg} ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr, flush=True)  # noqa: E731

        inproc = {}
        for key in keys:
            progress(f"in-process, {key}: warm-up + {nruns[key]} runs")
            inproc[key] = measure_inprocess(corpora[key], nruns[key], tmp)
        publish_fixed = measure_publish_fixed(tmp, runs1)

        def build_cmd(key):
            db = tmp / f"build-{key}.db"
            return [academie, "build", "--corpus", str(corpora[key]), "--db", str(db), "-q", "--full"], \
                lambda: db.unlink(missing_ok=True)

        progress(f"start-up, academie --help, academie build 1x: warm-up + {runs1} rounds")
        sub = measure_wrapped({"startup": ([sys.executable, "-c", STARTUP, str(CORPUS)], None),
                               "help": ([academie, "--help"], None),
                               "1x": build_cmd("1x")}, runs1)
        progress(f"academie build {K}x: warm-up + {runsK} runs")
        sub.update(measure_wrapped({f"{K}x": build_cmd(f"{K}x")}, runsK))
        startup, help_ = sub["startup"], sub["help"]
        builds = {key: sub[key] for key in keys}
        for key in keys:
            db = tmp / f"build-{key}.db"
            builds[key]["db_mb"] = db.stat().st_size / 1e6 if db.exists() else None

        progress(f"academie cite, {runs_cite} runs")
        cite = measure_cite(academie, tmp / "build-1x.db", runs_cite)

        prof = profile_stages(CORPUS) if args.profile else None
        total_runtime = time.perf_counter() - t_start

    # ---- figures
    s0 = startup["wall_s"]
    b1, bK = builds["1x"]["wall_s"], builds[f"{K}x"]["wall_s"]
    scaling = (bK - s0) / (b1 - s0) if b1 > s0 else float("nan")
    results = {"corpus": info, "stages": {}}
    for key in keys:
        m, chars = inproc[key], info[key]["chars"]
        st = {s: {"seconds": m[s], "chars_per_s": chars / m[s] if m[s] else None} for s in STAGES}
        ils = m["ingest"] + m["layout"] + m["segment"]
        four = sum(m[s] for s in STAGES)
        st["ingest+layout+segment"] = {"seconds": ils, "chars_per_s": chars / ils, "mb_per_s": chars / ils / 1e6,
                                      "target_mb_per_s": TARGET_MBPS, "ratio_to_target": chars / ils / 1e6 / TARGET_MBPS}
        st["all_four_stages"] = {"seconds": four, "chars_per_s": chars / four}
        for stage in CORPUS_STAGES:
            st[stage] = {"seconds": m[stage]}
        st["other"] = {"seconds": m["other"]}
        st["build_in_process"] = {"seconds": m["build_total"], "cpu_seconds": m["build_cpu"]}
        results["stages"][key] = st
        results.setdefault("in_process_report", {})[key] = m["report"]
    file_chars = {f.name: len(ingest(f).text) for f in chapter_files(CORPUS)}
    results["per_chapter_1x"] = {
        name: {"chars": file_chars[name], **{f"{st}_s": t[st] for st in STAGES},
               "chars_per_s_all_four": file_chars[name] / sum(t.values())}
        for name, t in sorted(inproc["1x"]["per_file"].items())}
    inproc_ratio = inproc[f"{K}x"]["build_total"] / inproc["1x"]["build_total"]
    results["scaling_in_process"] = {"value": inproc_ratio, "formula": f"build() {K}x / build() 1x, in-process, warm"}
    results["publish_fixed_cost_s"] = publish_fixed
    results["startup"] = {"what": "python -c: import pipeline.cli, rich, pipeline.build; load the Resources "
                                  "(catalogue, lexicon, digits, vocabulary, candidate index, book counts)", **startup}
    results["cli_help"] = help_
    results["build_subprocess"] = builds
    results["scaling"] = {"value": scaling, "target_max": TARGET_SCALING, "ratio_to_target": scaling / TARGET_SCALING,
                          "formula": f"({K}x build - start-up) / (1x build - start-up)"}
    results["cite"] = {**cite, "target_max_s": TARGET_CITE_S, "ratio_to_target": cite["median_s"] / TARGET_CITE_S}
    results["meta"] = {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(), "platform": platform.platform(), "machine": platform.machine(),
        "cpus": os.cpu_count(), "runs": {"1x": runs1, f"{K}x": runsK, "cite": runs_cite}, "scale": K,
        "bench_runtime_s": total_runtime, "loadavg_start": load0, "loadavg_end": os.getloadavg(), **_git(),
    }

    # ---- table
    W = 78
    print("=" * W)
    g = results["meta"]
    print(f"Académie bench · {g['when']} · commit {g['commit']}{' (pipeline modified)' if g['pipeline_dirty'] else ''}")
    print(f"Python {g['python']} · {g['platform']} · {g['cpus']} CPUs · medians of runs: "
          f"1x {runs1}, {K}x {runsK}, cite {runs_cite}")
    print(f"load average (1 min) before the run: {g['loadavg_start'][0]:.2f} (above ~0.5 another job was using "
          f"the machine: figures are slower and noisier; the bench itself adds ~1 while it runs)")
    for key in keys:
        c = info[key]
        print(f"corpus {key:>4}: {c['chapters']:4d} chapters, {c['chars']:>10,} characters ({c['bytes']:,} bytes)")
    print()
    print("In-process, one process (jobs=1), warm: start-up (imports, resources) excluded")
    print(f"{'':26}{'1x':>20}{f'{K}x':>20}{f'{K}x/1x':>12}")
    print(f"{'stage':26}{'seconds':>10}{'MB/s':>10}{'seconds':>10}{'MB/s':>10}{'time':>12}")
    rows = [*STAGES, "ingest+layout+segment", "all_four_stages", *CORPUS_STAGES, "other", "build_in_process"]
    for r in rows:
        a, b = results["stages"]["1x"][r], results["stages"][f"{K}x"][r]
        ra = fmt_rate(info["1x"]["chars"], a["seconds"]) if "chars_per_s" in a else ""
        rb = fmt_rate(info[f"{K}x"]["chars"], b["seconds"]) if "chars_per_s" in b else ""
        label = {"all_four_stages": "all four stages", "build_in_process": "build() total",
                 "link": "link (rules, spaCy)", "other": "other (manifest, report)"}.get(r, r)
        if r == "citations":
            print("-" * W)
        ratio = f"{b['seconds'] / a['seconds']:11.1f}×" if a["seconds"] > 0 else f"{'-':>12}"
        print(f"{label:26}{a['seconds']:10.4f}{ra:>10}{b['seconds']:10.4f}{rb:>10}{ratio}")
    print(f"(MB/s = million characters of decoded text per second; publish of an empty database: "
          f"{publish_fixed * 1e3:.1f} ms)")
    print(f"in-process scaling, build() {K}x / 1x = {inproc_ratio:.1f}; CPU time / wall time of build(): "
          + ", ".join(f"{key} {inproc[key]['build_cpu'] / inproc[key]['build_total']:.2f}" for key in keys)
          + " (below ~0.95: this process waited for the CPU or the disk)")
    for key in keys:
        x = results["stages"][key]["ingest+layout+segment"]
        print(f"ingest+layout+segment, {key:>3}: {x['mb_per_s']:.3f} MB/s  vs target {TARGET_MBPS:g} MB/s  "
              f"→ {x['ratio_to_target']:.2f}× target")
    print()
    print("Per chapter, 1x, in-process (milliseconds; MB/s of the four stages)")
    print(f"{'chapter':28}{'chars':>8}" + "".join(f"{st:>9}" for st in STAGES) + f"{'MB/s':>9}")
    for name, r in results["per_chapter_1x"].items():
        print(f"{name:28}{r['chars']:8,}" + "".join(f"{r[st + '_s'] * 1e3:9.2f}" for st in STAGES)
              + f"{r['chars_per_s_all_four'] / 1e6:9.3f}")
    print()
    print("Subprocesses, as users run them (wall time, start-up included; peak RSS of the command)")
    print(f"{'command':44}{'seconds':>10}{'(min–max)':>16}{'max RSS MB':>12}")
    def sub_row(label, r):
        lo, hi = min(r["wall_runs_s"]), max(r["wall_runs_s"])
        print(f"{label:44}{r['wall_s']:10.3f}{f'({lo:.3f}–{hi:.3f})':>16}{r['maxrss_mb']:12.1f}")
    sub_row("start-up (imports + resources, python -c)", startup)
    sub_row("academie --help", help_)
    for key in keys:
        sub_row(f"academie build -q, {key}", builds[key])
    for key in keys:
        print(f"  {key:>3}: {builds[key]['stdout'] or '(no output)'}  [db {builds[key]['db_mb'] or 0:.1f} MB]")
    print(f"scaling ({K}x build − start-up) / (1x build − start-up) = ({bK:.3f} − {s0:.3f}) / ({b1:.3f} − {s0:.3f}) "
          f"= {scaling:.1f}")
    print(f"  vs target ≤ {TARGET_SCALING:g}  → {scaling / TARGET_SCALING:.2f}× the limit")
    print(f"academie cite \"whist 13\" (1x db), median of {runs_cite}: {cite['median_s']:.3f} s  "
          f"vs target < {TARGET_CITE_S:g} s  → {cite['median_s'] / TARGET_CITE_S:.2f}× the limit")
    print(f"  {cite['first_line']}")
    print("=" * W)
    print(f"bench runtime {total_runtime:.0f} s; figures in {OUT.relative_to(ROOT)}")
    if prof:
        results["profile"] = prof
        print()
        print("cProfile of the four stages, 1x corpus, 3 passes after a warm-up")
        print(prof)

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
