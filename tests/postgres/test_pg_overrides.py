"""The override log in Postgres: UPDATE, DELETE and TRUNCATE refused by the database (to the app's role
by privilege, to the owner and a superuser by the triggers); a row forged by a superuser who disabled
the triggers is found by `interview override verify`; two writers at once each continue the chain.
(What else the app's role is refused: tests/postgres/test_pg_roles.py.)"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from agent.cli.override_cmd import app
from agent.overrides import COLUMNS, OverrideLog
from agent.overrides.chain import chain_hash
from tests.overrides.test_integrity import Clock, _new
from tests.postgres.cluster import APP_ROLE, OWNER_ROLE, SUPERUSER, Cluster


@pytest.fixture
def log(pg_url: str) -> OverrideLog:
    clock = Clock()
    log = OverrideLog(timeout_s=2, clock=clock)  # no path: the database of INTERVIEW_DATABASE_URL
    for i, who in enumerate(["alice", "bob", "carol", "dave"]):
        clock.now += timedelta(minutes=1)
        log.append(_new(human_score=1 + i, reviewer=who))
    return log


@pytest.fixture
def app_sql(pg_url: str) -> Iterator[psycopg.Connection[Any]]:
    """The app's own role (a member of interview_app: it may read and append), around the log."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        yield conn


@pytest.fixture
def owner(pg_url: str, cluster: Cluster) -> Iterator[psycopg.Connection[Any]]:
    """The role that owns the tables and runs the migrations."""
    with psycopg.connect(pg_url.replace(f"{APP_ROLE}@", f"{OWNER_ROLE}@"), autocommit=True) as conn:
        yield conn


@pytest.fixture
def superuser(pg_url: str, cluster: Cluster) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(pg_url.replace(f"{APP_ROLE}@", f"{SUPERUSER}@"), autocommit=True) as conn:
        yield conn


def verify(*extra: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["verify", *extra])
    return res.exit_code, res.output


def _insert(
    conn: psycopg.Connection[Any], row: dict[str, Any], prev: str, row_hash: str | None = None
) -> None:
    """A row written around the log, hashed correctly over itself unless `row_hash` is given."""
    conn.execute(
        f"INSERT INTO overrides ({', '.join(COLUMNS)}, prev_hash, row_hash) "
        f"VALUES ({', '.join(['%s'] * (len(COLUMNS) + 2))})",
        [*(row[c] for c in COLUMNS), prev, row_hash or chain_hash(row, prev)],
    )


def _raw(conn: psycopg.Connection[Any]) -> list[dict[str, Any]]:
    cur = conn.cursor(row_factory=psycopg.rows.dict_row)
    return list(cur.execute("SELECT * FROM overrides ORDER BY id"))


def test_the_log_is_shared_and_intact(log: OverrideLog, pg_url: str) -> None:
    assert [r.reviewer for r in OverrideLog().rows()] == ["alice", "bob", "carol", "dave"]
    assert [r.id for r in OverrideLog().rows("t-001", limit=2)] == [3, 4]
    code, out = verify()
    assert code == 0, out
    assert "intact: 4 rows" in out and "coach@127.0.0.1" in out


@pytest.mark.parametrize(
    ("statement", "refused"),
    [
        ("UPDATE overrides SET human_score = 5 WHERE id = 2", "UPDATE is refused"),
        ("DELETE FROM overrides WHERE id = 2", "DELETE is refused"),
        ("TRUNCATE overrides", "TRUNCATE is refused"),
        ("TRUNCATE overrides CASCADE", "TRUNCATE is refused"),
        ("DELETE FROM overrides_meta", "DELETE is refused"),
        ("UPDATE overrides_head SET last_id = 2", "head moves only with a new row"),
        ("DELETE FROM overrides_head", "head moves only with a new row"),
    ],
)
def test_the_database_refuses_changes(
    log: OverrideLog,
    app_sql: psycopg.Connection[Any],
    owner: psycopg.Connection[Any],
    superuser: psycopg.Connection[Any],
    statement: str,
    refused: str,
) -> None:
    before = log.rows()
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        app_sql.execute(statement)  # the app's role has no such right
    for conn in (owner, superuser):  # the owner and a superuser alike, while the triggers are on
        with pytest.raises(psycopg.errors.RaiseException, match=refused):
            conn.execute(statement)
    assert log.rows() == before
    assert verify()[0] == 0


def test_a_row_written_around_the_log_is_refused(log: OverrideLog, app_sql: psycopg.Connection[Any]) -> None:
    last = _raw(app_sql)[-1]
    row = {**last, "id": 5, "human_score": 5, "created_at": "2030-01-01T00:00:00+00:00"}
    with pytest.raises(psycopg.errors.RaiseException, match="continue the hash chain"):
        _insert(app_sql, row, "0" * 64)  # not chained to the last row
    with pytest.raises(psycopg.errors.RaiseException, match="not after the last row"):
        _insert(app_sql, {**row, "id": 3}, last["row_hash"])  # a number already given
    with pytest.raises(psycopg.errors.RaiseException, match="backwards"):
        _insert(app_sql, {**row, "created_at": "2020-01-01T00:00:00+00:00"}, last["row_hash"])
    assert len(log.rows()) == 4 and verify()[0] == 0


