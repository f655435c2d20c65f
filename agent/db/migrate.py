"""Versioned schema migrations for the shared Postgres database.

The schema is data: numbered SQL files `agent/db/migrations/postgres/NNNN_name.sql`, applied in order,
each in its own transaction together with its row in `interview_schema_migrations` (version, name,
the SHA-256 of the file, when). Then LangGraph's checkpointer creates or upgrades its own tables
(`PostgresSaver.setup()`, versioned in its `checkpoint_migrations`), and the app's group role
`interview_app` is granted them. `interview db migrate` runs it; the app and every command that opens
the database call `ensure` on start, once per process.

Two roles (0004_app_role.sql): the role that owns the schema runs the migrations (`interview db migrate
--url <owner URL>`); the app connects as a member of `interview_app`, which may not change the schema.
So `migrate` first reads, without any lock or DDL, whether the database is up to date (the applied
versions and their SHA-256, the checkpointer's version, its tables granted to `interview_app`) and
returns when it is; only when something is missing does it take the lock and migrate, and a role that
may not is told plainly which version the database is at, which this code needs and the command to run.

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
from urllib.parse import quote, urlsplit, urlunsplit

from agent.db import DatabaseError, connect, redact

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations" / "postgres"
TABLE = "interview_schema_migrations"
LOCK_KEY = 0x696E7476_6D696772  # "intvmigr": the advisory lock migrations hold
LOCK_WAIT_S = 300.0
APP_ROLE = "interview_app"
"""The group role the app's login role is a member of (0004_app_role.sql)."""
CHECKPOINT_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
"""LangGraph's tables the app reads and writes (and deletes from: a thread's checkpoints)."""
CHECKPOINT_RIGHTS = ("SELECT", "INSERT", "UPDATE", "DELETE")
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


@dataclass
class _State:
    """What the database holds, read without a lock and without DDL."""

    done: dict[int, dict[str, Any]] | None
    """the applied migrations: version -> its row (name, sha256); None: the connected role may not read
    them (a schema older than 0004_app_role.sql, which grants it)"""
    checkpointer: int | None
    """the checkpointer's newest version; None: its tables are not there (or not checked)"""
    granted: bool
    """`APP_ROLE` exists and holds its rights on the checkpointer's tables (True when not checked)"""
    role: str
    """the connected role"""
    owner: str
    """the role that owns the schema (the versions table; else the database)"""
    may_migrate: bool
    """the connected role may migrate: it owns the versions table (or, before it exists, may create in
    the schema)"""


def migrate(url: str, *, checkpointer: bool = True, folder: Path = MIGRATIONS_DIR) -> Outcome:
    """Bring the database at `url` to the newest schema; safe to run again and from several processes.
    Up to date already: only reads (any role the app connects as may call it)."""
    known = migrations(folder)
    out = Outcome(url, known=len(known))
    with connect(url) as conn:
        try:
            state = _state(conn, checkpointer)
            _refuse(state, known, url)
            if not _behind(state, known, checkpointer):
                out.current = len(known)
                return out
            _lock(conn)
            try:
                state = _state(conn, checkpointer)  # another process may have migrated meanwhile
                _refuse(state, known, url)
                behind = _behind(state, known, checkpointer)
                if behind and not state.may_migrate:
                    raise MigrationError(_not_allowed(url, state, behind))
                if behind:
                    _apply(conn, state, known, out, checkpointer)
                out.current = len(known)
            finally:
                if not conn.closed:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
        except MigrationError:
            raise
        except Exception as e:
            if type(e).__module__.startswith("psycopg"):
                raise MigrationError(f"migrating {redact(url)} failed: {' '.join(str(e).split())}") from e
            raise
    return out


@dataclass(frozen=True)
class Schema:
    """What `migrate` would find, read without a lock and without DDL (`schema`)."""

    behind: list[str]
    """what is missing, in words; empty: up to date"""
    role: str
    """the connected role"""
    owner: str
    """the role that owns the schema"""
    owned: bool
    """the connected role may migrate the schema: it is (a member of) its owner"""


def schema(url: str) -> Schema:
    """Whether the database at `url` is up to date and whether the connected role owns its schema,
    changing nothing (`interview db import` needs both). MigrationError as `migrate` raises it for a
    database migrated by newer code or an edited migration."""
    known = migrations()
    with connect(url) as conn:
        try:
            state = _state(conn, True)
        except Exception as e:
            if type(e).__module__.startswith("psycopg"):
                raise MigrationError(f"reading {redact(url)} failed: {' '.join(str(e).split())}") from e
            raise
    _refuse(state, known, url)
    return Schema(_behind(state, known, True), state.role, state.owner, state.may_migrate)


