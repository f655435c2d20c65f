"""`interview …` and `python -m agent …`."""

from __future__ import annotations

import functools
import importlib
import os
import sys

import typer

from agent.util.loopback import direct_to_loopback

HELP = "vLLM Interview Coach: mock interviews, judged against the rubric."

COMMANDS: dict[str, tuple[str, str, bool]] = {
    "grade": ("agent.cli.grade_cmd", "grade", False),
    "eval": ("agent.cli.eval_cmd", "app", True),
    "rubric": ("agent.cli.rubric_cmd", "app", True),
    "capacity": ("agent.cli.capacity_cmd", "app", True),
    "package": ("agent.cli.package_cmd", "package", False),
    "practice": ("agent.cli.practice_cmd", "practice", False),
    "sessions": ("agent.cli.practice_cmd", "sessions", False),
    "override": ("agent.cli.override_cmd", "app", True),
    "index": ("agent.cli.index", "app", True),
    "db": ("agent.cli.db_cmd", "app", True),
}
"""Each command: (its module, the function or Typer group in it, whether it is a group). A run imports only the
module of the command it was asked for (a cold import of every command's dependencies took 4.3 s, langgraph
alone 3 s); `interview --help` and `from agent.cli.main import app` import them all."""
OPTIONAL = ("practice", "sessions", "override", "index", "db")
"""Commands whose modules need the app extras (langgraph, chromadb, gradio): missing extras are said, not raised."""


def build_app(only: str | None = None) -> typer.Typer:
    """The `interview` app with every command, or with `only` that one (and `judge`)."""
    app = typer.Typer(help=HELP, no_args_is_help=True)
    app.callback()(_root)  # a group even when one command is mounted
    for name, (module, attr, group) in COMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            found = getattr(importlib.import_module(module), attr)
        except ImportError as e:
            if name not in OPTIONAL:
                raise
            _missing(name, e)
            continue
        if group:
            app.add_typer(found, name=name)
        else:
            app.command(name)(found)
    app.command("judge")(judge)
    return app


def _root() -> None:
    """vLLM Interview Coach: mock interviews, judged against the rubric."""


def _missing(what: str, e: ImportError) -> None:
    if len(sys.argv) <= 1 or sys.argv[1] not in what.split("/"):
        return  # only a user who asked for that command needs to hear it is missing
    if e.name and e.name.startswith("agent.cli"):
        return  # not built in this checkout
    print(
        f"note: `interview {what}` is unavailable: {e} (run ./serve.sh or scripts/bootstrap.sh)",
        file=sys.stderr,
    )


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


@functools.cache
def _full_app() -> typer.Typer:
    return build_app()


def __getattr__(name: str) -> typer.Typer:
    """`app`: every command mounted (built on first use, for `typer.testing` and the docs)."""
    if name == "app":
        return _full_app()
    raise AttributeError(name)


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
    asked = sys.argv[1] if len(sys.argv) > 1 else None
    direct_to_loopback()  # the judge, index and app on this machine are never asked through a proxy
    try:
        build_app(asked if asked in COMMANDS else None)()
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
