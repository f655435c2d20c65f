"""One process at a time changes a session: an OS file lock per session in the data dir.

Two processes that resume one session each read the same checkpoint and write their own next one,
so one process's answers vanish from the session although it acknowledged them. The lock is
`<data dir>/locks/<session id>.lock`, taken with flock(2):

- `claim(id)`: held for the life of the process that drives the session (`interview practice`); a
  second process is refused at once with `SessionBusy`, naming the session and the holder's pid.
- `hold(id)`: held for one change (start, answer, ask, close; the app takes it this way); it waits
  for another call's hold (at most `store.BUSY_TIMEOUT_S`) and is refused at once by a claim.
- `attempt(id)`: for a reader that may finish a step a crash cut short: it does that only when the
  lock is free, and otherwise reads the session as stored (listing sessions never waits).

The kernel releases a lock when its holder exits, however it exits (SIGKILL included), so a session
is never left locked by a dead process. The file holds the holder's pid and whether it holds the lock
for its life; the files stay (one small file a session), since removing a lock file races with
another process that is opening it.

With the shared Postgres database (`INTERVIEW_DATABASE_URL`), replicas on other machines must see the
lock too: it is a Postgres advisory lock on the session instead, held on a connection of its own
(`_PgLocks`); the connection's application_name carries the holder's pid and whether it holds the lock
for its life. A process that dies loses its connection, and Postgres releases the lock with it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent import db
from agent.config import data_dir
from agent.graph.errors import SessionBusy, SessionStoreError
from agent.util.holds import Held, Holds

LOCK_DIR = "locks"
POLL_S = 0.05
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_LIFE = "process"
_CALL = "call"
_HOST = (socket.gethostname() or "-").split(".")[0][:24].replace(" ", "-")
"""A replica's pid may repeat on another machine (or container): a Postgres lock's holder names its host."""


@dataclass
class _Held(Held[Any]):
    """A session this process holds: `handle` is the open lock file's descriptor, or the Postgres connection
    that holds the advisory lock; `count` the calls and claims of this process that hold it."""

    for_life: bool = False


def _let_go(held: _Held) -> None:
    _backend().release(held.handle)


_HOLDS: Holds[_Held] = Holds(_let_go)
"""This process's holds, one lock file or connection per session (agent/util/holds.py)."""


def lock_path(session_id: str) -> Path:
    """The session's lock file (created 0600 in `<data dir>/locks`, 0700)."""
    d = data_dir() / LOCK_DIR
    d.mkdir(mode=0o700, exist_ok=True)
    name = session_id if _SAFE.match(session_id) else hashlib.sha256(session_id.encode()).hexdigest()
    return d / f"{name}.lock"


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def _describe(for_life: bool) -> str:
    return f"{os.getpid()} {_LIFE if for_life else _CALL}"


def _parse(text: str) -> tuple[int | None, bool, bool]:
    """(pid, for its life, this process) from "PID process|call [HOST]" (no host: this machine)."""
    words = text.split()
    pid = int(words[0]) if words and words[0].isdigit() else None
    ours = pid == os.getpid() and (len(words) < 3 or words[2] == _HOST)
    return pid, len(words) > 1 and words[1] == _LIFE, ours


class _FileLocks:
    """flock(2) on `<data dir>/locks/<session>.lock`; the file holds the holder's pid."""

    def key(self, session_id: str) -> str:
        return str(lock_path(session_id))

    def take(self, session_id: str, for_life: bool) -> int | None:
        """The open, locked file, or None when another process holds the lock."""
        fd = _open(lock_path(session_id))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        self.mark(fd, for_life)
        return fd

    def mark(self, fd: int, for_life: bool) -> None:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{_describe(for_life)}\n".encode(), 0)

    def holder(self, session_id: str) -> tuple[int | None, bool, bool]:
        try:
            return _parse(lock_path(session_id).read_text(encoding="ascii", errors="replace"))
        except OSError:
            return None, False, False

    def release(self, fd: int) -> None:
        os.close(fd)  # closing the only descriptor releases the flock