def _state(conn: Any, checkpointer: bool) -> _State:
    row = conn.execute(
        "SELECT current_user AS role, to_regclass(%s) IS NOT NULL AS has_table, "
        "CASE WHEN to_regclass(%s) IS NULL THEN false ELSE has_table_privilege(%s, 'SELECT') END AS can_read, "
        "coalesce((SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner "
        "          WHERE c.oid = to_regclass(%s)), "
        "         (SELECT r.rolname FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba "
        "          WHERE d.datname = current_database())) AS owner, "
        "CASE WHEN to_regclass(%s) IS NULL THEN has_schema_privilege(current_schema(), 'CREATE') "
        "     ELSE pg_has_role((SELECT relowner FROM pg_class WHERE oid = to_regclass(%s)), 'USAGE') "
        "END AS may_migrate",
        (TABLE, TABLE, TABLE, TABLE, TABLE, TABLE),
    ).fetchone()
    done: dict[int, dict[str, Any]] | None = {}
    if row["has_table"] and not row["can_read"]:
        done = None
    elif row["has_table"]:
        done = {int(r["version"]): r for r in conn.execute(f"SELECT version, name, sha256 FROM {TABLE}")}
    version: int | None = None
    granted = True
    if checkpointer:
        if conn.execute("SELECT to_regclass('checkpoint_migrations') IS NOT NULL AS ok").fetchone()["ok"]:
            v = conn.execute("SELECT max(v) AS v FROM checkpoint_migrations").fetchone()["v"]
            version = None if v is None else int(v)
        granted = bool(
            conn.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) AND coalesce(bool_and("
                "  CASE WHEN to_regclass(t) IS NULL THEN false ELSE has_table_privilege(%s, t, p) END), false) "
                "AS ok FROM unnest(%s::text[]) AS t, unnest(%s::text[]) AS p",
                (APP_ROLE, APP_ROLE, list(CHECKPOINT_TABLES), list(CHECKPOINT_RIGHTS)),
            ).fetchone()["ok"]
        )
    return _State(
        done=done,
        checkpointer=version,
        granted=granted,
        role=str(row["role"]),
        owner=str(row["owner"]),
        may_migrate=bool(row["may_migrate"]) and done is not None,
    )


def _refuse(state: _State, known: list[Migration], url: str) -> None:
    """A database migrated by newer code, or an applied file that was edited: nothing is applied."""
    if state.done is None:
        return
    ahead = sorted(v for v in state.done if v > len(known))
    if ahead:
        raise MigrationError(
            f"{redact(url)} is at schema version {max(ahead)}, newer than this code knows "
            f"({len(known)}): run the newer version of the app, or restore a matching backup"
        )
    for m in known:
        if m.version in state.done and state.done[m.version]["sha256"] != m.sha256:
            raise MigrationError(
                f"migration {m.version:04d}_{m.name} was changed after it was applied to "
                f"{redact(url)}: an applied migration is never edited; add a new numbered file"
            )


def checkpointer_version() -> int:
    """The newest version of LangGraph's checkpoint tables this code ships."""
    from langgraph.checkpoint.postgres import PostgresSaver

    return len(PostgresSaver.MIGRATIONS) - 1


def _behind(state: _State, known: list[Migration], checkpointer: bool) -> list[str]:
    """What is missing, in words; empty: up to date."""
    out = []
    done = state.done
    if done is None:
        out.append(
            f"is at a schema version the role {state.role} may not read (this code needs {len(known)})"
        )
    elif any(m.version not in done for m in known):
        version = max((v for v in done if all(w in done for w in range(1, v + 1))), default=0)
        out.append(f"is at schema version {version} (this code needs {len(known)})")
    if checkpointer:
        want = checkpointer_version()
        if state.checkpointer is None or state.checkpointer < want:
            have = "none" if state.checkpointer is None else state.checkpointer
            out.append(f"has the checkpointer's tables at version {have} (this code needs {want})")
        elif not state.granted:
            out.append(f"has not granted the checkpointer's tables to {APP_ROLE}")
    return out


def _not_allowed(url: str, state: _State, behind: list[str]) -> str:
    return (
        f"the database {redact(url)} {' and '.join(behind)}, and the role {state.role} may not migrate "
        f"it: run `interview db migrate --url {redact(_as_role(url, state.owner))}` (as the role that "
        "owns the schema), then start again"
    )


def _as_role(url: str, role: str) -> str:
    """`url` connecting as `role` (its password, if any, is another's: redact it before showing)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    cred = quote(role, safe="") + (":" + (parts.password or "") if parts.password is not None else "")
    return urlunsplit(parts._replace(netloc=f"{cred}@{host}"))


def _apply(conn: Any, state: _State, known: list[Migration], out: Outcome, checkpointer: bool) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "sha256 TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    done = state.done or {}
    for m in known:
        if m.version in done:
            continue
        with conn.transaction():
            conn.execute(m.sql)
            conn.execute(
                f"INSERT INTO {TABLE} (version, name, sha256) VALUES (%s, %s, %s)",
                (m.version, m.name, m.sha256),
            )
        out.applied.append(m)
    if checkpointer:
        _checkpointer_setup(conn)
        conn.execute(f"GRANT {', '.join(CHECKPOINT_RIGHTS)} ON {', '.join(CHECKPOINT_TABLES)} TO {APP_ROLE}")
        conn.execute(f"GRANT SELECT ON checkpoint_migrations TO {APP_ROLE}")


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
