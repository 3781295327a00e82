"""Fixtures shared by the tests: the database every web test may run on (SQLite, and PostgreSQL when it can
be had: ``tests/pg_support.py``), and the apps made during a test closed after it."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pg_support import PostgresCluster, PostgresUnavailable, cluster


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL server for this test session (skipped, with the reason, when none can be had)."""
    try:
        server = cluster()
    except PostgresUnavailable as exc:
        if os.environ.get("TABLEREF_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required here (TABLEREF_REQUIRE_POSTGRES=1): {exc}")
        pytest.skip(f"PostgreSQL variant skipped: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: an SQLite file, then (second run of the test) a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture(autouse=True)
def _close_apps() -> Iterator[None]:
    """Close every app a test made with ``web_support.make_app`` (its database connections, its LISTEN)."""
    yield
    import sys

    support = sys.modules.get("web_support")
    if support is None:
        return
    from web.app import close_app

    while support.OPEN_APPS:
        close_app(support.OPEN_APPS.pop())
