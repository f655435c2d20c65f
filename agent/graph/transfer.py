"""Sessions of one machine's store (`sessions.sqlite`) into the shared Postgres database, for `interview db
import` (agent/db/transfer.py has the whole picture).

The store is opened read-only and checked as the app checks it on open: one that holds fewer sessions
than its count file says it held (truncated, replaced) refuses the import (`check_source`). Each session
is then copied in one transaction of its own: its row of the session index as it is (owner, status,
dates), and every LangGraph checkpoint of its thread, oldest first, through the checkpointers' own API
(`SqliteSaver.list` read, `PostgresSaver.put` written: the checkpoint, its parent, its metadata and its
channel values, stored in Postgres's layout) with the pending writes of each as they were stored (each
task's under its task path and at its index; the interrupt a waiting session stands at among them).
So a session waiting at a question waits at it in the database, and `answer` resumes it there.

A session is skipped when the database has its row (the same plan, mode, language, owner and start)
and every checkpoint of it (more, when it went on in the database since the import); refused, nothing
of it written, when the database has another session of that id or checkpoints of that thread without a
session.

A session that went on here after it was imported (more answers on the one machine) is brought up to
date when the database's copy is an earlier state of it: the same session, its checkpoints the first of
this store's (oldest first), and nothing of its own since (no checkpoint, no pending write this store
lacks). Its newer checkpoints and their writes are added, with the writes the older ones gained here (a
resume), and its index row takes this store's status and last change, in one transaction under the
session's advisory lock (agent/graph/lock.py), so no replica answers it meanwhile. When both went on (the
database has a checkpoint or write this store lacks, and this store has checkpoints it lacks), the
session is refused by id and nothing of it is written: the shared app keeps the database's copy.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.sqlite import SqliteSaver

from agent import db
from agent.db.transfer import ImportRefused, Item
from agent.graph.store import _COLUMNS, BUSY_TIMEOUT_S, COUNT_SUFFIX, SessionRow, explain, read_count

_IDENTITY = ("plan", "mode", "language", "owner", "created_at")
"""What makes a session in the database the one imported (status and updated_at change as it goes on)."""


@contextmanager
def _source(
    path: Path, not_done: str = "nothing was imported"
) -> Iterator[tuple[sqlite3.Connection, SqliteSaver]]:
    """The store at `path`, read-only (nothing is created or changed in it), and a checkpointer over it."""
    if not path.is_file():
        raise ImportRefused(f"the session store {path} is not there: {not_done}")
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    except sqlite3.Error as e:
        raise ImportRefused(explain(e, path, not_done)) from e
    with closing(conn):
        saver = SqliteSaver(conn)
        saver.is_setup = True  # setup() writes: the tables are there, or the store has no sessions
        try:
            saver._has_task_path = "task_path" in _columns(conn, "writes")
        except sqlite3.Error as e:
            raise ImportRefused(explain(e, path, not_done)) from e
        yield conn, saver


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _rows(conn: sqlite3.Connection) -> list[SessionRow]:
    if "interview_sessions" not in _tables(conn):
        return []
    sql = f"SELECT {_COLUMNS} FROM interview_sessions ORDER BY created_at, id"
    return [SessionRow(*r) for r in conn.execute(sql)]


def check_source(path: Path) -> int:
    """How many sessions the store at `path` holds. ImportRefused when it cannot be read, or holds fewer
    than its count file says it held (as the app refuses to open it: agent/graph/store.py)."""
    with _source(path) as (conn, _):
        try:
            n = len(_rows(conn))
            tables = _tables(conn)
        except sqlite3.Error as e:
            raise ImportRefused(explain(e, path, "nothing was imported")) from e
    if n and "checkpoints" not in tables:
        raise ImportRefused(
            f"the session store {path} has a session index but no checkpoints; nothing was imported"
        )
    count = path.with_name(path.name + COUNT_SUFFIX)
    rec = read_count(count)
    if rec is not None and n < (rec.sessions or 1):
        held = (
            f"held {rec.sessions}"
            if rec.sessions
            else f"held sessions (its count file is unreadable: {rec.unreadable})"
        )
        raise ImportRefused(
            f"the session store {path} holds {n} session(s) but {held}, recorded in {count}: it was truncated "
            "or replaced; restore it from a backup. Nothing was imported"
        )
    return n


@dataclass
class _Session:
    """One session of the store, as read: its index row, its checkpoints oldest first (a checkpoint's
    parent before it), and each checkpoint's pending writes as stored (task, task path, index, channel,
    value): by index, since a special write (interrupt, resume) takes its own negative index and the
    others keep the place they had in their task's list."""

    row: SessionRow
    checkpoints: list[CheckpointTuple]
    writes: dict[tuple[str, str], list[tuple[str, str, int, str, Any]]]


