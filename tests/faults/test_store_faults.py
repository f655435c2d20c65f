"""The SQLite files (sessions, override log) locked by another process, read-only or not SQLite at all:
a clear message, and nothing lost (what was saved stays, the refused input can be sent again)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.graph import answer, get_session, list_sessions, start_session
from agent.graph import store as graph_store
from agent.graph.errors import SessionError, SessionStoreError
from agent.overrides import NewOverride, OverrideLog, OverrideLogError

ANSWER_1 = "Paged KV maps logical token positions to fixed-size blocks allocated on demand."
ANSWER_2 = "Continuous batching admits and retires requests at every step, within the token budget."


@pytest.fixture(autouse=True)
def fresh_stores(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test opens its own store (per data dir) and waits at most 0.2 s for a lock."""
    monkeypatch.setattr(graph_store, "BUSY_TIMEOUT_S", 0.2)
    yield
    for st in list(graph_store._STORES.values()):
        _close(st)
    graph_store._STORES.clear()


def _close(st: graph_store.Store) -> None:
    st.saver.conn.close()
    st._index.close()


@contextmanager
def held_lock(path: Path) -> Iterator[None]:
    """Another process's write lock on the database (BEGIN EXCLUSIVE on its own connection)."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Files and folders made read-only: chmod for a user; root ignores modes, so `chattr +i`."""
    root = os.geteuid() == 0
    done: list[Path] = []
    try:
        for p in paths:
            if root:
                if subprocess.run(["chattr", "+i", str(p)], capture_output=True).returncode != 0:
                    pytest.skip("running as root and chattr +i is not supported on this filesystem")
            else:
                p.chmod(0o555 if p.is_dir() else 0o444)
            done.append(p)
        yield
    finally:
        for p in reversed(done):
            if root:
                subprocess.run(["chattr", "-i", str(p)], check=True)
            else:
                p.chmod(0o755 if p.is_dir() else 0o644)


# ------------------------------------------------------------------ sessions


def test_a_locked_session_store_says_so_and_loses_nothing(data_dir: Path) -> None:
    v = start_session("concepts", "en", session_id="s-lock")
    v = answer("s-lock", ANSWER_1, at_s=10)
    question = v.question
    with held_lock(data_dir / "sessions.sqlite"):
        with pytest.raises(SessionStoreError) as e:
            answer("s-lock", ANSWER_2, at_s=20)
        msg = str(e.value)
        assert "locked by another process" in msg and "sessions.sqlite" in msg
        assert "not recorded" in msg and "send it again" in msg
        assert isinstance(e.value, SessionError)  # the UI and the terminal show SessionError messages
        with pytest.raises(SessionStoreError, match="not started"):
            start_session("concepts", "en", session_id="s-other")
    # the lock is gone: the session is where it was, and the refused answer can be sent again
    v = get_session("s-lock")
    assert v.question == question and [
        t.text for t in v.transcript.rounds[0].turns if t.role == "candidate"
    ] == [ANSWER_1]
    v = answer("s-lock", ANSWER_2, at_s=30)
    texts = [t.text for t in v.transcript.rounds[0].turns if t.role == "candidate"]
    assert texts == [ANSWER_1, ANSWER_2]
    assert [s.session_id for s in list_sessions()] == ["s-lock"]


def test_a_read_only_session_store_says_so_and_loses_nothing(data_dir: Path) -> None:
    start_session("concepts", "en", session_id="s-ro")
    answer("s-ro", ANSWER_1, at_s=10)
    db = data_dir / "sessions.sqlite"
    for st in list(graph_store._STORES.values()):  # the process ends; another one starts on a read-only store
        _close(st)
    graph_store._STORES.clear()
    before = db.read_bytes()
    assert not (data_dir / "sessions.sqlite-wal").exists()
    with read_only(db, data_dir):
        with pytest.raises(SessionStoreError) as e:
            answer("s-ro", ANSWER_2, at_s=20)
        msg = str(e.value)
        assert "sessions.sqlite" in msg and ("read-only" in msg or "cannot be opened" in msg), msg
        graph_store._STORES.clear()
    assert db.read_bytes() == before
    v = answer("s-ro", ANSWER_2, at_s=30)  # writable again: nothing was lost, the answer goes in
    assert [t.text for t in v.transcript.rounds[0].turns if t.role == "candidate"] == [ANSWER_1, ANSWER_2]


