"""Shared fixtures: the real pipeline on the real corpus, built once per test session."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pipeline.build import build, process_chapter
from pipeline.resources import Resources

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


@pytest.fixture(scope="session")
def res() -> Resources:
    return Resources(CORPUS / "games.toml")


@pytest.fixture(scope="session")
def chapters(res):
    """file name → Segmented, for every chapter of the corpus."""
    return {p.name: process_chapter(p, res) for p in sorted(CORPUS.glob("*.txt"))}


@pytest.fixture(scope="session")
def built_db(tmp_path_factory) -> Path:
    """The database built from corpus/ by the real build, in a temporary folder."""
    db = tmp_path_factory.mktemp("build") / "academie.db"
    report = build(CORPUS, db)
    assert not report.errors, report.errors
    return db


@pytest.fixture()
def db(built_db):
    conn = sqlite3.connect(built_db)
    conn.row_factory = sqlite3.Row
    yield conn
    conn.close()
