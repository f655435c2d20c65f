"""The interview's state: what the checkpointer persists after every node.

Every value is plain JSON (dicts, lists, strings, numbers), so a checkpoint can be read back by any
version of the code and by other tools; the pydantic contracts (Transcript, RoundAssessment,
Report) are built from it at the edges (`agent.graph.view`, `agent.graph.session`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from agent.contracts.report import JudgeInfo
from agent.judge.base import Judge
from agent.judge.sources import Sources
from agent.knowledge.snippet import Snippet
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, Round, RoundId

Mode = Literal["practice", "copilot", "grade"]
"""practice: the graph asks; copilot: a human interviewer asks; grade: a recorded transcript is replayed."""
Phase = Literal["rounds", "questions", "done"]
"""rounds: the rubric rounds; questions: the candidate's own questions at the end of the full mock."""
Awaiting = Literal["candidate", "interviewer"]
InboxKind = Literal["answer", "ask", "close", "interviewer"]
Route = Literal["wait", "assess", "choose", "score", "open", "report"]


class PlannedRound(TypedDict):
    round: RoundId
    minutes: int
    variant_seed: int | None
    """round 3 only: the seed of a fresh variant of the numbers (None: the seed's own numbers)."""


class Inbox(TypedDict):
    """What the graph was resumed with (or, in grade mode, the next recorded turn)."""

    kind: InboxKind
    text: str
    at_s: float | None
    clocked: bool
    """True when the caller gave the time (tests, recorded transcripts), False for the wall clock."""
    earlier: NotRequired[list[dict[str, Any]]]
    """a retried answer (`agent.graph.retry`): the earlier attempts at it, each {"text", "at_s"} and the
    round's scores as they stood with it ({"total", "scores"}, when the round had any)."""
    picked: NotRequired[str]
    """co-pilot's Ask: the suggestion the interviewer picked and started the question from (`asked.picked`)."""


class RoundRun(TypedDict):
    """Bookkeeping of the round under way; reset when the next round opens."""

    started_s: float
    followups: list[str]
    """ids of the listed follow-ups asked so far."""
    facts_given: list[str]
    """ids of the hidden inputs given because the candidate asked for them."""
    asked_unprompted: bool
    question: int
    """project-experience: index of the current question; -1 while the candidate describes the project."""
    question_followed: bool
    """project-experience: the current question's trigger follow-up was asked."""
    segment: int
    """index in the round's turns where the answer to the current question starts."""
    over_budget: bool


class Suggestion(TypedDict):
    text: str
    why: list[str]
    followup: str | None


class RoundTiming(TypedDict):
    round: RoundId
    minutes: int
    used_s: float | None
    over_budget: bool
    notes: NotRequired[list[dict[str, Any]]]
    """The notes the session added to the round's assessment (over budget, inputs asked for), each a
    `graph.notice.Notice` as JSON: the report shows them in the reader's language (`report.shown_in`)."""


class Previous(TypedDict):
    """redo: the attempt being redone, for the side-by-side comparison."""

    session: str
    rounds: dict[str, dict[str, Any]]
    """round id -> that round's RoundAssessment (JSON)."""


class InterviewState(TypedDict):
    session_id: str
    plan: str
    mode: Mode
    language: Lang
    rounds: list[PlannedRound]
    candidate_questions: bool
    """the full mock ends with five minutes of the candidate's own questions."""
    round_index: int
    phase: Phase
    run: RoundRun | None
    transcript: list[dict[str, Any]]
    """TranscriptRound JSON, one per opened round, in order."""
    asked: list[str]
    """the candidate's own questions (end of the full mock)."""
    question: str | None
    """what the candidate is being asked right now (None: co-pilot waiting for the interviewer)."""
    awaiting: Awaiting | None
    inbox: Inbox | None
    route: Route
    clock_s: float
    """seconds since the session started, as of the last event."""
    clock_base: float
    """wall-clock time (epoch seconds) of the session's start."""
    simulated: bool
    """answers carried their own times: elapsed time is read from them, never from the wall clock."""
    draft: dict[str, Any] | None
    """the latest draft RoundAssessment of the round under way (JSON)."""
    draft_key: str | None
    suggestions: list[Suggestion]
    snippets: list[dict[str, Any]]
    """co-pilot: vLLM source snippets to verify what the last answer claims (when the index is built)."""
    assessments: list[dict[str, Any]]
    """the scored rounds' RoundAssessment (JSON), in order."""
    timing: list[RoundTiming]
    recorded: list[dict[str, Any]]
    """grade mode: the recorded transcript's rounds."""
    replay_pos: int
    previous: Previous | None
    max_followups: int
    notice: dict[str, Any] | str | None
    """something the person should be told (the round closed because time ran out): a `notice.Notice` as JSON
    (a state written before notices were keyed holds its text)."""
    report: dict[str, Any] | None


@dataclass(frozen=True)
class GraphContext:
    """What the nodes need but the checkpoint must not hold: the rubric and the judge."""

    rubric: Rubric
    judge: Judge
    info: JudgeInfo
    retrieve: Callable[[str], list[Snippet]] | None = None
    """source retrieval for co-pilot snippets; None when no index is built."""
    sources: Sources | None = None
    """source evidence for the judge (snippets, symbol checks); None: assess without it."""


def planned(state: InterviewState) -> PlannedRound:
    return state["rounds"][state["round_index"]]


def current_round(ctx: GraphContext, state: InterviewState) -> Round:
    return ctx.rubric.round(planned(state)["round"])
