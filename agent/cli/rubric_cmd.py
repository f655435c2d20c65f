"""`interview rubric check|show`: validate and read the rubric data."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from agent.rubric import Lang, RubricError, load_rubric

app = typer.Typer(help="Validate and show the rubric (rubrics/).", no_args_is_help=True)


@app.command("check")
def check() -> None:
    """Load and validate every rubric file; print the version."""
    try:
        r = load_rubric()
    except RubricError as e:
        Console(stderr=True).print(f"[red]rubric error:[/]\n{e}")
        raise typer.Exit(1) from e
    n = sum(len(r.evidence(x)) for x in r.rounds)
    m = sum(len(v) for v in r.misconception_catalogue.values())
    Console().print(
        f"{r.version}: {len(r.rounds)} rounds, {n} evidence items, {m} misconceptions, {len(r.dimensions)} dimensions"
    )


@app.command("show")
def show(round_id: str, lang: Annotated[str, typer.Option("--lang")] = "en") -> None:
    """Print one round: prompt, expected evidence, follow-ups."""
    r = load_rubric()
    rnd = r.round(round_id)
    lg: Lang = "zh" if lang == "zh" else "en"
    con = Console()
    con.print(f"[bold]{rnd.title.get(lg)}[/] ({rnd.minutes} min)\n{rnd.prompt.get(lg)}\n")
    for e in r.evidence(round_id):
        con.print(f"- [{e.id}] {e.text.get(lg)}  ({', '.join(e.dimensions)})")
    for f in rnd.followups:
        con.print(f"? {f.text.get(lg)}")
