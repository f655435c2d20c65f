"""The session API the UI and the terminal call: start, answer, ask, look, list, grade.

Every call that changes a session resumes the graph on its thread (`Command(resume=...)`) and
returns a `SessionView`; bad input never reaches the graph: the view carries a clear `message` and
the session still waits at the same question. A session with an owner is visible only to that owner
(anyone else gets "no such session"); a session without an owner only to callers without one.

The parts it is built of: what a caller sees (`view.py`: SessionView, SessionSummary), what a call
accepts (`inputs.py`), the rubric and the judge of a run (`context.py`), and where sessions live
(`store.py`) and the lock on each (`lock.py`); `retry.py` and `clock.py` are calls of the same kind.
"""

from __future__ import annotations

import functools
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any, ParamSpec, TypeVar

from langgraph.types import Command

from agent.contracts.report import JudgeInfo, Report
from agent.contracts.transcript import Transcript, TranscriptRound
from agent.graph import lock
from agent.graph.context import graph_context
from agent.graph.errors import SessionBusy, SessionError, SessionNotFound
from agent.graph.inputs import check_input, check_language
from agent.graph.interview import Graph, build
from agent.graph.notice import for_mode, notice
from agent.graph.plan import Plan, make_plan
from agent.graph.report import SessionReport
from agent.graph.state import GraphContext, Inbox, InboxKind, InterviewState, PlannedRound
from agent.graph.store import SessionRow, SessionStore, now_iso, open_store, store_error, thread_config
from agent.graph.view import SessionSummary, SessionView, session_view, summary
from agent.judge.base import Judge
from agent.judge.sources import Sources
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang

MAX_FOLLOWUPS = 2
"""Listed follow-ups the agent asks in one round (practice), besides the given inputs the candidate asks for."""
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


# ---------------------------------------------------------------- locks


_SESSION_LOCKS: dict[str, threading.Lock] = {}
_SESSION_LOCKS_LOCK = threading.Lock()


def _lock(session_id: str) -> threading.Lock:
    """This process's lock on the session: one call at a time changes it (`lock.py` is the lock between
    processes)."""
    with _SESSION_LOCKS_LOCK:
        return _SESSION_LOCKS.setdefault(session_id, threading.Lock())


# ---------------------------------------------------------------- the state a session starts in


def initial_state(
    session_id: str, plan: Plan, mode: str, lang: Lang, *, recorded: list[dict[str, Any]] | None = None
) -> InterviewState:
    return InterviewState(
        session_id=session_id,
        plan=plan.name,
        mode="grade" if mode == "grade" else ("copilot" if mode == "copilot" else "practice"),
        language=lang,
        rounds=plan.rounds,
        candidate_questions=plan.candidate_questions,
        round_index=0,
        phase="rounds",
        run=None,
        transcript=[],
        asked=[],
        question=None,
        awaiting=None,
        inbox=None,
        route="open",
        clock_s=0.0,
        clock_base=time.time(),
        simulated=False,
        draft=None,
        draft_key=None,
        suggestions=[],
        snippets=[],
        assessments=[],
        timing=[],
        recorded=recorded or [],
        replay_pos=0,
        previous=plan.previous,
        max_followups=MAX_FOLLOWUPS,
        notice=None,
        report=None,
    )


# ---------------------------------------------------------------- driving the graph


def _visible(store: SessionStore, session_id: str, owner: str | None) -> SessionRow:
    row = store.get(session_id)
    if row is None or row.owner != owner:
        raise SessionNotFound(session_id)
    return row


def _previous_lookup(store: SessionStore, owner: str | None) -> Any:
    def lookup(prev_id: str) -> list[dict[str, Any]]:
        _visible(store, prev_id, owner)
        snap = store.graph.get_state(thread_config(prev_id))
        return list((snap.values or {}).get("assessments", []))

    return lookup


def _settled(store: SessionStore, row: SessionRow, ctx: GraphContext) -> dict[str, Any]:
    """The session's state, finishing first whatever a crash cut short (nodes are idempotent)."""
    cfg = thread_config(row.id)
    snap = store.graph.get_state(cfg)
    if not snap.values:  # indexed but never started: the process died in between
        plan = make_plan(row.plan, ctx.rubric, row.id, _previous_lookup(store, row.owner))
        store.graph.invoke(
            initial_state(row.id, plan, row.mode, check_language(row.language)),
            cfg,
            context=ctx,
            durability="sync",
        )
        snap = store.graph.get_state(cfg)
    elif snap.next and not snap.interrupts:
        store.graph.invoke(None, cfg, context=ctx, durability="sync")
        snap = store.graph.get_state(cfg)
    values: dict[str, Any] = dict(snap.values)
    status = "done" if values.get("phase") == "done" else "waiting"
    if status != row.status:
        store.set_status(row.id, status)
    return values


