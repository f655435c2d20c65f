"""A database that is slow to take a connection is waited for, not given up on.

A clean-clone CI run lost a team replica at start-up: on a machine saturated by the vLLM tests beside it, a
connection to the local Postgres took more than the 10 s `agent.db.connect` allowed ("connection timeout
expired"), after the same process had connected a moment before. Reproduced with a relay in front of the
test's Postgres that holds each new connection 12 s before passing it on; a database that refuses
connections is still reported at once.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from agent import db

HELD_S = 12.0


def _pipe(a: socket.socket, b: socket.socket) -> None:
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def slow_url(pg_url: str) -> Iterator[str]:
    """pg_url through a relay that holds each connection HELD_S seconds first."""
    parts = urlsplit(pg_url)
    target = (parts.hostname or "127.0.0.1", parts.port or 5432)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                client, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            time.sleep(HELD_S)
            upstream = socket.create_connection(target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    netloc = parts.netloc.rsplit(":", 1)[0] + f":{server.getsockname()[1]}"
    try:
        yield urlunsplit(parts._replace(netloc=netloc))
    finally:
        stop.set()
        thread.join(timeout=HELD_S + 5)
        server.close()


def test_a_connection_slow_to_be_taken_is_waited_for(slow_url: str) -> None:
    with db.connect(slow_url) as conn:
        assert conn.execute("SELECT 1 AS one").fetchone()["one"] == 1


def test_a_database_that_refuses_is_reported_at_once(pg_url: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    parts = urlsplit(pg_url)
    url = urlunsplit(parts._replace(netloc=parts.netloc.rsplit(":", 1)[0] + f":{port}"))
    t0 = time.monotonic()
    with pytest.raises(db.DatabaseError, match="cannot be reached"):
        db.connect(url)
    assert time.monotonic() - t0 < 5
