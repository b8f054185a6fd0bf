"""The chapters processed elsewhere (pipeline/engines.py): in local processes (-j), on
a Dask cluster: the same database as the build in one process, table by table."""

from __future__ import annotations

import pytest

from pipeline.build import build
from pipeline.resources import Resources
from tests.helpers import CORPUS, assert_same_database


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
