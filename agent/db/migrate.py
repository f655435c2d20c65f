"""Versioned schema migrations for the shared Postgres database.

The schema is data: numbered SQL files `agent/db/migrations/postgres/NNNN_name.sql`, applied in order,
each in its own transaction together with its row in `interview_schema_migrations` (version, name,
the SHA-256 of the file, when). Then LangGraph's checkpointer creates or upgrades its own tables
(`PostgresSaver.setup()`, versioned in its `checkpoint_migrations`). `interview db migrate` runs it;
the app and every command that opens the database run it on start (`ensure`), once per process.

Several replicas may start at once: a session-level advisory lock makes one migrate while the others
wait (polling, outside any statement), then find nothing to do. A file changed after it was applied,
or a database migrated by newer code than this, is said plainly (`MigrationError`); nothing is
applied over it.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.db import DatabaseError, connect, redact

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations" / "postgres"
TABLE = "interview_schema_migrations"
LOCK_KEY = 0x696E7476_6D696772  # "intvmigr": the advisory lock migrations hold
LOCK_WAIT_S = 300.0
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class MigrationError(DatabaseError):
    """The schema cannot be brought up to date; nothing more was applied."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.sql.encode("utf-8")).hexdigest()


@dataclass
class Outcome:
    """What `migrate` found and did."""

    url: str
    applied: list[Migration] = field(default_factory=list)
    """applied by this call, in order"""
    current: int = 0
    """the database's version afterwards"""
    known: int = 0
    """the highest version this code ships"""

    def lines(self) -> list[str]:
        where = redact(self.url)
        if self.applied:
            done = [f"applied {m.version:04d}_{m.name}" for m in self.applied]
            return [*done, f"{where}: schema at version {self.current}"]
        return [f"{where}: schema up to date (version {self.current})"]


def migrations(folder: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The numbered SQL files, in order; a gap, a repeated number or a misnamed .sql file is an error."""
    found: list[Migration] = []
    for p in sorted(folder.glob("*.sql")):
        m = _FILE.match(p.name)
        if not m:
            raise MigrationError(f"{p} is not named NNNN_name.sql: migrations must be numbered")
        found.append(Migration(int(m.group(1)), m.group(2), p.read_text(encoding="utf-8")))
    for i, mig in enumerate(found, 1):
        if mig.version != i:
            raise MigrationError(f"migration {mig.version:04d}_{mig.name} should be number {i:04d}: no gaps")
    return found


def migrate(url: str, *, checkpointer: bool = True, folder: Path = MIGRATIONS_DIR) -> Outcome:
    """Bring the database at `url` to the newest schema; safe to run again and from several processes."""
    known = migrations(folder)
    out = Outcome(url, known=len(known))
    with connect(url) as conn:
        _lock(conn)
        try:
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                "sha256 TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            done = {int(r["version"]): r for r in conn.execute(f"SELECT version, name, sha256 FROM {TABLE}")}
            ahead = sorted(v for v in done if v > len(known))
            if ahead:
                raise MigrationError(
                    f"{redact(url)} is at schema version {max(ahead)}, newer than this code knows "
                    f"({len(known)}): run the newer version of the app, or restore a matching backup"
                )
            for m in known:
                if m.version in done:
                    if done[m.version]["sha256"] != m.sha256:
                        raise MigrationError(
                            f"migration {m.version:04d}_{m.name} was changed after it was applied to "
                            f"{redact(url)}: an applied migration is never edited; add a new numbered file"
                        )
                    continue
                with conn.transaction():
                    conn.execute(m.sql)
                    conn.execute(
                        f"INSERT INTO {TABLE} (version, name, sha256) VALUES (%s, %s, %s)",
                        (m.version, m.name, m.sha256),
                    )
                out.applied.append(m)
            out.current = len(known)
            if checkpointer:
                _checkpointer_setup(conn)
        except MigrationError:
            raise
        except Exception as e:
            if type(e).__module__.startswith("psycopg"):
                raise MigrationError(f"migrating {redact(url)} failed: {' '.join(str(e).split())}") from e
            raise
        finally:
            if not conn.closed:
                conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
    return out


def _lock(conn: Any, wait_s: float = LOCK_WAIT_S) -> None:
    """Take the migration lock, polling: a waiter must not sit inside a statement, since the
    checkpointer's CREATE INDEX CONCURRENTLY waits for every statement under way (a deadlock)."""
    deadline = time.monotonic() + wait_s
    while not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (LOCK_KEY,)).fetchone()["ok"]:
        if time.monotonic() > deadline:
            raise MigrationError(f"another process has been migrating the database for over {wait_s:g} s")
        time.sleep(0.1)


def _checkpointer_setup(conn: object) -> None:
    """LangGraph's checkpoint tables, on the same connection (autocommit: its CREATE INDEX CONCURRENTLY
    cannot run in a transaction)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    PostgresSaver(conn).setup()  # type: ignore[arg-type]


_ENSURED: set[str] = set()
_ENSURE_LOCK = threading.Lock()


def ensure(url: str) -> None:
    """`migrate(url)` once per process (on start): every store that opens the database calls it."""
    with _ENSURE_LOCK:
        if url in _ENSURED:
            return
        migrate(url)
        _ENSURED.add(url)
