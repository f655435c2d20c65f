"""The session API the UI and the terminal call: start, answer, ask, look, list, grade.

Every call that changes a session resumes the graph on its thread (`Command(resume=...)`) and
returns a `SessionView`; bad input never reaches the graph: the view carries a clear `message` and
the session still waits at the same question. A session with an owner is visible only to that owner
(anyone else gets "no such session"); a session without an owner only to callers without one.
"""

from __future__ import annotations

import functools
import re
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal, ParamSpec, TypeVar, cast

from langgraph.types import Command
from pydantic import BaseModel, Field, ValidationError, ValidatorFunctionWrapHandler, field_validator

from agent import config
from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.contracts.transcript import MAX_ANSWER_CHARS, Transcript, TranscriptRound
from agent.graph import lock, wording
from agent.graph.errors import PlanError, SessionBusy, SessionError, SessionNotFound
from agent.graph.interview import Graph, build
from agent.graph.plan import CANDIDATE_QUESTIONS_MINUTES, Plan, make_plan
from agent.graph.report import SessionReport
from agent.graph.state import GraphContext, Inbox, InboxKind, InterviewState, PlannedRound
from agent.graph.store import SessionRow, SessionStore, now_iso, open_store, store_error, thread_config
from agent.judge.base import Judge
from agent.judge.factory import make_judge
from agent.judge.sources import Sources
from agent.knowledge.snippet import Snippet
from agent.rubric.loader import Rubric, default_rubric
from agent.rubric.model import Lang, RoundId

SessionMode = Literal["practice", "copilot"]
SNIPPETS = 3
"""co-pilot: source snippets retrieved per answer."""
MAX_FOLLOWUPS = 2
"""Listed follow-ups the agent asks in one round (practice), besides the given inputs the candidate asks for."""
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class Suggestion(BaseModel):
    """Co-pilot: a follow-up the interviewer may ask, and why (the evidence still missing)."""

    text: str
    why: list[str] = Field(default_factory=list)
    followup: str | None = Field(default=None, description="the listed follow-up's id, when it is one")


