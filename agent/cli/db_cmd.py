"""`interview db migrate`: bring the shared Postgres database to the newest schema, connected as the role
that owns it (`--url postgresql://OWNER:…`), e.g. before replicas of a new version start. The app and
every command that opens the database only check on start that the schema is up to date (their role,
a member of interview_app, may not change it) and otherwise stop naming this command
(agent/db/migrate.py).

`interview db import --from-sqlite DIR_OR_FILE`: a team that began on one machine brings its SQLite
data dir (users, sessions with their checkpoints, the override log, the browser-id secret) into that
database, as the same owner role (agent/db/transfer.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from agent import db
from agent.db.transfer import ImportRefused, Item

app = typer.Typer(
    help="The shared Postgres database (INTERVIEW_DATABASE_URL): migrate its schema; import one machine's "
    "SQLite data dir into it.",
    no_args_is_help=True,
)

OwnerUrl = Annotated[
    str | None,
    typer.Option(
        "--url",
        help="the database, as the role that owns the schema (default: INTERVIEW_DATABASE_URL)",
    ),
]
"""`--url` of `db migrate` and `db import`: both change the schema's tables, as its owner."""


@app.command("migrate")
def migrate(
    url: OwnerUrl = None,
) -> None:
    """Apply the numbered schema migrations not yet applied, then the checkpointer's own, and grant the
    app's role its rights. Exit 0 up to date (checked read-only: any role may ask); 1 the database cannot
    be reached or migrated, or this role may not migrate it (said in one line); 2 no database is set."""
    err = _err()
    target = _target(url, err, "without it the stores are SQLite files in the data dir and need no migration")
    from agent.db.migrate import migrate as run

    try:
        outcome = run(target)
    except db.DatabaseError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from e
    for line in outcome.lines():
        print(line)


def _err() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _target(url: str | None, err: Console, without: str) -> str:
    """`--url`, else INTERVIEW_DATABASE_URL; exit 2 without either."""
    try:
        target = url or db.database_url()
    except db.DatabaseError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(2) from e
    if not target:
        err.print(
            f"[red]error:[/] no database: set {db.ENV}=postgresql://USER@HOST/DB (or pass --url); {without}"
        )
        raise typer.Exit(2)
    return target


@dataclass
class _Sources:
    """What a data dir (or one file of it) holds to import."""

    sessions: Path | None = None
    overrides: Path | None = None
    users: Path | None = None
    """the folder of users.txt and reviewers.txt"""
    secret: Path | None = None
    """the browser-id secret, `ui-secret`"""


def _sources(path: Path) -> _Sources:
    """The stores at `path`: a data dir (sessions.sqlite, overrides.sqlite, users.txt, reviewers.txt, each
    if there), or one SQLite file, a session store or an override log by its tables. Exit 2 otherwise."""
    import sqlite3
    from contextlib import closing

    from agent.db.transfer import REVIEWERS_FILE, SECRET_FILE, USERS_FILE
    from agent.graph.store import DB_NAME
    from agent.overrides.log import LOG_FILE

    if path.is_dir():
        found = _Sources(
            sessions=path / DB_NAME if (path / DB_NAME).is_file() else None,
            overrides=path / LOG_FILE if (path / LOG_FILE).is_file() else None,
            users=path if (path / USERS_FILE).is_file() or (path / REVIEWERS_FILE).is_file() else None,
            secret=path / SECRET_FILE if (path / SECRET_FILE).is_file() else None,
        )
        if found == _Sources():
            raise _usage(
                f"{path} holds none of {DB_NAME}, {LOG_FILE}, {USERS_FILE}, {REVIEWERS_FILE}, {SECRET_FILE}: "
                "nothing to import"
            )
        return found
    if not path.is_file():
        raise _usage(f"{path}: no such file or folder")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as e:
        raise _usage(f"{path} is not a SQLite store of this app ({e})") from e
    if "interview_sessions" in tables:
        return _Sources(sessions=path)
    if "overrides" in tables:
        return _Sources(overrides=path)
    raise _usage(f"{path} is neither a session store ({DB_NAME}) nor an override log ({LOG_FILE})")


@contextmanager
def _exclusive(folder: Path) -> Iterator[None]:
    """The data dir held exclusively (agent/util/inuse.py) for the block; ImportRefused, naming it and the
    processes that have it open, while the one-machine app or an `interview` command uses it."""
    from agent.util import inuse

    try:
        with inuse.exclusive(folder):
            yield
    except inuse.InUse as e:
        raise ImportRefused(
            f"{e}. Stop the one-machine app (and any `interview` command on that data dir) first: the import "
            "copies the data dir as it is, and what is written there meanwhile would be left out. Nothing was "
            "imported"
        ) from e


def _usage(message: str) -> typer.Exit:
    _err().print(f"[red]error:[/] {message}")
    return typer.Exit(2)


_KINDS = (
    ("users", "user"),
    ("sessions", "session"),
    ("checkpoints", "session"),
    ("override rows", "overrides"),
    ("browser-id secret", "secret"),
)