def test_a_session_store_that_is_not_sqlite_is_a_clear_error(data_dir: Path) -> None:
    (data_dir / "sessions.sqlite").write_bytes(b"definitely not a database\x00" * 500)
    with pytest.raises(SessionStoreError, match="not a readable SQLite database"):
        start_session("concepts", "en")
    with pytest.raises(SessionStoreError):
        list_sessions()


def test_terminal_practice_on_a_locked_store_says_so(data_dir: Path) -> None:
    from agent.cli.main import app

    runner = CliRunner()
    res = runner.invoke(app, ["practice", "--plan", "concepts", "--session", "p-1"], input=f"{ANSWER_1}\n.\n")
    assert res.exit_code == 0, res.output
    with held_lock(data_dir / "sessions.sqlite"):
        res = runner.invoke(app, ["practice", "--session", "p-1"], input=f"{ANSWER_2}\n.\n")
    assert res.exit_code != 0
    assert "locked by another process" in res.output and "Traceback" not in res.output
    assert "interview practice --session p-1" in res.output
    v = get_session("p-1")
    assert [t.text for r in v.transcript.rounds for t in r.turns if t.role == "candidate"] == [ANSWER_1]


def _process_ends() -> None:
    """The process that used the store ends; the next call opens it afresh, as a new process would."""
    for st in list(graph_store._STORES.values()):
        _close(st)
    graph_store._STORES.clear()


@pytest.mark.parametrize("how", ["truncated", "deleted"])
def test_a_session_store_that_lost_its_sessions_is_refused_never_started_over(
    data_dir: Path, how: str
) -> None:
    from agent.cli.main import app

    start_session("concepts", "en", session_id="s-gone")
    answer("s-gone", ANSWER_1, at_s=10)
    start_session("concepts", "en", session_id="s-gone-2")
    _process_ends()
    db = data_dir / "sessions.sqlite"
    for side in ("-wal", "-shm"):
        db.with_name(db.name + side).unlink(missing_ok=True)
    if how == "truncated":
        db.write_bytes(b"")
    else:
        db.unlink()
    state = "is empty (0 bytes)" if how == "truncated" else "is missing"

    with pytest.raises(SessionStoreError) as e:
        list_sessions()
    msg = str(e.value)
    assert f"{db} {state} but held 2 session(s)" in msg and "truncated, replaced or deleted" in msg, msg
    with pytest.raises(SessionStoreError, match="held 2 session"):
        start_session("concepts", "en")
    runner = CliRunner()
    res = runner.invoke(app, ["sessions", "--json"])
    assert res.exit_code != 0 and "held 2 session(s)" in res.output and "[]" not in res.output, res.output
    res = runner.invoke(app, ["practice", "--session", "s-gone"], input=f"{ANSWER_2}\n.\n")
    said = " ".join(res.output.split())  # the terminal's error line may wrap
    assert res.exit_code != 0 and "held 2 session(s)" in said, res.output
    assert "Q: " not in res.output  # no new session under the old id
    # nothing was written: the evidence stays as it was found
    assert (db.read_bytes() == b"") if how == "truncated" else not db.exists()
    assert not db.with_name(db.name + "-wal").exists()


@pytest.mark.parametrize("how", ["garbage", "truncated"])
@pytest.mark.parametrize("resume", [False, True])
def test_terminal_practice_on_a_store_that_cannot_be_read_exits_1(
    data_dir: Path, how: str, resume: bool
) -> None:
    """The README's contract for every command: a session store that cannot be read is one line naming
    the file, exit 1 (2 is a usage error), whether the session is resumed or a new one started."""
    from agent.cli.main import app

    start_session("concepts", "en", session_id="s-read")
    _process_ends()
    db = data_dir / "sessions.sqlite"
    for side in ("-wal", "-shm"):
        db.with_name(db.name + side).unlink(missing_ok=True)
    db.write_bytes(b"definitely not a database\x00" * 500 if how == "garbage" else b"")
    args = ["practice", *(["--session", "s-read"] if resume else ["--plan", "concepts"])]
    res = CliRunner().invoke(app, args, input=f"{ANSWER_1}\n.\n")
    assert res.exit_code == 1, (res.exit_code, res.output)
    said = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(said) == 1 and str(db) in said[0], res.output  # one line naming the file
    assert "Q: " not in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("count", ["garbage", "no number", "a folder"])
