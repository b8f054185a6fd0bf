"""What hostile input costs: `make bench` (or `.venv/bin/python bench/hostile.py`).

Figures the issue "Hold under fire" asks to keep, printed, never asserted:

- peak memory (max RSS) and wall time of `academie build` on a chapter of 2 MB that is
  one article of prose, on 300 KB of '1. 1. 1. …', on 300 KB of prose in one line
  whose words are broken by hyphens left inside it ('jou-eur'), on 500 KB of short
  wrapped lines that make one paragraph, on one word of 200,000 letters, on a chain of
  100,000 hyphened letters, on 100 KB of 'AB AB …' (thousands of running heads that
  print no number) and on 60 KB of letters drawn at random: bounded by the chapter, not
  by the square of the article (target: under 1 GB);
- the reading room's /search under 8 concurrent clients against a real `academie
  serve`, beside the same FTS5 query run directly on the database (target: within 10×
  the direct query plus the page's rendering), and what an 800-word query answers.

Options: --quick (one run each, 2 rounds of clients).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import run_wrapped  # noqa: E402  (max RSS of a command, measured by a fresh wrapper)
from pipeline.web import fts_query  # noqa: E402

TARGET_RSS_MB = 1024
TARGET_SEARCH_RATIO = 10.0
WORDS = ("le la les de du des et à un une celui qui joueur joueurs carte cartes partie jeu gagne perd levée "
         "levées atout roi dame valet coup main donne premier dernier écarté mise enjeu").split()
QUERIES = ["renonce", "carte", "jeton", "donne mal", "whist", "bande", "avait", "levée", "partie", "atout"]


def one_article(size: int) -> str:
    rng = random.Random(1694)
    out, n = ["1."], 3
    while n < size - 200:  # just under the size: the build's limit is 2,000,000 bytes
        s = " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "."
        out.append(s)
        n += len(s.encode("utf-8")) + 1
    return " ".join(out) + "\n"


def one_line_hyphened(size: int) -> str:
    """Prose in one line, every word of four letters or more broken by a line end's
    hyphen the export left inside it ('jou-eur'): a chapter run on in one line, each of
    whose hyphens the layout weighs with the words about it."""
    rng = random.Random(1718)
    out, n = [], 0
    while n < size - 200:
        words = [w[: len(w) // 2] + "-" + w[len(w) // 2:] if len(w) >= 4 else w
                 for w in (rng.choice(WORDS) for _ in range(12))]
        s = " ".join(words).capitalize() + "."
        out.append(s)
        n += len(s.encode("utf-8")) + 1
    return " ".join(out) + "\n"


def wrapped_paragraph(size: int) -> str:
    """Prose hard-wrapped in short lines that make one paragraph, a word broken by a
    hyphen at each line's end: each line is joined to the paragraph before it."""
    rng = random.Random(1762)
    out, n = [], 0
    while n < size - 200:
        words = [rng.choice(WORDS) for _ in range(6)]
        cut = rng.choice([w for w in WORDS if len(w) >= 4])
        line = " ".join(words) + " " + cut[: len(cut) // 2] + "-\n" + cut[len(cut) // 2:]
        out.append(line)
        n += len(line.encode("utf-8")) + 1
    return " ".join(out) + ".\n"


def garbage(size: int) -> str:
    """Letters drawn at random in words of 2 to 9, ten a line, lines that make one
    paragraph: a plate or a table the OCR read as letters, every word unknown and
    different, the corrector's worst case (and each word a tie the sentence is asked to
    break, which read the whole paragraph again at each until 2026-12-07)."""
    rng = random.Random(1751)
    letters = "abcdefghijklmnopqrstuvwxyzéèàç"
    words, n = [], 0
    while n < size - 200:
        w = "".join(rng.choice(letters) for _ in range(rng.randint(2, 9)))
        words.append(w)
        n += len(w.encode("utf-8")) + 1
    return "\n".join(" ".join(words[k : k + 10]) for k in range(0, len(words), 10)) + "\n"


def build_figures(tmp: Path, academie: str) -> dict:
    out = {}
    for name, text in (("2 MB, one article of prose", one_article(2_000_000)), ("300 KB of '1. 1. 1. …'", "1. " * 100_000),
                       ("300 KB in one line, its words hyphened", one_line_hyphened(300_000)),
                       ("500 KB of wrapped lines, one paragraph", wrapped_paragraph(500_000)),
                       # one token of 200,000 letters: its readings were searched for, with
                       # the cube of its length (killed after 588 s at 24 GB until 2026-12-07)
                       ("200 KB, one word", "Le jeu " + "abcdefghij" * 20_000 + " fini.\n"),
                       ("200 KB of 'a-a-a-…', one word", "Le jeu " + "a-" * 100_000 + "a fini.\n"),
                       ("100 KB of 'AB AB …'", "Le jeu " + "AB " * 33_000 + "fini.\n"),
                       ("60 KB of letters at random", garbage(60_000))):
        corpus = tmp / f"corpus-{len(out)}"
        corpus.mkdir()
        (corpus / "chapter.txt").write_text(text, encoding="utf-8")
        r = run_wrapped([academie, "build", "--corpus", str(corpus), "--db", str(tmp / f"h{len(out)}.db"), "-q", "--full"])
        out[name] = {"bytes": len(text.encode("utf-8")), "wall_s": r["wall"], "maxrss_mb": r["maxrss_mb"],
                     "rc": r["rc"], "summary": r["stdout"].strip()}
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as exc:
        exc.read()
        status = exc.code
    return status, time.perf_counter() - t0


def search_figures(db: Path, academie: str, rounds: int) -> dict:
    # the same query the page runs, directly: what the index itself costs
    conn = sqlite3.connect(db)
    direct = []
    for q in QUERIES:
        t0 = time.perf_counter()
        conn.execute("SELECT p.citation, snippet(passages_fts, 0, '[', ']', '…', 14) FROM passages_fts "
                     "JOIN passages p ON p.rowid = passages_fts.rowid WHERE passages_fts MATCH ? ORDER BY rank LIMIT 100",
                     (fts_query(q),)).fetchall()
        direct.append(time.perf_counter() - t0)
    port = free_port()
    proc = subprocess.Popen([academie, "serve", "--db", str(db), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                get(base + "/-/versions.json")
                break
            except OSError:
                time.sleep(0.1)
        single = [get(f"{base}/search?{urlencode({'q': q})}")[1] for q in QUERIES]
        times: list[float] = []
        statuses: list[int] = []
        lock = threading.Lock()

        def client(k: int) -> None:
            for r in range(rounds):
                for q in QUERIES[k % 3:] + QUERIES[: k % 3]:
                    status, dt = get(f"{base}/search?{urlencode({'q': q})}")
                    with lock:
                        times.append(dt)
                        statuses.append(status)

        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        long_q = " ".join(f"mot{i}" for i in range(800))
        long_status, long_dt = get(f"{base}/search?{urlencode({'q': long_q})}")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return {
        "direct_fts_ms": statistics.median(direct) * 1e3,
        "page_one_client_ms": statistics.median(single) * 1e3,
        "page_8_clients_ms": statistics.median(times) * 1e3,
        "page_8_clients_p95_ms": sorted(times)[int(len(times) * 0.95) - 1] * 1e3,
        "requests": len(times), "errors": sum(s >= 500 for s in statuses), "wall_s": wall,
        "ratio": statistics.median(times) / statistics.median(single),
        "long_query": {"status": long_status, "ms": long_dt * 1e3},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    academie = str(Path(sys.executable).with_name("academie"))
    with tempfile.TemporaryDirectory(prefix="academie-hostile-") as tmp:
        tmp = Path(tmp)
        builds = build_figures(tmp, academie)
        db = tmp / "corpus.db"
        subprocess.run([academie, "build", "--corpus", str(ROOT / "corpus"), "--db", str(db), "-q"], check=True,
                       capture_output=True)
        search = search_figures(db, academie, 2 if args.quick else 5)
    print("=" * 78)
    print("Hostile input: what it costs (bench/hostile.py)")
    print(f"{'build of':40}{'bytes':>12}{'wall s':>9}{'max RSS MB':>12}{'vs 1 GB':>10}")
    for name, b in builds.items():
        print(f"{name:40}{b['bytes']:>12,}{b['wall_s']:>9.1f}{b['maxrss_mb']:>12.0f}{b['maxrss_mb'] / TARGET_RSS_MB:>9.2f}×"
              + ("" if b["rc"] == 0 else f"  exit {b['rc']}"))
    s = search
    print(f"/search: the FTS5 query alone {s['direct_fts_ms']:.1f} ms; the page, one client {s['page_one_client_ms']:.1f} ms; "
          f"8 clients {s['page_8_clients_ms']:.1f} ms median, {s['page_8_clients_p95_ms']:.1f} ms p95 "
          f"({s['requests']} requests, {s['errors']} 5xx)")
    print(f"  8 clients / one client = {s['ratio']:.1f}×  vs target ≤ {TARGET_SEARCH_RATIO:g}×  → "
          f"{s['ratio'] / TARGET_SEARCH_RATIO:.2f}× the limit")
    print(f"  an 800-word query: {s['long_query']['status']} in {s['long_query']['ms']:.0f} ms (cut before the index)")
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "hostile.json").write_text(json.dumps({"builds": builds, "search": search}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
