"""`interview override list|export`: read the append-only override log."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from agent.overrides import Override, OverrideLog, OverrideLogError, to_csv, to_jsonl

app = typer.Typer(help="The append-only log of human score overrides.", no_args_is_help=True)

LogOpt = Annotated[
    Path | None, typer.Option("--log", help="the log file (default: <data dir>/overrides.sqlite)")
]
IdOpt = Annotated[str | None, typer.Option("--id", help="only overrides of this transcript or session")]


class Format(StrEnum):
    csv = "csv"
    jsonl = "jsonl"


def _rows(log: Path | None, transcript_id: str | None, limit: int | None = None) -> list[Override]:
    try:
        return OverrideLog(log).rows(transcript_id, limit=limit)
    except OverrideLogError as e:
        Console(stderr=True).print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from e


@app.command("list")
def list_(
    log: LogOpt = None,
    transcript_id: IdOpt = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="only the latest N rows")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines instead of a table")] = False,
) -> None:
    """Overrides, oldest first: what was changed, from which judge score to which human score, by whom, why."""
    rows = _rows(log, transcript_id, limit)
    if as_json:
        sys.stdout.write(to_jsonl(rows))
        return
    if not rows:
        Console(stderr=True).print("no overrides")
        return
    t = Table("id", "time (UTC)", "transcript", "round", "dimension", "judge", "human", "reviewer", "reason")
    for r in rows:
        t.add_row(
            str(r.id),
            r.created_at,
            r.transcript_id,
            r.round,
            r.dimension,
            str(r.judge_score),
            str(r.human_score),
            r.reviewer,
            r.reason,
        )
    Console().print(t)


@app.command("export")
def export(
    fmt: Annotated[Format, typer.Option("--format", help="csv or jsonl")] = Format.csv,
    out: Annotated[Path | None, typer.Option("--out", help="write here instead of stdout")] = None,
    log: LogOpt = None,
    transcript_id: IdOpt = None,
) -> None:
    """Every override row with all its columns (rubric version, judge model and kind included)."""
    rows = _rows(log, transcript_id)
    text = to_csv(rows) if fmt is Format.csv else to_jsonl(rows)
    if out:
        out.write_text(text, encoding="utf-8")
        Console(stderr=True).print(f"{len(rows)} overrides written to {out}")
    else:
        sys.stdout.write(text)
