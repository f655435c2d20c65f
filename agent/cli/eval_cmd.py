"""`interview eval`: the judge against the graded answer set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from agent.calibration.evaluation import SPLITS, EvalResult, GradedSet, load_graded_set, run_eval
from agent.judge.factory import DEFAULT_IN_FLIGHT, batch_size
from agent.rubric import load_rubric

app = typer.Typer(help="Measure the judge on graded answers.", invoke_without_command=True)

AnswersAtOnce = Annotated[
    int,
    typer.Option(
        "--concurrency",
        min=0,
        help="answers graded at once, and the most requests a vLLM judge has in flight "
        f"(0: {DEFAULT_IN_FLIGHT} for vLLM, else 1)",
    ),
]
"""`--concurrency` of `eval calibrate` and `eval probes` (the answers go to `batch_size`)."""


def _graded_sets(graded: Path | None, split: str, err: Console, *, name: str) -> dict[str, GradedSet]:
    """The one set named by --set (under `name`), or the dev and/or test split; a bad one exits 2."""
    names: list[str] = [name] if graded else (["dev", "test"] if split == "both" else [split])
    if not graded and any(n not in SPLITS for n in names):
        err.print(f"[red]error:[/] --split must be dev, test or both (got {split!r})")
        raise typer.Exit(2)
    try:
        return {
            n: load_graded_set(graded) if graded else load_graded_set(split=n)  # type: ignore[arg-type]
            for n in names
        }
    except ValueError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(2) from e


def _row_values(res: EvalResult) -> dict[str, str]:
    tiers = res.in_range_by_tier
    flags_p = "—" if res.flag_precision_mean is None else f"{res.flag_precision_mean:.1%}"
    flags_r = "—" if res.flag_recall_mean is None else f"{res.flag_recall_mean:.1%}"
    return {
        "answers": str(res.n_answers),
        "dimension scores in range": f"{res.dims_in_range:.1%}",
        "  balanced over strong / medium / weak": "—"
        if res.in_range_balanced is None
        else f"{res.in_range_balanced:.1%}",
        "  strong": f"{tiers['strong'].fmt()} of {tiers['strong'].n}",
        "  medium": f"{tiers['medium'].fmt()} of {tiers['medium'].n}",
        "  weak, wrong, stripped, injected": f"{tiers['weak'].fmt()} of {tiers['weak'].n}",
        "answers with all five in range": f"{res.answers_all_in_range:.1%}",
        "pair order (better > worse total)": f"{res.pair_order:.1%} of {res.n_pairs}",
        "stripped / wrong copies below their original": f"{res.copies_below.fmt()} of {res.copies_below.n}",
        "flag precision, mean over kinds": flags_p,
        "flag recall, mean over kinds": flags_r,
        "flags raised that must not be": str(res.false_flags),
        "strong answers capped by an unlabelled gate": str(len(res.strong_capped_unlabelled)),
        "injections flagged, no score raised": f"{res.injection_not_raised:.1%} of {res.n_injections}",
        "assessments that fell back": str(res.fallbacks),
    }


@app.callback()
def run(
    ctx: typer.Context,
    graded: Annotated[
        Path | None, typer.Option("--set", help="one graded set (file or folder) instead of dev and test")
    ] = None,
    split: Annotated[
        str, typer.Option("--split", help="dev, test or both (the frozen test split is what figures quote)")
    ] = "both",
    judge: Annotated[str, typer.Option("--judge", help="embedded, vllm or auto")] = "embedded",
    json_out: Annotated[
        Path | None, typer.Option("--json", help="also write the full result as JSON")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="list every answer out of range")] = False,
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            min=0,
            help=f"the most requests a vLLM judge has in flight (0: {DEFAULT_IN_FLIGHT} for vLLM, else 1)",
        ),
    ] = 0,
) -> None:
    """Dev and test side by side: in-range % (balanced over tiers), pair order, copies below their
    original, flag precision and recall per kind, the injection outcome."""
    if ctx.invoked_subcommand is not None:
        return
    from agent.judge.factory import make_judge

    con = Console()
    err = Console(stderr=True)
    rubric = load_rubric()
    sets = _graded_sets(graded, split, err, name=str(graded))
    jd, info, why = make_judge(judge, rubric)
    if why:
        err.print(f"[yellow]judge:[/] {why}")
    at_once = batch_size(jd, concurrency) if info.kind == "vllm" else 1
    results = {n: run_eval(rubric, gs, judge=jd, info=info, concurrency=at_once) for n, gs in sets.items()}
    t = Table(title=f"judge {info.kind}:{info.model} · {rubric.version}")
    t.add_column("measure")
    for n in results:
        t.add_column(n, justify="right")
    rows = {n: _row_values(r) for n, r in results.items()}
    for key in next(iter(rows.values())):
        t.add_row(key, *(rows[n][key] for n in results))
    con.print(t)
    f = Table(title="flags per kind: precision (of raised flags a label speaks about) / recall")
    f.add_column("flag")
    for n in results:
        f.add_column(n, justify="right")
    kinds = sorted({x.flag for r in results.values() for x in r.flags})
    for k in kinds:
        cells = []
        for r in results.values():
            x = next((y for y in r.flags if y.flag == k), None)
            cells.append(
                "—"
                if x is None
                else f"{x.precision.fmt()} of {x.precision.n} / {x.recall.fmt()} of {x.recall.n}"
            )
        f.add_row(k, *cells)
    con.print(f)
    if verbose:
        for n, res in results.items():
            con.print(f"[bold]{n}[/]")
            for it in res.items:
                if it.out_of_range or it.missing_flags or it.wrong_flags:
                    con.print(
                        f"{it.id}: scores {it.scores} out={ {d: v[0] for d, v in it.out_of_range.items()} } "
                        f"missing_flags={it.missing_flags} wrong_flags={it.wrong_flags}",
                        markup=False,
                    )
            for line in [*res.pair_failures, *res.copy_failures, *res.strong_capped_unlabelled]:
                con.print(f"  {line}", markup=False)
    if json_out:
        json_out.write_text(
            json.dumps(
                {n: r.model_dump(mode="json") for n, r in results.items()}, ensure_ascii=False, indent=2
            ),
            encoding="utf-8",
        )


@app.command("calibrate")
def calibrate_cmd(
    graded: Annotated[
        Path | None, typer.Option("--set", help="one graded set (file or folder) instead of dev and test")
    ] = None,
    split: Annotated[str, typer.Option("--split", help="dev, test or both (side by side)")] = "both",
    judge: Annotated[str, typer.Option("--judge", help="embedded, vllm or auto")] = "embedded",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="folder for calibration.{json,md,png}, one subfolder a split (default: <data dir>/calibration)",
        ),
    ] = None,
    overrides: Annotated[
        Path | None, typer.Option("--overrides", help="override log (default: <data dir>/overrides.sqlite)")
    ] = None,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="grade K times and report the spread")] = 1,
    concurrency: AnswersAtOnce = 0,
) -> None:
    """Judge vs human labels (graded set and override log): agreement, kappa, Spearman, pairs, flags."""
    from agent.calibration import calibrate, read_overrides
    from agent.calibration.render import write
    from agent.config import data_dir
    from agent.judge.factory import make_judge

    con = Console()
    err = Console(stderr=True)
    rubric = load_rubric()
    sets = _graded_sets(graded, split, err, name="set")
    jd, info, why = make_judge(judge, rubric)
    if why:
        err.print(f"[yellow]judge:[/] {why}")
    rows, log_path, note = read_overrides(overrides)
    if note:
        err.print(f"[yellow]{note}[/]")
    reps = {
        n: calibrate(
            rubric,
            gs,
            judge=jd,
            info=info,
            overrides=rows,
            graded_source=str(graded) if graded else f"eval/graded/{n}",
            overrides_source=f"override log {log_path}",
            overrides_note=note,
            repeat=repeat,
            concurrency=batch_size(jd, concurrency),
        )
        for n, gs in sets.items()
    }
    folder = out or data_dir() / "calibration"
    written = []
    for n, rep in reps.items():
        written += list(write(rep, folder if graded else folder / n).values())
    t = Table(title=f"judge {info.kind}:{info.model} · {rubric.version}")
    for col in ("labels", "dimension", "exact", "±1", "QW kappa", "Spearman"):
        t.add_column(col)
    sources = [(rep.graded, f"graded set: {n}") for n, rep in reps.items()]
    sources.append((next(iter(reps.values())).overrides, "override log"))
    for src, name in sources:
        if src.n_items == 0:
            t.add_row(name, "—", "no items (n=0)", "", "", "")
            continue
        for d in src.dimensions:
            t.add_row(
                name,
                d.dimension,
                d.exact.fmt(pct=True),
                d.within_one.fmt(pct=True),
                d.kappa.fmt(),
                d.spearman.fmt(),
            )
    con.print(t)
    for n, rep in reps.items():
        g = rep.graded
        line = f"{n}: pair order {g.pair_order.fmt(pct=True)}"
        all_flags = g.flags[0] if g.flags else None
        if all_flags:
            line += (
                f"; flags recall {all_flags.recall.fmt(pct=True)}, precision {all_flags.precision.fmt(pct=True)}, "
                f"strict precision {all_flags.strict_precision.fmt(pct=True)}"
            )
        con.print(line)
        if rep.spread:
            con.print(
                f"{n}: spread over {rep.spread.repeat} runs (largest range of one item): "
                + ", ".join(
                    f"{d.dimension} {d.max_range}" for d in [*rep.spread.dimensions, rep.spread.total]
                )
            )
        if rep.fallbacks:
            err.print(
                f"[yellow]{n}: {rep.fallbacks} assessment(s) fell back to the embedded judge and are left out of "
                f"the figures: {'; '.join(rep.fallback_reasons[:3])}[/]"
            )
    con.print("wrote " + ", ".join(str(p) for p in written))


@app.command("probes")
def probes_cmd(
    graded: Annotated[Path | None, typer.Option("--set", help="graded answer set (YAML)")] = None,
    translations: Annotated[
        Path | None,
        typer.Option("--translations", help="translation pairs (default eval/probes/translations.yaml)"),
    ] = None,
    judge: Annotated[str, typer.Option("--judge", help="embedded, vllm or auto")] = "embedded",
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the result as JSON")] = None,
    concurrency: AnswersAtOnce = 0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="list every failing case")] = False,
) -> None:
    """Bias probes: padding, translation, grader instructions, numbers restated as measured, rubric order."""
    from agent.calibration import load_translations, run_probes
    from agent.judge.factory import make_judge

    con = Console()
    err = Console(stderr=True)
    rubric = load_rubric()
    try:
        gs = load_graded_set(graded)
        ts = load_translations(translations)
    except ValueError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(2) from e
    jd, info, why = make_judge(judge, rubric)
    if why:
        err.print(f"[yellow]judge:[/] {why}")
    rep = run_probes(rubric, gs, ts, judge=jd, info=info, concurrency=batch_size(jd, concurrency))
    t = Table(title=f"bias probes · judge {info.kind}:{info.model} · {rubric.version}")
    for col in ("probe", "passes when", "pass rate"):
        t.add_column(col)
    for p in rep.probes:
        left = f"\n{p.left_out} left out: judge fell back" if p.left_out else ""
        t.add_row(p.name, p.expectation, p.rate.fmt(pct=True) + left)
        for k, v in p.extra.items():
            t.add_row(f"  ↳ {k}", "", v.fmt(pct=True))
    con.print(t)
    if rep.fallbacks:
        err.print(
            f"[yellow]{rep.fallbacks} assessment(s) fell back to the embedded judge; comparisons with one "
            "are left out of the rates[/]"
        )
    if verbose:
        for p in rep.probes:
            for f in p.failures:
                con.print(f"{p.name}: {f}", markup=False)
    if json_out:
        json_out.write_text(
            json.dumps(rep.model_dump(mode="json"), ensure_ascii=False, indent=2), encoding="utf-8"
        )
