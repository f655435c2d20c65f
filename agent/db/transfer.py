"""`interview db import`: a team that began on one machine brings its data into the shared database.

On one machine every store is a file in the data dir: `sessions.sqlite` (the session index and
LangGraph's checkpoints), `overrides.sqlite` (the override log), `users.txt` and `reviewers.txt` (the
users and the reviewer role, as `python -m agent.ui --add-user NAME [--reviewer]` writes them), `ui-secret`
(the key that signs browser ids). The import copies each into the Postgres database of the same names,
each room its own part: users and the browser-id secret here, sessions and their checkpoints in agent/graph/transfer.py, the override log (re-chained) in
agent/overrides/transfer.py; agent/cli/db_cmd.py runs them in that order, after checking the sources.

Every part says what it did with each item (`Item`): imported, skipped (already there, the same), or
refused (a conflict: an item of that id is there with other contents; or the write failed): a refused
item is written not at all. Users are written in one transaction, each session in its own (its index
row, checkpoints, blobs and pending writes together), the override rows in one: a failure leaves
nothing half-imported, and a second run imports nothing twice.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent.db import DatabaseError, connect, redact
from agent.util.passwords import check_password, hash_password, is_hashed

USERS_FILE = "users.txt"
REVIEWERS_FILE = "reviewers.txt"
SECRET_FILE = "ui-secret"
"""The key that signs each browser's owner id, which the sessions started without a login belong to
(agent/ui/auth.py `browser_secret`): this file in the data dir on one machine; with the shared database,
the row of `interview_secrets` of this name, which the first replica to start writes when there is none."""
Kind = Literal["user", "session", "overrides", "secret"]
Status = Literal["imported", "skipped", "refused"]


class ImportRefused(DatabaseError):
    """The import was refused before anything was written (a source that does not verify, a schema that
    is not up to date, a role that does not own it); the message says which and what to do."""


@dataclass(frozen=True)
class Item:
    """What the import did (or, dry run, would do) with one user, one session or a run of override rows."""

    kind: Kind
    id: str
    status: Status
    detail: str = ""
    checkpoints: int = 0
    """a session's checkpoints (brought up to date: the ones added)"""
    checkpoints_skipped: int = 0
    """a session brought up to date: the checkpoints the database had already"""
    rows: int = 0
    """override rows"""

    def line(self, dry_run: bool) -> str:
        verb = {"imported": "would import" if dry_run else "imported", "skipped": "skipped"}.get(
            self.status, "would refuse" if dry_run else "refused"
        )
        label = {"overrides": "override", "secret": "browser-id secret"}.get(self.kind, self.kind)
        return f"{label} {self.id}: {verb}{': ' + self.detail if self.detail else ''}"


@dataclass(frozen=True)
class User:
    name: str
    secret: str
    """as users.txt has it: a pbkdf2 hash, or a password written plain"""
    reviewer: bool


def read_users(folder: Path) -> list[User]:
    """The users of a data dir, as the app reads them (agent/ui/auth.py): `users.txt`, one `name:secret`
    a line (a later line wins), `#` comments; the reviewer role from `reviewers.txt`, one name a line.
    A reviewer who is no user there is a user named with an empty secret (refused by `import_users`).
    A line that is not `name:secret` refuses the import, naming it."""
    users: dict[str, str] = {}
    path = folder / USERS_FILE
    if path.is_file():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, sep, secret = line.partition(":")
            name, secret = name.strip(), secret.strip()
            if not sep or not name or not secret:
                raise ImportRefused(f"{path}:{n}: expected name:password; nothing was imported")
            users[name] = secret
    reviewers: set[str] = set()
    path = folder / REVIEWERS_FILE
    if path.is_file():
        reviewers = {
            line.strip()
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        }
    return [User(n, users.get(n, ""), n in reviewers) for n in sorted({*users, *reviewers})]


def _same_secret(stored: str, given: str) -> bool:
    """`stored` (the database's) is `given` (users.txt's): the same text, or `given` is a plain password
    and `stored` its hash."""
    if stored == given:
        return True
    if is_hashed(given) or not is_hashed(stored):
        return False
    return check_password(stored, given)


def _bad_name(name: str) -> str | None:
    if ":" in name or name != name.strip() or not 1 <= len(name) <= 200:
        return "not a user name the database takes (1-200 characters, no colon, no surrounding spaces)"
    return None


