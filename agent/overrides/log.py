"""The override log: every human correction of a judge's score, append-only and tamper-evident: in SQLite
(`<data dir>/overrides.sqlite`), or in the shared Postgres database when `INTERVIEW_DATABASE_URL` is set
(`agent/overrides/postgres.py`, tables and triggers in agent/db/migrations/postgres/0003_overrides.sql).
One `OverrideLog` with the same chain, append and verification over either backend.
The rows are pydantic contracts (`model.py`); the chain and what `verify` finds are `chain.py`; the
SQLite tables and triggers `sqlite.py`; what either backend must do `backend.py`.

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

- Beside a SQLite log, its `.count` file records how many rows it has held and its head, after each
  write (`sqlite.py`): a log that holds fewer (truncated, emptied, deleted) or whose head row lost its
  hash (replaced by another log) fails `verify`, and nothing is written onto it.

Anyone who can write the file can drop the triggers; the chain makes what they then change visible to
`verify`, unless they rewrite and re-hash every row after the change: only an anchor kept outside the
file catches that (anyone who can write the folder can rewrite the `.count` file too). A log written before the chain existed is hashed once, in order, on its next write
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

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent import config
from agent.db import database_url
from agent.overrides.backend import LogBackend
from agent.overrides.chain import GENESIS, Problem, Verification, chain_hash, missing_span, walk
from agent.overrides.model import COLUMNS, ORIGINAL, NewOverride, Override, OverrideLogError, stamp
from agent.overrides.sqlite import SqliteLog

LOG_FILE = "overrides.sqlite"
BUSY_TIMEOUT_S = 5.0


def default_path() -> Path:
    return config.data_dir() / LOG_FILE


def _now() -> datetime:
    return datetime.now(UTC)


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
                created = stamp(self.clock())
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
        args: list[object] = []
        where = ""
        if transcript_id is not None:
            where = " WHERE transcript_id = ?"
            args.append(transcript_id)
        if limit is not None:
            args.append(limit)
        with self._connect(write=False) as conn:
            try:
                # the Postgres log's imported rows keep their original time (0005_override_origin.sql)
                columns = [*COLUMNS, *([ORIGINAL] if ORIGINAL in self._db.columns(conn) else [])]
                sql = f"SELECT {', '.join(columns)} FROM overrides{where} ORDER BY id"
                if limit is not None:
                    sql = f"SELECT * FROM ({sql.replace('ORDER BY id', 'ORDER BY id DESC')} LIMIT ?) AS recent ORDER BY id"
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
                v.problems[:0] = self._db.lost(conn)  # rows lost, or another log: said first
        else:
            v.problems += self._db.lost(None)
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
        broken = walk(rows, int((v.migrated or {}).get("last_id") or 0))
        if broken:
            v.problems.append(broken)
        numbered = self._db.last_number(conn)
        last_id = int(rows[-1]["id"]) if rows else 0
        if numbered > last_id:
            v.problems.append(
                Problem(
                    "missing",
                    f"{missing_span(last_id + 1, numbered)} (deleted from the end): the log had numbered rows "
                    f"up to {numbered}",
                    last_id + 1,
                )
            )
        v.problems += self._db.check_triggers(conn)
