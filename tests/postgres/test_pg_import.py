"""`interview db import --from-sqlite DIR --url <owner URL>`: a team that began on one machine brings its
data dir into the shared database. The data dir is made by the app's own code (two sessions, one finished
and one waiting at a question; users added with `--add-user`'s function and a reviewer; two overrides);
after the import the override log verifies on Postgres, the waiting session resumes there through the
graph with every answer, and a second import imports nothing. A tampered override row refuses the whole
import and nothing is written; a session id or user already in the database with other contents is
refused by name, and nothing of it is written; a session whose write fails halfway leaves nothing of it
(the next run imports it); override rows older than the database log's last row (a machine migrated
after the team saved overrides there) are appended after it, each keeping its original time; a session
answered further on the machine is brought up to date, and refused once both went on; the import is
refused while a real one-machine app runs on the data dir, and holds the data dir while it runs; the
browser-id secret goes in when the database has none, and another one there is kept."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from typer.testing import CliRunner

from agent.cli.main import app
from agent.config import repo_root
from agent.graph import answer, get_session, list_sessions, start_session
from agent.graph import store as graph_store
from agent.graph.store import Store, thread_config
from agent.overrides import COLUMNS, OverrideLog
from agent.rubric import Rubric, default_rubric
from agent.ui.auth import add_reviewer, add_user, browser_secret, load_reviewers, load_users, make_auth
from tests.graph.script import WEAK, answers_of, drive, strong
from tests.overrides.test_integrity import Clock, _new
from tests.postgres.cluster import Cluster

A1 = "Paged KV maps logical tokens to non-contiguous physical blocks allocated on demand."
A2 = WEAK
A3 = "Continuous batching admits and retires requests at every step boundary."
A4 = "Chunked prefill splits a long prompt so decode steps of other requests are not stalled."
WRITES = "thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel"


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return default_rubric()


@dataclass
class OneMachine:
    data: Path
    """the data dir"""
    state: dict[str, Any]
    """the waiting session's state as its last checkpoint has it"""
    interrupts: list[Any]
    checkpoints: int
    """checkpoints in sessions.sqlite"""
    writes: set[tuple[Any, ...]]
    """its pending writes: thread, namespace, checkpoint, task, task path, index, channel"""


@pytest.fixture
def owner_url(pg_url: str, cluster: Cluster) -> str:
    return cluster.owner_url(pg_url.rsplit("/", 1)[1])


@pytest.fixture
def machine(
    pg_url: str, rubric: Rubric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OneMachine]:
    """A data dir made on one machine (no INTERVIEW_DATABASE_URL); the database empty."""
    data = tmp_path / "one-machine"
    graph_store.close_stores()
    with monkeypatch.context() as m:
        m.delenv("INTERVIEW_DATABASE_URL")
        m.setenv("INTERVIEW_DATA_DIR", str(data))
        done = start_session("concepts", "en", session_id="m-done", owner="alice")
        assert drive(done, lambda v: strong(rubric, "concepts"), owner="alice").status == "done"
        start_session("full", "en", session_id="m-open", owner="alice")
        answer("m-open", A1, at_s=30, owner="alice")
        v = answer("m-open", A2, at_s=60, owner="alice")
        assert v.status == "waiting" and answers_of(v) == [A1, A2]
        add_user("alice", "alice-password")  # users.txt, hashed
        add_reviewer("alice")  # reviewers.txt
        with (data / "users.txt").open("a", encoding="utf-8") as f:
            f.write("bob:bob-plain-password\n")  # a password written by hand, in plain
        clock = Clock()
        log = OverrideLog(clock=clock)
        for dim, score in (("evidence", 4), ("validation", 3)):
            clock.now += timedelta(minutes=1)
            log.append(_new(transcript_id="m-done", round="concepts", dimension=dim, human_score=score))
        assert log.verify().ok
        graph_store.close_stores()
        st = Store(data / graph_store.DB_NAME)
        snap = st.graph.get_state(thread_config("m-open"))
        checkpoints = sum(1 for sid in ("m-done", "m-open") for _ in st.saver.list(thread_config(sid)))
        st.close()
        with closing(sqlite3.connect(data / graph_store.DB_NAME)) as conn:
            writes = set(conn.execute(f"SELECT {WRITES} FROM writes"))
    yield OneMachine(data, dict(snap.values), list(snap.interrupts), checkpoints, writes)
    graph_store.close_stores()