def _read(src: sqlite3.Connection, saver: SqliteSaver, row: SessionRow) -> _Session:
    tuples = list(saver.list({"configurable": {"thread_id": row.id}}))
    tuples.reverse()
    writes: dict[tuple[str, str], list[tuple[str, str, int, str, Any]]] = {}
    if "writes" in _tables(src):
        task_path = "task_path" if "task_path" in _columns(src, "writes") else "''"
        for ns, cid, task_id, path, idx, channel, type_, value in src.execute(
            f"SELECT checkpoint_ns, checkpoint_id, task_id, {task_path}, idx, channel, type, value FROM writes "
            "WHERE thread_id = ? ORDER BY checkpoint_id, task_path, task_id, idx",
            (row.id,),
        ):
            value = saver.serde.loads_typed((type_, value))
            writes.setdefault((str(ns), str(cid)), []).append((task_id, path, int(idx), channel, value))
    return _Session(row, tuples, writes)


def import_sessions(path: Path, url: str, *, dry_run: bool = False) -> list[Item]:
    """Each session of the store at `path` into the database at `url`, one transaction each; what was
    done with each (dry run: what would be). A session that cannot be read is refused, the rest go on."""
    out: list[Item] = []
    with (
        _source(path, "no session was imported") as (src, saver),
        db.connect(url, application_name=db.application_name("import")) as conn,
    ):
        try:
            rows = _rows(src)
        except sqlite3.Error as e:
            raise ImportRefused(explain(e, path, "no session was imported")) from e
        for row in rows:
            try:
                session = _read(src, saver, row)
            except sqlite3.Error as e:
                why = f"reading it failed: {explain(e, path, 'nothing of it was written')}"
                out.append(Item("session", row.id, "refused", why))
                continue
            out.append(_one(conn, session, dry_run))
    return out


def _key(t: CheckpointTuple) -> tuple[str, str]:
    c = t.config["configurable"]
    return str(c.get("checkpoint_ns", "")), str(c["checkpoint_id"])


def _one(conn: Any, s: _Session, dry_run: bool) -> Item:
    row, n = s.row, len(s.checkpoints)
    try:
        with conn.transaction():
            got = conn.execute(
                f"SELECT {_COLUMNS} FROM interview_sessions WHERE id = %s FOR UPDATE", (row.id,)
            ).fetchone()
            there = _checkpoints(conn, row.id)
            mine = {_key(t) for t in s.checkpoints}
            verdict = _compare(row, None if got is None else SessionRow(**got), mine, there, n)
            if verdict is _NEWER:
                return _bring_up_to_date(conn, s, there, dry_run)
            if isinstance(verdict, Item):
                return verdict
            if not dry_run:
                _write(conn, s)
    except Exception as e:
        if not type(e).__module__.startswith("psycopg"):
            raise
        why = " ".join(str(e).split())
        return Item(
            "session",
            row.id,
            "refused",
            f"writing it failed ({why}); nothing of it was written",
            checkpoints=n,
        )
    return Item(
        "session",
        row.id,
        "imported",
        f"{n} checkpoint(s), {row.status}, owner {row.owner or 'none'}",
        checkpoints=n,
    )


_NEWER = object()
"""`_compare`: this store has checkpoints of the session the database lacks."""


def _compare(
    row: SessionRow, got: SessionRow | None, mine: set[tuple[str, str]], there: set[tuple[str, str]], n: int
) -> Item | object | None:
    """None: import it; `_NEWER`: it went on here since it was imported; else skipped or refused, and why."""
    if got is None and not there:
        return None
    if got is None:
        why = f"the database has {len(there)} checkpoint(s) of this thread but no session of this id"
        return Item("session", row.id, "refused", why, checkpoints=n)
    differ = [f for f in _IDENTITY if getattr(got, f) != getattr(row, f)]
    if differ:
        theirs = ", ".join(f"{f} {getattr(got, f)!r} (here {getattr(row, f)!r})" for f in differ)
        return Item(
            "session",
            row.id,
            "refused",
            f"another session of this id is in the database: {theirs}; nothing of it was written",
            checkpoints=n,
        )
    if mine - there:
        return _NEWER
    more = len(there - mine)
    since = f"; it went on in the database since ({more} more checkpoint(s))" if more else ", the same"
    return Item("session", row.id, "skipped", f"already in the database{since}", checkpoints=n)


