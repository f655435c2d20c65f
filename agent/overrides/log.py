"""The override log: every human correction of a judge's score, append-only and tamper-evident: in SQLite
(`<data dir>/overrides.sqlite`), or in the shared Postgres database when `INTERVIEW_DATABASE_URL` is set
(`agent/overrides/postgres.py`, tables and triggers in agent/db/migrations/postgres/0003_overrides.sql).
One `OverrideLog` with the same chain, append and verification over either backend.

A correction is corrected only by a later row (the latest row for a round and dimension wins, see
`effective_scores`). What protects the rows:

- Triggers refuse UPDATE, DELETE, an INSERT that reuses an existing id (so `INSERT OR REPLACE`, which
  would delete the old row without firing the DELETE trigger, is refused too), an INSERT without the
  hash chain and an INSERT dated before the last row.
- A hash chain: each row stores `prev_hash` (the previous row's `row_hash`; 64 zeros for the first) and
  `row_hash` = SHA-256 of the canonical JSON of its columns and `prev_hash` (`chain_hash`). `created_at`
  is set by the log from its clock and never goes backwards.
- `verify()` (`interview override verify`) walks the chain and names the first row that breaks it, and
  how: changed, missing (deleted), inserted, backdated; and missing or altered triggers. An anchor (a
  row id and its hash, kept elsewhere) also catches a log rewritten and re-hashed from that row on.

Anyone who can write the file can drop the triggers; the chain makes what they then change visible to
`verify`, unless they rewrite and re-hash every row after the change: only an anchor kept outside the
file catches that. A log written before the chain existed is hashed once, in order, on its next write
(or `verify --migrate`); the migration is recorded, and those rows are evidence from then on only.

In Postgres the same holds, with PL/pgSQL triggers (UPDATE, DELETE and TRUNCATE refused; an INSERT
must continue the chain) and `overrides_head`, the highest row number ever written; a superuser can
disable the triggers, and `verify` then finds what they changed the same way (and a trigger disabled,
dropped or altered).

A log that cannot be written (locked by another process, read-only file or folder) raises
`OverrideLogError` with a message that says so and carries the row that was not written; nothing
already in the log is touched.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, closing, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from agent import config
from agent.config import private_sqlite
from agent.db import database_url
from agent.rubric.model import Dimension, RoundId

LOG_FILE = "overrides.sqlite"
BUSY_TIMEOUT_S = 5.0
GENESIS = "0" * 64
"""The `prev_hash` of the first row."""

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

COLUMNS: tuple[str, ...] = (
    "id",
    "transcript_id",
    "round",
    "dimension",
    "judge_score",
    "human_score",
    "reason",
    "reviewer",
    "created_at",
    "rubric_version",
    "judge_model",
    "judge_kind",
)


class OverrideLogError(RuntimeError):
    """The log could not be read or written; the message says why and what was not saved."""


class NewOverride(BaseModel):
    """What a reviewer submits: one dimension of one round of one report."""

    transcript_id: str = Field(
        min_length=1, max_length=200, description="the report's id: transcript or session"
    )
    round: RoundId
    dimension: Dimension
    judge_score: int = Field(ge=1, le=5)
    human_score: int = Field(ge=1, le=5)
    reason: str = Field(min_length=1, max_length=4000)
    reviewer: str = Field(min_length=1, max_length=200)
    rubric_version: str = Field(min_length=1, max_length=200)
    judge_model: str = Field(min_length=1, max_length=500)
    judge_kind: Literal["embedded", "vllm"]

    @field_validator("reason", "reviewer")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("must not be blank")
        return v


class Override(NewOverride):
    """A row of the log."""

    id: int
    created_at: str = Field(description="UTC, ISO 8601")


def default_path() -> Path:
    return config.data_dir() / LOG_FILE


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


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="seconds")


def chain_hash(row: Mapping[str, Any] | sqlite3.Row, prev_hash: str) -> str:
    """SHA-256 (hex) of the canonical JSON (sorted keys, no spaces, UTF-8) of the row's `COLUMNS` and
    `prev_hash`: the `row_hash` of a row whose predecessor's `row_hash` is `prev_hash`."""
    doc = {c: row[c] for c in COLUMNS}
    doc["prev_hash"] = prev_hash
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _statements(script: str) -> list[str]:
    return [x.strip() for x in script.split(";") if x.strip()]


