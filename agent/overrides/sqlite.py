"""The override log in a SQLite file (`<data dir>/overrides.sqlite`): its tables, the triggers that keep
it append-only (`verify` finds one missing or altered: they are compared with `TRIGGERS`), and the
backend of `OverrideLog` there, which creates the file on first write and hashes a log from before the
chain then (agent/overrides/log.py has the whole picture)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.config import private_sqlite
from agent.overrides.backend import LogBackend
from agent.overrides.chain import GENESIS, Problem, chain_hash, trigger_problems
from agent.overrides.model import COLUMNS, OverrideLogError, stamp

_TABLES = """
CREATE TABLE IF NOT EXISTS overrides (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    transcript_id   TEXT    NOT NULL CHECK (length(transcript_id) BETWEEN 1 AND 200),
    round           TEXT    NOT NULL,
    dimension       TEXT    NOT NULL
                    CHECK (dimension IN ('accuracy','evidence','tradeoffs','validation','communication')),
    judge_score     INTEGER NOT NULL CHECK (judge_score BETWEEN 1 AND 5),
    human_score     INTEGER NOT NULL CHECK (human_score BETWEEN 1 AND 5),
    reason          TEXT    NOT NULL CHECK (length(trim(reason)) > 0),
    reviewer        TEXT    NOT NULL CHECK (length(trim(reviewer)) > 0),
    created_at      TEXT    NOT NULL,
    rubric_version  TEXT    NOT NULL,
    judge_model     TEXT    NOT NULL,
    judge_kind      TEXT    NOT NULL,
    prev_hash       TEXT,
    row_hash        TEXT
);
CREATE INDEX IF NOT EXISTS overrides_target ON overrides (transcript_id, round, dimension, id);
CREATE TABLE IF NOT EXISTS overrides_meta (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""
_NO_UPDATE = """CREATE TRIGGER IF NOT EXISTS overrides_no_update BEFORE UPDATE ON overrides
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: UPDATE is refused'); END;"""
TRIGGERS: dict[str, str] = {
    "overrides_no_update": _NO_UPDATE,
    "overrides_no_delete": """CREATE TRIGGER IF NOT EXISTS overrides_no_delete BEFORE DELETE ON overrides
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: DELETE is refused'); END;""",
    "overrides_no_replace": """CREATE TRIGGER IF NOT EXISTS overrides_no_replace BEFORE INSERT ON overrides
WHEN EXISTS (SELECT 1 FROM overrides WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: a row with this id exists (REPLACE is refused)'); END;""",
    "overrides_chain": f"""CREATE TRIGGER IF NOT EXISTS overrides_chain BEFORE INSERT ON overrides
WHEN NEW.row_hash IS NULL OR length(NEW.row_hash) != 64
  OR NEW.prev_hash IS NOT coalesce((SELECT row_hash FROM overrides ORDER BY id DESC LIMIT 1), '{GENESIS}')
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: a row must continue the hash chain'); END;""",
    "overrides_time": """CREATE TRIGGER IF NOT EXISTS overrides_time BEFORE INSERT ON overrides
WHEN NEW.created_at < (SELECT created_at FROM overrides ORDER BY id DESC LIMIT 1)
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: created_at must not go backwards'); END;""",
    "overrides_meta_no_update": """CREATE TRIGGER IF NOT EXISTS overrides_meta_no_update BEFORE UPDATE ON overrides_meta
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: UPDATE is refused'); END;""",
    "overrides_meta_no_delete": """CREATE TRIGGER IF NOT EXISTS overrides_meta_no_delete BEFORE DELETE ON overrides_meta
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: DELETE is refused'); END;""",
    "overrides_meta_no_replace": """CREATE TRIGGER IF NOT EXISTS overrides_meta_no_replace BEFORE INSERT ON overrides_meta
WHEN EXISTS (SELECT 1 FROM overrides_meta WHERE key = NEW.key)
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: REPLACE is refused'); END;""",
}
"""Every trigger the log needs, by name: `verify` finds one missing or altered."""


def _explain(e: sqlite3.Error, path: Path, waited_s: float) -> str:
    msg = str(e).lower()
    if "locked" in msg or "busy" in msg:
        return (
            f"the override log {path} is locked by another process "
            f"(waited {waited_s:g} s); try again when it is free"
        )
    if "readonly" in msg or "read-only" in msg:
        return f"the override log {path} is read-only (file or folder permissions); it cannot be written"
    if "unable to open" in msg:
        return f"the override log {path} cannot be opened (missing folder or no permission)"
    if "not a database" in msg or "malformed" in msg:
        return f"the override log {path} is not a readable SQLite database: {e}"
    return f"the override log {path}: {e}"


def _statements(script: str) -> list[str]:
    return [x.strip() for x in script.split(";") if x.strip()]


def _norm_sql(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace("IF NOT EXISTS ", "")).strip()
    return text.removesuffix(";").strip()


class SqliteLog(LogBackend):
    """The log in a SQLite file, created on first write; a log from before the chain is hashed then."""

    def __init__(self, path: Path, timeout_s: float, clock: Callable[[], datetime]) -> None:
        self.where = self.path = path
        self.timeout_s = timeout_s
        self.clock = clock

    def exists(self) -> bool:
        return self.path.exists()

    @contextmanager
    def connect(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """For `write`: one IMMEDIATE transaction, on a log whose rows are hashed."""
        private_sqlite(self.path, create=write)
        uri = f"{self.path.resolve().as_uri()}?mode={'rwc' if write else 'ro'}"
        try:
            with closing(
                sqlite3.connect(uri, uri=True, timeout=self.timeout_s, isolation_level=None)
            ) as conn:
                conn.row_factory = sqlite3.Row
                if not write:
                    yield conn
                    return
                conn.execute("BEGIN IMMEDIATE")
                try:
                    self._prepare(conn)
                    yield conn
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
        except sqlite3.Error as e:
            raise OverrideLogError(_explain(e, self.path, self.timeout_s)) from e

    def is_error(self, e: BaseException) -> bool:
        return isinstance(e, sqlite3.Error)

    def explain(self, e: BaseException) -> str:
        assert isinstance(e, sqlite3.Error)
        return _explain(e, self.path, self.timeout_s)

    def missing_table(self, e: BaseException) -> bool:
        return isinstance(e, sqlite3.OperationalError) and "no such table" in str(e)

    def last_number(self, conn: Any) -> int:
        seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'overrides'").fetchone()
        return int(seq["seq"]) if seq else 0

    def tables(self, conn: Any) -> set[str]:
        return {str(r["name"]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def columns(self, conn: Any) -> set[str]:
        return {str(r["name"]) for r in conn.execute("PRAGMA table_info(overrides)")}

    def check_triggers(self, conn: Any) -> list[Problem]:
        found = {
            str(r["name"]): str(r["sql"])
            for r in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
                "AND tbl_name IN ('overrides', 'overrides_meta')"
            )
        }
        return trigger_problems(
            missing=[n for n in TRIGGERS if n not in found],
            altered=[n for n in TRIGGERS if n in found and _norm_sql(found[n]) != _norm_sql(TRIGGERS[n])],
            extra=[n for n in found if n not in TRIGGERS],
            disabled=[],
        )

    def _prepare(self, conn: sqlite3.Connection) -> None:
        for stmt in _statements(_TABLES):
            conn.execute(stmt)
        if "row_hash" not in self.columns(conn):
            self._migrate(conn)
        for create in TRIGGERS.values():
            conn.execute(create)
        if conn.execute("SELECT 1 FROM overrides_meta WHERE key = 'chain'").fetchone() is None:
            conn.execute(
                "INSERT INTO overrides_meta (key, value, created_at) VALUES ('chain', ?, ?)",
                ("sha256 over canonical JSON of the row's columns and prev_hash, v1", stamp(self.clock())),
            )

    def _migrate(self, conn: sqlite3.Connection) -> None:
        """Hash a log written before the chain: every row in id order, once, recorded in overrides_meta."""
        conn.execute("ALTER TABLE overrides ADD COLUMN prev_hash TEXT")
        conn.execute("ALTER TABLE overrides ADD COLUMN row_hash TEXT")
        conn.execute("DROP TRIGGER IF EXISTS overrides_no_update")  # inside this transaction only
        prev, ids = GENESIS, []
        for r in conn.execute(f"SELECT {', '.join(COLUMNS)} FROM overrides ORDER BY id").fetchall():
            h = chain_hash(r, prev)
            conn.execute("UPDATE overrides SET prev_hash = ?, row_hash = ? WHERE id = ?", (prev, h, r["id"]))
            prev = h
            ids.append(int(r["id"]))
        conn.execute(TRIGGERS["overrides_no_update"])
        record = {
            "at": stamp(self.clock()),
            "rows": len(ids),
            "first_id": ids[0] if ids else None,
            "last_id": ids[-1] if ids else None,
            "head": prev,
        }
        conn.execute(
            "INSERT INTO overrides_meta (key, value, created_at) VALUES ('migrated', ?, ?)",
            (json.dumps(record), record["at"]),
        )
