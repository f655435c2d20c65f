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
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent.config import data_dir
from agent.graph.errors import SessionBusy, SessionStoreError

LOCK_DIR = "locks"
POLL_S = 0.05
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_LIFE = "process"
_CALL = "call"


@dataclass
class _Held:
    fd: int
    for_life: bool
    depth: int = 0


_HELD: dict[Path, _Held] = {}
_GUARD = threading.Lock()


def lock_path(session_id: str) -> Path:
    """The session's lock file (created 0600 in `<data dir>/locks`, 0700)."""
    d = data_dir() / LOCK_DIR
    d.mkdir(mode=0o700, exist_ok=True)
    name = session_id if _SAFE.match(session_id) else hashlib.sha256(session_id.encode()).hexdigest()
    return d / f"{name}.lock"


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def _take(path: Path, for_life: bool) -> int | None:
    """The open, locked file, or None when another process holds the lock."""
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    _mark(fd, for_life)
    return fd


def _mark(fd: int, for_life: bool) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()} {_LIFE if for_life else _CALL}\n".encode(), 0)


def _holder(path: Path) -> tuple[int | None, bool]:
    """The holder's pid (None when unknown) and whether it holds the lock for its life."""
    try:
        words = path.read_text(encoding="ascii", errors="replace").split()
    except OSError:
        return None, False
    pid = int(words[0]) if words and words[0].isdigit() else None
    return pid, len(words) > 1 and words[1] == _LIFE


def holder(session_id: str) -> int | None:
    """The pid of the process that holds (or last held) the session's lock, when known."""
    return _holder(lock_path(session_id))[0]


def _release(path: Path) -> None:
    held = _HELD.pop(path)
    os.close(held.fd)  # closing the only descriptor releases the flock


def _acquire(session_id: str, for_life: bool, wait_s: float) -> Path:
    try:
        path = lock_path(session_id)
        with _GUARD:
            held = _HELD.get(path)
            if held is not None:  # this process holds it already
                held.depth += 1
                if for_life and not held.for_life:
                    held.for_life = True
                    _mark(held.fd, True)
                return path
        deadline = time.monotonic() + wait_s
        while True:
            fd = _take(path, for_life)
            if fd is not None:
                with _GUARD:
                    _HELD[path] = _Held(fd, for_life, depth=1)
                return path
            pid, holder_for_life = _holder(path)
            other = pid != os.getpid()  # else another thread of this process holds it: wait for it
            if (other and (for_life or holder_for_life)) or time.monotonic() >= deadline:
                raise SessionBusy(session_id, pid, for_life=holder_for_life and other)
            time.sleep(POLL_S)
    except OSError as e:
        raise SessionStoreError(f"session {session_id} cannot be locked ({e}): nothing was changed") from e


def _done(path: Path) -> None:
    with _GUARD:
        held = _HELD.get(path)
        if held is None:
            return
        held.depth -= 1
        if held.depth <= 0:
            _release(path)


class Claim:
    """A session held until `release()` (or the process's end)."""

    def __init__(self, session_id: str, path: Path) -> None:
        self.session_id = session_id
        self.path = path
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            _done(self.path)

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
    path = _acquire(session_id, False, wait_s)
    try:
        yield
    finally:
        _done(path)


@contextlib.contextmanager
def attempt(session_id: str) -> Iterator[bool]:
    """True (and the session held until the block ends) when this process holds it or it is free;
    False, without waiting, when another process holds it or it cannot be locked (read-only data dir)."""
    try:
        path = _acquire(session_id, False, 0.0)
    except (SessionBusy, SessionStoreError):
        yield False
        return
    try:
        yield True
    finally:
        _done(path)
