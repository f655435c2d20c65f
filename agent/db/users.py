"""Users, the reviewer role and shared secrets in the shared Postgres database
(agent/db/migrations/postgres/0002_users.sql), for agent/ui/auth.py: every replica reads the same users,
and a user or reviewer added on one is known to all at their next sign-in, without a restart."""

from __future__ import annotations

from typing import Any

from agent.db import connect
from agent.db.migrate import ensure


def _rows(url: str, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    ensure(url)
    with connect(url) as conn:
        cur = conn.execute(sql, args)
        return list(cur.fetchall()) if cur.description else []


def secret_of(url: str, name: str) -> str | None:
    """The stored secret (a pbkdf2 hash) of `name`, or None."""
    rows = _rows(url, "SELECT secret FROM interview_users WHERE name = %s", (name,))
    return str(rows[0]["secret"]) if rows else None


def names(url: str) -> list[str]:
    return [str(r["name"]) for r in _rows(url, "SELECT name FROM interview_users ORDER BY name")]


def put_user(url: str, name: str, secret: str) -> None:
    """Add `name`, or give an existing one this secret (as a later line of users.txt would)."""
    _rows(
        url,
        "INSERT INTO interview_users (name, secret) VALUES (%s, %s) "
        "ON CONFLICT (name) DO UPDATE SET secret = EXCLUDED.secret",
        (name, secret),
    )


def set_reviewer(url: str, name: str) -> bool:
    """Give `name` the reviewer role; False when there is no such user in the database."""
    return bool(
        _rows(url, "UPDATE interview_users SET reviewer = true WHERE name = %s RETURNING name", (name,))
    )


def is_reviewer(url: str, name: str) -> bool:
    return bool(_rows(url, "SELECT 1 FROM interview_users WHERE name = %s AND reviewer", (name,)))


def shared_secret(url: str, name: str, value: str) -> str:
    """The secret called `name`: `value` when none was stored yet (the first replica's wins)."""
    _rows(
        url,
        "INSERT INTO interview_secrets (name, value) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
        (name, value),
    )
    return str(_rows(url, "SELECT value FROM interview_secrets WHERE name = %s", (name,))[0]["value"])
