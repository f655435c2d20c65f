"""`interview practice [--plan full|ROUND|project|self-check|"redo SESSION"] [--lang zh|en] [--session ID]`
and `interview sessions [--json]`. Add `self-check` to a plan (`--plan "full self-check"`) for the seed's
four self-check questions as a last round.

A terminal text session on the interview graph. Each question is printed on its own line starting
with `Q: `; each answer is the lines up to a line holding only `.` (also when standard input is
not a terminal, so scripts and tests can drive it). A session is resumable with `--session ID`: it
asks the same pending question again. The process holds the session (a lock file in the data dir)
until it ends: a second `interview practice` on the same session is refused, naming the holder's
pid (two processes on one session would lose answers). Also runs as
`python -m agent.cli.practice_cmd practice ...`.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, BinaryIO

import typer
from rich.console import Console
from rich.table import Table

from agent.graph import (
    SessionBusy,
    SessionError,
    SessionNotFound,
    SessionView,
    answer,
    get_session,
    list_sessions,
    lock,
    rejoin,
    start_session,
)
from agent.graph.errors import SessionStoreError
from agent.graph.plan import usage
from agent.graph.report import session_markdown
from agent.rubric import Lang, RubricError, default_rubric
from agent.util.messages import t

END_OF_ANSWER = b"."


def read_answer(stream: BinaryIO) -> bytes | None:
    """The lines up to a line holding only `.`, without that line; None when the input ends first."""
    lines: list[bytes] = []
    for raw in iter(stream.readline, b""):
        if raw.rstrip(b"\r\n") == END_OF_ANSWER:
            return b"".join(lines).rstrip(b"\r\n")
        lines.append(raw)
    return None


def _decode(raw: bytes) -> str | bytes:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw  # answer() says clearly that it is not text


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _round_header(v: SessionView) -> str:
    rubric = default_rubric()
    if v.round is None:
        name = t("interview.your_questions", v.language)
        return t("interview.questions_header", v.language, title=name, minutes=v.round_minutes)
    title = rubric.round(v.round).title.get(v.language)
    return t(
        "interview.round_header",
        v.language,
        n=v.round_index + 1,
        of=v.n_rounds,
        title=title,
        minutes=v.round_minutes,
    )


def practice(
    plan: Annotated[str, typer.Option("--plan", help=usage())] = "full",
    lang: Annotated[str, typer.Option("--lang", help="zh or en")] = "en",
    session: Annotated[
        str | None, typer.Option("--session", help="resume this session, or start one with this id")
    ] = None,
) -> None:
    """Practise a mock interview in the terminal: answers end with a line holding only '.'."""
    err = Console(stderr=True)
    if lang not in ("zh", "en"):
        err.print(f"[red]error:[/] unknown language {lang!r}; choose zh or en")
        raise typer.Exit(2)
    language: Lang = "zh" if lang == "zh" else "en"
    claimed: lock.Claim | None = None
    try:
        view: SessionView | None = None
        if session:
            claimed = lock.claim(session)  # before anything is read: this process drives the session
            try:
                back = rejoin(session)
                view = back.view
                err.print(f"resuming session {view.session_id} ({view.plan}); the pending question again:")
                if back.told_minutes is not None:
                    err.print(t("ui.clock_paused", view.language, minutes=back.told_minutes))
            except SessionNotFound:
                view = None
        if view is None:
            view = start_session(plan, language, "practice", session_id=session)
        if claimed is None:
            claimed = lock.claim(view.session_id)
    except (SessionError, RubricError) as e:
        if claimed is not None:
            claimed.release()
        if isinstance(e, SessionStoreError | SessionBusy):
            # the store cannot be read (corrupt, truncated, locked) or the session is held elsewhere:
            # one line naming the file, exit 1, as for every command (README); 2 is a usage error
            typer.echo(f"error: {_one_line(str(e))}", err=True)
            raise typer.Exit(1) from e
        err.print(f"[red]error:[/] {e}")  # a plan, language or id that cannot be used
        raise typer.Exit(2) from e
    with claimed:
        if view.mode != "practice":
            err.print(f"[red]error:[/] session {view.session_id} is a co-pilot session; open it in the app")
            raise typer.Exit(2)
        _drive(view, err)


def _drive(view: SessionView, err: Console) -> None:
    """Ask, read, answer until the session is done or the input ends."""
    sid = view.session_id
    err.print(f"session {sid} · plan {view.plan} · resume with: interview practice --session {sid}")
    if sys.stdin.isatty():
        err.print("End each answer with a line holding only '.'; Ctrl-D leaves the session resumable.")
    shown: tuple[int, str | None] | None = None
    stdin = sys.stdin.buffer
    while view.status == "waiting" and view.question is not None:
        if shown != (view.round_index, view.round):
            _say(_round_header(view))
            shown = (view.round_index, view.round)
        _say("Q: " + _one_line(view.question))
        raw = read_answer(stdin)
        if raw is None:
            err.print(
                f"input ended before an answer's '.' line; resume with: interview practice --session {sid}"
            )
            raise typer.Exit(0)
        try:
            new = answer(sid, _decode(raw))
        except SessionError as e:  # the store is locked or read-only: say so; the session is as it was
            typer.echo(f"error: {_one_line(str(e))}", err=True)  # one line, never wrapped
            err.print(f"resume with: interview practice --session {sid}")
            raise typer.Exit(1) from e
        if new.message:
            err.print(f"[yellow]{new.message}[/]")
        if new.notice:
            _say(new.notice)
        view = (
            new  # no score until the end: the interviewer does not correct along the way (docs/interview.md)
        )
    if view.report is not None:
        _say(session_markdown(view.report, default_rubric()))


def sessions(
    json_out: Annotated[
        bool, typer.Option("--json", help="a JSON list with each session's transcript")
    ] = False,
) -> None:
    """List terminal sessions (id, plan, status); --json adds each one's transcript (answers so far)."""
    err = Console(stderr=True)
    try:
        items = list_sessions()
        views = [get_session(s.session_id) for s in items]
    except RubricError as e:
        err.print(f"[red]rubric error:[/] {e}")
        raise typer.Exit(2) from e
    except SessionError as e:  # unreadable, locked, or it lost sessions it held: the message names the file
        typer.echo(f"error: {e}", err=True)  # one line, never wrapped
        raise typer.Exit(1) from e
    if json_out:
        out = [
            {
                "id": s.session_id,
                "plan": s.plan,
                "mode": s.mode,
                "language": s.language,
                "status": v.status,
                "updated_at": s.updated_at,
                "round": v.round,
                "question": v.question,
                "transcript": v.transcript.model_dump(mode="json"),
            }
            for s, v in zip(items, views, strict=True)
        ]
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table(title=f"{len(items)} session(s)")
    for col in ("id", "plan", "mode", "lang", "status", "answered rounds", "updated"):
        table.add_column(col)
    for s, v in zip(items, views, strict=True):
        table.add_row(
            s.session_id, s.plan, s.mode, s.language, v.status, str(len(v.transcript.rounds)), s.updated_at
        )
    Console().print(table)


app = typer.Typer(help="Terminal interview sessions.", no_args_is_help=True)
app.command("practice")(practice)
app.command("sessions")(sessions)

if __name__ == "__main__":
    app()
