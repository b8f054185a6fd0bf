"""The ``academie`` command line. Each command mirrors a function of the package:
``build`` → pipeline.build.build, ``cite`` → pipeline.lookup.cite, ``outline`` →
pipeline.lookup.outline. Heavy modules are imported inside the commands, so that
reading the database (``cite``, ``outline``) starts fast.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
from pathlib import Path

import click

from .ingest import MAX_CHAPTER_BYTES

DEFAULT_DB = "build/academie.db"
DEFAULT_CORPUS = "corpus"


def _fail(message: str, code: int = 1):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _read_db(db: Path, query, *args):
    """Run a query function of pipeline.lookup on the database. No database, a file
    that is not one, or a reference that names nothing: one error line, exit code 1."""
    import sqlite3

    from .publish.lookup import LookupError_, connect

    if not db.exists():
        build = "academie build" if db == Path(DEFAULT_DB) else f"academie build --db {db}"
        _fail(f"{db}: no database here; build it first with '{build}'")
    if db.is_dir():
        _fail(f"{db}: a folder, not a database; give the database file (--db {db / 'academie.db'})")
    try:
        return query(connect(db), *args)
    except LookupError_ as exc:
        _fail(str(exc))
    except sqlite3.DatabaseError as exc:  # not a database, or one an older build wrote
        build = "academie build" if db == Path(DEFAULT_DB) else f"academie build --db {db}"
        _fail(f"{db}: cannot read it as an Académie database ({exc}); build it again with '{build}'")


@click.group()
@click.version_option(package_name="academie")
def cli():
    """Académie: OCR'd chapters of historical game treatises turned into a clean,
    structured, citable edition, published as a Datasette database."""


@cli.command()
@click.option("--corpus", "corpus", default=DEFAULT_CORPUS, show_default=True, type=click.Path(path_type=Path),
              help="Folder of chapter files, with manifest.toml and games.toml")
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path),
              help="Database to write (replaced only when the build is complete)")
@click.option("--jobs", "-j", default=1, show_default=True, help="Chapters processed in parallel (processes, or Dask workers)")
@click.option("--max-chapter-size", default=MAX_CHAPTER_BYTES, show_default=True, help="Largest chapter file accepted, in bytes")
@click.option("--cache", "cache", default=None, type=click.Path(path_type=Path),
              help="Folder of the chapters' cached results  [default: cache/ beside the database]")
@click.option("--full", is_flag=True, help="Process every chapter again, whatever the cache holds")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="Where the chapters are processed: here (with -j, in local processes), or on a Dask cluster")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="The Dask cluster's scheduler  [default: a local cluster of -j workers on 127.0.0.1]")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors and the summary")
def build(corpus: Path, db: Path, jobs: int, max_chapter_size: int, cache: Path | None, full: bool, engine: str,
          scheduler: str | None, quiet: bool):
    """Build the database from the corpus."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from .build import build as run_build
    from .corpus import chapter_files
    from .records import InputError

    err = Console(stderr=True)
    # a terminated build unwinds like an interrupted one: its temporary file is removed
    # (the handler before it given back after: a caller's own, and processes it forks later, keep theirs)
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        total = len(chapter_files(corpus)) if corpus.is_dir() else 0
        with Progress(TextColumn("[bold]building"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                      console=err, transient=True, disable=quiet or not err.is_terminal) as bar:
            task = bar.add_task("", total=total)
            report = run_build(corpus, db, jobs=jobs, max_bytes=max_chapter_size, cache=cache, full=full,
                               engine=engine, scheduler=scheduler,
                               progress=lambda name: bar.update(task, advance=1, description=name))
    except InputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    finally:
        if previous is not None:  # (None: a handler not set from Python, which cannot be set back)
            signal.signal(signal.SIGTERM, previous)
    for d in report.diagnostics:
        if d.level == "error" or (not quiet and d.level == "warning"):
            click.echo(str(d), err=True)
    if not quiet:  # part of the summary, on standard output: which shape each chapter was found in
        for name, shape in report.shapes.items():
            click.echo(f"{name}: shape {shape}")
    if not report.published:
        click.echo(f"{db}: not written, the previous database is as it was; {len(report.errors)} errors", err=True)
        sys.exit(1)
    kinds = ", ".join(f"{kind} {n}" for kind, n in report.corrections.items())
    click.echo(
        f"{db}: {report.chapters} chapters, {report.games} games, {report.articles} articles, "
        f"{report.passages} passages, {sum(report.corrections.values())} corrections{f' ({kinds})' if kinds else ''}, "
        f"{report.rules} rules, {report.checks} checks{f' ({report.disagreements} disagree)' if report.checks else ''}, "
        + (f"{report.decisions} decisions applied, " if report.decisions else "") +
        f"{len(report.warnings)} warnings, {len(report.errors)} errors"
    )
    click.echo(_timing(report, cache or db.parent / "cache"))
    if report.errors:
        sys.exit(1)


def _timing(report, cache: Path) -> str:
    """The build's time, its start-up apart (spaCy's load named, with the components
    beyond the tokenizer the rules' patterns needed), and what came from the cache."""
    t = report.times
    startup = t.get("start-up", 0.0) + t.get("start-up: spaCy", 0.0)
    if report.spacy is None:
        model = "spaCy not loaded"
    else:
        model = f"spaCy's {' + '.join(('tokenizer', *report.spacy))} {t.get('start-up: spaCy', 0.0):.1f} s"
    built = report.chapters - report.cached
    written = "the database was up to date" if report.up_to_date else "database written"
    kept = f" ({report.paragraphs_kept} of their paragraphs as cleaned before)" if report.paragraphs_kept else ""
    pruned = f"; {report.pruned} old cache entries removed ({report.pruned_bytes / 1e6:.1f} MB)" if report.pruned else ""
    return (f"{t.get('total', 0.0):.1f} s, start-up {startup:.1f} s ({model}); {built} chapters processed{kept}, "
            f"{report.cached} from the cache ({cache}); {written}{pruned}")


# `academie serve --edit` passes the plugin its corpus and token through these
EDIT_ENV = ("ACADEMIE_EDIT_CORPUS", "ACADEMIE_EDIT_TOKEN")
MIN_TOKEN = 16  # characters: a token shorter than this is a password one could guess


@cli.command()
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
@click.option("--port", default=8001, show_default=True)
@click.option("--metadata", default=None, type=click.Path(path_type=Path), help="Datasette metadata (default: schema/metadata.yml)")
@click.option("--base-url", default=None,
              help="The address the reading room's own links give out (default: http://127.0.0.1:PORT); "
                   "set it when a proxy serves it elsewhere. Never taken from a request.")
@click.option("--edit", is_flag=True,
              help="Add the review page (/review), where an editor decides the queue's items; each decision is "
                   "written into the corpus's proofs/ and the database rebuilt. Every write needs the token printed "
                   "at start-up.")
@click.option("--corpus", "corpus", default=DEFAULT_CORPUS, show_default=True, type=click.Path(path_type=Path),
              help="With --edit: the corpus the database was built from, whose proofs/ the decisions go into")
@click.option("--token", default=None, envvar="ACADEMIE_TOKEN",
              help=f"With --edit: the token every write needs, at least {MIN_TOKEN} characters "
                   "(default: $ACADEMIE_TOKEN, else a random one)")
def serve(db: Path, port: int, metadata: Path | None, base_url: str | None, edit: bool, corpus: Path,
          token: str | None):
    """Serve the database with Datasette, read-only, on 127.0.0.1; with --edit, the
    review page too."""
    from .publish.write import SCHEMA_DIR

    if not db.exists():
        click.echo(f"error: {db}: no database; run 'academie build' first", err=True)
        sys.exit(2)
    if edit and not corpus.is_dir():
        _fail(f"{corpus}: no corpus folder here; give the one the database was built from (--corpus)", 2)
    if edit and token is not None and len(token) < MIN_TOKEN:
        _fail(f"the token is too short to guard writes: give at least {MIN_TOKEN} characters "
              "(or none: a random one is made)", 2)
    metadata = metadata or SCHEMA_DIR / "metadata.yml"
    if edit and not all(name in (metadata.read_text(encoding="utf-8") if metadata.is_file() else "")
                        for name in EDIT_ENV):
        _fail(f"{metadata} does not give the plugin the edit settings: --edit needs its plugins: academie: edit_corpus "
              "and edit_token read from $ACADEMIE_EDIT_CORPUS and $ACADEMIE_EDIT_TOKEN, as schema/metadata.yml has them",
              2)
    args = [sys.executable, "-m", "datasette", *datasette_serve_args(db, port, metadata)]
    # the plugin reads these through the metadata's {"$env": …}
    os.environ["ACADEMIE_BASE_URL"] = (base_url or f"http://127.0.0.1:{port}").rstrip("/")
    for name in EDIT_ENV:  # never inherited: only --edit turns the review page on
        os.environ.pop(name, None)
    click.echo(f"The reading room: http://127.0.0.1:{port}/  (the tables: http://127.0.0.1:{port}/{db.stem})", err=True)
    if edit:
        import secrets
        from urllib.parse import quote

        token = token or secrets.token_urlsafe(24)
        os.environ["ACADEMIE_EDIT_CORPUS"] = str(corpus.resolve())
        os.environ["ACADEMIE_EDIT_TOKEN"] = token
        click.echo(f"The review page: http://127.0.0.1:{port}/review?token={quote(token, safe='')}  (decisions go "
                   f"into {corpus / 'proofs'}/; every write needs this token)", err=True)
    os.execv(sys.executable, args)


# What `academie serve` asks of Datasette besides the database, read-only (-i) on
# 127.0.0.1: a page size, a time limit on queries and a cap on the rows they return.
SERVE_SETTINGS = {"default_page_size": 50, "sql_time_limit_ms": 2000, "max_returned_rows": 1000}


def datasette_serve_args(db: Path, port: int, metadata: Path) -> list[str]:
    """The arguments of `datasette` that `academie serve` runs; the metadata only if it exists."""
    args = ["serve", "-i", str(db), "--host", "127.0.0.1", "--port", str(port)]
    for name, value in SERVE_SETTINGS.items():
        args += ["--setting", name, str(value)]
    if metadata.exists():
        args += ["--metadata", str(metadata)]
    return args


@cli.command(short_help="Print the passage a reference names: whist 13, aduj:whist.13.")
@click.argument("reference")
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the passage as JSON")
@click.option("--url", "as_url", is_flag=True, help="Print the passage's URL in the reading room")
@click.option("--tei", "as_tei", is_flag=True, help="Print the passage's TEI, as academie export tei writes it")
@click.option("--base-url", "base", default="http://127.0.0.1:8001", show_default=True,
              help="Where the reading room is served")
def cite(reference: str, db: Path, as_json: bool, as_url: bool, as_tei: bool, base: str):
    """Print the passage a REFERENCE names: 'Whist, art. 13', 'whist 13', 'aduj:whist.13'."""
    from .segment.citations import citation_path
    from .publish.lookup import cite as find

    row = _read_db(db, find, reference)
    if as_tei:
        from .publish.tei import passage_tei

        click.echo(_read_db(db, passage_tei, row["citation"]))
        return
    if as_url:
        click.echo(base.rstrip("/") + citation_path(row["citation"]))
        return
    if as_json:
        keys = ["citation", "edition_id", "edition_title", "source_file", "chapter_number", "game", "kind",
                "number", "number_raw", "page", "text_clean", "text_raw"]
        click.echo(json.dumps({k: row[k] for k in keys}, ensure_ascii=False, indent=2))
        return
    where = [f"edition {row['edition_id']}"]
    where.append(f"chapter {row['chapter_number']}" if row["chapter_number"] else f"file {row['source_file']}")
    where.append(f"page {row['page']}" if row["page"] is not None else "page unknown")
    title = f"{row['game_name'] or 'unknown game'}, art. {row['number']}" if row["kind"] == "article" else row["kind"]
    click.echo(f"{row['citation']}  ({title}; {', '.join(where)})")
    click.echo(row["edition_title"])
    click.echo()
    click.echo(row["text_clean"])


@cli.command()
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the outline as JSON")
def outline(db: Path, as_json: bool):
    """Chapters → games → sections and articles, with their pages."""
    from .publish.lookup import outline as make_outline

    data = _read_db(db, make_outline)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    for c in data:
        label = f"chapter {c['number']}" if c["number"] else c["source_file"]
        click.echo(f"{c['edition']} · {label}" + (f" · {c['title']}" if c["title"] else ""))
        for g in c["games"]:
            click.echo(f"  {g['game'] or '(game unknown)'}")
            for line in _outline_lines(g["items"]):
                click.echo(f"    {line}")


def _outline_lines(items: list[dict]) -> list[str]:
    """Headings and sections one per line; runs of articles on one page collapsed."""
    lines: list[str] = []
    run: list[dict] = []

    def page(p):
        return f"p. {p}" if p is not None else "p. ?"

    def flush():
        if run:
            numbers = [a["number"] for a in run]
            label = f"art. {numbers[0]}" if len(numbers) == 1 else f"art. {numbers[0]}–{numbers[-1]}"
            lines.append(f"{label}  ({page(run[0]['page'])})")
            run.clear()

    for item in items:
        if item["kind"] == "article":
            if run and (item["page"] != run[-1]["page"] or item["number"] != run[-1]["number"] + 1):
                flush()
            run.append(item)
            continue
        flush()
        lines.append(f"{item['kind']}: {item['text']}  ({page(item['page'])}, {item['citation']})")
    flush()
    return lines


@cli.command(name="clean")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--explain", is_flag=True, help="Print each edit: position, before → after, fix, confidence")
@click.option("--corpus", "corpus", default=DEFAULT_CORPUS, show_default=True, type=click.Path(path_type=Path),
              help="Corpus whose games list and vocabulary inform the cleaning")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=1),
              help="Paragraphs cleaned in parallel, in this many processes")
