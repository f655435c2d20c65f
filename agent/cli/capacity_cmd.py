"""`interview capacity reference|variant|check`: the round-3 calculator from the command line."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from agent.judge import capacity

app = typer.Typer(help="Round 3 capacity calculator, checker and fresh variants.", no_args_is_help=True)


@app.command("reference")
def reference() -> None:
    """The seed's reference derivation, as JSON."""
    print(json.dumps(capacity.reference().model_dump(), indent=2))


@app.command("variant")
def variant(seed: int, lang: Annotated[str, typer.Option("--lang")] = "en") -> None:
    """A fresh variant of round 3 with its reference values."""
    v = capacity.variant(seed, "zh" if lang == "zh" else "en")
    print(json.dumps(v.model_dump(), ensure_ascii=False, indent=2))


@app.command("check")
def check(
    seed: Annotated[
        int | None, typer.Option("--seed", help="variant seed (default: the seed's numbers)")
    ] = None,
) -> None:
    """Read an answer on stdin and say: correct, slip, unit or sharding error, or insufficient."""
    params = capacity.variant(seed).params if seed is not None else None
    f = capacity.check_answer(sys.stdin.read(), params)
    print(json.dumps(f.model_dump(), indent=2))