class _PgLocks:
    """A session-level advisory lock per session in the shared database, on a connection of its own."""

    def __init__(self, url: str) -> None:
        self.url = url

    @staticmethod
    def number(session_id: str) -> int:
        """The advisory lock's 64-bit key (signed, as Postgres takes it)."""
        digest = hashlib.sha256(f"interview-session:{session_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    def key(self, session_id: str) -> str:
        return f"pg:{session_id}"

    @staticmethod
    def _name(for_life: bool) -> str:
        """The lock connection's application_name: "interview pid=PID process|call HOST"."""
        return db.application_name(f"{_LIFE if for_life else _CALL} {_HOST}")

    def _connect(self, for_life: bool) -> Any:
        try:
            return db.connect(self.url, application_name=self._name(for_life))
        except db.DatabaseError as e:
            raise OSError(str(e)) from e

    def take(self, session_id: str, for_life: bool) -> Any | None:
        conn = self._connect(for_life)
        try:
            row = conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (self.number(session_id),)).fetchone()
        except BaseException:
            conn.close()
            raise
        if not row["ok"]:
            conn.close()
            return None
        return conn

    def mark(self, conn: Any, for_life: bool) -> None:
        conn.execute(
            "SELECT set_config('application_name', %s, false)",
            (self._name(for_life),),
        )

    def holder(self, session_id: str) -> tuple[int | None, bool, bool]:
        k = self.number(session_id) & 0xFFFFFFFFFFFFFFFF
        with db.connect(self.url) as conn:
            row = conn.execute(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                "AND l.classid::bigint = %s AND l.objid::bigint = %s AND l.objsubid = 1",
                (k >> 32, k & 0xFFFFFFFF),
            ).fetchone()
        name = str(row["application_name"]) if row else ""
        return _parse(name.removeprefix("interview pid="))

    def release(self, conn: Any) -> None:
        conn.close()  # the advisory lock goes with its session


def _backend() -> _FileLocks | _PgLocks:
    url = db.database_url()
    return _PgLocks(url) if url else _FileLocks()


def holder(session_id: str) -> int | None:
    """The pid of the process that holds (or last held) the session's lock, when known."""
    try:
        return _backend().holder(session_id)[0]
    except (OSError, db.DatabaseError):
        return None


def _acquire(session_id: str, for_life: bool, wait_s: float) -> str:
    try:
        locks = _backend()
        key = locks.key(session_id)
        with _HOLDS.guard:
            held = _HOLDS.again(key)
            if held is not None:  # this process holds it already
                if for_life and not held.for_life:
                    held.for_life = True
                    locks.mark(held.handle, True)
                return key
        deadline = time.monotonic() + wait_s
        while True:
            handle = locks.take(session_id, for_life)
            if handle is not None:
                _HOLDS.add(key, _Held(handle, for_life=for_life))
                return key
            pid, holder_for_life, ours = locks.holder(session_id)
            other = not ours  # else another thread of this process holds it: wait for it
            if (other and (for_life or holder_for_life)) or time.monotonic() >= deadline:
                raise SessionBusy(session_id, pid, for_life=holder_for_life and other)
            time.sleep(POLL_S)
    except (OSError, db.DatabaseError) as e:
        raise SessionStoreError(f"session {session_id} cannot be locked ({e}): nothing was changed") from e
    except Exception as e:
        if type(e).__module__.split(".")[0] != "psycopg":
            raise
        raise SessionStoreError(f"session {session_id} cannot be locked ({e}): nothing was changed") from e


def _done(key: str) -> None:
    _HOLDS.release(key)


class Claim:
    """A session held until `release()` (or the process's end)."""

    def __init__(self, session_id: str, key: str) -> None:
        self.session_id = session_id
        self.key = key
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            _done(self.key)

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def claim(session_id: str) -> Claim:
    """Hold the session for as long as this process drives it; `SessionBusy` at once when another
    process holds it (for its life or for a call)."""
    return Claim(session_id, _acquire(session_id, True, 0.0))


@contextlib.contextmanager
def hold(session_id: str, wait_s: float | None = None) -> Iterator[None]:
    """Hold the session for one change. Waits up to `wait_s` (default `store.BUSY_TIMEOUT_S`) for
    another process's change to finish; refused at once when another process has claimed it."""
    if wait_s is None:
        from agent.graph import store

        wait_s = store.BUSY_TIMEOUT_S
    key = _acquire(session_id, False, wait_s)
    try:
        yield
    finally:
        _done(key)


@contextlib.contextmanager
def attempt(session_id: str) -> Iterator[bool]:
    """True (and the session held until the block ends) when this process holds it or it is free;
    False, without waiting, when another process holds it or it cannot be locked (read-only data dir)."""
    try:
        key = _acquire(session_id, False, 0.0)
    except (SessionBusy, SessionStoreError):
        yield False
        return
    try:
        yield True
    finally:
        _done(key)