def test_a_superuser_who_disables_the_triggers_and_changes_a_row_is_found(
    log: OverrideLog, superuser: psycopg.Connection[Any]
) -> None:
    superuser.execute("ALTER TABLE overrides DISABLE TRIGGER USER")
    superuser.execute("UPDATE overrides SET human_score = 5 WHERE id = 2")
    code, out = verify()
    assert code == 1
    assert "row 2: changed" in out, out
    assert "overrides_no_update" in out and "disabled" in out, out
    superuser.execute("ALTER TABLE overrides ENABLE TRIGGER USER")  # covering their tracks
    code, out = verify()
    assert code == 1 and "row 2: changed" in out and "disabled" not in out, out


def test_a_forged_row_with_a_correct_looking_hash_is_found(
    log: OverrideLog, superuser: psycopg.Connection[Any]
) -> None:
    """With replication role `replica` no trigger fires and nothing records it: row 5 appended by a
    superuser, hashed correctly over itself but chained to a made-up predecessor."""
    raw = _raw(superuser)
    superuser.execute("SET session_replication_role = replica")
    _insert(
        superuser, {**raw[-1], "id": 5, "human_score": 1, "reviewer": "mallory", "reason": "forged"}, "f" * 64
    )
    superuser.execute("SET session_replication_role = origin")
    assert [r.reviewer for r in OverrideLog().rows()][-1] == "mallory"
    code, out = verify()
    assert code == 1 and "row 5: inserted" in out, out


def test_rows_deleted_with_triggers_off_are_found(
    log: OverrideLog, superuser: psycopg.Connection[Any]
) -> None:
    superuser.execute("SET session_replication_role = replica")
    superuser.execute("DELETE FROM overrides WHERE id = 4")
    code, out = verify()
    assert code == 1 and "row 4" in out and "missing" in out, out
    superuser.execute("DELETE FROM overrides WHERE id = 2")
    code, out = verify()
    assert code == 1 and "row 2" in out and "missing" in out, out


def test_a_rewritten_trigger_function_is_found(log: OverrideLog, superuser: psycopg.Connection[Any]) -> None:
    superuser.execute(
        "CREATE OR REPLACE FUNCTION overrides_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN RETURN NEW; END $$"
    )
    code, out = verify()
    assert code == 1 and "overrides_refuse()" in out and "altered" in out, out


@pytest.mark.parametrize(
    "statement",
    [
        "ALTER FUNCTION overrides_advance() SECURITY INVOKER",
        "ALTER FUNCTION overrides_chain() SET search_path = pg_temp, public",
    ],
)
def test_a_trigger_function_that_no_longer_runs_as_the_owner_is_found(
    log: OverrideLog, superuser: psycopg.Connection[Any], statement: str
) -> None:
    """0004_app_role.sql runs them as their owner with a fixed search_path; undoing either is named."""
    superuser.execute(statement)
    name = statement.split()[2]
    code, out = verify()
    assert code == 1 and name in out and "altered" in out, out


def test_a_foreign_trigger_and_a_dropped_one_are_found(
    log: OverrideLog, superuser: psycopg.Connection[Any]
) -> None:
    superuser.execute("DROP TRIGGER overrides_no_delete ON overrides")
    superuser.execute(
        "CREATE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$"
    )
    superuser.execute(
        "CREATE TRIGGER swallow BEFORE INSERT ON overrides FOR EACH ROW EXECUTE FUNCTION swallow()"
    )
    code, out = verify()
    assert code == 1 and "overrides_no_delete" in out and "missing" in out and "swallow" in out, out
    with pytest.raises(Exception, match="did not keep the row"):
        log.append(_new(reviewer="erin"))


def test_an_anchor_catches_a_log_rewritten_and_rehashed(
    log: OverrideLog, superuser: psycopg.Connection[Any]
) -> None:
    code, out = verify()
    head = out.split("head: row ")[1].split()
    anchor = f"{head[0]}:{head[1]}"
    raw = _raw(superuser)
    superuser.execute("SET session_replication_role = replica")
    prev = raw[1]["row_hash"]
    for r in raw[2:]:  # row 3 changed, rows 3 and 4 re-chained: the chain alone looks intact
        if r["id"] == 3:
            r["human_score"] = 5
        h = chain_hash(r, prev)
        superuser.execute(
            "UPDATE overrides SET human_score = %s, prev_hash = %s, row_hash = %s WHERE id = %s",
            (r["human_score"], prev, h, r["id"]),
        )
        prev = h
    superuser.execute("UPDATE overrides_head SET row_hash = %s", (prev,))
    assert verify()[0] == 0
    code, out = verify("--anchor", anchor)
    assert code == 1 and "anchor" in out, out


def test_two_writers_at_once_each_continue_the_chain(pg_url: str) -> None:
    errors: list[BaseException] = []

    def write(who: str) -> None:
        try:
            log = OverrideLog(timeout_s=10)  # its own connections, as another replica has
            for i in range(5):
                log.append(_new(reviewer=who, human_score=1 + i))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=write, args=(w,)) for w in ("r1", "r2", "r3")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    rows = OverrideLog().rows()
    assert [r.id for r in rows] == list(range(1, 16))
    code, out = verify()
    assert code == 0, out