def _summary(items: list[Item], dry_run: bool) -> list[str]:
    out = ["summary (dry run: nothing was written):" if dry_run else "summary:"]
    for label, kind in _KINDS:
        n: Counter[str] = Counter()
        for i in items:
            if i.kind == kind:
                n[i.status] += (
                    i.checkpoints if label == "checkpoints" else (i.rows if kind == "overrides" else 1)
                )
                if label == "checkpoints":
                    n["skipped"] += i.checkpoints_skipped
        verb = "to import" if dry_run else "imported"
        out.append(f"  {label:<18}{n['imported']:>5} {verb}, {n['skipped']} skipped, {n['refused']} refused")
    return out


IMPORT_HELP = "\n\n".join(
    [
        "Import a one-machine SQLite data dir: users, sessions with their checkpoints, the override log, the "
        "browser-id secret (ui-secret: when the database has none; another one there is kept, the secret "
        "refused, and the report says what follows).",
        "Run it as the role that owns the schema (the URL `migrate` takes), after `migrate`. DIR_OR_FILE is "
        "the data dir (sessions.sqlite, overrides.sqlite, users.txt, reviewers.txt, ui-secret: what is there) or one "
        "of its .sqlite files. Stop the one-machine app first: the import holds the data dir for its whole "
        "run, and is refused while another process (the app, an `interview` command) has it open.",
        "The override log is verified first: one that does not verify refuses the import, naming its first "
        "bad row, and nothing is written. Its rows are appended in their original order, re-chained under "
        "the database's log, so `interview override verify` passes there; a row written before the "
        "database log's last row is dated at the import and keeps its own time as original_created_at.",
        "Users go in one transaction, each session (with its checkpoints) in its own, the override rows in "
        "one: a failure leaves nothing half-imported. What the database has already, the same, is skipped, "
        "so running it again imports nothing twice; a session id or user it has with other contents is "
        "refused by id, and nothing of it is written. A session answered further here after it was imported "
        "is brought up to date when the database's copy is an earlier state of it, refused by id when it "
        "went on in both. A short summary ends the output.",
        "Exit 0 nothing refused; 1 something refused, or the import refused (nothing written); 2 no "
        "database, or nothing to import.",
    ]
)


@app.command("import", help=IMPORT_HELP)
def import_(
    from_sqlite: Annotated[
        Path,
        typer.Option(
            "--from-sqlite",
            metavar="DIR_OR_FILE",
            help="the one-machine data dir, or one of its .sqlite files",
        ),
    ],
    url: OwnerUrl = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="say what would be imported, skipped and refused; write nothing")
    ] = False,
) -> None:
    """`IMPORT_HELP`: check the database and every source, then import users, sessions and the override log,
    printing what was done with each item as each part ends, and the summary."""
    err = _err()
    target = _target(url, err, "it names the database to import into")
    found = _sources(from_sqlite.expanduser())
    from agent.db.migrate import schema
    from agent.db.transfer import import_secret, import_users, read_users
    from agent.graph import transfer as sessions
    from agent.overrides import OverrideLog, OverrideLogError
    from agent.overrides import transfer as overrides

    items: list[Item] = []

    def report(done: list[Item]) -> None:
        items.extend(done)
        for i in done:
            print(i.line(dry_run))

    folder = from_sqlite.expanduser()
    folder = folder if folder.is_dir() else folder.parent
    try:
        # the one-machine app (or an `interview` command) must not write to the data dir meanwhile
        with _exclusive(folder):
            state = schema(target)
            if state.behind:
                raise ImportRefused(
                    f"the database {db.redact(target)} {' and '.join(state.behind)}: run `interview db migrate "
                    f"--url {db.redact(target)}` first; nothing was imported"
                )
            if not state.owned:
                raise ImportRefused(
                    f"the role {state.role} does not own the schema of {db.redact(target)} (its owner is "
                    f"{state.owner}): import as the owner, with the URL `interview db migrate --url` takes; "
                    "nothing was imported"
                )
            # every source is checked before anything is written
            rows = overrides.check_source(found.overrides) if found.overrides else []
            if found.sessions:
                sessions.check_source(found.sessions)
            users = read_users(found.users) if found.users else []
            report(import_users(target, users, dry_run=dry_run))
            if found.secret:
                report(import_secret(target, found.secret, dry_run=dry_run))
            if found.sessions:
                report(sessions.import_sessions(found.sessions, target, dry_run=dry_run))
            if found.overrides:
                report(overrides.import_log(found.overrides, rows, target, dry_run=dry_run))
    except db.DatabaseError as e:  # ImportRefused included
        if items:
            print("\n".join(_summary(items, dry_run)))
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from e
    print("\n".join(_summary(items, dry_run)))
    if not dry_run and any(i.kind == "overrides" and i.status == "imported" for i in items):
        try:
            v = OverrideLog(url=target).verify()
        except OverrideLogError as e:
            err.print(f"[red]error:[/] {e}")
            raise typer.Exit(1) from e
        print(f"override log {v.path}: " + (f"intact, {v.rows} rows" if v.ok else f"FAILED: {v.problems[0]}"))
        if not v.ok:
            raise typer.Exit(1)
    if any(i.status == "refused" for i in items):
        raise typer.Exit(1)