def _norm_sql(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace("IF NOT EXISTS ", "")).strip()
    return text.removesuffix(";").strip()


ProblemKind = Literal["changed", "missing", "inserted", "backdated", "triggers", "anchor", "unchained"]


@dataclass(frozen=True)
class Problem:
    """What `verify` found wrong, and the row it concerns (None: the log as a whole)."""

    kind: ProblemKind
    detail: str
    row: int | None = None

    def __str__(self) -> str:
        return f"{f'row {self.row}: ' if self.row is not None else ''}{self.kind}: {self.detail}"


@dataclass
class Verification:
    """The result of `OverrideLog.verify`: intact when there is no problem."""

    path: Path | str
    """the SQLite file, or the database URL without its password"""
    rows: int = 0
    head: tuple[int, str] | None = None
    """the last row's id and `row_hash`: keep it elsewhere and pass it back as an anchor."""
    migrated: dict[str, Any] | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = [f"override log {self.path}"]
        if self.ok:
            out.append(f"intact: {self.rows} rows, hash chain and triggers as written by the log")
        else:
            out.append(f"FAILED: {len(self.problems)} problem(s); the first is where the chain breaks")
            out += [f"  {p}" for p in self.problems]
        if self.head:
            out.append(f"head: row {self.head[0]} {self.head[1]}")
        if self.migrated and self.migrated.get("rows"):
            m = self.migrated
            out.append(
                f"note: rows {m['first_id']}-{m['last_id']} were hashed when the log was migrated on {m['at']}; "
                "before then they were protected by the triggers only"
            )
        return out


def _span(first: int, last: int) -> str:
    return f"row {first} is missing" if first == last else f"rows {first}-{last} are missing"


def _walk(rows: list[Any], migrated_last_id: int) -> Problem | None:
    """The first row where the chain breaks, and how."""
    prev_id, prev_hash, prev_at = 0, GENESIS, ""
    for r in rows:
        rid = int(r["id"])
        gone = _span(prev_id + 1, rid - 1)
        if r["row_hash"] is None or r["prev_hash"] is None:
            return Problem("inserted", "this row has no hash: it was written around the log, not by it", rid)
        if chain_hash(r, r["prev_hash"]) != r["row_hash"]:
            return Problem(
                "changed", "its contents no longer match its hash: it was changed after it was written", rid
            )
        if r["prev_hash"] != prev_hash:
            if rid != prev_id + 1:
                return Problem(
                    "missing",
                    f"{gone} (deleted): row {rid} was chained to a row that is not there",
                    prev_id + 1,
                )
            after = f"row {prev_id}" if prev_id else "the start of the log"
            return Problem(
                "inserted",
                f"this row does not continue the chain after {after}: it was inserted, replaced or moved",
                rid,
            )
        if rid != prev_id + 1:
            return Problem("missing", f"{gone} (deleted) and the chain was re-made over the gap", prev_id + 1)
        if rid > migrated_last_id and str(r["created_at"]) < prev_at:
            return Problem(
                "backdated",
                f"dated {r['created_at']}, before row {prev_id} ({prev_at}): rows were backdated or reordered",
                rid,
            )
        prev_id, prev_hash, prev_at = rid, str(r["row_hash"]), str(r["created_at"])
    return None


def trigger_problems(
    missing: list[str], altered: list[str], extra: list[str], disabled: list[str]
) -> list[Problem]:
    """What `verify` says about the log's triggers, whatever the backend."""
    out = []
    for names, what in (
        (missing, "missing (dropped): the log could be rewritten while they were gone"),
        (altered, "altered: they no longer refuse what they should"),
        (disabled, "disabled: the log can be rewritten while they are"),
        (extra, "not the log's own: they may swallow or change rows"),
    ):
        if names:
            out.append(Problem("triggers", f"trigger(s) {', '.join(names)} {what}"))
    return out


