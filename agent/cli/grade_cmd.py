"""`interview grade PATH… [--out DIR] [--format json|md] [--judge embedded|vllm|auto] [--samples K]`."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from agent.grading import Outcome, find_transcripts, grade_files, report_json, same_provenance
from agent.render import report_markdown
from agent.rubric import RubricError, load_rubric
from agent.samples import DEFAULT_SAMPLE_TEMPERATURE, Resamplable, sampled_info


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
            help="transcripts graded at once, and the most requests a vLLM judge has in flight (0: 8 for vLLM)",
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
    """Grade recorded transcripts: one report each, a summary table; bad files are named and skipped."""
    err = Console(stderr=True)
    missing = [p for p in paths if not p.exists()]
    if missing:
        err.print(f"[red]error:[/] no such file or folder: {', '.join(map(str, missing))}")
        raise typer.Exit(2)
    try:
        rubric = load_rubric()
    except RubricError as e:
        err.print(f"[red]rubric error:[/] {e}")
        raise typer.Exit(2) from e
    from agent.judge.factory import make_judge, set_in_flight

    jd, info, why = make_judge(judge.value, rubric, holistic=not no_holistic)
    if why:
        err.print(f"[yellow]judge:[/] {why}")
    base_info, info = (
        info,
        sampled_info(info, jd, samples, sample_temperature),
    )  # K and the seeds are provenance
    if samples > 1 and not isinstance(jd, Resamplable):
        err.print(f"[yellow]samples:[/] the {jd.kind} judge is deterministic: {samples} samples, zero spread")
    files = list(find_transcripts(paths))
    if not files:
        err.print("[red]error:[/] no transcripts found (folders are searched for *.json)")
        raise typer.Exit(2)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        if fmt is Format.json and info.kind == "vllm":
            done_before = [f for f in files if same_provenance(out / f"{f.stem}.json", info)]
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
            err.print(f"[yellow]sources:[/] {sources.note}")
    workers = concurrency or (8 if info.kind == "vllm" else 1)
    set_in_flight(jd, workers)

    def emit(o: Outcome) -> None:
        if o.error:
            typer.echo(f"✗ {o.error}", err=True)  # one plain line per bad file, never wrapped
            return
        assert o.report is not None
        text = report_json(o.report) if fmt is Format.json else report_markdown(o.report, rubric)
        if out:
            (out / f"{o.source.stem}.{fmt.value}").write_text(text, encoding="utf-8")
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
            sources=sources,
            samples=samples,
            sample_temperature=sample_temperature,
        )

    k = f" · median of {samples} samples" if samples > 1 else ""
    table = Table(
        title=f"{len(outcomes)} transcript(s) · judge {info.kind}:{info.model} · {rubric.version}{k}"
    )
    for col in ("transcript", "rounds", "total", "flags", "status"):
        table.add_column(col)
    for o in outcomes:
        if o.report:
            r = o.report
            table.add_row(
                r.id,
                ", ".join(f"{x.round}={x.total}" for x in r.rounds),
                f"{sum(x.total for x in r.rounds)}/{25 * len(r.rounds)}",
                ", ".join(sorted({f for x in r.rounds for f in x.flags})) or "—",
                "ok",
            )
        else:
            table.add_row(o.source.name, "—", "—", "—", "[red]failed[/]")
    err.print(table)
    failed = sum(1 for o in outcomes if o.error)
    if failed:
        err.print(f"[red]{failed} of {len(outcomes)} failed[/]")
        raise typer.Exit(1)
