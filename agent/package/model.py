"""The evidence package of one session (docs/interview.md): the typed, versioned `package.json`.

Everything here is read from the stored session, its report, the override log and the rubric; nothing
is graded again. `package.schema.json` is `EvidencePackage.model_json_schema()`.

Version history: 1 — the first schema.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from agent.contracts.report import JudgeInfo
from agent.rubric.model import Dimension, Lang, RoundId

SCHEMA_VERSION = 1
"""Raised when package.json changes incompatibly (a field renamed, removed or retyped)."""
SCHEMA_ID = "vllm-interview-coach/evidence-package"

NumberLabel = Literal["given", "derived", "observed", "estimated"]
LabelSource = Literal["candidate", "inferred", "unlabelled"]
FailureId = Literal[
    "prompted_for_requirements",
    "nonexistent_path",
    "units_do_not_close",
    "no_alternative",
    "mutation_before_evidence",
    "no_raw_artifact",
]
"""The failure-evidence list of docs/interview.md, in its order."""
FAILURE_ORDER: tuple[FailureId, ...] = get_args(FailureId)
"""The same ids as a tuple, read from the literal so the two cannot drift."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Omission(_Model):
    """Something the package could not include, and why."""

    what: str
    why: str


class SessionInfo(_Model):
    id: str
    plan: str
    mode: str
    language: Lang
    owner: str | None
    status: str
    created_at: str = Field(description="when the session was started (the session store's clock, UTC)")
    updated_at: str = Field(description="when the session last changed; the package's timestamp")
    previous_session: str | None = Field(default=None, description="redo: the attempt it redoes")


# ---------------------------------------------------------------- the question version


class AskedText(_Model):
    """One interviewer turn as it was asked."""

    kind: Literal["prompt", "followup", "given", "question", "trigger", "own", "interviewer"]
    id: str | None = Field(default=None, description="the rubric's follow-up or question id, when it is one")
    given: list[str] = Field(default_factory=list, description="kind given: the hidden inputs handed over")
    text: str
    at_s: float | None = None


class GivenValue(_Model):
    name: str
    value: float
    unit: str
    description: str


class CapacityGiven(_Model):
    """Round 3's inputs (题设): the seed's own numbers, or a fresh variant's."""

    variant_seed: int | None = Field(description="None: the seed's own numbers")
    values: list[GivenValue]


class RoundVersion(_Model):
    round: RoundId
    title: str
    minutes: int
    asked: list[AskedText]
    capacity: CapacityGiven | None = None


class QuestionVersion(_Model):
    rubric_version: str = Field(description="the rubric the session was scored with (the report's judge)")
    rubric_version_now: str = Field(description="the rubric this package was made with (titles, levels)")
    round_ids: list[RoundId]
    rounds: list[RoundVersion]


# ---------------------------------------------------------------- assumptions and formulas


class Assumption(_Model):
    """A number the candidate used, with its label and where it came from (the checklist's `checks.numbers`)."""

    round: RoundId
    text: str = Field(description="the number as the candidate wrote it")
    label: NumberLabel | None
    label_text: str = Field(description="the label in the session's language (题设 / 推导 / 观测 / 估计)")
    labelled_by: LabelSource = Field(
        description="candidate: the answer's own words label it; inferred: the checker labelled it "
        "(the question states the number); unlabelled: neither"
    )
    sentence: str = Field(description="the sentence of the answer it came from")
    answer: int | None = Field(description="0-based index of the candidate's answer in the round")
    question: str = Field(description="the question that answer replied to")


class FormulaStep(_Model):
    quantity: str
    unit: str
    formula: str = Field(description="how the checker derives it")
    substituted: str = Field(description="the formula with the round's given values")
    reference: float
    candidate: str | None = Field(description="the value the answer states for it, as written")
    status: Literal["matched", "slip", "unit_error", "not_stated", "not_checked"] = Field(
        description="not_checked: an intermediate step the checker does not read from answers"
    )
    error: str | None = Field(default=None, description="the named mistake whose value the answer shows")


class Formulas(_Model):
    """Round 3 re-derived by the checker, with the candidate's values beside the reference."""

    round: RoundId
    variant_seed: int | None
    verdict: str
    answer: str = Field(description="the answer the computation was read from (the answer to the prompt)")
    steps: list[FormulaStep]
    unit_errors: list[str] = Field(description="where the units failed to close (named mistakes)")
    slips: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------- score sheet


