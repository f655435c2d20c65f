"""The override log in the shared Postgres database (`INTERVIEW_DATABASE_URL`): the backend of
`OverrideLog` (agent/overrides/log.py) there.

The tables, the PL/pgSQL functions and the triggers are those of
agent/db/migrations/postgres/0003_overrides.sql, and 0004_app_role.sql makes the functions that touch
the tables run as their owner with a fixed search_path; `check_triggers` compares what the database
has with those files: a trigger dropped, disabled, pointed at another function or added, and a
function whose body or those settings were changed, are each named by `interview override verify`.

The app's role may only read the log and append to it (0004_app_role.sql): it cannot disable the
triggers, nor UPDATE, DELETE or TRUNCATE. Writers take a transaction-level advisory lock first (no
UPDATE right needed, unlike `SELECT … FOR UPDATE` on `overrides_head`), so appends from several
replicas are serialized and each continues the chain.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from agent import db
from agent.db.migrate import MIGRATIONS_DIR, ensure
from agent.overrides.backend import LogBackend
from agent.overrides.chain import Problem, trigger_problems
from agent.overrides.model import OverrideLogError

MIGRATION = "0003_overrides.sql"
SECURITY = "0004_app_role.sql"
WRITE_LOCK = (0x696E7476, 0x6F766572)
"""The advisory lock writers hold ("intv", "over"): the two-key form, so it never meets the one-key
locks of migrations (agent/db/migrate.py) and sessions (agent/graph/lock.py)."""
TABLES = ("overrides", "overrides_meta", "overrides_head")
_TRIGGER = re.compile(r"CREATE TRIGGER (\w+) (.+?);", re.S)
_FUNCTION = re.compile(r"CREATE FUNCTION (\w+)\(\) RETURNS trigger LANGUAGE plpgsql AS \$\$(.*?)\$\$;", re.S)
_DEFINER = re.compile(r"ALTER FUNCTION (\w+)\(\) SECURITY DEFINER SET search_path = ([^']+)'")


def _norm(text: str) -> str:
    return " ".join(text.split())


@cache
def expected() -> tuple[dict[str, str], dict[str, str]]:
    """The triggers (name -> its CREATE TRIGGER statement, normalised) and the functions (name -> body)
    the migration creates."""
    sql = (MIGRATIONS_DIR / MIGRATION).read_text(encoding="utf-8")
    triggers = {
        m.group(1): _norm(f"CREATE TRIGGER {m.group(1)} {m.group(2)}") for m in _TRIGGER.finditer(sql)
    }
    functions = {m.group(1): _norm(m.group(2)) for m in _FUNCTION.finditer(sql)}
    return triggers, functions


@cache
def definers() -> dict[str, str]:
    """The functions 0004_app_role.sql makes SECURITY DEFINER -> their search_path, `%I` standing for
    the schema."""
    sql = (MIGRATIONS_DIR / SECURITY).read_text(encoding="utf-8")
    return {m.group(1): m.group(2).strip() for m in _DEFINER.finditer(sql)}


class _Conn:
    """A psycopg connection that takes `?` placeholders, as the SQLite one does."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Any = ()) -> Any:
        return self.conn.execute(db.qmark_to_pyformat(sql), tuple(args))


class PostgresLog(LogBackend):
    def __init__(self, url: str, timeout_s: float) -> None:
        self.url = url
        self.where = db.redact(url)
        self.timeout_s = timeout_s

    def exists(self) -> bool:
        return True  # the schema is migrated when a connection opens

    @contextmanager
    def connect(self, *, write: bool) -> Iterator[_Conn]:
        try:
            ensure(self.url)
        except db.DatabaseError as e:
            raise OverrideLogError(f"the override log: {e}") from e
        conn = db.connect(self.url, application_name=db.application_name("overrides"))
        with conn, conn.transaction():
            if write:
                conn.execute(
                    "SELECT set_config('lock_timeout', %s, true)", (f"{int(self.timeout_s * 1000)}ms",)
                )
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", WRITE_LOCK)
            else:  # one snapshot: rows, head and triggers as of one moment
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield _Conn(conn)

    def is_error(self, e: BaseException) -> bool:
        return isinstance(e, db.DatabaseError) or type(e).__module__.split(".")[0] == "psycopg"

    def explain(self, e: BaseException) -> str:
        why = " ".join(str(e).split())
        if "lock timeout" in why or "canceling statement due to lock" in why:
            return (
                f"the override log {self.where} is being written by another process "
                f"(waited {self.timeout_s:g} s); try again"
            )
        return f"the override log {self.where}: {why}"

    def last_number(self, conn: Any) -> int:
        r = conn.execute("SELECT last_id FROM overrides_head WHERE one").fetchone()
        return int(r["last_id"]) if r else 0

    def tables(self, conn: Any) -> set[str]:
        rows = conn.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') "
            "AND c.relnamespace = current_schema()::regnamespace"
        )
        return {str(r["relname"]) for r in rows}

    def columns(self, conn: Any) -> set[str]:
        rows = conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = 'overrides'"
        )
        return {str(r["column_name"]) for r in rows}

    def check_triggers(self, conn: Any) -> list[Problem]:
        want_triggers, want_functions = expected()
        found = {
            str(r["tgname"]): (_norm(str(r["def"])), str(r["tgenabled"]))
            for r in conn.execute(
                "SELECT t.tgname, t.tgenabled, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal "
                "AND c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(?)",
                (list(TABLES),),
            )
        }
        functions = {
            str(r["proname"]): (_norm(str(r["prosrc"])), bool(r["prosecdef"]), list(r["proconfig"] or []))
            for r in conn.execute(
                "SELECT proname, prosrc, prosecdef, proconfig FROM pg_proc "
                "WHERE pronamespace = current_schema()::regnamespace AND proname = ANY(?)",
                (list(want_functions),),
            )
        }
        r = conn.execute("SELECT current_schema() AS s, quote_ident(current_schema()) AS q").fetchone()
        schema = str(r["s"])
        settings = {f: [f"search_path={path.replace('%I', str(r['q']))}"] for f, path in definers().items()}
        altered = [
            n
            for n, want in want_triggers.items()
            if n in found and found[n][0].replace(f" ON {schema}.", " ON ") != want
        ]
        altered += [
            f"{f}()"
            for f, body in want_functions.items()
            if functions.get(f) != (body, f in settings, settings.get(f, []))
        ]
        return trigger_problems(
            missing=[n for n in want_triggers if n not in found],
            altered=altered,
            extra=[n for n in found if n not in want_triggers],
            disabled=[n for n in want_triggers if n in found and found[n][1] == "D"],
        )
