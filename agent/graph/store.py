"""Where sessions live: `data_dir()/sessions.sqlite`, or the shared Postgres database when
`INTERVIEW_DATABASE_URL` is set (`PostgresStore`). Both are a `SessionStore`: LangGraph's checkpointer,
the graph compiled on it and the session index, with the same SQL for the index.

SQLite: one file holds LangGraph's SQLite checkpointer (one `thread_id` per session: the session id) and a
small session index (id, plan, mode, language, status, owner, created/updated) that lists sessions
without loading every checkpoint. The file and its -wal/-shm are owner-only (0600).

Beside it, `sessions.sqlite.count` (0600) records how many sessions the store has held, written when a
session is saved (sessions are never deleted, so the count only grows). A store that holds fewer than
that was truncated, replaced or deleted: opening it is refused with a message saying so, and nothing
is written to it, so it never silently starts over (and a new session never takes an old one's id).
A count file that cannot be read gives no number: the message says it is unreadable, and a store beside
it that holds no session is refused all the same (the file is only written once a session is saved).
While a process has the store open it holds the data dir in use (agent/util/inuse.py), so `interview db
import` refuses to copy it meanwhile; while an import runs, opening the store is refused, saying so.

Postgres: LangGraph's `PostgresSaver` on a connection pool, and the `interview_sessions` table
(agent/db/migrations/postgres/0001_sessions.sql); the schema is migrated when the store opens
(`agent.db.migrate.ensure`). Every replica that points at the database sees every session.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from agent import db
from agent.config import COUNT_SIDECAR, data_dir, private_sqlite
from agent.graph.errors import SessionError, SessionStoreError
from agent.graph.interview import Graph, build
from agent.util import inuse

DB_NAME = "sessions.sqlite"
COUNT_SUFFIX = COUNT_SIDECAR
BUSY_TIMEOUT_S = 30.0
"""How long a call waits for another process's lock on the store before it gives up, clearly."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS interview_sessions (
    id TEXT PRIMARY KEY,
    plan TEXT NOT NULL,
    mode TEXT NOT NULL,
    language TEXT NOT NULL,
    status TEXT NOT NULL,
    owner TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
)
"""
_COLUMNS = "id, plan, mode, language, status, owner, created_at, updated_at"


@dataclass(frozen=True)
class SessionRow:
    id: str
    plan: str
    mode: str
    language: str
    status: str
    owner: str | None
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Recorded:
    """What the count file beside the store says."""

    sessions: int | None
    """how many sessions the store has held; None when the file cannot be read"""
    unreadable: str | None = None
    """why it cannot be read"""


def read_count(count_path: Path) -> Recorded | None:
    """What the count file beside a store says; None without one. A count file that cannot be read says no
    number (`Recorded.unreadable` says why), but still that the store held sessions: it is only written
    once one was saved."""
    try:
        text = count_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        return Recorded(None, "not UTF-8 text")
    except OSError as e:
        return Recorded(None, e.strerror or type(e).__name__)
    try:
        n = json.loads(text)["sessions"]
    except (ValueError, KeyError, TypeError):
        return Recorded(None, 'not {"sessions": N}')
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        return Recorded(None, f"no session count in it ({n!r})")
    return Recorded(n)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def explain(e: sqlite3.Error, path: Path, not_done: str = "nothing was changed") -> str:
    """A sentence a user can act on for a store that cannot be read or written."""
    msg = str(e).lower()
    if "locked" in msg or "busy" in msg:
        why = f"is locked by another process (waited {BUSY_TIMEOUT_S:g} s); try again when it is free"
    elif "readonly" in msg or "read-only" in msg:
        why = "is read-only (file or folder permissions)"
    elif "unable to open" in msg:
        why = "cannot be opened (missing folder or no permission)"
    elif "not a database" in msg or "malformed" in msg:
        why = f"is not a readable SQLite database ({e})"
    else:
        why = f"failed: {e}"
    return f"the session store {path} {why}: {not_done}"


def thread_config(session_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": session_id}, "recursion_limit": 200}


class SessionStore:
    """The checkpointer, the compiled graph on it, and the session index (the same SQL on both backends,
    written with `?` placeholders)."""

    saver: BaseCheckpointSaver[Any]
    graph: Graph
    where: str
    """the store as a message names it: a file, or a database URL without its password"""
    _duplicate: type[Exception]
    """what the index raises for a session id already taken"""

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _created(self) -> None:
        """After a session was added to the index."""

    def close(self) -> None:
        raise NotImplementedError

    def create(self, row: SessionRow) -> None:
        try:
            self._rows(
                f"INSERT INTO interview_sessions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.id,
                    row.plan,
                    row.mode,
                    row.language,
                    row.status,
                    row.owner,
                    row.created_at,
                    row.updated_at,
                ),
            )
        except self._duplicate as e:
            raise SessionError(f"session id {row.id!r} is already taken") from e
        self._created()

    def get(self, session_id: str) -> SessionRow | None:
        rows = self._rows(f"SELECT {_COLUMNS} FROM interview_sessions WHERE id = ?", (session_id,))
        return SessionRow(*rows[0]) if rows else None

    def set_status(self, session_id: str, status: str) -> None:
        self._rows(
            "UPDATE interview_sessions SET status = ?, updated_at = ? WHERE id = ?",
            (status, now_iso(), session_id),
        )

    def list(self, owner: str | None) -> list[SessionRow]:
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM interview_sessions WHERE owner IS NOT DISTINCT FROM ? "
            "ORDER BY updated_at DESC, id",
            (owner,),
        )
        return [SessionRow(*r) for r in rows]


class Store(SessionStore):
    """The SQLite store: `sessions.sqlite` in the data dir, and its count file."""

    _duplicate = sqlite3.IntegrityError
    saver: SqliteSaver

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self.count_path = path.with_name(path.name + COUNT_SUFFIX)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # held until close(): `interview db import` does not copy the data dir while it is open
            self._in_use = inuse.use(path.parent)
        except inuse.InUse as e:
            raise SessionStoreError(f"the session store {path} cannot be opened: {e}") from e
        except OSError as e:
            raise SessionStoreError(f"the session store {path} cannot be created: {e}") from e
        try:
            self._open(path)
        except BaseException:
            self._in_use.release()
            raise
        self.graph: Graph = build(self.saver)

    def _open(self, path: Path) -> None:
        try:
            recorded = self._recorded()
            if not path.exists() and recorded is not None:
                self._lost(None, recorded)  # deleted: refuse before creating a new one
            private_sqlite(path)
            self._index = sqlite3.connect(
                str(path), check_same_thread=False, timeout=BUSY_TIMEOUT_S, isolation_level=None
            )
            self._lock = threading.Lock()
            try:
                n = self._check_nothing_lost()  # before anything is written to the file
            except SessionStoreError:
                self._index.close()
                raise
            conn = sqlite3.connect(str(path), check_same_thread=False, timeout=BUSY_TIMEOUT_S)
            conn.execute("PRAGMA journal_mode=WAL")
            self.saver = SqliteSaver(conn)
            self.saver.setup()
            with self._lock:
                self._index.execute(_SCHEMA)
            if n:  # e.g. a store from before the count file: record it now (when the folder is writable)
                with contextlib.suppress(OSError):
                    self._record_count(n)
        except sqlite3.Error as e:
            raise SessionStoreError(explain(e, path, "sessions cannot be opened")) from e
        except OSError as e:
            raise SessionStoreError(f"the session store {path} cannot be created: {e}") from e

    def _count(self) -> int:
        """Sessions in the index; 0 when the file has no index table (empty or new)."""
        with self._lock:
            has = self._index.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'interview_sessions'"
            ).fetchone()
            return (
                int(self._index.execute("SELECT COUNT(*) FROM interview_sessions").fetchone()[0])
                if has
                else 0
            )

    def _recorded(self) -> Recorded | None:
        return read_count(self.count_path)

    def _check_nothing_lost(self) -> int:
        """The store's session count; SessionStoreError when it holds fewer than the count file says, or
        none beside a count file that cannot be read."""
        n = self._count()
        recorded = self._recorded()
        if recorded is not None and n < (recorded.sessions or 1):
            self._lost(n, recorded)
        return n

    def _lost(self, n: int | None, recorded: Recorded) -> None:
        size = self.path.stat().st_size if n is not None else None
        state = "is missing" if n is None else ("is empty (0 bytes)" if size == 0 else f"holds {n}")
        if recorded.sessions is None:
            held = (
                f"and the session count file {self.count_path} is unreadable ({recorded.unreadable}), so "
                "how many sessions it held is not known; that file is only written once a session is "
                "saved, so the store held sessions"
            )
        else:
            held = f"but held {recorded.sessions} session(s) (recorded in {self.count_path})"
        raise SessionStoreError(
            f"the session store {self.path} {state} {held}: it was truncated, replaced or deleted. "
            f"Nothing was changed and no session was started. Restore {self.path.name} from a backup; "
            f"or, to start over with no sessions, move {self.path.name} and {self.count_path.name} out "
            f"of {self.path.parent}"
        )

    def _record_count(self, n: int) -> None:
        """Write the count file (0600) atomically; it only ever grows (one that cannot be read is
        written again)."""
        recorded = self._recorded()
        if recorded is not None and recorded.sessions is not None and n <= recorded.sessions:
            return
        tmp = self.count_path.with_name(f"{self.count_path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"sessions": n}, f)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.count_path)
        finally:
            tmp.unlink(missing_ok=True)

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._index.execute(sql, args).fetchall())

    def _created(self) -> None:
        with contextlib.suppress(OSError):  # the session is saved; the count follows with the next one
            self._record_count(self._count())

    def close(self) -> None:
        self.saver.conn.close()
        self._index.close()
        self._in_use.release()


class PostgresStore(SessionStore):
    """The shared store: LangGraph's PostgresSaver on a connection pool, the index in `interview_sessions`."""

    def __init__(self, url: str, *, max_connections: int = 8) -> None:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        from agent.db.migrate import ensure

        self.url = url
        self.where = db.redact(url)
        self._duplicate = psycopg.errors.UniqueViolation
        try:
            ensure(url)
            self.pool: ConnectionPool[Any] = ConnectionPool(
                url,
                min_size=1,
                max_size=max_connections,
                kwargs={
                    "autocommit": True,
                    "prepare_threshold": None,
                    "row_factory": dict_row,
                    "application_name": db.application_name("sessions"),
                },
                open=False,
            )
            self.pool.open(wait=True, timeout=BUSY_TIMEOUT_S)
        except db.DatabaseError as e:
            raise SessionStoreError(f"the session store {e}: sessions cannot be opened") from e
        except Exception as e:
            err = store_error(e, "sessions cannot be opened")
            if err is None:
                raise
            raise err from e
        self.saver = PostgresSaver(self.pool)
        self.graph = build(self.saver)

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        from psycopg.rows import tuple_row

        with self.pool.connection() as conn, conn.cursor(row_factory=tuple_row) as cur:
            cur.execute(db.qmark_to_pyformat(sql), args)
            return list(cur.fetchall()) if cur.description else []

    def close(self) -> None:
        self.pool.close()