def clean_command(file: Path, explain: bool, corpus: Path, jobs: int):
    """Clean any text FILE: its paragraphs, one per line, on standard output."""
    _collector_off_to_the_end()
    from .chapter import clean_file
    from .records import InputError
    from .resources import Resources
    from .text import line_col

    try:
        lay = clean_file(file, Resources(corpus), jobs)
    except InputError as exc:
        _fail(f"{file}: {exc.reason}", 2)  # the path as given, not only the file's name
    raw = lay.chapter.text
    for block in lay.blocks:
        click.echo(block.text.text)
    if not explain:
        return
    for block in lay.blocks:
        for c in block.text.corrections():
            line, col = line_col(raw, c.start)
            click.echo(f"{file.name}:{line}:{col}: {c.before!r} → {c.after!r}  {c.fix} ({c.confidence:.2f})", err=True)
        for sg in block.suggestions:
            line, col = line_col(raw, sg.start)
            click.echo(f"{file.name}:{line}:{col}: {sg.before!r} ? {sg.suggestion!r}  suggested by {sg.fix} "
                       f"({sg.confidence:.2f}, below the threshold)", err=True)


@cli.command()
@click.argument("citation")
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
def explain(citation: str, db: Path):
    """Show a passage's raw text, its clean text, and the corrections between them."""
    from .publish.lookup import explain as find

    data = _read_db(db, find, citation)
    p = data["passage"]
    click.echo(f"{p['citation']}  ({p['kind']}, page {p['page'] if p['page'] is not None else '?'}, "
               f"{p['source_file']} raw[{p['raw_start']}:{p['raw_end']}])")
    click.echo("\nraw:")
    click.echo(p["text_raw"])
    click.echo("\nclean:")
    click.echo(p["text_clean"])
    click.echo(f"\ncorrections ({len(data['corrections'])}):")
    for c in data["corrections"]:
        click.echo(f"  clean {c['clean_start']:>4}  raw {c['start']:>6}  {c['before']!r} → {c['after']!r}  "
                   f"{c['fix']} ({c['confidence']:.2f})")
    if data["suggestions"]:
        click.echo(f"\nsuggestions, not applied ({len(data['suggestions'])}):")
        for sg in data["suggestions"]:
            click.echo(f"  raw {sg['start']:>6}  {sg['before']!r} ? {sg['suggestion']!r}  {sg['fix']} ({sg['confidence']:.2f})")
    if data["fixes"]:
        click.echo("\nfixes:")
        for f in data["fixes"].values():
            click.echo(f"  {f['name']:<24} {f['kind']:<10} {f['explanation']}")


