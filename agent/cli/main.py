"""`interview …` and `python -m agent …`."""

from __future__ import annotations

import importlib
import os
import sys

import typer

from agent.cli import capacity_cmd, eval_cmd, grade_cmd, package_cmd, rubric_cmd

app = typer.Typer(
    help="vLLM Interview Coach: mock interviews, judged against the rubric.", no_args_is_help=True
)
app.command("grade")(grade_cmd.grade)
app.add_typer(eval_cmd.app, name="eval")
app.add_typer(rubric_cmd.app, name="rubric")
app.add_typer(capacity_cmd.app, name="capacity")
app.command("package")(package_cmd.package)


def _mount_optional() -> None:
    """Command groups whose modules need the app extras (langgraph, chromadb, gradio)."""
    try:
        practice = importlib.import_module("agent.cli.practice_cmd")
        app.command("practice")(practice.practice)
        app.command("sessions")(practice.sessions)
    except ImportError as e:
        _missing("practice/sessions", e)
    for module, name in (
        ("agent.cli.override_cmd", "override"),
        ("agent.cli.index", "index"),
        ("agent.cli.db_cmd", "db"),
    ):
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


INTERNAL_ERROR = 3
"""Exit code of a crash (a bug), distinct from 1 (some inputs failed) and 2 (usage error)."""
DEBUG_ENV = "INTERVIEW_DEBUG"


STORE_ERRORS = (
    ("agent.graph.errors", "SessionError"),
    ("agent.overrides.model", "OverrideLogError"),
    ("agent.db", "DatabaseError"),
    ("agent.rubric.loader", "RubricError"),
)
"""Errors whose message tells the user what is wrong (a corrupt session store names its file): one
line and exit 1, not an internal error, when a command let one through."""


def _told(e: Exception) -> bool:
    kinds = [getattr(sys.modules[m], n, None) for m, n in STORE_ERRORS if m in sys.modules]
    return any(isinstance(k, type) and isinstance(e, k) for k in kinds)


def main() -> None:
    """`interview`: an exception nothing else caught is one line on stderr, never a traceback (but
    with INTERVIEW_DEBUG=1): a session store, override log or rubric that cannot be used exits 1 with
    its message, anything else is an internal error (a bug) and exits 3."""
    try:
        app()
    except Exception as e:
        if _told(e):
            print(f"error: {' '.join(str(e).splitlines())}", file=sys.stderr)
            raise SystemExit(1) from None
        if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
            raise SystemExit(_debug_exit(e)) from None
        why = " ".join(f"{type(e).__name__}: {e}".split())[:500]
        print(
            f"interview: internal error: {why} (a bug: please report it; {DEBUG_ENV}=1 shows the traceback)",
            file=sys.stderr,
        )
        raise SystemExit(INTERNAL_ERROR) from None


def _debug_exit(e: BaseException) -> int:
    import traceback

    traceback.print_exception(e, file=sys.stderr)
    return INTERNAL_ERROR
