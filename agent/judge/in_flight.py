"""How many requests a judge has in flight at once: a counting gate whose limit may change between batches."""

from __future__ import annotations

import threading
import time


class InFlight:
    """At most `limit` requests at once (a counting gate whose limit may change between batches).

    It also keeps the most requests that were in flight at once (`peak`) and the request-seconds
    spent in flight (`busy_seconds`: divided by a batch's wall time, the mean requests in flight).
    """

    def __init__(self, limit: int) -> None:
        self._cv = threading.Condition()
        self._busy = 0
        self._since = time.monotonic()
        self.limit = _checked_limit(limit)
        self.peak = 0
        self.busy_seconds = 0.0

    def set_limit(self, limit: int) -> None:
        with self._cv:
            self.limit = _checked_limit(limit)
            self._cv.notify_all()

    def reset_stats(self) -> None:
        with self._cv:
            self._tick()
            self.peak = self._busy
            self.busy_seconds = 0.0

    def _tick(self) -> None:
        now = time.monotonic()
        self.busy_seconds += self._busy * (now - self._since)
        self._since = now

    def __enter__(self) -> InFlight:
        with self._cv:
            self._cv.wait_for(lambda: self._busy < self.limit)
            self._tick()
            self._busy += 1
            self.peak = max(self.peak, self._busy)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cv:
            self._tick()
            self._busy -= 1
            self._cv.notify()


def _checked_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"requests in flight must be a whole number ≥ 1, got {limit!r}")
    return limit