def _as_stored(store: SessionStore, row: SessionRow) -> dict[str, Any]:
    """The session as its last checkpoint has it, changing nothing: another process drives it now,
    and finishing a step is that process's job (two writers would fork the session)."""
    values = store.graph.get_state(thread_config(row.id)).values
    if not values:  # the other process is starting it
        raise SessionBusy(row.id, lock.holder(row.id), for_life=False)
    return dict(values)


def _resume(store: SessionStore, row: SessionRow, ctx: GraphContext, inbox: Inbox) -> dict[str, Any]:
    store.graph.invoke(Command(resume=inbox), thread_config(row.id), context=ctx, durability="sync")
    v = dict(store.graph.get_state(thread_config(row.id)).values)
    store.set_status(row.id, "done" if v.get("phase") == "done" else "waiting")
    return v


def _round_chars(v: dict[str, Any]) -> int:
    if v["phase"] != "rounds" or not v["transcript"]:
        return 0
    return len(TranscriptRound.model_validate(v["transcript"][-1]).candidate_text())


@contextmanager
def _held(
    session_id: str, owner: str | None
) -> Iterator[tuple[SessionStore, SessionRow, GraphContext, dict[str, Any]]]:
    """The caller's session held for one change (this process's lock on it, then the lock between
    processes) and settled: its store, row, context and state. SessionNotFound when the caller may not
    see it."""
    store = open_store()
    ctx = graph_context()
    row = _visible(store, session_id, owner)
    with _lock(session_id), lock.hold(session_id):
        yield store, row, ctx, _settled(store, row, ctx)


