"""`interview db migrate`: bring the shared Postgres database (`INTERVIEW_DATABASE_URL`) to the newest
schema. The app and every command that opens the database do the same on start; this runs it alone,
e.g. before replicas of a new version start (agent/db/migrate.py)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from agent import db

app = typer.Typer(help="The shared Postgres database (INTERVIEW_DATABASE_URL).", no_args_is_help=True)


@app.command("migrate")
def migrate(
    url: Annotated[
        str | None, typer.Option("--url", help="the database (default: INTERVIEW_DATABASE_URL)")
    ] = None,
) -> None:
    """Apply the numbered schema migrations not yet applied, then the checkpointer's own. Exit 0 up to
    date; 1 the database cannot be reached or migrated (said in one line); 2 no database is set."""
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