@contextmanager
def on_the_machine(machine: OneMachine, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The one-machine app's stores again (its data dir, no database) for the block."""
    graph_store.close_stores()
    with monkeypatch.context() as m:
        m.delenv("INTERVIEW_DATABASE_URL")
        m.setenv("INTERVIEW_DATA_DIR", str(machine.data))
        yield
        graph_store.close_stores()


def checkpoint_ids(url: str, thread: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {
            str(r[0])
            for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s", (thread,))
        }


def run(*args: str) -> tuple[int, str]:
    """`interview db …`: its exit code and its output, whitespace runs made one space."""
    res = CliRunner().invoke(app, ["db", *args])
    return res.exit_code, " ".join(res.output.split())


def counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {
            t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])  # type: ignore[index]
            for t in (
                "interview_users",
                "interview_sessions",
                "checkpoints",
                "checkpoint_writes",
                "overrides",
            )
        }


def override_rows(where: Path | None = None, url: str | None = None) -> list[tuple[Any, ...]]:
    rows = OverrideLog(where, url=url).rows()
    return [tuple(getattr(r, c) for c in COLUMNS if c != "id") for r in rows]


def verify_on_postgres() -> tuple[int, str]:
    res = CliRunner().invoke(app, ["override", "verify"])  # INTERVIEW_DATABASE_URL: the app's role
    return res.exit_code, res.output


def test_import_then_verify_resume_and_import_again(machine: OneMachine, pg_url: str, owner_url: str) -> None:
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url, "--dry-run")
    assert code == 0, out
    assert "session m-open: would import" in out and "dry run: nothing was written" in out
    assert set(counts(pg_url).values()) == {0}

    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out
    assert "user alice: imported: reviewer" in out and "user bob: imported: password hashed" in out
    assert "session m-done: imported" in out and "session m-open: imported" in out
    assert (
        "override rows 1-2 (overrides.sqlite, chain " in out
        and "imported: as rows 1-2 of the database's" in out
    )
    assert "users 2 imported, 0 skipped, 0 refused" in out
    assert "sessions 2 imported, 0 skipped, 0 refused" in out
    assert f"checkpoints {machine.checkpoints} imported, 0 skipped, 0 refused" in out
    assert "override rows 2 imported, 0 skipped, 0 refused" in out
    assert "intact, 2 rows" in out

    # the override log: the same rows, in the same order, and `interview override verify` passes
    code, out = verify_on_postgres()
    assert code == 0 and "intact: 2 rows" in out, out
    assert override_rows(url=pg_url) == override_rows(machine.data / "overrides.sqlite")

    # users sign in on the Postgres-backed app; the plain password was stored hashed
    auth = make_auth(load_users())
    assert auth("alice", "alice-password") and auth("bob", "bob-plain-password")
    assert not auth("bob", "wrong-password") and "alice" in load_reviewers() and "bob" not in load_reviewers()
    with psycopg.connect(pg_url) as conn:
        secret = conn.execute("SELECT secret FROM interview_users WHERE name = 'bob'").fetchone()
    assert secret is not None and str(secret[0]).startswith("pbkdf2_sha256$")

    # sessions: as they were, the waiting one at the same question with the same pending interrupt
    assert [s.session_id for s in list_sessions(owner="alice")] == ["m-open", "m-done"]
    assert get_session("m-done", owner="alice").status == "done"
    st = graph_store.open_store()
    assert isinstance(st, graph_store.PostgresStore)
    snap = st.graph.get_state(thread_config("m-open"))
    assert dict(snap.values) == machine.state and list(snap.interrupts) == machine.interrupts
    with psycopg.connect(pg_url) as conn:  # every pending write, under its task path and index
        assert set(conn.execute(f"SELECT {WRITES} FROM checkpoint_writes")) == machine.writes
    v = get_session("m-open", owner="alice")
    assert v.status == "waiting" and answers_of(v) == [A1, A2]
    q = v.question
    v = answer("m-open", A3, at_s=90, owner="alice")  # resumes through the graph, on Postgres
    assert v.message is None and answers_of(v) == [A1, A2, A3] and v.question != q

    # a second import: nothing twice
    before = counts(pg_url)
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out
    assert "imported:" not in out and " 0 imported" in out
    assert (
        "user alice: skipped" in out and "session m-done: skipped: already in the database, the same" in out
    )
    assert "session m-open: skipped: already in the database; it went on in the database since" in out
    assert "override rows 1-2 (overrides.sqlite, chain " in out and "skipped: imported before" in out
    assert "users 0 imported, 2 skipped, 0 refused" in out
    assert "sessions 0 imported, 2 skipped, 0 refused" in out
    assert f"checkpoints 0 imported, {machine.checkpoints} skipped, 0 refused" in out
    assert "override rows 0 imported, 2 skipped, 0 refused" in out
    assert counts(pg_url) == before
    assert answers_of(get_session("m-open", owner="alice")) == [A1, A2, A3]

    # a row added on the machine since: only it is appended, after the database's own
    log = OverrideLog(machine.data / "overrides.sqlite", clock=Clock())
    log.clock.now += timedelta(minutes=10)  # type: ignore[attr-defined]
    log.append(_new(transcript_id="m-open", round="concepts", dimension="accuracy"))
    code, out = run("import", "--from-sqlite", str(machine.data / "overrides.sqlite"), "--url", owner_url)
    assert code == 0, out
    assert "override rows 1-2 (overrides.sqlite" in out and "override row 3 (overrides.sqlite" in out
    assert "imported: as row 3 of the database's log" in out
    assert verify_on_postgres()[0] == 0
    assert override_rows(url=pg_url) == override_rows(machine.data / "overrides.sqlite")


