"""agent/util/holds.py: a process's counted holds of a lock, as the data dir in use (agent/util/inuse.py) and
a session's lock (agent/graph/lock.py) keep them."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from agent.util import inuse
from agent.util.holds import Held, Holds


def _holds() -> tuple[Holds[Held[str]], list[str]]:
    gone: list[str] = []
    return Holds(lambda h: gone.append(h.handle)), gone


def test_the_first_hold_takes_the_lock_later_ones_count_and_the_last_release_lets_it_go() -> None:
    holds, gone = _holds()
    assert holds.again("a") is None and holds.get("a") is None
    first = holds.add("a", Held("fd-a"))
    assert holds.again("a") is first and holds.again("a") is first and first.count == 3
    assert holds.release("a") is first and holds.release("a") is first and gone == []
    assert holds.release("a") is None and gone == ["fd-a"] and holds.get("a") is None
    assert holds.release("a") is None and gone == ["fd-a"]  # a key not held: nothing, let go once


def test_keys_are_counted_apart_and_an_entry_carries_what_its_room_adds() -> None:
    @dataclass
    class Moded(Held[str]):
        for_life: bool = False

    gone: list[str] = []
    holds: Holds[Moded] = Holds(lambda h: gone.append(h.handle))
    holds.add("a", Moded("fd-a", for_life=True))
    holds.add("b", Moded("fd-b", count=2))
    holds.release("b")
    assert holds.release("a") is None and gone == ["fd-a"]
    b = holds.get("b")
    assert b is not None and b.count == 1 and not b.for_life
    assert holds.release("b") is None and gone == ["fd-a", "fd-b"]


def test_the_guard_is_reentrant_so_a_check_and_a_take_can_be_one_step() -> None:
    holds, _ = _holds()
    taken: list[int] = []

    def take() -> None:
        with holds.guard:
            if holds.again("k") is None:
                taken.append(1)
                holds.add("k", Held("fd"))

    threads = [threading.Thread(target=take) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    held = holds.get("k")
    assert taken == [1] and held is not None and held.count == 8


def _other_process_can_lock(path: Path) -> bool:
    code = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n    sys.exit(1)\n"
    )
    return subprocess.run([sys.executable, "-c", code, str(path)], check=False).returncode == 0


def test_the_data_dir_stays_held_until_this_process_releases_its_last_use(tmp_path: Path) -> None:
    one, two = inuse.use(tmp_path), inuse.use(tmp_path)
    lock = tmp_path / inuse.LOCK_FILE
    assert not _other_process_can_lock(lock)
    one.release()
    one.release()  # a second release of one use does nothing
    assert not _other_process_can_lock(lock)
    with inuse.exclusive(tmp_path):  # this process's own shared hold becomes exclusive, and back
        assert not _other_process_can_lock(lock)
    fd = os.open(lock, os.O_RDWR)
    try:  # shared again: another shared hold is let in, an exclusive one is not
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    finally:
        os.close(fd)
    assert not _other_process_can_lock(lock)
    two.release()
    assert _other_process_can_lock(lock)
