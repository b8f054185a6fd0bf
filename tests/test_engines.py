"""The chapters processed elsewhere (pipeline/engines.py): in local processes (-j), on
a Dask cluster: the same database as the build in one process, table by table."""

from __future__ import annotations

import time

import pytest

from pipeline.build import build
from pipeline.resources import Resources
from tests.helpers import CORPUS, assert_same_database
from tests.test_incremental import BOOK


@pytest.mark.slow  # starts processes
def test_two_processes_build_the_database_one_builds(built_db, tmp_path):
    report = build(CORPUS, tmp_path / "academie.db", jobs=2)
    assert (report.chapters, report.cached) == (5, 0)
    assert set(report.times) >= {"ingest", "layout", "clean", "segment", "proof", "rules", "start-up", "publish"}
    assert_same_database(tmp_path / "academie.db", built_db)


@pytest.mark.slow  # starts a Dask cluster: a scheduler and two worker processes
def test_a_dask_cluster_builds_the_database_one_process_builds(built_db, tmp_path):
    pytest.importorskip("dask.distributed")
    report = build(CORPUS, tmp_path / "academie.db", jobs=2, engine="dask", res=Resources(CORPUS))
    assert (report.chapters, report.cached) == (5, 0)
    assert report.times["clean"] > 0  # the workers' times, sent back
    assert_same_database(tmp_path / "academie.db", built_db)


@pytest.mark.slow  # starts processes
def test_two_processes_rebuild_the_chapters_changed_as_one_builds_them_afresh(tmp_path):
    """Two of three made-up chapters' spacing changed: they are processed again in two
    processes, which are sent the rules their passages stated in the last build (their
    text the same), and the database is the one a single process builds afresh."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in BOOK.items():
        (corpus / name).write_text(text, encoding="utf-8")
    db = tmp_path / "out" / "academie.db"
    build(corpus, db, jobs=2)
    for name in ("a.txt", "b.txt"):
        text = (corpus / name).read_text(encoding="utf-8")
        (corpus / name).write_text(text.replace(". 2.", ".  2."), encoding="utf-8")
    again = build(corpus, db, jobs=2)
    assert (again.cached, again.chapters, again.times["rules"] > 0) == (1, 3, True)
    assert "start-up: spaCy" not in again.times  # no worker loaded the model
    build(corpus, tmp_path / "afresh" / "academie.db", res=Resources(corpus), full=True)
    assert_same_database(db, tmp_path / "afresh" / "academie.db")


def _results_held(dask_scheduler) -> int:
    """The chapters' results a Dask scheduler's workers hold in memory (not the resources scattered to them)."""
    return sum(ts.state == "memory" for key, ts in dask_scheduler.tasks.items() if str(key).startswith("packed_chapter"))


@pytest.mark.slow  # starts a Dask cluster: a scheduler and two worker processes
def test_a_dask_worker_lets_each_result_go_once_the_client_has_it():
    """A result stays in its worker's memory while the client holds a future of it:
    each is let go once received, so a worker's memory does not grow with the chapters
    it has processed (the ten-book library's workers held 1.55 GB each, against 0.65)."""
    pytest.importorskip("dask.distributed")
    from distributed import default_client

    from pipeline.corpus import chapter_files
    from pipeline.engines import run_chapters
    from pipeline.ingest import ingest

    raws = [ingest(f) for f in chapter_files(CORPUS)]
    held = []
    for k, _ in enumerate(run_chapters(raws, Resources(CORPUS), jobs=2, engine="dask"), 1):
        if k < len(raws):
            continue
        client = default_client()
        deadline = time.monotonic() + 20  # (a future let go is released by a message to the scheduler)
        while True:
            held.append(client.run_on_scheduler(_results_held))
            if held[-1] <= 1 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    # every result the build has taken is let go, but the one it is taking
    assert held[-1] <= 1, held
