"""The Report contract (output of `interview grade --format json`), per DESIGN.md.

Field names in DESIGN.md are relied on by other tools; fields beyond them are additions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agent.judge.checklist import Checklist
from agent.judge.sources import SourceRef
from agent.rubric.model import Dimension, Lang, RoundId

Flag = Literal[
    "accuracy_1",
    "validation_1",
    "happy_path_only",
    "unlabeled_numbers",
    "unit_error",
    "nonexistent_path",
    "prompt_injection",
    "no_alternative",
    "mutation_before_evidence",
    "fabricated_metrics",
    "judge_fallback",
]


class JudgeInfo(BaseModel):
    """What produced a score: without it a score is not reproducible and not evidence."""

    kind: Literal["embedded", "vllm"]
    model: str
    rubric_version: str
    prompt_hash: str | None = None
    endpoint: str | None = None
    vllm_version: str | None = None
    index_commit: str | None = None
    seed: int | None = None
    temperature: float | None = None
    fallback: bool = False
    fallback_reason: str | None = None


class DimensionScore(BaseModel):
    dimension: Dimension
    score: int = Field(ge=1, le=5)
    level: str = Field(description="the level descriptor of the score, in the report's language")
    reason: str
    quotes: list[str] = Field(default_factory=list)
    band: tuple[int, int] = Field(description="the range the verified checklist supports")
    caps: list[str] = Field(default_factory=list, description="gates that bounded this score")


class RoundAssessment(BaseModel):
    round: RoundId
    scores: dict[Dimension, int]
    total: int
    flags: list[Flag] = Field(default_factory=list)
    quotes: dict[Dimension, list[str]] = Field(default_factory=dict)
    missing_evidence: list[str] = Field(default_factory=list)
    next_followups: list[str] = Field(default_factory=list)
    # additions
    judge: JudgeInfo | None = None
    dimensions: list[DimensionScore] = Field(default_factory=list)
    passed: bool | None = None
    notes: list[str] = Field(default_factory=list)
    weighted: float | None = None
    snippets: list[SourceRef] = Field(
        default_factory=list, description="vLLM source behind the round, with permalinks"
    )
    checklist: Checklist | None = None


class Report(BaseModel):
    id: str
    judge: JudgeInfo
    rounds: list[RoundAssessment]
    risks: list[str] = Field(default_factory=list)
    next_actions: list[str] = Field(default_factory=list)
    language: Lang = "en"
