"""`interview grade PATH… [--out DIR] [--format json|md] [--judge embedded|vllm|auto] [--samples K]`."""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from agent.grading.batch import (
    Outcome,
    Replay,
    find_inputs,
    grade_files,
    hashed_name,
    name_key,
    report_names,
    same_provenance,
)
from agent.grading.render import report_json, report_markdown
from agent.grading.samples import DEFAULT_SAMPLE_TEMPERATURE, Resamplable, sampled_info
from agent.judge.factory import DEFAULT_IN_FLIGHT, batch_size
from agent.rubric import RubricError, load_rubric


class Format(StrEnum):
    json = "json"
    md = "md"


class JudgeKind(StrEnum):
    embedded = "embedded"
    vllm = "vllm"
    auto = "auto"


def grade(
    paths: Annotated[list[Path], typer.Argument(help="transcript files or folders of *.json")],
    out: Annotated[
        Path | None, typer.Option("--out", help="folder for the reports (default: stdout)")
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="json or md")] = Format.json,
    judge: Annotated[JudgeKind, typer.Option("--judge", help="embedded, vllm or auto")] = JudgeKind.auto,
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            min=0,
            help="transcripts graded at once, and the most requests a vLLM judge has in flight "
            f"(0: {DEFAULT_IN_FLIGHT} for vLLM); per server behind a judge pool's router; the embedded "
            "judge: worker processes (0: one per core)",
        ),
    ] = 0,
    no_holistic: Annotated[bool, typer.Option("--no-holistic", help="vLLM judge: checklist only")] = False,
    snippets: Annotated[
        bool, typer.Option("--snippets/--no-snippets", help="vLLM source snippets from the index, when built")
    ] = True,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            min=1,
            help="grade each transcript K times: the median score and the spread per dimension",
        ),
    ] = 1,
    sample_temperature: Annotated[
        float,
        typer.Option(
            "--sample-temperature",
            min=0.0,
            help="vLLM judge with --samples > 1: sampling temperature (seeds seed..seed+K-1)",
        ),
    ] = DEFAULT_SAMPLE_TEMPERATURE,
) -> None:
    """Grade recorded transcripts: one report each, a summary table; bad files are named and skipped.

    Exit 0 all graded, 1 some inputs failed, 2 usage error (an --out that cannot be written included),
    3 internal error."""
    err = Console(stderr=True)
    missing = [p for p in paths if not os.path.lexists(p)]  # a dangling link is named by grading
    if missing:
        err.print(f"[red]error:[/] no such file or folder: {', '.join(map(str, missing))}")
        raise typer.Exit(2)
    try:
        rubric = load_rubric()
    except RubricError as e:
        err.print(f"[red]rubric error:[/] {e}")
        raise typer.Exit(2) from e
    from agent.judge.factory import make_judge

    jd, info, why = make_judge(judge.value, rubric, holistic=not no_holistic)
    if why:
        err.print(f"[yellow]judge:[/] {why}")
    base_info, info = (
        info,
        sampled_info(info, jd, samples, sample_temperature),
    )  # K and the seeds are provenance
    if samples > 1 and not isinstance(jd, Resamplable):
        err.print(f"[yellow]samples:[/] the {jd.kind} judge is deterministic: {samples} samples, zero spread")
    found = find_inputs(paths)
    for line in found.skipped:
        typer.echo(f"– {line}", err=True)
    for line in found.errors:
        typer.echo(f"✗ {line}", err=True)
    files = found.files
    if not files:
        err.print("[red]error:[/] no transcripts found (folders are searched for *.json)")
        raise typer.Exit(2)
    names = report_names(files)
    if out:
        problem = _unwritable(out)
        if problem:
            typer.echo(f"error: cannot write reports to {out}: {problem}; nothing was graded", err=True)
            raise typer.Exit(2)
        for group in _shared_names(files, names):
            shown = ", ".join(f"{f} → {names[f]}.{fmt.value}{_why(f, names[f])}" for f in group)
            typer.echo(f"note: {len(group)} inputs share the name {group[0].name}: reports {shown}", err=True)
        if fmt is Format.json and info.kind == "vllm":
            done_before = [f for f in files if same_provenance(out / f"{names[f]}.json", info)]
            files = [f for f in files if f not in done_before]
            if done_before:
                err.print(
                    f"skipping {len(done_before)} transcript(s) already graded with the same provenance"
                )
    sources = None
    if snippets:
        from agent.judge.sources import Sources

        sources = Sources.open()
        if sources.note:
            err.print(f"[yellow]sources:[/] {sources.note.said('en')}")
    workers = batch_size(jd, concurrency)  # a judge pool: as many transcripts at once per server

    def emit(o: Outcome) -> None:
        if o.error:
            typer.echo(f"✗ {o.error}", err=True)  # one plain line per bad file, never wrapped
            return
        assert o.report is not None
        text = report_json(o.report) if fmt is Format.json else report_markdown(o.report, rubric)
        if out:
            target = out / f"{names[o.source]}.{fmt.value}"
            try:
                target.write_text(text, encoding="utf-8")
            except OSError as e:  # e.g. the disk filled up mid-batch: this one failed, the rest go on
                o.error = (
                    f"{o.source}: graded, but the report could not be written to {target}: {e.strerror or e}"
                )
                typer.echo(f"✗ {o.error}", err=True)
        else:
            sys.stdout.write(text)

    with Progress(console=err, transient=True, disable=not err.is_terminal) as prog:
        task = prog.add_task("grading", total=len(files))

        def done(o: Outcome) -> None:
            emit(o)
            prog.advance(task)

        outcomes = grade_files(
            rubric,
            files,
            judge=jd,
            info=base_info,
            on_done=done,
            concurrency=workers,
            replay=_graph_replay(),
            sources=sources,
            samples=samples,
            sample_temperature=sample_temperature,
            processes=(concurrency or os.cpu_count() or 1) if jd.kind == "embedded" else 1,
        )

    k = f" · median of {samples} samples" if samples > 1 else ""
    table = Table(
        title=f"{len(outcomes)} transcript(s) · judge {info.kind}:{info.model} · {rubric.version}{k}"
    )
    # two inputs may carry one transcript id: each row names its input file (and its report, with --out)
    cols = ("transcript", "input", *(("report",) if out else ()), "rounds", "total", "flags", "status")
    for col in cols:
        table.add_column(col, overflow="fold" if col in ("input", "report") else "ellipsis")
    for o in outcomes:
        where = (str(o.source), *((f"{names[o.source]}.{fmt.value}",) if out else ()))
        if o.report and not o.error:
            r = o.report
            table.add_row(
                r.id,
                *where,
                ", ".join(f"{x.round}={x.total}" for x in r.rounds),
                f"{sum(x.total for x in r.rounds)}/{25 * len(r.rounds)}",
                ", ".join(sorted({f for x in r.rounds for f in x.flags})) or "—",
                "ok",
            )
        else:
            status = "internal error" if o.internal else "failed"
            table.add_row("—", str(o.source), *(("—",) if out else ()), "—", "—", "—", f"[red]{status}[/]")
    err.print(table)
    failed = sum(1 for o in outcomes if o.error) + len(found.errors)
    if failed:
        err.print(f"[red]{failed} of {len(outcomes) + len(found.errors)} failed[/]")
    internal = [o for o in outcomes if o.internal]
    if internal:
        if os.environ.get("INTERVIEW_DEBUG", "") not in ("", "0"):
            for o in internal:
                assert o.exc is not None
                traceback.print_exception(o.exc, file=sys.stderr)
        else:
            typer.echo(
                f"{len(internal)} internal error(s): a bug, please report it (INTERVIEW_DEBUG=1 shows the traceback)",
                err=True,
            )
        raise typer.Exit(3)
    if failed:
        raise typer.Exit(1)