def test_a_tampered_override_row_refuses_the_import(machine: OneMachine, pg_url: str, owner_url: str) -> None:
    log = machine.data / "overrides.sqlite"
    with sqlite3.connect(log) as conn:
        conn.execute("DROP TRIGGER overrides_no_update")
        conn.execute("UPDATE overrides SET human_score = 5 WHERE id = 2")
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 1
    assert f"the override log {log} does not verify: row 2: changed" in out, out
    assert "Nothing was imported" in out
    assert set(counts(pg_url).values()) == {0}  # no user, no session, no checkpoint, no row


def test_a_session_id_or_user_taken_with_other_contents_is_refused_by_name(
    machine: OneMachine, pg_url: str, owner_url: str
) -> None:
    start_session("concepts", "en", session_id="m-open", owner="carol")  # on Postgres
    theirs = answer("m-open", A3, at_s=10, owner="carol")
    add_user("alice", "another-password")
    before = counts(pg_url)

    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 1, out
    one = out
    assert "session m-open: refused: another session of this id is in the database: plan 'concepts'" in one
    assert "owner 'carol' (here 'alice')" in one
    assert "user alice: refused: a user of this name is in the database with another password" in one
    assert "session m-done: imported" in one and "user bob: imported" in one
    assert (
        "users 1 imported, 0 skipped, 1 refused" in one and "sessions 1 imported, 0 skipped, 1 refused" in one
    )

    # nothing of the refused items was written; the rest was
    v = get_session("m-open", owner="carol")
    assert answers_of(v) == answers_of(theirs) == [A3]
    assert make_auth(load_users())("alice", "another-password")
    assert "alice" not in load_reviewers()
    after = counts(pg_url)
    assert after["interview_sessions"] == before["interview_sessions"] + 1
    assert after["interview_users"] == before["interview_users"] + 1
    assert after["overrides"] == 2
    assert verify_on_postgres()[0] == 0