def _absent(v: object) -> bool:
    """Fields added after schema version 1 are left out of package.json when unset: packages stay as they were."""
    return v is None


class OverrideRecord(_Model):
    id: int
    judge_score: int
    human_score: int
    reviewer: str
    reason: str
    created_at: str = Field(
        description="when the row was written into this log (for an imported row: the import)"
    )
    original_created_at: str | None = Field(
        default=None,
        exclude_if=_absent,
        description="a row imported from another install's log after this log's rows: when it was written there "
        "(agent/db/migrations/postgres/0005_override_origin.sql); absent otherwise",
    )
    rubric_version: str
    judge_model: str
    judge_kind: str
    stale: bool = Field(description="made against another judge score or rubric version than this report's")


class DimensionRow(_Model):
    dimension: Dimension
    title: str
    judge: int
    effective: int
    band: tuple[int, int]
    caps: list[str] = Field(default_factory=list)
    reason: str
    override: OverrideRecord | None = None


class RoundScore(_Model):
    round: RoundId
    title: str
    judge_total: int
    effective_total: int
    passed: bool | None
    flags: list[str]
    fallback: bool
    provenance: JudgeInfo
    dimensions: list[DimensionRow]
    notes: list[str]


class ScoreSheet(_Model):
    judge: JudgeInfo
    override_log_intact: bool | None = Field(description="None: the log could not be read")
    override_log_problem: str | None = None
    rounds: list[RoundScore]


# ---------------------------------------------------------------- disputed evidence


class SourceCheck(_Model):
    path: str
    symbol: str
    start_line: int
    end_line: int
    commit: str
    permalink: str
    excerpt: str
    claim: str = Field(description="the claim the snippet was checked against")
    claim_from: Literal["answer", "question"] = Field(
        description="answer: a sentence of the answer naming this file or symbol; question: the round's question"
    )


class PathCheck(_Model):
    cited: str
    status: str
    detail: str


class Disputed(_Model):
    """A score a human overrode, or one the fallback judge gave."""

    round: RoundId
    dimension: Dimension
    why: list[Literal["override", "fallback"]]
    judge_score: int
    effective_score: int
    reason: str
    quotes: list[str]
    override: OverrideRecord | None = None
    fallback_reason: str | None = None
    sources: list[SourceCheck] = Field(default_factory=list)
    paths: list[PathCheck] = Field(default_factory=list)


# ---------------------------------------------------------------- transcript


class TurnOut(_Model):
    role: Literal["interviewer", "candidate"]
    text: str
    at_s: float | None
    round_elapsed_s: float | None = Field(description="seconds since the round opened")


class RoundTranscript(_Model):
    round: RoundId
    title: str
    minutes: int
    used_s: float | None
    over_budget: bool
    turns: list[TurnOut]


# ---------------------------------------------------------------- failures, retry


class Failure(_Model):
    id: FailureId
    title: str
    rounds: list[RoundId]
    evidence: list[str] = Field(description="what the session showed: quotes, cited paths, named mistakes")
    next_action: str = Field(description="the observable action for the next attempt")


class RetryDimension(_Model):
    dimension: Dimension
    title: str
    before: int
    after: int
    delta: int
    before_effective: int | None = Field(description="None: the first attempt could not be read")
    after_effective: int
    quotes_before: list[str]
    quotes_after: list[str]


class RetryRound(_Model):
    round: RoundId
    title: str
    before_total: int
    after_total: int
    delta: int
    dimensions: list[RetryDimension]


class Retry(_Model):
    previous_session: str
    rounds: list[RetryRound]


# ---------------------------------------------------------------- the package


class EvidencePackage(_Model):
    """One session's evidence package: what a coach needs, offline."""

    schema_id: Literal["vllm-interview-coach/evidence-package"] = "vllm-interview-coach/evidence-package"
    schema_version: Literal[1] = 1
    language: Lang
    session: SessionInfo
    question_version: QuestionVersion
    assumptions: list[Assumption]
    formulas: list[Formulas]
    score_sheet: ScoreSheet | None = Field(description="None: the session has no report yet")
    disputed: list[Disputed]
    transcript: list[RoundTranscript]
    candidate_questions: list[str] = Field(default_factory=list)
    failures: list[Failure]
    retry: Retry | None = Field(default=None, description="set when the session redoes a previous one")
    omitted: list[Omission] = Field(description="what the package could not include, and why")