# ---------------------------------------------------------------- the API


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _store_guard(not_done: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """A store that is locked, read-only, unreadable or unreachable is a SessionStoreError that says what
    was not done (the UI and the terminal show it and keep the input), never a raw sqlite3 or psycopg
    error."""

    def deco(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(fn)
        def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                err = store_error(e, not_done)
                if err is None:
                    raise
                raise err from e

        return run

    return deco


@_store_guard("the session was not started")
def start_session(
    plan: str,
    lang: Lang,
    mode: str = "practice",
    *,
    session_id: str | None = None,
    owner: str | None = None,
) -> SessionView:
    """Start a session and return it waiting at its first question.

    plan: full | a round id | project | self-check | "redo SESSION_ID" (add "fresh" for new round-3 numbers,
    "self-check" for the self-check round at the end: "full self-check").
    mode: practice (the agent asks) or copilot (a human interviewer asks; the graph suggests).
    """
    language = check_language(lang)
    if mode not in ("practice", "copilot"):
        raise SessionError(f"unknown mode {mode!r}; choose practice or copilot")
    sid = session_id or f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
    if not _ID.match(sid):
        raise SessionError(f"bad session id {sid!r}: letters, digits, '.', '_' and '-' only, at most 100")
    store = open_store()
    ctx = graph_context()
    if store.get(sid) is not None:
        raise SessionError(f"session id {sid!r} is already taken")
    p = make_plan(plan, ctx.rubric, sid, _previous_lookup(store, owner))
    stamp = now_iso()
    row = SessionRow(sid, p.name, mode, language, "waiting", owner, stamp, stamp)
    with _lock(sid), lock.hold(sid):
        store.create(row)
        v = _settled(store, row, ctx)
    return session_view(row, v)


@_store_guard("the answer was not recorded; the session still waits at the same question, send it again")
def answer(
    session_id: str, text: str | bytes, *, at_s: float | None = None, owner: str | None = None
) -> SessionView:
    """The candidate's answer to the pending question. at_s: seconds since the session started
    (default: the wall clock), so a test can simulate time without sleeping."""
    with _held(session_id, owner) as (store, row, ctx, v):
        if v["phase"] == "done":
            return session_view(row, v, notice(for_mode("interview.done", v["mode"])))
        clean, message = check_input(text, so_far=_round_chars(v))
        if clean is None:
            return session_view(row, v, message)
        at = float(at_s) if at_s is not None else time.time() - v["clock_base"]
        v = _resume(store, row, ctx, Inbox(kind="answer", text=clean, at_s=at, clocked=at_s is not None))
    return session_view(row, v)


@_store_guard("nothing was recorded; the session is as it was")
def _interviewer(
    session_id: str, kind: InboxKind, text: str, owner: str | None, picked: str | None = None
) -> SessionView:
    with _held(session_id, owner) as (store, row, ctx, v):
        if v["phase"] == "done":
            return session_view(row, v, notice(for_mode("interview.done", v["mode"])))
        if kind == "ask":
            if v["mode"] != "copilot":
                return session_view(row, v, notice("interview.copilot_only"))
            clean, message = check_input(text, kind="question")
            if clean is None:
                return session_view(row, v, message)
            text = clean
        elif v["phase"] == "rounds" and not _round_chars(v):
            return session_view(row, v, notice(for_mode("interview.no_answer_yet", v["mode"])))
        at = time.time() - v["clock_base"] if not v["simulated"] else v["clock_s"]
        inbox = Inbox(kind=kind, text=text, at_s=at, clocked=False)
        if picked:
            inbox["picked"] = picked
        v = _resume(store, row, ctx, inbox)
    return session_view(row, v)


def ask(session_id: str, question: str, *, owner: str | None = None, picked: str | None = None) -> SessionView:
    """Co-pilot: the interviewer's chosen follow-up (a suggestion's text) or their own question; `picked`: the
    suggestion the interviewer picked and then edited into `question` (`asked.picked`)."""
    return _interviewer(session_id, "ask", question, owner, picked)


def close_round(session_id: str, *, owner: str | None = None) -> SessionView:
    """End the round under way now (co-pilot: the interviewer moves on; practice: the candidate skips ahead)."""
    return _interviewer(session_id, "close", "", owner)


@_store_guard("the session could not be read")
def get_session(session_id: str, *, owner: str | None = None) -> SessionView:
    store = open_store()
    ctx = graph_context()
    row = _visible(store, session_id, owner)
    with _lock(session_id), lock.attempt(session_id) as mine:
        v = _settled(store, row, ctx) if mine else _as_stored(store, row)
    return session_view(row, v)


@_store_guard("sessions could not be listed")
def list_sessions(*, owner: str | None = None) -> list[SessionSummary]:
    """The caller's sessions, most recently updated first."""
    return [summary(r) for r in open_store().list(owner)]


@_store_guard("the session could not be looked up")
def find_session(session_id: str) -> SessionSummary | None:
    """Whether a session with this id is stored, and whose it is, whoever asks: for access checks
    (the Review tab: is an uploaded report's id someone's session?). Nothing of its contents."""
    r = open_store().get(session_id)
    if r is None:
        return None
    return summary(r)


_GRADER: list[Graph] = []


def grade_with_graph(
    t: Transcript,
    *,
    rubric: Rubric | None = None,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    sources: Sources | None = None,
) -> Report:
    """A recorded transcript replayed through the graph's record and score nodes, with no interrupt.

    Scores equal `agent.grading.single.grade_transcript` for the same answers and judge (one scoring path).
    Without a judge, the sessions' judge: vLLM when JUDGE_BASE_URL answers, else the embedded judge."""
    ctx = graph_context(rubric)
    if judge is not None:
        ctx = replace(
            ctx,
            judge=judge,
            info=info or JudgeInfo(kind="embedded", model=judge.model, rubric_version=ctx.rubric.version),
        )
    if sources is not None:
        ctx = replace(ctx, sources=sources)
    if not _GRADER:
        _GRADER.append(build())
    rounds = [
        PlannedRound(round=r.round, minutes=ctx.rubric.round(r.round).minutes, variant_seed=r.variant_seed)
        for r in t.rounds
    ]
    plan = Plan(name="grade", rounds=rounds)
    state = initial_state(
        t.id, plan, "grade", t.language, recorded=[r.model_dump(mode="json") for r in t.rounds]
    )
    steps = 20 + 3 * sum(len(r.turns) + 3 for r in t.rounds)
    out = _GRADER[0].invoke(state, {"recursion_limit": steps}, context=ctx)
    return SessionReport.model_validate(out["report"])
