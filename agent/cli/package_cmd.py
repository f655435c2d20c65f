"""`interview package SESSION [--out DIR] [--format html|md|zip]`: a session's evidence package.

Exit codes: 0 written; 1 no such session, or the session store cannot be read; 2 usage error (an
unknown format, an `--out` that is a file or cannot be written).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

FORMATS = ("html", "md", "zip")


def package(
    session: Annotated[str, typer.Argument(help="the session id (interview sessions lists them)")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="the folder to write (zip: the file); default evidence-SESSION[.zip]"),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="html (default), md or zip")] = "html",
    owner: Annotated[
        str | None, typer.Option("--owner", help="the session's owner, for a session started in the app")
    ] = None,
) -> None:
    """Write a session's evidence package: index.html (or index.md), package.json and its schema."""
    from agent.graph.errors import SessionError, SessionNotFound
    from agent.package.build import build_package
    from agent.package.folder import Format, default_out, write

    err = Console(stderr=True)
    if fmt not in FORMATS:
        err.print(f"[red]error:[/] unknown format {fmt!r}; choose html, md or zip")
        raise typer.Exit(2)
    kind: Format = "zip" if fmt == "zip" else ("md" if fmt == "md" else "html")
    target = out or default_out(session, kind)
    bad = _unwritable(target, kind)
    if bad:
        err.print(f"[red]error:[/] cannot write the package to {target}: {bad}")
        raise typer.Exit(2)
    try:
        pkg = build_package(session, owner=owner)
    except SessionNotFound as e:
        hint = "" if owner else "; a session started in the app with logins needs --owner NAME"
        err.print(f"[red]error:[/] no session {session!r} (interview sessions lists them{hint})")
        raise typer.Exit(1) from e
    except SessionError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from e
    try:
        paths = write(pkg, target, kind)
    except OSError as e:
        err.print(f"[red]error:[/] cannot write the package to {target}: {e.strerror or e}")
        raise typer.Exit(2) from e
    for p in paths:
        typer.echo(str(p))
    for o in pkg.omitted:
        err.print(f"note: not included: {o.what}: {o.why}", highlight=False, markup=False)


def _unwritable(target: Path, kind: str) -> str | None:
    """Why `target` cannot be the package's folder (or zip), before anything is read."""
    from agent.package.folder import zip_path

    if kind == "zip":
        target = zip_path(target)
        if target.is_dir():
            return "it is a folder"
    elif target.exists() and not target.is_dir():
        return "it is a file"
    for parent in target.parents:
        if parent.exists():
            return None if parent.is_dir() else f"{parent} is a file"
    return None