class LogBackend:
    """Where the rows are: what `OverrideLog` needs of a database. Connections take SQL with `?`
    placeholders and give rows that are read by column name."""

    where: Path | str

    def exists(self) -> bool:
        raise NotImplementedError

    def connect(self, *, write: bool) -> AbstractContextManager[Any]:
        """A connection; for `write`, inside one transaction that no other writer shares (committed when
        the block ends), on a log whose tables and triggers are in place."""
        raise NotImplementedError

    def is_error(self, e: BaseException) -> bool:
        """`e` is the database's own error (locked, unreachable, refused)."""
        raise NotImplementedError

    def explain(self, e: BaseException) -> str:
        raise NotImplementedError

    def missing_table(self, e: BaseException) -> bool:
        return False

    def last_number(self, conn: Any) -> int:
        """The highest row number the log ever gave (rows deleted from the end included)."""
        raise NotImplementedError

    def tables(self, conn: Any) -> set[str]:
        raise NotImplementedError

    def columns(self, conn: Any) -> set[str]:
        raise NotImplementedError

    def check_triggers(self, conn: Any) -> list[Problem]:
        raise NotImplementedError

    def migrate(self) -> None:
        with self.connect(write=True):
            pass


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
                ("sha256 over canonical JSON of the row's columns and prev_hash, v1", _stamp(self.clock())),
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
            "at": _stamp(self.clock()),
            "rows": len(ids),
            "first_id": ids[0] if ids else None,
            "last_id": ids[-1] if ids else None,
            "head": prev,
        }
        conn.execute(
            "INSERT INTO overrides_meta (key, value, created_at) VALUES ('migrated', ?, ?)",
            (json.dumps(record), record["at"]),
        )


