"""The override log in a SQLite file (`<data dir>/overrides.sqlite`): its tables, the triggers that keep
it append-only (`verify` finds one missing or altered: they are compared with `TRIGGERS`), and the
backend of `OverrideLog` there, which creates the file on first write and hashes a log from before the
chain then (agent/overrides/log.py has the whole picture).

Beside the file, `overrides.sqlite.count` (0600) records how many rows the log has held and its head (the
last row's id and `row_hash`), replaced in one step (written, synced, renamed) after each write that
committed. Rows are never deleted, so the count only grows: a log that holds fewer rows than that (the
file truncated, replaced by an empty one or deleted) or whose recorded head row no longer has its hash
(the file replaced by another log) fails `verify`, and nothing is written onto it. The file may lag one
write behind (two writers racing, or the write of it failed), never run ahead. A log with no count file
beside it (new, or from before it) is not compared; its next write records it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import weakref
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from agent.config import COUNT_SIDECAR, private_sqlite
from agent.overrides.backend import LogBackend
from agent.overrides.chain import GENESIS, Problem, chain_hash, trigger_problems
from agent.overrides.model import COLUMNS, OverrideLogError, stamp
from agent.util import inuse
from agent.util.files import atomic_replace

COUNT_SUFFIX = COUNT_SIDECAR

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


class Recorded(NamedTuple):
    """What the count file beside the log says."""

    rows: int | None
    """how many rows the log has held; None when the file cannot be read"""
    head: tuple[int, str] | None = None
    """the last row's id and `row_hash` when it was written"""
    unreadable: str | None = None
    """why the file cannot be read"""


class SqliteLog(LogBackend):
    """The log in a SQLite file, created on first write; a log from before the chain is hashed then."""

    def __init__(self, path: Path, timeout_s: float, clock: Callable[[], datetime]) -> None:
        self.where = self.path = path
        self.count_path = path.with_name(path.name + COUNT_SUFFIX)
        self.timeout_s = timeout_s
        self.clock = clock
        # the folder is in use while this log is (the app makes its log at start), so `interview db
        # import` does not copy it meanwhile (agent/util/inuse.py); during an import, a write says so
        with contextlib.suppress(inuse.InUse):
            weakref.finalize(self, inuse.use(path.parent).release)

    def exists(self) -> bool:
        return self.path.exists()

    @contextmanager
    def connect(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """For `write`: one IMMEDIATE transaction, on a log whose rows are hashed; refused while `interview
        db import` copies the folder."""
        if not write:
            with self._connect(write=False) as conn:
                yield conn
            return
        try:
            held = inuse.use(self.path.parent)
        except inuse.InUse as e:
            raise OverrideLogError(f"the override log {self.path} cannot be written: {e}") from e
        try:
            with self._connect(write=True) as conn:
                yield conn
        finally:
            held.release()

    @contextmanager
    def _connect(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        if write and not self.path.exists():
            self._refuse(self.lost(None))  # deleted: refused before a new, empty log is created
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
                    self._refuse(self.lost(conn))  # before anything is written to the file
                    self._prepare(conn)
                    yield conn
                    held = self._held(conn)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                with contextlib.suppress(OSError):  # committed; the count follows with the next write
                    self._record(*held)
        except sqlite3.Error as e:
            raise OverrideLogError(_explain(e, self.path, self.timeout_s)) from e

    def recorded(self) -> Recorded | None:
        """What the count file says; None without one."""
        try:
            text = self.count_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError:
            return Recorded(None, unreadable="not UTF-8 text")
        except OSError as e:
            return Recorded(None, unreadable=e.strerror or type(e).__name__)
        try:
            doc = json.loads(text)
            n, (head_id, head_hash) = doc["rows"], doc["head"]
        except (ValueError, KeyError, TypeError):
            return Recorded(None, unreadable='not {"rows": N, "head": [ID, HASH]}')
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in (n, head_id)):
            return Recorded(None, unreadable=f"no row count in it ({n!r}, {head_id!r})")
        if not isinstance(head_hash, str) or len(head_hash) != 64:
            return Recorded(None, unreadable="no head hash in it")
        return Recorded(n, (head_id, head_hash))

    def lost(self, conn: Any | None) -> list[Problem]:
        rec = self.recorded()
        if rec is None:
            return []  # a new log, or one from before the count file: nothing to compare
        if conn is None:
            n, state = 0, "is missing"
        else:
            n = self._held(conn)[0]
            empty = self.path.stat().st_size == 0
            state = "is empty (0 bytes)" if empty else f"holds {n} row(s)"
        where = f"the log {self.path} {state}"
        lost = (
            "rows were lost (the file was truncated, replaced or deleted). Restore it from a backup; or, to "
            f"start a new log, move {self.path.name} and {self.count_path.name} out of {self.path.parent}"
        )
        if rec.rows is None:
            unreadable = f"its row count file {self.count_path} is unreadable ({rec.unreadable})"
            if n == 0:  # the count file is only written once a row was saved
                return [
                    Problem(
                        "lost",
                        f"{where} and {unreadable}; that file is only written once a row was saved, so {lost}",
                    )
                ]
            return [
                Problem(
                    "record",
                    f"{unreadable}: whether rows were lost cannot be told; the next write records the count again",
                )
            ]
        if n < rec.rows:
            return [
                Problem("lost", f"{where} but held {rec.rows} row(s) (recorded in {self.count_path}): {lost}")
            ]
        head_id, head_hash = rec.head or (0, "")
        assert conn is not None  # n >= rec.rows >= 1
        chained = "row_hash" in self.columns(conn)  # an unchained file is an older log put in its place
        have = chained and conn.execute("SELECT row_hash FROM overrides WHERE id = ?", (head_id,)).fetchone()
        if not have or have["row_hash"] != head_hash:
            return [
                Problem(
                    "replaced",
                    f"it does not have the hash {head_hash[:12]}… recorded for it in {self.count_path}: the "
                    "log was replaced by another one, or rewritten and re-hashed",
                    head_id,
                )
            ]
        return []

    def _refuse(self, problems: list[Problem]) -> None:
        """Nothing is written onto a log that lost rows or was replaced."""
        for p in problems:
            if p.kind in (
                "lost",
                "replaced",
            ):  # a lost log's detail names the file; a replaced one's, the row
                what = (
                    f"the override log {self.path}: row {p.row}: " if p.row is not None else "the override "
                )
                detail = p.detail if p.row is not None else p.detail.removeprefix("the ")
                raise OverrideLogError(f"{what}{detail}. Nothing was written")

    def _held(self, conn: Any) -> tuple[int, tuple[int, str] | None]:
        """The rows in the log and its head (the last row's id and hash); (0, None) for a file without
        the table."""
        if "overrides" not in self.tables(conn):
            return 0, None
        n = int(conn.execute("SELECT count(*) FROM overrides").fetchone()[0])
        if "row_hash" not in self.columns(conn):
            return n, None
        last = conn.execute("SELECT id, row_hash FROM overrides ORDER BY id DESC LIMIT 1").fetchone()
        return n, (int(last["id"]), str(last["row_hash"])) if last and last["row_hash"] else None

    def _record(self, n: int, head: tuple[int, str] | None) -> None:
        """Write the count file (0600): in one step, synced; it only ever grows (one that cannot be read
        is written again)."""
        rec = self.recorded()
        if head is None or (rec is not None and rec.rows is not None and n <= rec.rows):
            return
        with atomic_replace(self.count_path) as tmp, tmp.open("w", encoding="utf-8") as f:
            json.dump({"rows": n, "head": list(head)}, f)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())

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
