"""A round's assessment as the graph makes it: the round's whole candidate text through the one scoring path
(`agent.judge.assessment.assess_answer`) with the round-3 inputs it was asked with, and the key that
says whether a draft assessment still holds for the round's final score."""

from __future__ import annotations

import hashlib

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.graph.state import GraphContext
from agent.judge import capacity
from agent.judge.answer import Answer
from agent.judge.assessment import assess_answer
from agent.rubric.model import Lang


def capacity_params(tr: TranscriptRound) -> capacity.CapacityParams | None:
    """The round-3 inputs a transcript round was asked with (same rule as `agent.grading.single`)."""
    if tr.round == "capacity" and tr.variant_seed is not None:
        return capacity.variant(tr.variant_seed).params
    return None


def assess_round(ctx: GraphContext, tr: TranscriptRound, lang: Lang) -> RoundAssessment:
    """The round's whole candidate text through the one scoring path: live, co-pilot and grade agree."""
    return assess_answer(
        ctx.rubric,
        tr.round,
        Answer.of_pairs(tr.answer_turns()),
        lang,
        judge=ctx.judge,
        info=ctx.info,
        capacity_params=capacity_params(tr),
        sources=ctx.sources,
    )


def assessment_key(ctx: GraphContext, tr: TranscriptRound) -> str:
    h = hashlib.sha256()
    for part in (
        ctx.rubric.version,
        ctx.info.kind,
        ctx.info.model,
        str(tr.variant_seed),
        *(f"{q}\0{a}" for q, a in tr.answer_turns()),
    ):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]