class OverrideLog:
    """The append-only log: at `path` (SQLite, created on first write); without a path, in the database
    of `INTERVIEW_DATABASE_URL` when set, else `<data dir>/overrides.sqlite`.

    `clock`: where `created_at` comes from (UTC now; tests pass their own). The caller of `append`
    cannot set it."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        timeout_s: float = BUSY_TIMEOUT_S,
        clock: Callable[[], datetime] = _now,
        url: str | None = None,
    ) -> None:
        url = url or (None if path is not None else database_url())
        self.timeout_s = timeout_s
        self.clock = clock
        self._db: LogBackend
        if url:
            from agent.overrides.postgres import PostgresLog

            self._db = PostgresLog(url, timeout_s)
            self.path: Path | None = None
        else:
            self.path = path or default_path()
            self._db = SqliteLog(self.path, timeout_s, clock)
        self.where = self._db.where
        """the SQLite file, or the database URL without its password"""

    @contextmanager
    def _connect(self, *, write: bool) -> Iterator[Any]:
        try:
            with self._db.connect(write=write) as conn:
                yield conn
        except OverrideLogError:
            raise
        except Exception as e:
            if not self._db.is_error(e):
                raise
            raise OverrideLogError(self._db.explain(e)) from e

    def migrate(self) -> None:
        """Create the log, or bring it up to date (SQLite: hash a log written before the chain existed;
        Postgres: the schema migrations); a no-op on a log that is up to date."""
        try:
            with self._connect(write=True):
                pass
        except OverrideLogError as e:
            raise OverrideLogError(f"{e}. The log was NOT migrated") from e

    def append(self, new: NewOverride) -> Override:
        """Write one row, dated and chained by the log; on failure nothing is written and the error
        carries the row as JSON."""
        values = new.model_dump()
        try:
            with self._connect(write=True) as conn:
                last = conn.execute(
                    "SELECT id, created_at, row_hash FROM overrides ORDER BY id DESC LIMIT 1"
                ).fetchone()
                row_id = max(self._db.last_number(conn), int(last["id"]) if last else 0) + 1
                created = _stamp(self.clock())
                if last is not None and str(last["created_at"]) > created:
                    created = str(last["created_at"])  # the clock went back: time in the log does not
                prev = str(last["row_hash"]) if last is not None else GENESIS
                row = {**values, "id": row_id, "created_at": created}
                h = chain_hash(row, prev)
                conn.execute(
                    f"INSERT INTO overrides ({', '.join(COLUMNS)}, prev_hash, row_hash) "
                    f"VALUES ({', '.join('?' for _ in COLUMNS)}, ?, ?)",
                    [*(row[c] for c in COLUMNS), prev, h],
                )
                kept = conn.execute("SELECT 1 FROM overrides WHERE id = ? AND row_hash = ?", (row_id, h))
                if kept.fetchone() is None:  # a trigger added around the log swallowed it
                    raise OverrideLogError(
                        f"the override log {self.where} did not keep the row (a trigger that is not the "
                        "log's ignored it); run `interview override verify`"
                    )
        except OverrideLogError as e:
            raise OverrideLogError(
                f"{e}. The override was NOT saved: {json.dumps(values, ensure_ascii=False)}"
            ) from e
        return Override(id=row_id, created_at=created, **values)

    def rows(self, transcript_id: str | None = None, *, limit: int | None = None) -> list[Override]:
        """Rows in the order they were written (oldest first); an absent log has none."""
        if not self._db.exists():
            return []
        sql = f"SELECT {', '.join(COLUMNS)} FROM overrides"
        args: list[object] = []
        if transcript_id is not None:
            sql += " WHERE transcript_id = ?"
            args.append(transcript_id)
        sql += " ORDER BY id"
        if limit is not None:
            sql = f"SELECT * FROM ({sql.replace('ORDER BY id', 'ORDER BY id DESC')} LIMIT ?) AS recent ORDER BY id"
            args.append(limit)
        with self._connect(write=False) as conn:
            try:
                cur = conn.execute(sql, args)
            except Exception as e:
                if self._db.missing_table(e):
                    return []
                raise
            return [Override.model_validate(dict(r)) for r in cur.fetchall()]

    def verify(self, *, anchor: tuple[int, str] | None = None) -> Verification:
        """Walk the hash chain and check the triggers (read only). `anchor`: a row id and the `row_hash`
        it had when its head was kept elsewhere; the row must still be there with that hash."""
        v = Verification(self.where)
        if self._db.exists():
            with self._connect(write=False) as conn:
                self._check(conn, v)
        if anchor is not None:
            aid, ahash = anchor
            if v.head is None or aid > v.head[0] or not self._has(aid, ahash):
                v.problems.append(
                    Problem(
                        "anchor", f"the anchor {aid}:{ahash[:12]}… is not in the log: it was rewritten", aid
                    )
                )
        return v

    def _has(self, row_id: int, row_hash: str) -> bool:
        with self._connect(write=False) as conn:
            r = conn.execute("SELECT row_hash FROM overrides WHERE id = ?", (row_id,)).fetchone()
        return r is not None and r["row_hash"] == row_hash

    def _check(self, conn: Any, v: Verification) -> None:
        tables = self._db.tables(conn)
        if "overrides" not in tables:
            return
        rows = conn.execute("SELECT * FROM overrides ORDER BY id").fetchall()
        v.rows = len(rows)
        if "row_hash" not in self._db.columns(conn):
            v.problems.append(
                Problem(
                    "unchained",
                    f"the log predates the hash chain: its {len(rows)} rows have no hash, so a change to them "
                    "cannot be seen; the next write (or `interview override verify --migrate`) hashes them",
                )
            )
            return
        if rows:
            v.head = (int(rows[-1]["id"]), str(rows[-1]["row_hash"]))
        if "overrides_meta" in tables:
            m = conn.execute("SELECT value FROM overrides_meta WHERE key = 'migrated'").fetchone()
            v.migrated = json.loads(m["value"]) if m else None
        broken = _walk(rows, int((v.migrated or {}).get("last_id") or 0))
        if broken:
            v.problems.append(broken)
        numbered = self._db.last_number(conn)
        last_id = int(rows[-1]["id"]) if rows else 0
        if numbered > last_id:
            v.problems.append(
                Problem(
                    "missing",
                    f"{_span(last_id + 1, numbered)} (deleted from the end): the log had numbered rows "
                    f"up to {numbered}",
                    last_id + 1,
                )
            )
        v.problems += self._db.check_triggers(conn)