@cli.command()
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the fixes as JSON")
def fixes(db: Path, as_json: bool):
    """Every fix the cleaning can make: its stage, kind, explanation, and how many
    corrections of the database it made."""
    from .publish.lookup import fixes as list_fixes

    rows = _read_db(db, list_fixes)
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    click.echo(f"{'fix':<26}{'kind':<12}{'made':>6}  explanation")
    for f in rows:
        click.echo(f"{f['name']:<26}{f['kind']:<12}{f['corrections']:>6}  {f['explanation']}")


@cli.command()
@click.argument("citation")
@click.option("--players", default="A,B,C,D", show_default=True, help="The seated players, comma-separated")
@click.option("--actor", default=None, help="Who did what the article's condition describes (default: the first player)")
@click.option("--dealer", default=None, help="Who deals (default: the actor)")
@click.option("--event", "event", default="", help="What happened, where the rule needs it, in the words its encoding's docstring gives "
                   "(e.g. '3,3,2' for a deal, '9/9' for tricks taken of played)")
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
def rule(citation: str, players: str, actor: str | None, dealer: str | None, event: str, db: Path):
    """Run the rule stub of an article and print its effects."""
    from .publish.lookup import rule_row
    from .link.model import Event, Table
    from .link.stubs import load_stub

    row = _read_db(db, rule_row, citation)
    names = [n.strip() for n in players.split(",") if n.strip()]
    actor = actor or names[0]
    try:
        table = Table.seated(names, dealer=dealer or actor)
        effects = load_stub(row["stub_source"])(table, Event(actor, event))
    except NotImplementedError as exc:
        click.echo(f"{row['citation']} ({row['status']}): {exc}", err=True)
        sys.exit(3)
    except ValueError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"{row['citation']}  ({row['status']}; {row['modality']}, binds {row['bearer'] or 'no one in particular'})")
    click.echo(row["text_clean"])
    click.echo()
    if not effects:
        click.echo("no effect")
    for e in effects:
        click.echo(str(e))


