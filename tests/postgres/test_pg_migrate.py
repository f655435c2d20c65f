"""Versioned migrations: `interview db migrate` (as the owner) applies the numbered SQL files once, in
order, recorded in interview_schema_migrations, with the checkpointer's tables; replicas migrating at
once take turns; an applied file that was edited, or a database newer than the code, is refused. (The
app's role, which may not migrate: tests/postgres/test_pg_roles.py.)"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from agent.cli.main import app
from agent.db.migrate import MIGRATIONS_DIR, MigrationError, migrate, migrations
from tests.postgres.cluster import Cluster


@pytest.fixture
def blank(cluster: Cluster, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A database nothing was applied to, as its owner (the app's role is INTERVIEW_DATABASE_URL)."""
    name = pg_url.rsplit("/", 1)[1] + "_blank"
    monkeypatch.setenv("INTERVIEW_DATABASE_URL", cluster.create_database(name, migrated=False))
    return cluster.owner_url(name)


def _versions(url: str) -> list[tuple[int, str]]:
    with psycopg.connect(url) as conn:
        return [
            (int(v), str(n))
            for v, n in conn.execute("SELECT version, name FROM interview_schema_migrations ORDER BY 1")
        ]


def test_the_migrations_are_numbered_files() -> None:
    ms = migrations()
    assert [m.version for m in ms] == list(range(1, len(ms) + 1))
    assert [m.name for m in ms[:4]] == ["sessions", "users", "overrides", "app_role"]


def test_db_migrate_applies_each_file_once(blank: str) -> None:
    res = CliRunner().invoke(app, ["db", "migrate", "--url", blank])
    assert res.exit_code == 0, res.output
    assert "applied 0001_sessions" in res.output and "schema at version" in res.output
    assert _versions(blank) == [(m.version, m.name) for m in migrations()]
    with psycopg.connect(blank) as conn:
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {
        "interview_sessions",
        "interview_users",
        "overrides",
        "checkpoints",
        "checkpoint_writes",
    } <= tables
    res = CliRunner().invoke(app, ["db", "migrate"])  # INTERVIEW_DATABASE_URL: the app's role
    assert res.exit_code == 0 and "up to date" in res.output, res.output


def test_replicas_migrating_at_once_take_turns(blank: str) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            migrate(blank)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(_versions(blank)) == len(migrations())


def test_an_edited_migration_and_a_newer_database_are_refused(blank: str, tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, folder)
    migrate(blank, checkpointer=False, folder=folder)
    first = sorted(folder.glob("0001_*.sql"))[0]
    first.write_text(first.read_text() + "\n-- edited\n")
    with pytest.raises(MigrationError, match="was changed after it was applied"):
        migrate(blank, checkpointer=False, folder=folder)
    shutil.rmtree(folder)
    shutil.copytree(MIGRATIONS_DIR, folder)
    n = len(migrations())
    (folder / f"{n + 1:04d}_later.sql").write_text("CREATE TABLE later (x int);")
    migrate(blank, checkpointer=False, folder=folder)
    with pytest.raises(MigrationError, match=f"schema version {n + 1}, newer than this code"):
        migrate(blank, checkpointer=False)  # this code ships n files


def test_a_gap_in_the_numbers_is_refused(tmp_path: Path) -> None:
    (tmp_path / "0001_a.sql").write_text("SELECT 1;")
    (tmp_path / "0003_c.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match="should be number 0002"):
        migrations(tmp_path)


def test_no_database_set_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERVIEW_DATABASE_URL", raising=False)
    res = CliRunner().invoke(app, ["db", "migrate"])
    assert res.exit_code == 2 and "INTERVIEW_DATABASE_URL" in res.output