def store_error(e: BaseException, not_done: str) -> SessionStoreError | None:
    """A SessionStoreError that says what went wrong with the store and what was not done; None when `e`
    is not the store's (a bug elsewhere)."""
    if isinstance(e, sqlite3.Error):
        return SessionStoreError(explain(e, data_dir() / DB_NAME, not_done))
    if isinstance(e, db.DatabaseError):
        return SessionStoreError(f"the session store: {e}: {not_done}")
    if isinstance(e, Exception) and type(e).__module__.split(".")[0] in ("psycopg", "psycopg_pool"):
        url = db.database_url()
        where = db.redact(url) if url else "database"
        why = " ".join(str(e).split()) or type(e).__name__
        return SessionStoreError(f"the session store {where} failed: {why}: {not_done}")
    return None


_STORES: dict[Path | str, SessionStore] = {}
_STORES_LOCK = threading.Lock()


def open_store(path: Path | None = None) -> SessionStore:
    """The store for `path`, opened once per process. Without a path: the Postgres database in
    `INTERVIEW_DATABASE_URL` when set, else the data dir's sessions.sqlite."""
    url = None if path is not None else db.database_url()
    key: Path | str = url or (path or data_dir() / DB_NAME).resolve()
    with _STORES_LOCK:
        if key not in _STORES:
            _STORES[key] = PostgresStore(key) if isinstance(key, str) else Store(key)
        return _STORES[key]


def close_stores() -> None:
    """Close every store this process opened (connections, pools); the next call opens them again."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
        _STORES.clear()
    for st in stores:
        with contextlib.suppress(Exception):
            st.close()
