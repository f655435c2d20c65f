"""Grading many (round, answer) jobs with one judge: in order, or several in flight for a vLLM judge."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from agent.contracts.report import JudgeInfo, RoundAssessment
from agent.judge.answer import Answer
from agent.judge.assessment import assess_answer
from agent.judge.base import Judge
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId


@dataclass(frozen=True)
class Job:
    key: str
    round: RoundId
    answer: str | Answer
    """the text, or the round's turns with their questions"""
    language: Lang


def assess_all(
    rubric: Rubric,
    jobs: Sequence[Job],
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    concurrency: int = 1,
) -> dict[str, RoundAssessment]:
    """Every job assessed by the same judge; keyed by `Job.key`. A failing judge falls back (flagged)
    inside `assess_answer`, so one job never stops the others."""

    def one(j: Job) -> RoundAssessment:
        return assess_answer(rubric, j.round, j.answer, j.language, judge=judge, info=info)

    if concurrency <= 1 or len(jobs) <= 1:
        return {j.key: one(j) for j in jobs}
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        results = list(pool.map(one, jobs))
    return {j.key: r for j, r in zip(jobs, results, strict=True)}
