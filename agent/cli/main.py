"""`interview …` and `python -m agent …`."""

from __future__ import annotations

import typer

from agent.cli import capacity_cmd, eval_cmd, grade_cmd, rubric_cmd

app = typer.Typer(
    help="vLLM Interview Coach: mock interviews, judged against the rubric.", no_args_is_help=True
)
app.command("grade")(grade_cmd.grade)
app.add_typer(eval_cmd.app, name="eval")
app.add_typer(rubric_cmd.app, name="rubric")
app.add_typer(capacity_cmd.app, name="capacity")


def main() -> None:
    app()