def _user(u: User, got: dict[str, object] | None) -> tuple[Item, str | None]:
    """What to do with `u`, given the database's user of that name (`got`); the secret to store when it
    is to be imported."""
    role = ["reviewer"] if u.reviewer else []
    why = _bad_name(u.name)
    if why is None and not u.secret:
        why = f"in {REVIEWERS_FILE} but not in {USERS_FILE}: the reviewer role belongs to a user"
    if why is None and got is not None and not _same_secret(str(got["secret"]), u.secret):
        why = "a user of this name is in the database with another password"
    if why is None and got is not None and bool(got["reviewer"]) != u.reviewer:
        why = "in the database with the same password, but " + (
            "a reviewer there and not here" if got["reviewer"] else "not a reviewer there, one here"
        )
    if why is not None:
        return Item("user", u.name, "refused", why), None
    if got is not None:
        return Item("user", u.name, "skipped", ", ".join(["already in the database, the same", *role])), None
    if is_hashed(u.secret):
        return Item("user", u.name, "imported", ", ".join(role)), u.secret
    return Item("user", u.name, "imported", ", ".join(["password hashed", *role])), hash_password(u.secret)


def import_users(url: str, users: list[User], *, dry_run: bool = False) -> list[Item]:
    """Add the users the database lacks, with their reviewer role, in one transaction. A user it has with
    the same secret and role is skipped; with another secret or role, refused (nothing of it written)."""
    if not users:
        return []
    out: list[Item] = []
    new: list[tuple[str, str, bool]] = []
    try:
        with connect(url) as conn, conn.transaction():
            have = {
                str(r["name"]): r
                for r in conn.execute(
                    "SELECT name, secret, reviewer FROM interview_users WHERE name = ANY(%s) FOR UPDATE",
                    ([u.name for u in users],),
                )
            }
            for u in users:
                item, secret = _user(u, have.get(u.name))
                out.append(item)
                if secret is not None:
                    new.append((u.name, secret, u.reviewer))
            if new and not dry_run:
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO interview_users (name, secret, reviewer) VALUES (%s, %s, %s)", new
                    )
    except DatabaseError:
        raise
    except Exception as e:
        if not type(e).__module__.startswith("psycopg"):
            raise
        why = f"writing the users to {redact(url)} failed ({' '.join(str(e).split())}); no user was written"
        done = {i.id: i for i in out if i.status != "imported"}
        return [done.get(u.name) or Item("user", u.name, "refused", why) for u in users]
    return out


KEPT = (
    "the database has another one (the shared app made its own when a replica first started, or another "
    "machine's was imported), and it is kept: the browsers that used the shared app are known by it. So a "
    "browser that used this machine's app gets a new id on the shared app, and the sessions started without a "
    "login on this machine are in the database but not listed for it (their owner is its id here). To use "
    "this one instead, before any browser has used the shared app: as the owner run "
    f"`DELETE FROM interview_secrets WHERE name = '{SECRET_FILE}'`, import again, then restart the replicas "
    "(they read it when they start)"
)


def import_secret(url: str, path: Path, *, dry_run: bool = False) -> list[Item]:
    """The browser-id secret of the data dir (`path`: its `ui-secret`) into the database when it has none;
    skipped when it has the same; refused when it has another, which is kept (`KEPT` says what follows)."""

    def item(status: Status, detail: str) -> list[Item]:
        return [Item("secret", SECRET_FILE, status, detail)]

    try:
        value = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        return item("refused", f"{path} cannot be read ({e}); nothing of it was written")
    if not value:
        return item("refused", f"{path} is empty; nothing of it was written")
    try:
        with connect(url) as conn, conn.transaction():
            got = conn.execute(
                "SELECT value FROM interview_secrets WHERE name = %s FOR UPDATE", (SECRET_FILE,)
            ).fetchone()
            if got is not None:
                if hmac.compare_digest(str(got["value"]), value):
                    return item("skipped", "already in the database, the same")
                return item("refused", KEPT)
            if not dry_run:
                conn.execute(
                    "INSERT INTO interview_secrets (name, value) VALUES (%s, %s)", (SECRET_FILE, value)
                )
    except DatabaseError:
        raise
    except Exception as e:
        if not type(e).__module__.startswith("psycopg"):
            raise
        return item("refused", f"writing it to {redact(url)} failed ({' '.join(str(e).split())})")
    return item(
        "imported",
        "the shared app signs browser ids with this machine's key, so a browser that used the one-machine app "
        "at the same address keeps its id there, and with it the sessions it started without a login",
    )
