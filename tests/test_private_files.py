"""What the product writes is readable by its user only: the data dir 0700, every SQLite file (sessions with
their checkpoints, the override log) and its -wal/-shm/-journal 0600, the users file 0600; files or a data
dir left readable by an earlier version are tightened when they are opened (bits are only ever removed)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent import config
from agent.graph.store import Store
from agent.overrides import NewOverride, OverrideLog
from agent.ui.auth import load_users

SIDE = ("-wal", "-shm", "-journal")


@pytest.fixture(autouse=True)
def umask_022() -> Iterator[None]:
    """The usual umask, under which a plain open() or sqlite3.connect() makes 0644 files."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(p: Path) -> int:
    return p.stat().st_mode & 0o777


def _override() -> NewOverride:
    return NewOverride(
        transcript_id="t-1",
        round="capacity",
        dimension="validation",
        judge_score=2,
        human_score=3,
        reason="why",
        reviewer="alice",
        rubric_version="r",
        judge_model="m",
        judge_kind="embedded",
    )


def _close(st: Store) -> None:
    st.saver.conn.close()
    st._index.close()


def test_the_data_dir_is_created_and_kept_0700(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "new" / "data"
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(d))
    assert config.data_dir() == d and mode(d) == 0o700
    d.chmod(0o755)  # made by an earlier version
    config.data_dir()
    assert mode(d) == 0o700


def test_the_override_log_is_0600(tmp_path: Path) -> None:
    log = OverrideLog(tmp_path / "overrides.sqlite")
    log.append(_override())
    assert mode(log.path) == 0o600
    count = log.path.with_name(log.path.name + ".count")
    log.path.chmod(0o644)
    count.chmod(0o644)
    log.rows()  # reading fixes it too, and the row-count sidecar beside it
    assert (mode(log.path), mode(count)) == (0o600, 0o600)
    log.path.chmod(0o664)
    log.append(_override())
    assert mode(log.path) == 0o600


def test_the_session_store_and_its_wal_and_shm_are_0600(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    st = Store(db)
    try:
        st._index.execute("SELECT count(*) FROM interview_sessions").fetchall()
        files = [db, *(db.with_name(db.name + s) for s in ("-wal", "-shm"))]
        assert all(p.exists() for p in files)
        assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    finally:
        _close(st)


def test_an_existing_world_readable_store_is_tightened_on_open(tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    holder = sqlite3.connect(db)  # an earlier version's store, still open: its -wal and -shm exist
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE x (a)")
    holder.commit()
    try:
        files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
        for p in files:
            p.chmod(0o644)
        st = Store(db)
        _close(st)
        assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    finally:
        holder.close()


def test_a_read_only_file_stays_read_only(tmp_path: Path) -> None:
    """Tightening only removes group and other bits: a 0444 log becomes 0400, never writable."""
    log = OverrideLog(tmp_path / "overrides.sqlite")
    log.append(_override())
    log.path.chmod(0o444)
    try:
        assert len(log.rows()) == 1 and mode(log.path) == 0o400
    finally:
        log.path.chmod(0o600)


def test_a_users_file_written_by_hand_is_tightened_when_read(tmp_path: Path) -> None:
    f = tmp_path / "users.txt"
    f.write_text("alice:long-enough-password\n", encoding="utf-8")
    f.chmod(0o644)
    assert set(load_users({}, f)) == {"alice"} and mode(f) == 0o600


def test_a_count_sidecar_left_world_readable_is_tightened_with_its_store(tmp_path: Path) -> None:
    """The session store's and the override log's `.count` files say how many rows each held; one an earlier
    version left 0644 is made 0600 when its database is opened, not only when it is next rewritten."""
    db = tmp_path / "sessions.sqlite"
    count = db.with_name(db.name + ".count")
    count.write_text('{"sessions": 2}')
    count.chmod(0o644)
    config.private_sqlite(db)
    assert (mode(db), mode(count)) == (0o600, 0o600)
