"""`interview override list|export|verify|add`: read, check and (for scripts) write the override log."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from agent.contracts.report import Report
from agent.overrides import (
    NewOverride,
    Override,
    OverrideLog,
    OverrideLogError,
    Verification,
    to_csv,
    to_jsonl,
)
from agent.rubric.model import DIMENSIONS, ROUND_IDS

app = typer.Typer(help="The append-only log of human score overrides.", no_args_is_help=True)

LogOpt = Annotated[
    Path | None, typer.Option("--log", help="the log file (default: <data dir>/overrides.sqlite)")
]
IdOpt = Annotated[str | None, typer.Option("--id", help="only overrides of this transcript or session")]
INTEGRITY_COLUMN = "log_integrity"


class Format(StrEnum):
    csv = "csv"
    jsonl = "jsonl"


def _fail(message: str, code: int) -> typer.Exit:
    Console(stderr=True).print(f"[red]error:[/] {message}", markup=True, highlight=False)
    return typer.Exit(code)


def _rows(log: Path | None, transcript_id: str | None, limit: int | None = None) -> list[Override]:
    try:
        return OverrideLog(log).rows(transcript_id, limit=limit)
    except OverrideLogError as e:
        raise _fail(str(e), 1) from e


def _verified(log: Path | None) -> Verification:
    try:
        return OverrideLog(log).verify()
    except OverrideLogError as e:
        raise _fail(str(e), 1) from e


def _warn(v: Verification, what: str) -> str | None:
    """A warning on stderr when the log fails verification; the mark for the export (None when intact)."""
    if v.ok:
        return None
    first = v.problems[0]
    sys.stderr.write(
        f"WARNING: the override log {v.path} failed verification ({first}); {what}. "
        "Run `interview override verify` for every problem.\n"
    )
    return f"FAILED verification: {first}"


@app.command("list")
def list_(
    log: LogOpt = None,
    transcript_id: IdOpt = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="only the latest N rows")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines instead of a table")] = False,
) -> None:
    """Overrides, oldest first: what was changed, from which judge score to which human score, by whom, why."""
    rows = _rows(log, transcript_id, limit)
    _warn(_verified(log), "these rows may not be what was written")
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
            r.created_at + (f" (imported; written {r.original_created_at})" if r.original_created_at else ""),
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
    """Every override row with all its columns (rubric version, judge model and kind included).

    When the log fails `verify`, a warning goes to stderr and every exported row carries a
    `log_integrity` column (CSV) or key (JSON Lines) that says so."""
    rows = _rows(log, transcript_id)
    mark = _warn(_verified(log), f"the export is marked (column {INTEGRITY_COLUMN})")
    extra = {INTEGRITY_COLUMN: mark} if mark else None
    text = to_csv(rows, extra=extra) if fmt is Format.csv else to_jsonl(rows, extra=extra)
    if out:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as e:  # a folder, a path under a file, no permission, disk full
            why = "it is a folder" if isinstance(e, IsADirectoryError) else e.strerror or str(e)
            raise _fail(f"cannot write the export to {out}: {why}", 2) from e
        Console(stderr=True).print(f"{len(rows)} overrides written to {out}")
    else:
        sys.stdout.write(text)


def _anchor(value: str | None) -> tuple[int, str] | None:
    if value is None:
        return None
    row, sep, digest = value.partition(":")
    if not sep or not row.isdigit() or len(digest) != 64:
        raise typer.BadParameter("expected ID:HASH (a row id and its 64-hex row hash, as `verify` prints)")
    return int(row), digest.lower()


@app.command("verify")
def verify(
    log: LogOpt = None,
    anchor: Annotated[
        str | None,
        typer.Option(
            "--anchor",
            help="ID:HASH, a head printed by an earlier verify and kept elsewhere: that row must still "
            "have that hash (catches a log rewritten and re-hashed)",
        ),
    ] = None,
    migrate: Annotated[
        bool, typer.Option("--migrate", help="first hash a log written before the hash chain (once)")
    ] = False,
) -> None:
    """Check the hash chain and the triggers. Exit 0 when intact; 1 naming the first row where the chain
    breaks and what is wrong (changed, missing, inserted, backdated; triggers missing), or that the log
    lost rows or was replaced (against the row count kept beside a SQLite log); 2 unreadable."""
    anchored = _anchor(anchor)
    ol = OverrideLog(log)
    try:
        if migrate:
            try:
                ol.migrate()
            except OverrideLogError as e:
                if ol.verify().ok:  # it could not be written: say why, exit 2
                    raise
                # e.g. refused because the log lost rows: say so, then what verify finds, exit 1
                sys.stderr.write(f"{' '.join(str(e).split())}\n")
        v = ol.verify(anchor=anchored)
    except OverrideLogError as e:
        raise _fail(str(e), 2) from e
    sys.stdout.write("\n".join(v.lines()) + "\n")
    raise typer.Exit(0 if v.ok else 1)


@app.command("add")
def add(
    report: Annotated[Path, typer.Option("--report", help="the graded report (JSON) the override is of")],
    round_id: Annotated[str, typer.Option("--round", help="the round, e.g. capacity")],
    dimension: Annotated[str, typer.Option("--dimension", help="accuracy, evidence, tradeoffs, ...")],
    score: Annotated[int, typer.Option("--score", min=1, max=5, help="the human score, 1-5")],
    reason: Annotated[str, typer.Option("--reason", help="why (required)")],
    reviewer: Annotated[str, typer.Option("--reviewer", help="who (required)")],
    log: LogOpt = None,
) -> None:
    """Write one override (for scripts). The judge score, rubric version and judge come from the report;
    the time from the log. Prints the row as JSON."""
    try:
        rep = Report.model_validate_json(report.read_bytes())
    except OSError as e:
        raise _fail(f"cannot read the report {report}: {e.strerror or e}", 2) from e
    except ValidationError as e:
        raise _fail(f"{report} is not a graded report: {e.errors()[0]['msg']}", 2) from e
    ra = next((r for r in rep.rounds if r.round == round_id), None)
    if ra is None:
        have = ", ".join(r.round for r in rep.rounds) or "none"
        known = "" if round_id in ROUND_IDS else f" (rounds are {', '.join(ROUND_IDS)})"
        raise _fail(f"the report {rep.id} has no round {round_id}{known}; it has: {have}", 2)
    if dimension not in ra.scores:
        raise _fail(f"no dimension {dimension} in round {round_id} (dimensions: {', '.join(DIMENSIONS)})", 2)
    info = ra.judge or rep.judge
    try:
        new = NewOverride.judged_by(
            info,
            transcript_id=rep.id,
            round_id=ra.round,
            dimension=dimension,
            judge_score=ra.scores[dimension],
            human_score=score,
            reason=reason,
            reviewer=reviewer,
        )
    except ValidationError as e:
        err = e.errors()[0]
        raise _fail(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}", 2) from e
    try:
        row = OverrideLog(log).append(new)
    except OverrideLogError as e:
        raise _fail(str(e), 1) from e
    sys.stdout.write(json.dumps(row.model_dump(), ensure_ascii=False) + "\n")