@cli.command()
@click.option("--status", "show_status", is_flag=True, help="Articles, generated, stub, encoded and tested rules per game")
@click.option("--eval", "gold", default=None, is_flag=False, flag_value="tests/fixtures/rules_gold.yaml",
              type=click.Path(path_type=Path), help="Score the extracted rules against a hand-labelled file")
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
def rules(show_status: bool, gold: Path | None, db: Path):
    """The rules of the articles: their status per game, or their score against hand labels."""
    from .publish.lookup import rules_status, rules_found

    if gold is None or show_status:
        columns = (("articles", 9), ("paragraphs", 11), ("generated", 10), ("stub", 6), ("encoded", 9), ("tested", 8))
        header = f"{'edition':<9}{'game':<22}" + "".join(f"{k:>{w}}" for k, w in columns)
        rows = _read_db(db, rules_status)  # before any output: a missing database is one error line
        click.echo(header)
        for r in rows:
            click.echo(f"{r['edition']:<9}{r['game']:<22}" + "".join(f"{r[k]:>{w}}" for k, w in columns))
        click.echo("-" * len(header))
        click.echo(f"{'total':<31}" + "".join(f"{sum(r[k] for r in rows):>{w}}" for k, w in columns))
        click.echo("(paragraphs: the paragraphs of a game that state a norm, read as rules too)")
    if gold is not None:
        import yaml

        from .link.rules import score_rules

        found = _read_db(db, rules_found)
        try:
            labels = yaml.safe_load(gold.read_text(encoding="utf-8"))
        except OSError as exc:
            _fail(f"{gold}: cannot read the labels: {exc.strerror or exc}")
        except yaml.YAMLError as exc:
            _fail(f"{gold}: not YAML: {str(exc).splitlines()[0]}")
        if not isinstance(labels, list) or not all(isinstance(g, dict) and "citation" in g and "modality" in g
                                                   for g in labels):
            _fail(f"{gold}: not a list of labelled articles (each with a citation and a modality)")
        score = score_rules(found, labels)
        missing = len(labels) - score.articles
        click.echo(f"{gold}: {len(labels)} articles labelled by hand"
                   + (f", {missing} not in the database (scored: {score.articles})" if missing else ""))
        click.echo(f"modality accuracy      {score.modality_accuracy:6.1%}  ({score.modality_right}/{score.articles})")
        click.echo(f"bearer accuracy        {score.bearer_accuracy:6.1%}  ({score.bearer_right}/{score.articles})")
        click.echo(f"consequences exact     {score.consequences_accuracy:6.1%}  "
                   f"({score.consequences_exact}/{score.payment_articles} payment and penalty articles)")
        for citation, part, expected, got in score.wrong:
            click.echo(f"  {citation:<18} {part:<13} expected {expected!r}, found {got!r}")


