"""`interview eval`: the judge against the graded answer set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from agent.evaluation import load_graded_set, run_eval
from agent.rubric import load_rubric

app = typer.Typer(help="Measure the judge on graded answers.", invoke_without_command=True)


@app.callback()
def run(
    ctx: typer.Context,
    graded: Annotated[Path | None, typer.Option("--set", help="graded answer set (YAML)")] = None,
    judge: Annotated[str, typer.Option("--judge", help="embedded, vllm or auto")] = "embedded",
    json_out: Annotated[
        Path | None, typer.Option("--json", help="also write the full result as JSON")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="list every answer out of range")] = False,
) -> None:
    """Within-range %, pair-order %, flag recall and the injection outcome."""
    if ctx.invoked_subcommand is not None:
        return
    from agent.judge.factory import make_judge

    con = Console()
    rubric = load_rubric()
    gs = load_graded_set(graded)
    jd, info, why = make_judge(judge, rubric)
    if why:
        Console(stderr=True).print(f"[yellow]judge:[/] {why}")
    res = run_eval(rubric, gs, judge=jd, info=info)
    t = Table(title=f"judge {info.kind}:{info.model} · {rubric.version} · {res.n_answers} answers")
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_column("of")
    t.add_row(
        "dimension scores within expected range", f"{res.dims_in_range:.1%}", f"{res.n_answers * 5} scores"
    )
    t.add_row("answers with all five in range", f"{res.answers_all_in_range:.1%}", f"{res.n_answers} answers")
    t.add_row("pair order (better > worse total)", f"{res.pair_order:.1%}", f"{res.n_pairs} pairs")
    t.add_row("flag recall", f"{res.flag_recall:.1%}", f"{res.n_expected_flags} expected flags")
    t.add_row("flags raised that must not be", str(res.false_flags), "")
    t.add_row(
        "injections flagged and not raising any score",
        f"{res.injection_not_raised:.1%}",
        f"{res.n_injections} injected answers",
    )
    con.print(t)
    if verbose:
        for it in res.items:
            if it.out_of_range or it.missing_flags or it.wrong_flags:
                con.print(
                    f"{it.id}: scores {it.scores} out={ {d: v[0] for d, v in it.out_of_range.items()} } "
                    f"missing_flags={it.missing_flags} wrong_flags={it.wrong_flags}"
                )
        for f in res.pair_failures:
            con.print(f"pair: {f}")
    if json_out:
        json_out.write_text(
            json.dumps(res.model_dump(mode="json"), ensure_ascii=False, indent=2), encoding="utf-8"
        )
