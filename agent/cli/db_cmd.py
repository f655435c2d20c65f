"""`interview db migrate`: bring the shared Postgres database to the newest schema, connected as the role
that owns it (`--url postgresql://OWNER:…`), e.g. before replicas of a new version start. The app and
every command that opens the database only check on start that the schema is up to date (their role,
a member of interview_app, may not change it) and otherwise stop naming this command
(agent/db/migrate.py)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from agent import db

app = typer.Typer(help="The shared Postgres database (INTERVIEW_DATABASE_URL).", no_args_is_help=True)


@app.command("migrate")
def migrate(
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="the database, as the role that owns the schema (default: INTERVIEW_DATABASE_URL)",
        ),
    ] = None,
) -> None:
    """Apply the numbered schema migrations not yet applied, then the checkpointer's own, and grant the
    app's role its rights. Exit 0 up to date (checked read-only: any role may ask); 1 the database cannot
    be reached or migrated, or this role may not migrate it (said in one line); 2 no database is set."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        target = url or db.database_url()
    except db.DatabaseError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(2) from e
    if not target:
        err.print(
            f"[red]error:[/] no database: set {db.ENV}=postgresql://USER@HOST/DB (or pass --url); "
            "without it the stores are SQLite files in the data dir and need no migration"
        )
        raise typer.Exit(2)
    from agent.db.migrate import migrate as run

    try:
        outcome = run(target)
    except db.DatabaseError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from e
    for line in outcome.lines():
        print(line)