@cli.command(name="eval")
@click.argument("gold_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
@click.option("--broken", is_flag=True, help="List the words the cleaning broke")
def evaluate(gold_dir: Path, db: Path, broken: bool):
    """Compare the built chapters with the hand-corrected gold files of GOLD_DIR."""
    from .clean.evaluate import Score, calibration, evaluate_db

    scores = _read_db(db, evaluate_db, gold_dir)
    if not scores:
        click.echo(f"error: {gold_dir}: no gold file names a chapter of {db}", err=True)
        sys.exit(1)
    total = Score("total")  # a sum of its own: with one chapter, the chapter's row is not the total's
    for s in scores:
        total = total + s
    header = (f"{'chapter':<28}{'chars':>7}{'CER raw':>9}{'layout':>8}{'clean':>8}{'reduced':>9}{'layout':>8}"
              f"{'fixes':>7}{'words':>7}{'wrong':>7}{'fixed':>7}{'broken':>7}{'broken %':>9}")
    click.echo(header)
    for s in [*scores, total]:
        if s is total:
            click.echo("-" * len(header))
        click.echo(
            f"{s.chapter:<28}{s.characters:>7}{s.cer_raw:>9.2%}{s.cer_layout:>8.2%}{s.cer_clean:>8.2%}"
            f"{s.reduction:>9.1%}{s.reduction_layout:>8.1%}{s.reduction_words:>7.1%}"
            f"{s.words:>7}{s.wrong_raw:>7}{s.fixed:>7}{s.broken:>7}{s.broken_rate:>9.2%}"
        )
    click.echo("CER: of the raw page text (the export's header and footer lines left out), after the layout edits "
               "alone, after cleaning; reduced: the share of the raw errors removed, by layout and by the fixes of "
               "words and numbers; words of the gold: wrong in the raw text, fixed, broken (right in the raw text, "
               "wrong after cleaning).")
    if broken:
        for gold_word, made in total.broken_words:
            click.echo(f"broken: {gold_word!r} → {made!r}")
        if not total.broken_words:
            click.echo("broken: none (no word right in the raw text is wrong in the clean text)")
    click.echo()
    click.echo("calibration: the fixes of words and numbers by confidence, and the share right (every word "
               "they touch is the gold's)")
    click.echo(f"{'confidence':<12}{'fixes':>7}{'right':>7}{'share':>8}")
    for low, high, n, right in calibration(total.fixes):
        share = f"{right / n:>8.1%}" if n else f"{'-':>8}"
        click.echo(f"{f'{low:.2f}–{high:.2f}':<12}{n:>7}{right:>7}{share}")
    from .proof.effort import effort

    click.echo()
    click.echo("the editor's effort: CER after N decisions of the proofreading queue, decided as the gold says, in the "
               "queue's order and in reading order")
    for e in _read_db(db, effort, gold_dir):
        click.echo(f"{e.chapter} ({e.items} items)" + "".join(f"{f'N={n}':>8}" for n in e.steps[:-1]) + f"{'all':>8}")
        for label, cers in (("  queue", e.queue_cer), ("  reading order", e.reading_cer)):
            click.echo(f"{label:<{len(e.chapter) + len(str(e.items)) + 9}}" + "".join(f"{c:>8.2%}" for c in cers))
        click.echo(f"  decisions to get half-way to all of them: the queue {e.queue_half}, reading order {e.reading_half}")


# -- exports ------------------------------------------------------------------------------------

@cli.group()
def export():
    """Write the edition in an exchange format."""


@export.command(name="tei")
@click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path))
@click.option("--out", "out", default="build/tei", show_default=True, type=click.Path(path_type=Path),
              help="Folder of the TEI documents, one per edition (<edition>.xml)")