def test_a_session_whose_write_fails_leaves_nothing_and_a_second_run_imports_it(
    machine: OneMachine, pg_url: str, owner_url: str, cluster: Cluster
) -> None:
    superuser = cluster.superuser_url(pg_url.rsplit("/", 1)[1])
    with psycopg.connect(superuser, autocommit=True) as conn:  # fails m-done halfway: after 3 checkpoints
        conn.execute(
            "CREATE FUNCTION fail_m_done() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "IF NEW.thread_id = 'm-done' AND (SELECT count(*) FROM checkpoints WHERE thread_id = 'm-done') >= 3 "
            "THEN RAISE EXCEPTION 'disk full (a test)'; END IF; RETURN NEW; END $$"
        )
        conn.execute(
            "CREATE TRIGGER fail_m_done BEFORE INSERT ON checkpoint_writes "
            "FOR EACH ROW EXECUTE FUNCTION fail_m_done()"
        )
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 1, out
    assert "session m-done: refused: writing it failed (disk full (a test)" in out, out
    assert "nothing of it was written" in out
    assert "session m-open: imported" in out  # the next session, on the same connection
    with psycopg.connect(pg_url) as conn:
        for table in ("interview_sessions", "checkpoints", "checkpoint_blobs", "checkpoint_writes"):
            column = "id" if table == "interview_sessions" else "thread_id"
            n = conn.execute(f"SELECT count(*) FROM {table} WHERE {column} = 'm-done'").fetchone()
            assert n is not None and n[0] == 0, table
    assert answers_of(get_session("m-open", owner="alice")) == [A1, A2]

    with psycopg.connect(superuser, autocommit=True) as conn:
        conn.execute("DROP TRIGGER fail_m_done ON checkpoint_writes")
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out
    assert "session m-done: imported" in out and "session m-open: skipped" in out
    assert get_session("m-done", owner="alice").status == "done"


def test_a_later_machine_log_is_appended_after_the_team_rows_with_its_original_times(
    machine: OneMachine, pg_url: str, owner_url: str, cluster: Cluster
) -> None:
    """A second machine migrated after the team saved overrides on Postgres: its rows (dated before the
    database log's last row) go at the end of the chain, dated at the import, each keeping its original
    time in `original_created_at` (hashed with the row); the team's rows stay as they were."""
    # the team corrected the same cell on the shared app after the machine did (its rows are of June 2025)
    team = OverrideLog().append(
        _new(transcript_id="m-done", round="concepts", dimension="evidence", reviewer="carol", human_score=2)
    )
    with psycopg.connect(pg_url) as conn:
        before = conn.execute("SELECT * FROM overrides ORDER BY id").fetchall()
    machine_rows = OverrideLog(machine.data / "overrides.sqlite").rows()
    originals = [r.created_at for r in machine_rows]

    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out
    assert "override rows 1-2 (overrides.sqlite" in out and "imported: as rows 2-3 of the database's log" in out
    assert f"written here, {originals[0]} to {originals[1]}" in out  # the report shows the original times
    assert f"the database's log has a row dated {team.created_at} (row 1)" in out
    # an older decision now stands after the team's later one for the same cell: said, not hidden
    assert "row 2 (written " + originals[0] in out and "m-done concepts evidence" in out
    assert "override rows 2 imported, 0 skipped, 0 refused" in out and "intact, 3 rows" in out

    # the team's row is as it was; the machine's follow it, dated at the import, their times kept
    with psycopg.connect(pg_url) as conn:
        after = conn.execute("SELECT * FROM overrides ORDER BY id").fetchall()
    assert after[:1] == before
    rows = OverrideLog(url=pg_url).rows()
    assert [r.id for r in rows] == [1, 2, 3]
    assert [r.original_created_at for r in rows] == [None, *originals]
    assert all(r.created_at >= team.created_at for r in rows[1:])
    strip = ("id", "created_at", "original_created_at")
    assert [r.model_dump(exclude=set(strip)) for r in rows[1:]] == [
        r.model_dump(exclude=set(strip)) for r in machine_rows
    ]
    code, text = verify_on_postgres()
    assert code == 0 and "intact: 3 rows" in text, text
    listed = CliRunner().invoke(app, ["override", "list"], env={"COLUMNS": "400"}).output
    assert originals[0] in listed and "imported" in listed
    exported = CliRunner().invoke(app, ["override", "export", "--format", "jsonl"]).output
    assert [json.loads(line).get("original_created_at") for line in exported.splitlines()] == [None, *originals]

    # imported again: nothing twice, the records matched by the rows' original times
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0 and "skipped: imported before, the same in the database" in out, out
    assert counts(pg_url)["overrides"] == 3

    # a row added on the machine since: appended alone, dated at the import too
    log = OverrideLog(machine.data / "overrides.sqlite", clock=Clock())
    log.clock.now += timedelta(minutes=10)  # type: ignore[attr-defined]
    added = log.append(_new(transcript_id="m-open", round="concepts", dimension="accuracy"))
    del log
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0 and "imported: as row 4 of the database's log" in out, out
    assert OverrideLog(url=pg_url).rows()[-1].original_created_at == added.created_at
    assert verify_on_postgres()[0] == 0

    # the original time is part of the row's hash: changing it is found
    superuser = cluster.superuser_url(pg_url.rsplit("/", 1)[1])
    with psycopg.connect(superuser, autocommit=True) as conn:
        conn.execute("ALTER TABLE overrides DISABLE TRIGGER overrides_no_update")
        conn.execute("UPDATE overrides SET original_created_at = '2025-01-01T00:00:00+00:00' WHERE id = 2")
        conn.execute("ALTER TABLE overrides ENABLE TRIGGER overrides_no_update")
    code, text = verify_on_postgres()
    assert code == 1 and "row 2: changed" in text, text


