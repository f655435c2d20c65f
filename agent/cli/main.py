"""`interview …` and `python -m agent …`."""

from __future__ import annotations

import importlib
import sys

import typer

from agent.cli import capacity_cmd, eval_cmd, grade_cmd, rubric_cmd

app = typer.Typer(
    help="vLLM Interview Coach: mock interviews, judged against the rubric.", no_args_is_help=True
)
app.command("grade")(grade_cmd.grade)
app.add_typer(eval_cmd.app, name="eval")
app.add_typer(rubric_cmd.app, name="rubric")
app.add_typer(capacity_cmd.app, name="capacity")


def _mount_optional() -> None:
    """Command groups whose modules need the app extras (langgraph, chromadb, gradio)."""
    try:
        practice = importlib.import_module("agent.cli.practice_cmd")
        app.command("practice")(practice.practice)
        app.command("sessions")(practice.sessions)
    except ImportError as e:
        _missing("practice/sessions", e)
    for module, name in (("agent.cli.override_cmd", "override"), ("agent.cli.index", "index")):
        try:
            app.add_typer(importlib.import_module(module).app, name=name)
        except ImportError as e:
            _missing(name, e)


def _missing(what: str, e: ImportError) -> None:
    if len(sys.argv) <= 1 or sys.argv[1] not in what.split("/"):
        return  # only a user who asked for that command needs to hear it is missing
    if e.name and e.name.startswith("agent.cli"):
        return  # not built in this checkout
    print(
        f"note: `interview {what}` is unavailable: {e} (run ./serve.sh or scripts/bootstrap.sh)",
        file=sys.stderr,
    )


@app.command("judge")
def judge(
    port: int = typer.Option(0, "--port", help="port (default: a free one)"),
    gpu: bool = typer.Option(False, "--gpu", help="`vllm serve` from a `pip install vllm` venv"),
    model: str = typer.Option(
        "", "--model", help="model folder (default: JUDGE_MODEL or the packaged SmolLM2)"
    ),
) -> None:
    """Start only the local vLLM judge; print JUDGE_BASE_URL=…; stay in the foreground."""
    from agent.judge import runtime

    argv = ["--judge-only"] + (["--port", str(port)] if port else []) + (["--gpu"] if gpu else [])
    argv += ["--model", model] if model else []
    raise typer.Exit(runtime.main(argv))


_mount_optional()


def main() -> None:
    app()
