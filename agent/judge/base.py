"""What a judge is: something that fills a round's checklist from an answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from agent.contracts.checklist import Checks, Holistic, ItemFinding, SignalFinding
from agent.judge.matching import Sentence
from agent.rubric.loader import Rubric
from agent.rubric.model import Dimension, Lang, RoundId


class Fill(BaseModel):
    """A judge's part of the checklist (the deterministic checks are shared and computed once)."""

    items: list[ItemFinding]
    strong: list[SignalFinding]
    weak: list[SignalFinding]
    holistic: dict[Dimension, Holistic] = Field(default_factory=dict)


class JudgeUnavailable(RuntimeError):
    """The judge could not produce a valid checklist (down, timed out, garbage): the caller falls back."""


class Judge(Protocol):
    kind: str
    model: str

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Checks,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill: ...
