"""Tests against a real Postgres server (marker `postgres`): one server for the test session, a fresh
database for each test, `INTERVIEW_DATABASE_URL` pointing at it and a data dir of the test's own."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres.cluster import Cluster, running

_N = itertools.count(1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    pytest.importorskip("psycopg", reason="psycopg is not installed (scripts/bootstrap.sh installs it)")
    with running(Cluster) as c:
        yield c


@pytest.fixture
def pg_url(cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh database as the app's role, set as INTERVIEW_DATABASE_URL, with the test's own data dir."""
    url = cluster.create_database(f"t{next(_N)}")
    monkeypatch.setenv("INTERVIEW_DATABASE_URL", url)
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    yield url
    from agent.graph import store

    store.close_stores()