class SessionView(BaseModel):
    session_id: str
    plan: str
    mode: SessionMode
    language: Lang
    owner: str | None
    status: Literal["waiting", "done"]
    question: str | None
    """what the candidate is asked now; None while a co-pilot session waits for the interviewer's choice."""
    round: RoundId | None
    round_index: int
    n_rounds: int
    round_minutes: int | None
    round_elapsed_s: float
    last_assessment: RoundAssessment | None
    suggestions: list[Suggestion]
    report: SessionReport | None
    transcript: Transcript
    """the answers so far: rounds with at least one answer (not validated as gradable while under way)."""
    message: str | None = None
    """bad input: what was wrong; the session still waits at the same question."""
    awaiting: Literal["candidate", "interviewer"] | None = None
    notice: str | None = None
    """something the candidate should know, e.g. the round closed because its time ran out."""
    snippets: list[Snippet] = Field(default_factory=list)
    """co-pilot: vLLM source that verifies (or refutes) the last answer's claims; empty without an index."""

    @field_validator("transcript", mode="wrap")
    @classmethod
    def _answers_so_far(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Transcript:
        """A session under way may have no answer yet: read it back without the gradable-transcript rule."""
        try:
            return cast(Transcript, handler(value))
        except ValidationError:
            if not isinstance(value, dict):
                raise
            rounds = [TranscriptRound.model_validate(r) for r in value.get("rounds", [])]
            return Transcript.model_construct(
                id=value["id"], language=value.get("language", "en"), rounds=rounds
            )


class SessionSummary(BaseModel):
    session_id: str
    plan: str
    mode: str
    language: Lang
    status: str
    owner: str | None
    updated_at: str


# ---------------------------------------------------------------- context, locks


_CTX: dict[tuple[str, str | None, str | None, str], GraphContext] = {}
_CTX_LOCK = threading.Lock()
_SESSION_LOCKS: dict[str, threading.Lock] = {}


def _retriever() -> Callable[[str], list[Snippet]] | None:
    """Source retrieval over the index in the data dir (`interview index build`); None when the knowledge
    extras are not installed. Without a usable index a call raises with the reason, and the co-pilot
    says so in its notice and goes on without snippets (an index built later is used from then on)."""
    try:
        from agent.knowledge import KnowledgeIndexError, SourceIndex

        index = SourceIndex()
    except Exception:  # the knowledge extras are not installed: co-pilot runs without snippets
        return None

    def retrieve(text: str) -> list[Snippet]:
        if not index.is_built():
            raise KnowledgeIndexError(index.status().relation_to_pin)
        return index.query(text[:2000], k=SNIPPETS)

    return retrieve


def graph_context(rubric: Rubric | None = None) -> GraphContext:
    """The rubric, the judge (vLLM when JUDGE_BASE_URL answers, else the embedded judge), the index."""
    rubric = rubric or default_rubric()
    key = (rubric.version, config.judge_base_url(), config.judge_model(), str(config.data_dir()))
    with _CTX_LOCK:
        if key not in _CTX:
            judge, info, _why = make_judge("auto", rubric)
            _CTX[key] = GraphContext(rubric=rubric, judge=judge, info=info, retrieve=_retriever())
        return _CTX[key]


def _lock(session_id: str) -> threading.Lock:
    with _CTX_LOCK:
        return _SESSION_LOCKS.setdefault(session_id, threading.Lock())


# ---------------------------------------------------------------- state <-> view


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


def _transcript(v: dict[str, Any]) -> Transcript:
    rounds = [
        TranscriptRound.model_validate(r)
        for r in v["transcript"]
        if any(t["role"] == "candidate" for t in r.get("turns", []))
    ]
    return Transcript.model_construct(id=v["session_id"], language=v["language"], rounds=rounds)


def _elapsed(v: dict[str, Any]) -> float:
    run = v.get("run")
    if not run:
        return 0.0
    now = v["clock_s"] if v["simulated"] else max(v["clock_s"], time.time() - v["clock_base"])
    return max(0.0, now - run["started_s"])


def _view(row: SessionRow, v: dict[str, Any], message: str | None = None) -> SessionView:
    rounds: list[PlannedRound] = v["rounds"]
    idx = v["round_index"]
    phase = v["phase"]
    current = rounds[idx] if phase == "rounds" and idx < len(rounds) else None
    minutes = (
        current["minutes"] if current else (CANDIDATE_QUESTIONS_MINUTES if phase == "questions" else None)
    )
    last = v["draft"] or (v["assessments"][-1] if v["assessments"] else None)
    return SessionView(
        session_id=row.id,
        plan=v["plan"],
        mode="copilot" if v["mode"] == "copilot" else "practice",
        language=v["language"],
        owner=row.owner,
        status="done" if phase == "done" else "waiting",
        question=v["question"],
        round=current["round"] if current else None,
        round_index=idx,
        n_rounds=len(rounds),
        round_minutes=minutes,
        round_elapsed_s=round(_elapsed(v), 3),
        last_assessment=RoundAssessment.model_validate(last) if last else None,
        suggestions=[
            Suggestion(text=s["text"], why=s["why"], followup=s.get("followup")) for s in v["suggestions"]
        ],
        report=SessionReport.model_validate(v["report"]) if v["report"] else None,
        transcript=_transcript(v),
        message=message,
        awaiting=v["awaiting"],
        notice=v.get("notice"),
        snippets=[Snippet.model_validate(x) for x in v.get("snippets", [])],
    )


# ---------------------------------------------------------------- input checks


def check_text(
    text: object, lang: Lang, *, so_far: int = 0, kind: str = "answer"
) -> tuple[str | None, str | None]:
    """(the text, None) when it can be recorded, else (None, a message saying what is wrong)."""
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            return None, wording.say("not_text", lang, why=f"not UTF-8 at byte {e.start}")
    if not isinstance(text, str):
        return None, wording.say("not_text", lang, why=type(text).__name__)
    if "\x00" in text:
        return None, wording.say("not_text", lang, why="NUL bytes")
    control = sum(1 for c in text if c not in "\n\r\t" and unicodedata.category(c) == "Cc")
    if control > max(2, len(text) // 100):
        return None, wording.say("not_text", lang, why=f"{control} control characters")
    if text.count("\ufffd") > max(2, len(text) // 50):
        return None, wording.say("not_text", lang, why="undecodable bytes")
    if not text.strip():
        return None, wording.say("empty" if kind == "answer" else "empty_question", lang)
    if len(text) > MAX_ANSWER_CHARS or so_far + len(text) > MAX_ANSWER_CHARS:
        return None, wording.say("too_long", lang, n=len(text), limit=MAX_ANSWER_CHARS - so_far)
    return text, None


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
            initial_state(row.id, plan, row.mode, _lang(row.language)), cfg, context=ctx, durability="sync"
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


def _lang(lang: str) -> Lang:
    if lang == "zh":
        return "zh"
    if lang == "en":
        return "en"
    raise SessionError(f"unknown language {lang!r}; choose zh or en")


def _round_chars(v: dict[str, Any]) -> int:
    if v["phase"] != "rounds" or not v["transcript"]:
        return 0
    return len(TranscriptRound.model_validate(v["transcript"][-1]).candidate_text())


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

    plan: full | a round id | project | "redo SESSION_ID" (add "fresh" for new round-3 numbers).
    mode: practice (the agent asks) or copilot (a human interviewer asks; the graph suggests).
    """
    language = _lang(lang)
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
    return _view(row, v)


@_store_guard("the answer was not recorded; the session still waits at the same question, send it again")
def answer(
    session_id: str, text: str | bytes, *, at_s: float | None = None, owner: str | None = None
) -> SessionView:
    """The candidate's answer to the pending question. at_s: seconds since the session started
    (default: the wall clock), so a test can simulate time without sleeping."""
    store = open_store()
    ctx = graph_context()
    row = _visible(store, session_id, owner)
    with _lock(session_id), lock.hold(session_id):
        v = _settled(store, row, ctx)
        if v["phase"] == "done":
            return _view(row, v, wording.say("done", v["language"]))
        clean, message = check_text(text, v["language"], so_far=_round_chars(v))
        if clean is None:
            return _view(row, v, message)
        at = float(at_s) if at_s is not None else time.time() - v["clock_base"]
        v = _resume(store, row, ctx, Inbox(kind="answer", text=clean, at_s=at, clocked=at_s is not None))
    return _view(row, v)


@_store_guard("nothing was recorded; the session is as it was")
def _interviewer(session_id: str, kind: InboxKind, text: str, owner: str | None) -> SessionView:
    store = open_store()
    ctx = graph_context()
    row = _visible(store, session_id, owner)
    with _lock(session_id), lock.hold(session_id):
        v = _settled(store, row, ctx)
        lang = v["language"]
        if v["phase"] == "done":
            return _view(row, v, wording.say("done", lang))
        if kind == "ask":
            if v["mode"] != "copilot":
                return _view(row, v, wording.say("copilot_only", lang))
            clean, message = check_text(text, lang, kind="question")
            if clean is None:
                return _view(row, v, message)
            text = clean
        elif v["phase"] == "rounds" and not _round_chars(v):
            return _view(row, v, wording.say("no_answer_yet", lang))
        at = time.time() - v["clock_base"] if not v["simulated"] else v["clock_s"]
        v = _resume(store, row, ctx, Inbox(kind=kind, text=text, at_s=at, clocked=False))
    return _view(row, v)


def ask(session_id: str, question: str, *, owner: str | None = None) -> SessionView:
    """Co-pilot: the interviewer's chosen follow-up (a suggestion's text) or their own question."""
    return _interviewer(session_id, "ask", question, owner)


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
    return _view(row, v)


@_store_guard("sessions could not be listed")
def list_sessions(*, owner: str | None = None) -> list[SessionSummary]:
    """The caller's sessions, most recently updated first."""
    return [
        SessionSummary(
            session_id=r.id,
            plan=r.plan,
            mode=r.mode,
            language=_lang(r.language),
            status=r.status,
            owner=r.owner,
            updated_at=r.updated_at,
        )
        for r in open_store().list(owner)
    ]


@_store_guard("the session could not be looked up")
def find_session(session_id: str) -> SessionSummary | None:
    """Whether a session with this id is stored, and whose it is, whoever asks: for access checks
    (the Review tab: is an uploaded report's id someone's session?). Nothing of its contents."""
    r = open_store().get(session_id)
    if r is None:
        return None
    return SessionSummary(
        session_id=r.id,
        plan=r.plan,
        mode=r.mode,
        language=_lang(r.language),
        status=r.status,
        owner=r.owner,
        updated_at=r.updated_at,
    )


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


__all__ = [
    "PlanError",
    "SessionBusy",
    "SessionError",
    "SessionNotFound",
    "SessionSummary",
    "SessionView",
    "Suggestion",
    "answer",
    "ask",
    "close_round",
    "find_session",
    "get_session",
    "grade_with_graph",
    "list_sessions",
    "start_session",
]