def export_tei(db: Path, out: Path):
    """One TEI P5 document per edition, with both the OCR's text and ours (pipeline.publish.tei.export)."""
    from .publish.tei import ExportError, export as write_tei

    if out.exists() and not out.is_dir():
        _fail(f"{out}: a file, not a folder; give the folder the documents go into")
    try:
        written = _read_db(db, write_tei, out)
    except ExportError as exc:
        _fail(f"{db}: cannot be written as TEI: {exc}")
    except OSError as exc:
        _fail(f"{out}: cannot write there: {exc.strerror or exc}")
    for w in written:
        chapters = f"{w.chapters} chapter{'s' if w.chapters != 1 else ''}"
        click.echo(f"{w.path}: edition {w.edition}, {chapters}, {w.passages} passages, {w.pages} printed pages")


# -- proofreading -----------------------------------------------------------------------------

@cli.group()
def proof():
    """An editor's decisions: what to look at first, and what the page prints. Each
    decision is written into corpus/proofs/ (the raw text stays untouched); the next
    build applies them on top of the engine."""


def _corpus_option(fn):
    return click.option("--corpus", "corpus", default=DEFAULT_CORPUS, show_default=True,
                        type=click.Path(path_type=Path), help="Corpus whose proofs/ the decision goes into")(fn)


def _db_option(fn):
    return click.option("--db", "db", default=DEFAULT_DB, show_default=True, type=click.Path(path_type=Path),
                        help="The built database the items and passages are found in")(fn)


def _decide(db: Path, what, *args):
    """Run a decision function of pipeline.proof.review; say what it wrote, one line."""
    from .proof.review import ReviewError

    try:
        path, d = _read_db(db, what, *args)
    except ReviewError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    click.echo(f"{path}: {d.describe()} [{d.id}]; 'academie build' applies it")


@proof.command(name="queue")
@click.option("--chapter", default=None, help="Only this chapter file")
@click.option("--limit", default=20, show_default=True, help="How many items")
@_db_option
@_corpus_option
def proof_queue(chapter: str | None, limit: int, db: Path, corpus: Path):
    """What to look at first: the items whose decision is expected to change most."""
    from .proof.review import queue

    items = _read_db(db, queue, corpus, chapter, limit)
    width = max([len(it.id) for it in items] + [4]) + 2
    click.echo(f"{'item':<{width}}{'page':>4}  {'score':>5}  {'conf':>4}  print → the engine's reading (? a suggestion)")
    for it in items:
        arrow = "→" if it.kind == "fix" else "?"
        page = it.page if it.page is not None else "?"
        click.echo(f"{it.id:<{width}}{page:>4}  {it.score:>5.2f}  {it.confidence:>4.2f}  {it.before!r} {arrow} "
                   f"{it.after!r}  {it.fix}{f' (×{it.same} in the book)' if it.same > 1 else ''}")
    if not items:
        click.echo("nothing to decide")


