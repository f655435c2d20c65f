"""A one-machine data dir in use: who has its stores open, so that `interview db import` does not copy it
while the one-machine app still writes to it.

Every process that opens a folder's one-machine stores (the session store `sessions.sqlite`, from its
first open until it is closed; the override log `overrides.sqlite`, for the life of the log object,
which the app makes at start, and for each write) holds a shared flock(2) on `<folder>/in-use.lock`
(`use`). `interview db import` takes it exclusively for the whole import (`exclusive`): it is refused
while another process holds it, naming the folder and, where /proc/locks says, the processes; and while
the import holds it, another process's store open or log write is refused, saying an import runs. The
kernel releases a lock when its holder exits (SIGKILL included), so a dead app never leaves it taken.

Within one process the holds are counted on one open file (a flock is per open file, and two of them in
one process would refuse each other; agent/util/holds.py counts them): the import converts the process's own shared hold to an exclusive
one, and back when it ends. A folder where the lock file cannot be created or opened (read-only), or a
file system without flock, is not locked: nothing there can be written either.

Standard library only, as agent/util/files.py.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from agent.util.holds import Held, Holds

LOCK_FILE = "in-use.lock"


class InUse(RuntimeError):
    """The folder is held the other way by another process; the message names the folder and, when
    known, the processes."""

    def __init__(self, folder: Path, holders: list[tuple[int, str]], *, by_import: bool) -> None:
        self.folder = folder
        self.holders = holders
        self.by_import = by_import
        who = "; ".join(f"pid {pid}: {cmd}" if cmd else f"pid {pid}" for pid, cmd in holders)
        if by_import:
            text = (
                f"the data dir {folder} is being imported into the shared database by another process"
                f"{f' ({who})' if who else ''} (`interview db import`); try again when it ends"
            )
        else:
            text = (
                f"the data dir {folder} is in use by another process{f' ({who})' if who else ''}: the "
                "one-machine app, or an `interview` command, has its sessions or override log open"
            )
        super().__init__(text)


def _close(held: Held[int]) -> None:
    os.close(held.handle)  # closing the only descriptor releases the flock


_HOLDS: Holds[Held[int]] = Holds(_close)
"""This process's holds, one open lock file per folder (agent/util/holds.py)."""


def _key(folder: Path) -> str:
    return str(folder.resolve())


def _open(folder: Path) -> int | None:
    path = folder / LOCK_FILE
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        try:
            return os.open(path, os.O_RDONLY)  # flock needs no write access
        except OSError:
            return None


def holders(folder: Path) -> list[tuple[int, str]]:
    """The other processes that hold `<folder>/in-use.lock` (pid, command line), from /proc/locks; empty
    where that cannot be read."""
    try:
        st = (folder / LOCK_FILE).stat()
        lines = Path("/proc/locks").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return []
    dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pids: list[int] = []
    for line in lines:
        words = line.split()
        if len(words) >= 6 and words[1] == "FLOCK" and words[5] == dev and words[4].isdigit():
            pid = int(words[4])
            if pid != os.getpid() and pid not in pids:
                pids.append(pid)
    out = []
    for pid in pids:
        try:
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
            cmd = " ".join(a.decode(errors="replace") for a in raw.split(b"\0") if a)
        except OSError:
            cmd = ""
        out.append((pid, cmd if len(cmd) <= 120 else cmd[:119] + "…"))
    return out


class Use:
    """A shared hold on a folder (`use`); `release()` ends it (once; later calls do nothing)."""

    def __init__(self, key: str | None) -> None:
        self._key = key

    def release(self) -> None:
        key, self._key = self._key, None
        if key is not None:
            _HOLDS.release(key)


def use(folder: Path) -> Use:
    """Hold `folder` shared until `release()`. InUse when another process holds it exclusively (an
    import); a folder that is not there, or cannot be locked, is not held."""
    if not folder.is_dir():
        return Use(None)
    key = _key(folder)
    with _HOLDS.guard:
        if _HOLDS.again(key) is not None:
            return Use(key)
        fd = _open(folder)
        if fd is None:
            return Use(None)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InUse(folder, holders(folder), by_import=True) from None
        except OSError:  # a file system without flock
            os.close(fd)
            return Use(None)
        _HOLDS.add(key, Held(fd))
        return Use(key)


@contextlib.contextmanager
def exclusive(folder: Path) -> Iterator[None]:
    """Hold `folder` exclusively for the block: no other process has its stores open meanwhile, nor opens
    them. InUse, naming the processes where known, when another process holds it."""
    key = _key(folder)
    with _HOLDS.guard:
        held = _HOLDS.get(key)
        fd = held.handle if held is not None else _open(folder)
        if fd is None:
            locked = False
        else:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
            except BlockingIOError:
                if held is None:
                    os.close(fd)
                else:  # a failed conversion may have dropped this process's shared lock: take it again
                    with contextlib.suppress(OSError):
                        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                raise InUse(folder, holders(folder), by_import=False) from None
            except OSError:  # a file system without flock
                if held is None:
                    os.close(fd)
                locked = False
        if locked and fd is not None and _HOLDS.again(key) is None:
            _HOLDS.add(key, Held(fd))
    try:
        yield
    finally:
        if locked:
            with _HOLDS.guard:
                if (left := _HOLDS.release(key)) is not None:  # this process's own holds go on, shared
                    with contextlib.suppress(OSError):
                        fcntl.flock(left.handle, fcntl.LOCK_SH)
