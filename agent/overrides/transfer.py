"""The override log of one machine (`overrides.sqlite`) into the shared Postgres log, for `interview db
import` (agent/db/transfer.py has the whole picture).

The SQLite log is verified first, as `interview override verify --log FILE` does, and the rows read are
walked again: a log that does not verify refuses the whole import, naming the first bad row
(`check_source`). Its rows are then appended to the Postgres log in their original order, with their
contents and dates as written, numbered after the rows already there and chained under the Postgres
log's hash chain (each row's `prev_hash` the row before it there, its `row_hash` over its new number),
so `interview override verify` passes on the database afterwards; all in one transaction under the
log's write lock, the same lock the app's appends take.

What came from where is kept in the log's own `overrides_meta` (which, like the rows, is never updated
or deleted): one row per import, key `import:<chain>:<last source row>`, whose value names the SQLite
log by its first row's hash (the chain), the source rows imported and the numbers they got. A second
import of the same log skips what the records cover (after checking that those rows in the database
still carry the contents of the source rows) and appends only rows added since. Rows are refused,
nothing written, when the Postgres log already has a row dated after the first row to import (its
dates must not go backwards: import before the team writes overrides there) or the rows recorded as
imported no longer match the source.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.db.transfer import ImportRefused, Item
from agent.overrides.chain import GENESIS, chain_hash, walk
from agent.overrides.log import BUSY_TIMEOUT_S, OverrideLog
from agent.overrides.model import COLUMNS, OverrideLogError, stamp
from agent.overrides.postgres import PostgresLog

KEY = "import:"
_CONTENT = tuple(c for c in COLUMNS if c != "id")


def check_source(path: Path) -> list[dict[str, Any]]:
    """The rows of the SQLite log at `path`, oldest first, verified. ImportRefused, naming the first bad
    row, when the log does not verify (or cannot be read)."""
    try:
        v = OverrideLog(path).verify()
    except OverrideLogError as e:
        raise ImportRefused(f"{e}; nothing was imported") from e
    if not v.ok:
        raise ImportRefused(
            f"the override log {path} does not verify: {v.problems[0]}. Nothing was imported; "
            f"`interview override verify --log {path}` lists every problem"
        )
    if not path.exists():
        return []
    try:
        with closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
        ) as conn:
            conn.row_factory = sqlite3.Row
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "overrides" not in tables:
                return []
            rows = [dict(r) for r in conn.execute("SELECT * FROM overrides ORDER BY id")]
            m = None
            if "overrides_meta" in tables:
                m = conn.execute("SELECT value FROM overrides_meta WHERE key = 'migrated'").fetchone()
    except sqlite3.Error as e:
        raise ImportRefused(f"the override log {path} cannot be read: {e}; nothing was imported") from e
    broken = walk(rows, int(json.loads(m["value"]).get("last_id") or 0) if m else 0)
    if broken is not None:  # written between the verification and this read
        raise ImportRefused(f"the override log {path} does not verify: {broken}. Nothing was imported")
    return rows


def import_log(path: Path, rows: list[dict[str, Any]], url: str, *, dry_run: bool = False) -> list[Item]:
    """Append the verified `rows` of the log at `path` (from `check_source`) to the Postgres log at `url`
    that it lacks, re-chained, in one transaction; what was done (dry run: what would be)."""
    if not rows:
        return []
    chain = str(rows[0]["row_hash"])
    where = f"{{}} ({path.name}, chain {chain[:12]}…)"
    pg = PostgresLog(url, BUSY_TIMEOUT_S)
    out: list[Item] = []
    todo = rows
    try:
        with pg.connect(write=not dry_run) as conn:
            done, refused = _imported(conn, chain, rows)
            if refused:
                return [Item("overrides", where.format(_span(rows)), "refused", refused, rows=len(rows))]
            if done:
                out.append(
                    Item(
                        "overrides",
                        where.format(_span(rows[:done])),
                        "skipped",
                        "imported before, the same in the database",
                        rows=done,
                    )
                )
            todo = rows[done:]
            if not todo:
                return out
            what = where.format(_span(todo))
            last = conn.execute(
                "SELECT id, created_at, row_hash FROM overrides ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if last is not None and str(last["created_at"]) > str(todo[0]["created_at"]):
                why = (
                    f"the database's log has a row dated {last['created_at']} (row {last['id']}), after the "
                    f"first row to import ({todo[0]['created_at']}): dates in the log must not go backwards, so "
                    "these rows cannot be appended in their order; nothing of them was written"
                )
                return [*out, Item("overrides", what, "refused", why, rows=len(todo))]
            first = max(pg.last_number(conn), int(last["id"]) if last else 0) + 1
            ids = f"rows {first}-{first + len(todo) - 1}" if len(todo) > 1 else f"row {first}"
            out.append(
                Item(
                    "overrides",
                    what,
                    "imported",
                    f"as {ids} of the database's log, re-chained",
                    rows=len(todo),
                )
            )
            if not dry_run:
                _append(conn, path, chain, todo, first, str(last["row_hash"]) if last else GENESIS)
    except Exception as e:
        if not isinstance(e, OverrideLogError) and not pg.is_error(e):
            raise
        why = f"{e if isinstance(e, OverrideLogError) else pg.explain(e)}; nothing of them was written"
        failed = Item("overrides", where.format(_span(todo)), "refused", why, rows=len(todo))
        return [*(i for i in out if i.status != "imported"), failed]
    return out


def _span(rows: list[dict[str, Any]]) -> str:
    a, b = int(rows[0]["id"]), int(rows[-1]["id"])
    return f"row {a}" if a == b else f"rows {a}-{b}"


def _imported(conn: Any, chain: str, rows: list[dict[str, Any]]) -> tuple[int, str | None]:
    """How many of `rows` (from the first) earlier imports of this log wrote, and why they refuse the rest
    (None: they do not)."""
    done = 0
    by_id = {int(r["id"]): i for i, r in enumerate(rows)}
    for m in conn.execute(
        "SELECT key, value FROM overrides_meta WHERE key LIKE ? ORDER BY key", (f"{KEY}{chain}:%",)
    ):
        rec = json.loads(m["value"])
        first, last = int(rec["source_first_id"]), int(rec["source_last_id"])
        if (
            first not in by_id
            or last not in by_id
            or str(rows[by_id[last]]["row_hash"]) != rec["source_head"]
        ):
            return done, (
                f"an import recorded in the database ({m['key']}) took source rows {first}-{last} with head "
                f"{str(rec['source_head'])[:12]}…, which this log does not have: it is not the log imported then"
            )
        source = rows[by_id[first] : by_id[last] + 1]
        there = conn.execute(
            f"SELECT {', '.join(_CONTENT)} FROM overrides WHERE id BETWEEN ? AND ? ORDER BY id",
            (int(rec["first_id"]), int(rec["last_id"])),
        ).fetchall()
        if [tuple(r[c] for c in _CONTENT) for r in there] != [tuple(r[c] for c in _CONTENT) for r in source]:
            return done, (
                f"the rows {rec['first_id']}-{rec['last_id']} an earlier import wrote ({m['key']}) no longer match "
                f"source rows {first}-{last}: run `interview override verify` on the database"
            )
        done = max(done, by_id[last] + 1)
    return done, None


def _append(conn: Any, path: Path, chain: str, todo: list[dict[str, Any]], first: int, prev: str) -> None:
    for i, src in enumerate(todo):
        row = {**{c: src[c] for c in _CONTENT}, "id": first + i}
        h = chain_hash(row, prev)
        conn.execute(
            f"INSERT INTO overrides ({', '.join(COLUMNS)}, prev_hash, row_hash) "
            f"VALUES ({', '.join('?' for _ in COLUMNS)}, ?, ?)",
            [*(row[c] for c in COLUMNS), prev, h],
        )
        prev = h
    at = stamp(datetime.now(UTC))
    record = {
        "from": str(path),
        "chain": chain,
        "source_first_id": int(todo[0]["id"]),
        "source_last_id": int(todo[-1]["id"]),
        "source_head": str(todo[-1]["row_hash"]),
        "first_id": first,
        "last_id": first + len(todo) - 1,
        "rows": len(todo),
        "at": at,
    }
    conn.execute(
        "INSERT INTO overrides_meta (key, value, created_at) VALUES (?, ?, ?)",
        (f"{KEY}{chain}:{record['source_last_id']}", json.dumps(record), at),
    )