def test_a_session_that_went_on_on_the_machine_is_brought_up_to_date(
    machine: OneMachine, pg_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Imported, then answered again on the machine (the database's copy an earlier state of it): a second
    import brings the newer checkpoints in; once both sides went on, it is refused by name."""
    assert run("import", "--from-sqlite", str(machine.data), "--url", owner_url)[0] == 0
    imported = checkpoint_ids(pg_url, "m-open")
    with on_the_machine(machine, monkeypatch):
        v = answer("m-open", A3, at_s=90, owner="alice")
        assert v.status == "waiting" and answers_of(v) == [A1, A2, A3]
        st = graph_store.Store(machine.data / graph_store.DB_NAME)
        snap = st.graph.get_state(thread_config("m-open"))
        row = st.get("m-open")
        mine = {str(t.config["configurable"]["checkpoint_id"]) for t in st.saver.list(thread_config("m-open"))}
        st.close()
    assert imported < mine
    new, old = len(mine - imported), len(imported)

    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url, "--dry-run")
    assert code == 0 and f"session m-open: would import: brought up to date: {new} newer" in out, out
    assert checkpoint_ids(pg_url, "m-open") == imported

    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out
    assert f"session m-open: imported: brought up to date: {new} newer checkpoint(s)" in out
    assert f"the database had the first {old} of its {len(mine)}" in out
    assert "session m-done: skipped: already in the database, the same" in out
    assert "sessions 1 imported, 1 skipped, 0 refused" in out
    assert f"checkpoints {new} imported, {machine.checkpoints} skipped, 0 refused" in out
    assert checkpoint_ids(pg_url, "m-open") == mine
    st2 = graph_store.open_store()
    assert isinstance(st2, graph_store.PostgresStore)
    there = st2.graph.get_state(thread_config("m-open"))
    assert dict(there.values) == dict(snap.values) and list(there.interrupts) == list(snap.interrupts)
    assert st2.get("m-open") == row  # its status and last change as on the machine
    v = get_session("m-open", owner="alice")
    assert v.status == "waiting" and answers_of(v) == [A1, A2, A3]

    # imported again: the same now
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0 and "session m-open: skipped: already in the database, the same" in out, out

    # both went on: an answer on the shared app, another on the machine
    v = answer("m-open", A4, at_s=120, owner="alice")
    assert answers_of(v) == [A1, A2, A3, A4]
    with on_the_machine(machine, monkeypatch):
        assert answers_of(answer("m-open", WEAK, at_s=120, owner="alice")) == [A1, A2, A3, WEAK]
    before, ids = counts(pg_url), checkpoint_ids(pg_url, "m-open")
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 1, out
    assert "session m-open: refused: it went on both in the database (" in out, out
    assert "the answers given here since are not imported" in out
    assert "sessions 0 imported, 1 skipped, 1 refused" in out
    assert counts(pg_url) == before and checkpoint_ids(pg_url, "m-open") == ids
    assert answers_of(get_session("m-open", owner="alice")) == [A1, A2, A3, A4]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one_machine_env(machine: OneMachine) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "INTERVIEW_DATABASE_URL"}
    return {**env, "INTERVIEW_DATA_DIR": str(machine.data)}


def test_the_import_is_refused_while_the_one_machine_app_runs_on_the_data_dir(
    machine: OneMachine, pg_url: str, owner_url: str, tmp_path: Path
) -> None:
    port, log = _free_port(), tmp_path / "app.log"
    with log.open("wb") as out:
        app_proc = subprocess.Popen(
            [sys.executable, "-m", "agent.ui", "--port", str(port)],
            cwd=repo_root(),
            env=one_machine_env(machine),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 180
        while True:  # the one-machine app serves its page: it is running on the data dir
            assert app_proc.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        for dry in ([], ["--dry-run"]):
            code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url, *dry)
            assert code == 1, out
            assert f"the data dir {machine.data} is in use by another process (pid {app_proc.pid}: " in out, out
            assert "Stop the one-machine app (and any `interview` command on that data dir) first" in out
            assert "Nothing was imported" in out
            assert set(counts(pg_url).values()) == {0}
    finally:
        app_proc.terminate()
        app_proc.wait(timeout=30)
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out


def test_while_an_import_holds_the_data_dir_the_one_machine_stores_say_so(machine: OneMachine) -> None:
    from agent.util import inuse

    with inuse.exclusive(machine.data):
        listed = subprocess.run(
            [sys.executable, "-m", "agent", "sessions"],
            cwd=repo_root(),
            env=one_machine_env(machine),
            capture_output=True,
            text=True,
            timeout=120,
        )
        said = " ".join((listed.stdout + listed.stderr).split())
        assert listed.returncode != 0, said
        assert f"the data dir {machine.data} is being imported into the shared database" in said, said
    # and once it ends, the data dir is the machine's again
    with inuse.exclusive(machine.data):
        pass


def test_the_browser_id_secret_is_imported_when_the_database_has_none(
    machine: OneMachine, pg_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key the one-machine app signs each browser's owner id with (anonymous sessions are that id's):
    the shared app signs and accepts the same ids after the import."""
    with on_the_machine(machine, monkeypatch):
        mine = browser_secret()  # as the one-machine app makes it on start
    assert (machine.data / "ui-secret").read_text(encoding="utf-8").strip() == mine

    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url, "--dry-run")
    assert code == 0 and "browser-id secret ui-secret: would import" in out, out
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out
    assert "browser-id secret ui-secret: imported" in out
    assert "browser-id secret 1 imported, 0 skipped, 0 refused" in out
    assert browser_secret() == mine  # the shared app's (INTERVIEW_DATABASE_URL)

    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0 and "browser-id secret ui-secret: skipped: already in the database, the same" in out, out


def test_another_browser_id_secret_in_the_database_is_kept_and_the_import_says_what_follows(
    machine: OneMachine, pg_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = browser_secret()  # a replica of the shared app started before the import: it made one
    with on_the_machine(machine, monkeypatch):
        mine = browser_secret()
    assert mine != theirs
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 1, out
    assert "browser-id secret ui-secret: refused: the database has another one" in out, out
    assert "sessions started without a login on this machine" in out
    assert "DELETE FROM interview_secrets WHERE name = 'ui-secret'`, import again, then restart the replicas" in out
    assert "sessions 2 imported" in out and "browser-id secret 0 imported, 0 skipped, 1 refused" in out
    assert browser_secret() == theirs  # kept

    # what the report says to do to use the machine's instead
    with psycopg.connect(owner_url) as conn:
        conn.execute("DELETE FROM interview_secrets WHERE name = 'ui-secret'")
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0 and "browser-id secret ui-secret: imported" in out, out
    assert browser_secret() == mine