@proof.command(name="accept")
@click.argument("item")
@click.option("--note", default=None, help="Why, for the next editor")
@_db_option
@_corpus_option
def proof_accept(item: str, note: str | None, db: Path, corpus: Path):
    """Keep the engine's fix ITEM (or take its suggestion), as the page prints it."""
    from .proof.review import accept

    _decide(db, accept, corpus, item, note)


@proof.command(name="reject")
@click.argument("item")
@click.option("--note", default=None, help="Why, for the next editor")
@_db_option
@_corpus_option
def proof_reject(item: str, note: str | None, db: Path, corpus: Path):
    """Undo the engine's fix ITEM (or refuse its suggestion): the page prints what the OCR read."""
    from .proof.review import reject

    _decide(db, reject, corpus, item, note)


@proof.command(name="set")
@click.argument("citation")
@click.argument("reading")
@click.option("--at", "at", required=True, help="The words to replace, as the reading text shows them or as the OCR printed them")
@click.option("--nth", default=1, show_default=True, help="Which occurrence of --at, when it occurs more than once")
@click.option("--note", default=None, help="Why, for the next editor")
@_db_option
@_corpus_option
def proof_set(citation: str, reading: str, at: str, nth: int, note: str | None, db: Path, corpus: Path):
    """What the page prints (READING) for words of the passage CITATION."""
    from .proof.review import set_reading

    _decide(db, set_reading, corpus, citation, reading, at, nth, note)


@proof.command(name="status")
@click.argument("target")
@click.argument("status")
@click.option("--chapter", default=None, help="The chapter file, when several have the page")
@click.option("--note", default=None, help="Why, for the next editor")
@_db_option
@_corpus_option
def proof_status(target: str, status: str, chapter: str | None, note: str | None, db: Path, corpus: Path):
    """Mark a page ('page 407') or a passage (its citation) as not proofread, problematic, proofread or validated."""
    from .proof.review import mark

    _decide(db, mark, corpus, target, status, chapter, note)


@proof.command(name="list")
@click.option("--chapter", default=None, help="Only this chapter file")
@_db_option
@_corpus_option
def proof_list(chapter: str | None, db: Path, corpus: Path):
    """Every decision of the corpus, in the order taken, and whether it is found in its chapter."""
    from .proof.review import decisions

    rows = _read_db(db, decisions, corpus, chapter)
    for d, found in rows:
        click.echo(f"{d.id}  {d.when}  {d.who:<10} {d.file}: {d.describe()}"
                   + ("" if found else "  [not found in the chapter: not applied]") + (f"  ({d.note})" if d.note else ""))
    if not rows:
        click.echo("no decisions")


@cli.command()
@click.option("--aligned", "aligned", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="An aligned book: paragraph pairs (.jsonl, {\"ocr\", \"proofread\"}) or word pairs with counts "
                   "(.tsv); repeatable (default: the word pairs the project keeps, pipeline/data/aligned/*.tsv)")
@click.option("--corpus", "corpus", default=DEFAULT_CORPUS, show_default=True, type=click.Path(path_type=Path),
              help="Corpus whose own fixes of high confidence are evidence, round after round")
