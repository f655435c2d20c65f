"""Issue 15: the app's role must not be able to rewrite the override log. It used to own the tables, so
connected with the app's URL (INTERVIEW_DATABASE_URL) `ALTER TABLE overrides DISABLE TRIGGER ALL` and
then `UPDATE overrides …` succeeded, found only afterwards by `interview override verify`. Now the
owner role runs the migrations and the app's role, a member of interview_app
(agent/db/migrations/postgres/0004_app_role.sql), is refused every change to the schema and to the
log's rows, while the app still works (the other tests in tests/postgres/ run as that role). The app
checks the schema read-only on start, and says plainly what to run when it is out of date."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from agent.cli.main import app
from agent.db.migrate import LOCK_KEY, MIGRATIONS_DIR, MigrationError, migrate, migrations
from agent.overrides import OverrideLog
from tests.overrides.test_integrity import Clock, _new
from tests.postgres.cluster import APP_ROLE, OWNER_ROLE, Cluster

REFUSED = [
    # the attack of issue 15, then every other way around the triggers
    "ALTER TABLE overrides DISABLE TRIGGER ALL",
    "UPDATE overrides SET human_score = 5 WHERE id = 1",
    "ALTER TABLE overrides DISABLE TRIGGER USER",
    "ALTER TABLE overrides_meta DISABLE TRIGGER ALL",
    "ALTER TABLE overrides_head DISABLE TRIGGER overrides_head_no_update",
    "ALTER TABLE overrides OWNER TO coach",
    "DELETE FROM overrides WHERE id = 2",
    "TRUNCATE overrides",
    "UPDATE overrides_meta SET value = 'forged'",
    "DELETE FROM overrides_meta",
    "TRUNCATE overrides_meta",
    "INSERT INTO overrides_meta (key, value, created_at) VALUES ('k', 'v', 'now')",
    "UPDATE overrides_head SET last_id = 1",
    "DELETE FROM overrides_head",
    "TRUNCATE overrides_head",
    "SELECT last_id FROM overrides_head FOR UPDATE",
    "DROP TABLE overrides CASCADE",
    "DROP TABLE overrides_head",
    "DROP TRIGGER overrides_no_update ON overrides",
    "CREATE TRIGGER swallow BEFORE INSERT ON overrides FOR EACH ROW EXECUTE FUNCTION overrides_refuse()",
    "DROP FUNCTION overrides_refuse() CASCADE",
    "CREATE OR REPLACE FUNCTION overrides_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    "ALTER FUNCTION overrides_advance() SECURITY INVOKER",
    "SET session_replication_role = replica",
    # the schema: nothing created in it, the migrations' record untouched
    "CREATE TABLE forged (x int)",
    "CREATE FUNCTION forged() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "CREATE SCHEMA forged",
    "UPDATE interview_schema_migrations SET sha256 = 'forged'",
    "DELETE FROM interview_schema_migrations",
    "DROP TABLE interview_sessions",
    "TRUNCATE interview_sessions",
    "DROP TABLE checkpoints",
    "TRUNCATE checkpoint_writes",
]


@pytest.fixture
def log(pg_url: str) -> OverrideLog:
    clock = Clock()
    log = OverrideLog(timeout_s=2, clock=clock)
    for i, who in enumerate(["alice", "bob"]):
        clock.now += timedelta(minutes=1)
        log.append(_new(human_score=1 + i, reviewer=who))
    return log


def test_the_app_role_cannot_disable_the_triggers_and_rewrite_the_log(log: OverrideLog, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        who = conn.execute(
            "SELECT current_user, (SELECT tableowner FROM pg_tables WHERE tablename = 'overrides')"
        ).fetchone()
        assert who == (APP_ROLE, OWNER_ROLE)
        allowed = []
        for statement in REFUSED:
            try:
                conn.execute(statement)
            except psycopg.errors.InsufficientPrivilege:
                continue
            allowed.append(statement)
    assert allowed == []
    assert [r.human_score for r in log.rows()] == [1, 2]
    log.append(_new(human_score=3, reviewer="carol"))  # what the app does still works
    assert OverrideLog().verify().ok


def test_an_up_to_date_schema_is_only_read(pg_url: str, cluster: Cluster) -> None:
    """No DDL and no lock: a read-only connection, while another process holds the migration lock."""
    read_only = f"{pg_url}?options=-c%20default_transaction_read_only%3Don"
    with psycopg.connect(cluster.owner_url(pg_url.rsplit("/", 1)[1]), autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", (LOCK_KEY,))
        out = migrate(read_only)
    assert out.applied == [] and out.current == len(migrations())
    res = CliRunner().invoke(app, ["db", "migrate"])
    assert res.exit_code == 0 and "schema up to date" in res.output, res.output


def test_an_out_of_date_schema_names_the_command_for_the_owner(
    cluster: Cluster, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = pg_url.rsplit("/", 1)[1] + "_old"
    app_url = cluster.create_database(name, migrated=False).replace(f"{APP_ROLE}@", f"{APP_ROLE}:secret@")
    owner_url = cluster.owner_url(name)
    old = tmp_path / "migrations"
    old.mkdir()
    for f in sorted(MIGRATIONS_DIR.glob("*.sql"))[:3]:
        shutil.copy(f, old)
    migrate(owner_url, checkpointer=False, folder=old)  # as an earlier version left it

    monkeypatch.setenv("INTERVIEW_DATABASE_URL", app_url)
    res = CliRunner().invoke(app, ["db", "migrate"])
    assert res.exit_code == 1
    said = " ".join(res.output.split())
    n = len(migrations())
    assert f"is at a schema version the role {APP_ROLE} may not read (this code needs {n})" in said, said
    assert "has the checkpointer's tables at version none (this code needs" in said, said
    assert f"and the role {APP_ROLE} may not migrate it" in said, said
    port = cluster.port
    assert f"interview db migrate --url postgresql://{OWNER_ROLE}:***@127.0.0.1:{port}/{name}" in said, said
    assert "secret" not in said

    assert [m.name for m in migrate(owner_url).applied] == ["app_role", "override_origin"]
    with psycopg.connect(owner_url, autocommit=True) as conn:  # the checkpointer's grants, lost
        conn.execute("REVOKE ALL ON checkpoints FROM interview_app")
    with pytest.raises(MigrationError, match="has not granted the checkpointer's tables to interview_app"):
        migrate(app_url)
    migrate(owner_url)
    assert migrate(app_url).applied == []

    newer = tmp_path / "newer"  # the next version of the code, started before its migration ran
    shutil.copytree(MIGRATIONS_DIR, newer)
    (newer / f"{n + 1:04d}_later.sql").write_text("CREATE TABLE later (x int);")
    with pytest.raises(MigrationError, match=rf"is at schema version {n} \(this code needs {n + 1}\)"):
        migrate(app_url, folder=newer)


def test_a_migrating_role_that_may_not_create_the_group_role_is_told_what_to_run(
    cluster: Cluster, pg_url: str, tmp_path: Path
) -> None:
    name = pg_url.rsplit("/", 1)[1] + "_norole"
    cluster.create_database(name, migrated=False)
    folder = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, folder)
    sql = next(folder.glob("0004_*.sql"))
    sql.write_text(sql.read_text().replace("interview_app", "interview_app_missing"))
    with pytest.raises(MigrationError, match=r"run `CREATE ROLE interview_app_missing NOLOGIN;`"):
        migrate(cluster.owner_url(name), checkpointer=False, folder=folder)  # the owner has no CREATEROLE
    with psycopg.connect(cluster.owner_url(name)) as conn:
        assert conn.execute("SELECT max(version) FROM interview_schema_migrations").fetchone() == (3,)
