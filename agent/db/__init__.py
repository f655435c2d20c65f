"""The shared database: Postgres when `INTERVIEW_DATABASE_URL=postgresql://…` is set, else nothing.

Without the variable every store is a SQLite file in the data dir (one machine, the default). With it,
sessions (LangGraph's checkpoints and the session index), users, reviewers, the browser-id secret and
the override log live in that Postgres database, so several app processes (replicas, on one machine
or several) share them. The schema is versioned: numbered SQL files in
`agent/db/migrations/postgres/`, applied in order by `interview db migrate` as the role that owns the
schema; the app connects as a member of `interview_app`, which may read and write what the app needs
but not change the schema nor rewrite the override log, and on start only checks that the schema is up
to date (`agent/db/migrate.py`).
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ENV = "INTERVIEW_DATABASE_URL"
SCHEMES = ("postgresql", "postgres")


class DatabaseError(RuntimeError):
    """The shared database is misconfigured, unreachable or its schema cannot be used; the message
    says which database (password hidden) and what to do."""


def database_url() -> str | None:
    """`INTERVIEW_DATABASE_URL` when set (a postgresql:// or postgres:// URL), else None (SQLite)."""
    url = os.environ.get(ENV, "").strip()
    if not url:
        return None
    if urlsplit(url).scheme not in SCHEMES:
        raise DatabaseError(
            f"{ENV} must be a postgresql:// URL (got scheme {urlsplit(url).scheme or 'none'!r}); "
            "unset it to keep the SQLite files in the data dir"
        )
    return url


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = re.sub(r":[^@:]*@", ":***@", parts.netloc, count=1)
    return urlunsplit(parts._replace(netloc=netloc))


def application_name(extra: str = "") -> str:
    """What `pg_stat_activity` shows for this process's connections (at most 63 bytes)."""
    name = f"interview pid={os.getpid()}{' ' + extra if extra else ''}"
    return name[:63]


CONNECT_TIMEOUT_S = 30
"""How long a connection may take to be accepted. 10 s was too little on a machine saturated by other work
(a team replica stopped at start-up); a database that refuses connections is still reported at once."""


def connect(url: str, **kwargs: Any) -> Any:
    """A psycopg connection in autocommit mode whose rows are dicts."""
    import psycopg
    from psycopg.rows import dict_row

    try:
        return psycopg.connect(
            url,
            autocommit=True,
            row_factory=dict_row,
            prepare_threshold=None,
            application_name=kwargs.pop("application_name", application_name()),
            connect_timeout=kwargs.pop("connect_timeout", CONNECT_TIMEOUT_S),
            **kwargs,
        )
    except psycopg.OperationalError as e:
        raise DatabaseError(f"the database {redact(url)} cannot be reached: {_one_line(e)}") from e


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def qmark_to_pyformat(sql: str) -> str:
    """SQL written with sqlite3's `?` placeholders, for psycopg (`%s`); literal `%` doubled."""
    return sql.replace("%", "%%").replace("?", "%s")