def _graph_replay() -> Replay | None:
    """The interview graph's grade mode (the same nodes a live session runs), when LangGraph is installed."""
    try:
        from agent.graph import grade_with_graph
    except ImportError:
        return None
    return grade_with_graph


def _unwritable(out: Path) -> str | None:
    """Why reports cannot be written in `out` (created when missing), or None when they can."""
    if out.is_symlink() and not out.exists():
        return "it is a dangling symbolic link"
    if out.exists() and not out.is_dir():
        return "it is a file, not a folder"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except NotADirectoryError:
        first_file = next((a for a in reversed(out.parents) if a.exists() and not a.is_dir()), None)
        return f"{first_file} is a file, not a folder" if first_file else "a part of its path is not a folder"
    except OSError as e:
        return f"the folder cannot be created ({e.strerror or e})"
    try:  # read-only, immutable (chattr +i), a read-only mount: only a write tells
        fd, probe = tempfile.mkstemp(dir=out, prefix=".interview-write-check-")
    except OSError as e:
        return f"a file cannot be created in it ({e.strerror or e}: read-only or immutable?)"
    os.close(fd)
    os.unlink(probe)
    return None


def _shared_names(files: list[Path], names: dict[Path, str]) -> list[list[Path]]:
    """Groups of inputs whose reports were renamed because they share a file name."""
    groups: dict[str, list[Path]] = {}
    for f in files:
        if names[f] != f.stem:
            groups.setdefault(name_key(f.stem), []).append(f)
    return list(groups.values())


def _why(f: Path, name: str) -> str:
    """Why a renamed input's report has a further suffix: its hashed name is another input's."""
    hashed = hashed_name(f)
    return "" if name == hashed else f" ({hashed} is another input's name)"
