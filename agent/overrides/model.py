"""The override log's rows as contracts: what a reviewer submits (`NewOverride`), a row of the log
(`Override`), the log's own columns in the order it writes them, and the error of a log that cannot be
read or written."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from agent.contracts.report import JudgeInfo
from agent.rubric.model import Dimension, RoundId

COLUMNS: tuple[str, ...] = (
    "id",
    "transcript_id",
    "round",
    "dimension",
    "judge_score",
    "human_score",
    "reason",
    "reviewer",
    "created_at",
    "rubric_version",
    "judge_model",
    "judge_kind",
)
ORIGINAL = "original_created_at"
"""A column of the Postgres log only (agent/db/migrations/postgres/0005_override_origin.sql): on a row
`interview db import` brought from another log after rows already there, the time it was written in that
log; its `created_at` is then the import's. Hashed with the row when set (`chain_hash`); NULL otherwise."""


class OverrideLogError(RuntimeError):
    """The log could not be read or written; the message says why and what was not saved."""


class NewOverride(BaseModel):
    """What a reviewer submits: one dimension of one round of one report."""

    transcript_id: str = Field(
        min_length=1, max_length=200, description="the report's id: transcript or session"
    )
    round: RoundId
    dimension: Dimension
    judge_score: int = Field(ge=1, le=5)
    human_score: int = Field(ge=1, le=5)
    reason: str = Field(min_length=1, max_length=4000)
    reviewer: str = Field(min_length=1, max_length=200)
    rubric_version: str = Field(min_length=1, max_length=200)
    judge_model: str = Field(min_length=1, max_length=500)
    judge_kind: Literal["embedded", "vllm"]

    @field_validator("reason", "reviewer")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("must not be blank")
        return v

    @classmethod
    def judged_by(
        cls,
        info: JudgeInfo,
        *,
        transcript_id: str,
        round_id: str,
        dimension: str,
        judge_score: int,
        human_score: int,
        reason: str,
        reviewer: str,
    ) -> NewOverride:
        """A reviewer's score for one the judge described by `info` gave: the rubric version, the judge's
        model and kind are `info`'s. Checked as the fields say (pydantic.ValidationError)."""
        return cls.model_validate(
            {
                "transcript_id": transcript_id,
                "round": round_id,
                "dimension": dimension,
                "judge_score": judge_score,
                "human_score": human_score,
                "reason": reason,
                "reviewer": reviewer,
                "rubric_version": info.rubric_version,
                "judge_model": info.model,
                "judge_kind": info.kind,
            }
        )


class Override(NewOverride):
    """A row of the log."""

    id: int
    created_at: str = Field(description="UTC, ISO 8601")
    original_created_at: str | None = Field(
        default=None,
        description="imported from another log after this log's rows: when it was written there (UTC, "
        "ISO 8601); `created_at` is then when it was imported",
    )


def stamp(t: datetime) -> str:
    """A row's `created_at`: UTC, ISO 8601, to the second."""
    return t.astimezone(UTC).isoformat(timespec="seconds")
