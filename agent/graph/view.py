"""A session as its callers see it, built from the graph's state at the edge (the state itself stays plain
JSON, agent/graph/state.py): `SessionView` (where the session waits, the last assessment, the report),
`SessionSummary` (one line of a list of sessions) and `Suggestion` (a co-pilot follow-up)."""

from __future__ import annotations

import time
from typing import Any, Literal, cast

from pydantic import BaseModel, Field, ValidationError, ValidatorFunctionWrapHandler, field_validator

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import Transcript, TranscriptRound
from agent.graph.inputs import check_language
from agent.graph.notice import Notice, said, text_of
from agent.graph.plan import CANDIDATE_QUESTIONS_MINUTES
from agent.graph.report import SessionReport
from agent.graph.state import PlannedRound
from agent.graph.store import SessionRow
from agent.knowledge.snippet import Snippet
from agent.rubric.model import Lang, RoundId

SessionMode = Literal["practice", "copilot"]


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
    """bad input: what was wrong, in the session's language; the session still waits at the same question."""
    message_keyed: Notice | None = None
    """the same message as its key and fields, to render in the interface's language (`notice.py`)."""
    awaiting: Literal["candidate", "interviewer"] | None = None
    notice: str | None = None
    """what the person should know, e.g. the round closed as its time ran out (the session's language)."""
    notice_keyed: Notice | None = None
    """the same notice as its key and fields; None for a notice stored as text (a session from before)."""
    snippets: list[Snippet] = Field(default_factory=list)
    """co-pilot: vLLM source that verifies (or refutes) the last answer's claims; empty without an index."""
    candidate_questions: list[str] = Field(default_factory=list)
    """what the candidate asked in the closing five minutes after the last round (not a round's answer)."""

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


def session_view(row: SessionRow, v: dict[str, Any], message: Notice | None = None) -> SessionView:
    """What the caller sees of state `v`, with `message` (bad input) when the call was refused."""
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
        message=message.text(v["language"]) if message else None,
        message_keyed=message,
        awaiting=v["awaiting"],
        notice=text_of(v.get("notice"), v["language"]),
        notice_keyed=said(v.get("notice")),
        snippets=[Snippet.model_validate(x) for x in v.get("snippets", [])],
        candidate_questions=list(v.get("asked") or []),
    )


def summary(row: SessionRow) -> SessionSummary:
    """The session's line in a list: what its row says, nothing of its contents."""
    return SessionSummary(
        session_id=row.id,
        plan=row.plan,
        mode=row.mode,
        language=check_language(row.language),
        status=row.status,
        owner=row.owner,
        updated_at=row.updated_at,
    )