def _bring_up_to_date(conn: Any, s: _Session, there: set[tuple[str, str]], dry_run: bool) -> Item:
    """The session went on here since it was imported (this store has checkpoints the database lacks):
    add them when the database's copy is an earlier state of it, else refuse, naming why."""
    from agent.graph.lock import _PgLocks

    row, n = s.row, len(s.checkpoints)

    def refused(why: str) -> Item:
        return Item("session", row.id, "refused", f"{why}; nothing of it was written", checkpoints=n)

    if not dry_run:  # no replica answers it while it is brought up to date
        ok = conn.execute("SELECT pg_try_advisory_xact_lock(%s) AS ok", (_PgLocks.number(row.id),)).fetchone()
        if not ok["ok"]:
            return refused("it is being answered on the shared app right now; run the import again")
        now = _checkpoints(conn, row.id)
        if now != there:
            return refused("it went on in the database while this import read it; run the import again")
    order = [_key(t) for t in s.checkpoints]
    mine, k = set(order), len(there)
    theirs = there - mine
    theirs_w: set[tuple[str, str, str, int]] = set()
    if not theirs:  # the database's pending writes of the checkpoints both have: all here too?
        ours = {(ns, cid, task, idx) for (ns, cid), ws in s.writes.items() for task, _, idx, _, _ in ws}
        theirs_w = {
            (str(r["checkpoint_ns"]), str(r["checkpoint_id"]), str(r["task_id"]), int(r["idx"]))
            for r in conn.execute(
                "SELECT checkpoint_ns, checkpoint_id, task_id, idx FROM checkpoint_writes WHERE thread_id = %s",
                (row.id,),
            )
        } - ours
    if theirs or theirs_w:
        own = f"{len(theirs)} checkpoint(s)" if theirs else f"{len(theirs_w)} pending write(s)"
        return refused(
            f"it went on both in the database ({own} there are not here) and on this machine "
            f"({len(mine - there)} checkpoint(s) here are not there) since it was imported: the database's copy "
            "stays as it is, and the answers given here since are not imported (they stay in this store)"
        )
    if set(order[:k]) != there:
        return refused(
            f"the database's {k} checkpoint(s) of it are not the first {k} of its {n} here: it is not an "
            "earlier state of this session"
        )
    if not dry_run:
        _put(conn, s, s.checkpoints[k:])
        _put(conn, s, s.checkpoints[:k], checkpoints_too=False)  # writes they gained here (a resume)
        conn.execute(
            "UPDATE interview_sessions SET status = %s, updated_at = %s WHERE id = %s",
            (row.status, row.updated_at, row.id),
        )
    return Item(
        "session",
        row.id,
        "imported",
        f"brought up to date: {n - k} newer checkpoint(s) from this machine (the database had the first {k} of "
        f"its {n}: an earlier state of it, with nothing of its own since), {row.status}, owner "
        f"{row.owner or 'none'}",
        checkpoints=n - k,
        checkpoints_skipped=k,
    )


def _checkpoints(conn: Any, thread: str) -> set[tuple[str, str]]:
    return {
        (str(r["checkpoint_ns"]), str(r["checkpoint_id"]))
        for r in conn.execute("SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = %s", (thread,))
    }


def _write(conn: Any, s: _Session) -> None:
    row = s.row
    conn.execute(
        f"INSERT INTO interview_sessions ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        (row.id, row.plan, row.mode, row.language, row.status, row.owner, row.created_at, row.updated_at),
    )
    _put(conn, s, s.checkpoints)


def _put(conn: Any, s: _Session, checkpoints: list[CheckpointTuple], *, checkpoints_too: bool = True) -> None:
    """`checkpoints` of `s` (oldest first) with their pending writes, as the checkpointer stores them; a
    write the database has already is left as it is."""
    from langgraph.checkpoint.postgres import PostgresSaver

    saver = PostgresSaver(conn)
    for t in checkpoints:
        ns, cid = _key(t)
        if checkpoints_too:
            parent = t.parent_config or {"configurable": {"thread_id": s.row.id, "checkpoint_ns": ns}}
            saver.put(parent, t.checkpoint, t.metadata, dict(t.checkpoint["channel_versions"]))
        writes = [
            (s.row.id, ns, cid, task_id, path, idx, channel, *saver.serde.dumps_typed(value))
            for task_id, path, idx, channel, value in s.writes.get((ns, cid), [])
        ]
        if writes:  # as `put_writes` stores them, each at the index it had
            with conn.cursor() as cur:
                cur.executemany(saver.INSERT_CHECKPOINT_WRITES_SQL, writes)
