"""A process's counted holds of a lock between processes, by key: the first hold of a key takes the lock, later
holds in the same process only count, and the last release lets it go.

A flock(2) is per open file: two opens of one lock file in one process would refuse each other, so a
process keeps one open file (or, for a Postgres advisory lock, one connection) per key and counts the
holds on it. Two rooms hold locks this way: the data dir in use (`agent/util/inuse.py`: `in-use.lock`,
shared or exclusive) and a session's lock (`agent/graph/lock.py`: a lock file, or an advisory lock in
the shared database). Each keeps a `Holds` of its own entries (a `Held` with what else it must know,
such as the mode it holds the lock in) and says how a lock is let go.

Standard library only, as agent/util/files.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

H = TypeVar("H")


@dataclass
class Held(Generic[H]):
    """A lock this process holds: its handle (an open file's descriptor, a connection) and how many holds
    of this process are on it."""

    handle: H
    count: int = 1


E = TypeVar("E", bound=Held[Any])


class Holds(Generic[E]):
    """The locks this process holds, by key, each with its count of holds. `guard` (reentrant) keeps
    one thread at a time in the registry; a caller that must check and take a lock in one step (so two
    threads do not both open it) does both inside `with holds.guard:`."""

    def __init__(self, let_go: Callable[[E], None]) -> None:
        self.guard = threading.RLock()
        self._held: dict[str, E] = {}
        self._let_go = let_go

    def get(self, key: str) -> E | None:
        """The lock held under `key`, or None."""
        with self.guard:
            return self._held.get(key)

    def again(self, key: str) -> E | None:
        """One more hold on the lock held under `key` (and that lock), or None when it is not held."""
        with self.guard:
            held = self._held.get(key)
            if held is not None:
                held.count += 1
            return held

    def add(self, key: str, held: E) -> E:
        """A lock just taken, held under `key` with `held.count` holds."""
        with self.guard:
            self._held[key] = held
            return held

    def release(self, key: str) -> E | None:
        """One hold fewer on the lock under `key`; the last one lets the lock go (`let_go`, once) and forgets
        it. The lock when holds of this process remain on it, else None (a key not held: nothing)."""
        with self.guard:
            held = self._held.get(key)
            if held is None:
                return None
            held.count -= 1
            if held.count > 0:
                return held
            del self._held[key]
            self._let_go(held)
            return None