@pytest.mark.parametrize("how", ["truncated", "deleted"])
def test_an_unreadable_count_file_is_named_not_given_a_made_up_number(
    data_dir: Path, how: str, count: str
) -> None:
    """A 0-byte (or deleted) store beside a count file that cannot be read: still refused, and the
    message says the count file is unreadable instead of inventing how many sessions the store held."""
    from agent.cli.main import app

    start_session("concepts", "en", session_id="s-c1")
    start_session("concepts", "en", session_id="s-c2")
    _process_ends()
    db, counted = data_dir / "sessions.sqlite", data_dir / "sessions.sqlite.count"
    for side in ("-wal", "-shm"):
        db.with_name(db.name + side).unlink(missing_ok=True)
    db.write_bytes(b"") if how == "truncated" else db.unlink()
    if count == "a folder":
        counted.unlink()
        counted.mkdir()
    else:
        counted.write_bytes(b"\x00\xffnot json" if count == "garbage" else b'{"rows": 7}')
    with pytest.raises(SessionStoreError) as e:
        list_sessions()
    msg = str(e.value)
    assert f"the session count file {counted}" in msg and "is unreadable" in msg, msg
    assert "held 1" not in msg and "truncated, replaced or deleted" in msg, msg
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 1 and "is unreadable" in res.output and "held 1" not in res.output, res.output
    assert (db.read_bytes() == b"") if how == "truncated" else not db.exists()  # nothing written


def test_a_store_from_before_the_count_file_is_counted_when_opened(data_dir: Path) -> None:
    start_session("concepts", "en", session_id="s-old")
    _process_ends()
    count = data_dir / "sessions.sqlite.count"
    count.unlink()  # as an earlier version left it
    assert [s.session_id for s in list_sessions()] == ["s-old"]
    assert count.is_file() and count.stat().st_mode & 0o777 == 0o600
    _process_ends()
    (data_dir / "sessions.sqlite").write_bytes(b"")
    with pytest.raises(SessionStoreError, match="empty"):
        list_sessions()


def test_starting_over_on_purpose_means_moving_both_files(data_dir: Path) -> None:
    start_session("concepts", "en", session_id="s-first")
    _process_ends()
    for name in ("sessions.sqlite", "sessions.sqlite.count"):
        (data_dir / name).rename(data_dir / f"{name}.bak")
    assert list_sessions() == []
    start_session("concepts", "en", session_id="s-first")  # a fresh store: the id is free again


# ------------------------------------------------------------------ override log


def _override(human: int) -> NewOverride:
    return NewOverride(
        transcript_id="t-1",
        round="capacity",
        dimension="validation",
        judge_score=2,
        human_score=human,
        reason="named a rollback trigger the judge missed",
        reviewer="alice",
        rubric_version="r",
        judge_model="embedded-cues-v1",
        judge_kind="embedded",
    )


def test_override_cli_on_a_locked_log_says_so(data_dir: Path) -> None:
    from agent.cli.main import app

    log = OverrideLog()
    log.append(_override(3))
    with held_lock(log.path):
        res = CliRunner().invoke(app, ["override", "list"])
        assert res.exit_code == 1 and "locked by another process" in res.output, res.output
        with pytest.raises(OverrideLogError, match="NOT saved"):
            OverrideLog(timeout_s=0.2).append(_override(5))
    assert [r.human_score for r in log.rows()] == [3]
    res = CliRunner().invoke(app, ["override", "list"])
    assert res.exit_code == 0 and "alice" in res.output


def test_calibration_reads_around_an_unusable_override_log(data_dir: Path, tmp_path: Path) -> None:
    from agent.cli.main import app

    (data_dir / "overrides.sqlite").write_bytes(b"not sqlite\x00" * 300)
    small = tmp_path / "set.yaml"
    src = Path(__file__).resolve().parents[2] / "eval" / "graded" / "dev" / "answers.yaml"
    import yaml

    data = yaml.safe_load(src.read_text(encoding="utf-8"))
    data["answers"] = data["answers"][:2]
    data["pairs"] = []
    small.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    res = CliRunner().invoke(app, ["eval", "calibrate", "--set", str(small), "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert "override log not used" in res.output and "not a readable SQLite database" in res.output
    assert (tmp_path / "c" / "calibration.json").is_file()