@click.option("--no-corpus", is_flag=True, help="Learn from the aligned books alone")
@click.option("--gold", "gold", default=None, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Also learn from these hand-corrected chapters (to measure on others only: never commit a "
                   "table learned from the gold it is measured on)")
@click.option("--out", "out", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="The table to write (default: pipeline/data/confusions_learned.tsv, the one the build reads)")
@click.option("--keep-pairs", "keep_pairs", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="Also write the word pairs of each .jsonl given, with counts and not the text, as DIR/NAME.tsv")
@click.option("--cross-validate", "cross", default=None, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Write nothing: measure each gold chapter with the hand table and with channels learned "
                   "without it, and print the table")
def learn(aligned: tuple[Path, ...], corpus: Path, no_corpus: bool, gold: Path | None, out: Path | None,
          keep_pairs: Path | None, cross: Path | None):
    """Learn the OCR channel's costs from aligned words, and write the table the build
    reads (pipeline.clean.learn.learn)."""
    from .clean import learn as L
    from .clean.learned import default_path, write_table
    from .clean.settings import CleanSettings

    settings = CleanSettings.default().channel
    paths = list(aligned) or L.default_aligned()
    if not no_corpus and not corpus.is_dir():
        _fail(f"{corpus}: no corpus folder here (give --corpus, or --no-corpus)")
    sources = []
    for path in paths:
        try:
            src = L.aligned_source(path, settings)
        except (ValueError, KeyError, UnicodeDecodeError) as exc:
            _fail(f"{path}: cannot read it as aligned text or word pairs ({exc})")
        sources.append(src)
        words = sum(src.pairs.values())
        click.echo(f"{path.name}: {words:,} words aligned, {src.misread:,} misread", err=True)
        if keep_pairs is not None and path.suffix == ".jsonl":
            target = keep_pairs / f"{path.stem}.tsv"
            L.write_pairs(src, target, f"aligned words of {path.name}")
            click.echo(f"{target}: its word pairs, with counts", err=True)
    progress = lambda message: click.echo(message, err=True)  # noqa: E731
    if cross is not None:
        _print_cross_validation(L.cross_validate(cross, corpus, sources, progress))
        return
    if gold is not None:
        gold_files = [g for g in sorted(gold.glob("*.txt")) if (corpus / g.name).exists()]
        src = L.gold_source(gold_files, corpus, settings)
        sources.append(src)
        click.echo(f"{gold}: {sum(src.pairs.values()):,} words aligned, {src.misread:,} misread "
                   "(a table learned from gold chapters is for measuring other chapters)", err=True)
    table = L.learn(sources, None if no_corpus else corpus, settings, progress=progress)
    out = out or default_path()
    write_table(table, out)
    new = sum(1 for r in table.rows if (r.printed, r.intended) not in L.prior_model().prior)
    counted = ", ".join(f"{s.name} {s.misread:,}" for s in table.sources)
    click.echo(f"{out}: {len(table.rows)} confusions learned ({new} the hand table does not list), "
               f"from {counted} confusions counted")


def _print_cross_validation(folds) -> None:
    from .clean.evaluate import Score

    header = f"{'channel':<26}{'chapter':<28}{'reduced':>9}{'wrong':>7}{'fixed':>7}{'fixed %':>9}{'broken':>8}"
    click.echo(header)
    totals: dict[str, Score] = {}
    for f in folds:
        s = f.score
        totals[f.setup] = totals[f.setup] + s if f.setup in totals else s + Score("total")
        click.echo(f"{f.setup:<26}{f.chapter:<28}{s.reduction:>9.1%}{s.wrong_raw:>7}{s.fixed:>7}{s.fixed_rate:>9.1%}"
                   f"{s.broken:>8}")
    click.echo("-" * len(header))
    for setup, s in totals.items():
        click.echo(f"{setup:<26}{'total':<28}{s.reduction:>9.1%}{s.wrong_raw:>7}{s.fixed:>7}{s.fixed_rate:>9.1%}"
                   f"{s.broken:>8}")
    click.echo("hand table: confusions.toml alone; learned: from the aligned books and the corpus's fixes; chapter "
               "unseen: the corpus's fixes learned without the measured chapter; + other gold: and the other gold "
               "chapters' words (never the measured one's).")


def main() -> None:
    """The ``academie`` console script: ``cli``, the process then ended as soon as its
    output is out (``end``)."""
    global _ENDS
    _ENDS = True
    try:
        cli.main(prog_name="academie")
    except SystemExit as exc:
        end(exc.code)
    end(0)


_ENDS = False  # whether the process ends with its command (``main``), not a caller's (a CliRunner's)


def _collector_off_to_the_end() -> None:
    """The cyclic garbage collector off for the rest of a process that ends with its
    command: the clean stage runs with it off (``clean.clean``), and its first collection
    after walks every object the stage made, a tenth of a second for 250 KB, to free
    some cycles the process's end (``end``) leaves to the system anyway. A caller's
    process (a test's CliRunner) keeps its collector."""
    if _ENDS:
        gc.disable()


def end(code: int | str | None = 0) -> None:
    """End the process as the interpreter would, its exit handlers run and its output
    flushed, without freeing every object one by one first: after a build or a clean
    the lexicon's tables and the memos are millions of them, and freeing them took
    0.3–1 s of a process that had nothing left to write (every file it writes is
    complete and renamed before its command returns)."""
    import atexit

    if isinstance(code, str):  # sys.exit("message"): printed, status 1, as the interpreter does
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()  # (what interpreter shutdown runs first: pools joined, loggers flushed, temp dirs removed)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone, or the stream closed: nothing more can reach it
            pass
    os._exit(code or 0)


if __name__ == "__main__":
    main()
