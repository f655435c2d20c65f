"""The override log of one machine (`overrides.sqlite`) into the shared Postgres log, for `interview db
import` (agent/db/transfer.py has the whole picture).

The SQLite log is verified first, as `interview override verify --log FILE` does, and the rows read are
walked again: a log that does not verify refuses the whole import, naming the first bad row
(`check_source`). Its rows are then appended to the Postgres log in their original order, with their
contents and dates as written, numbered after the rows already there and chained under the Postgres
log's hash chain (each row's `prev_hash` the row before it there, its `row_hash` over its new number),
so `interview override verify` passes on the database afterwards; all in one transaction under the
log's write lock, the same lock the app's appends take. Rows already in the database are never changed
or reordered.

The log's dates never go backwards. A row written before the database log's last row (a second machine
migrated after the team saved overrides on the shared app) is appended all the same, at the end of the
chain: its `created_at` is the import's time (or the last row's, if that is later), and the time it was
written in the SQLite log is kept in `original_created_at`, hashed with the row (agent/overrides/chain.py),
so `verify` passes and finds it changed. A row dated after the one before it keeps its own time. The
report names the rows re-dated and their original times, and says when such a row corrects a cell
(report, round, dimension) the database's log corrected later: appended after that correction, the older
one is then the effective score there (the latest row wins, `effective_scores`).

What came from where is kept in the log's own `overrides_meta` (which, like the rows, is never updated
or deleted): one row per import, key `import:<chain>:<last source row>`, whose value names the SQLite
log by its first row's hash (the chain), the source rows imported and the numbers they got. A second
import of the same log skips what the records cover (after checking that those rows in the database
still carry the contents of the source rows, their original times included) and appends only rows
added since. Rows are refused, nothing written, when the rows recorded as imported no longer match the
source.
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
from agent.overrides.model import COLUMNS, ORIGINAL, OverrideLogError, stamp
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
            first = max(pg.last_number(conn), int(last["id"]) if last else 0) + 1
            new = _dated(todo, first, str(last["created_at"]) if last else "", stamp(datetime.now(UTC)))
            ids = f"rows {first}-{first + len(todo) - 1}" if len(todo) > 1 else f"row {first}"
            detail = f"as {ids} of the database's log, re-chained"
            if any(r[ORIGINAL] for r in new):
                detail += _redated(conn, new, last)
            out.append(Item("overrides", what, "imported", detail, rows=len(todo)))
            if not dry_run:
                _append(conn, path, chain, todo, new, str(last["row_hash"]) if last else GENESIS)
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
        there = [
            {**r, "created_at": r[ORIGINAL] or r["created_at"]}  # a re-dated row: its time in the source
            for r in conn.execute(
                f"SELECT {', '.join(_CONTENT)}, {ORIGINAL} FROM overrides WHERE id BETWEEN ? AND ? ORDER BY id",
                (int(rec["first_id"]), int(rec["last_id"])),
            ).fetchall()
        ]
        if [tuple(r[c] for c in _CONTENT) for r in there] != [tuple(r[c] for c in _CONTENT) for r in source]:
            return done, (
                f"the rows {rec['first_id']}-{rec['last_id']} an earlier import wrote ({m['key']}) no longer match "
                f"source rows {first}-{last}: run `interview override verify` on the database"
            )
        done = max(done, by_id[last] + 1)
    return done, None


def _dated(todo: list[dict[str, Any]], first: int, last_at: str, now: str) -> list[dict[str, Any]]:
    """The rows to write: `todo`'s contents numbered from `first`, each dated by its own time when that is
    not before the row before it (`last_at`: the database log's last row), else by the import's (`now`, or
    the row before's when that is later), its own time then kept in `ORIGINAL`."""
    out = []
    for i, src in enumerate(todo):
        row = {**{c: src[c] for c in _CONTENT}, "id": first + i, ORIGINAL: None}
        own = str(src["created_at"])
        if own < last_at:
            row["created_at"], row[ORIGINAL] = max(now, last_at), own
        out.append(row)
        last_at = str(row["created_at"])
    return out


def _redated(conn: Any, new: list[dict[str, Any]], last: Any) -> str:
    """What the report says of the rows `_dated` re-dated: which, their original times, and the cells
    where such a row now stands after a later correction of the database's log."""
    moved = [r for r in new if r[ORIGINAL]]
    ids = f"rows {moved[0]['id']}-{moved[-1]['id']}" if len(moved) > 1 else f"row {moved[0]['id']}"
    span = moved[0][ORIGINAL] if len(moved) == 1 else f"{moved[0][ORIGINAL]} to {moved[-1][ORIGINAL]}"
    one = len(moved) == 1
    text = (
        f"; the database's log has a row dated {last['created_at']} (row {last['id']}) and its dates never go "
        f"backwards, so {ids} {'is' if one else 'are'} dated at this import ({moved[0]['created_at']}) and "
        f"{'keeps the time it was' if one else 'keep the times they were'} written here, {span}, as "
        "original_created_at"
    )
    later = []
    for r in moved:
        newer = conn.execute(
            f"SELECT id, coalesce({ORIGINAL}, created_at) AS at FROM overrides WHERE transcript_id = ? AND "
            f"round = ? AND dimension = ? AND coalesce({ORIGINAL}, created_at) > ? ORDER BY id DESC LIMIT 1",
            (r["transcript_id"], r["round"], r["dimension"], r[ORIGINAL]),
        ).fetchone()
        if newer is not None:
            later.append(
                f"row {r['id']} (written {r[ORIGINAL]}) now stands after row {newer['id']} ({newer['at']}) for "
                f"{r['transcript_id']} {r['round']} {r['dimension']}"
            )
    if later:
        text += (
            f". Note: {'; '.join(later)}: the later row of a cell is its effective score, so the older "
            "correction now counts there; save the newer one again on the shared app if it should stand"
        )
    return text


def _append(
    conn: Any, path: Path, chain: str, todo: list[dict[str, Any]], new: list[dict[str, Any]], prev: str
) -> None:
    """Write `new` (`_dated` from the source rows `todo`), chained after `prev`, and the import's record."""
    for row in new:
        h = chain_hash(row, prev)
        columns = [*COLUMNS, *([ORIGINAL] if row[ORIGINAL] else [])]
        conn.execute(
            f"INSERT INTO overrides ({', '.join(columns)}, prev_hash, row_hash) "
            f"VALUES ({', '.join('?' for _ in columns)}, ?, ?)",
            [*(row[c] for c in columns), prev, h],
        )
        prev = h
    at = stamp(datetime.now(UTC))
    record = {
        "from": str(path),
        "chain": chain,
        "source_first_id": int(todo[0]["id"]),
        "source_last_id": int(todo[-1]["id"]),
        "source_head": str(todo[-1]["row_hash"]),
        "first_id": int(new[0]["id"]),
        "last_id": int(new[-1]["id"]),
        "rows": len(todo),
        "redated": sum(1 for r in new if r[ORIGINAL]),
        "at": at,
    }
    conn.execute(
        "INSERT INTO overrides_meta (key, value, created_at) VALUES (?, ?, ?)",
        (f"{KEY}{chain}:{record['source_last_id']}", json.dumps(record), at),
    )
