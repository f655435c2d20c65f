"""Grading one transcript: each round assessed by the judge, then the report's risks and next actions."""

from __future__ import annotations

from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.contracts.transcript import Transcript
from agent.judge import capacity
from agent.judge.answer import Answer
from agent.judge.assessment import assess_answer
from agent.judge.base import Judge
from agent.judge.checks import PathChecker
from agent.judge.scoring import risks_and_actions
from agent.judge.sources import Sources
from agent.rubric.loader import Rubric


def grade_transcript(
    rubric: Rubric,
    t: Transcript,
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    path_checker: PathChecker | None = None,
    sources: Sources | None = None,
) -> Report:
    rounds: list[RoundAssessment] = []
    for r in t.rounds:
        params = (
            capacity.variant(r.variant_seed).params
            if r.round == "capacity" and r.variant_seed is not None
            else None
        )
        rounds.append(
            assess_answer(
                rubric,
                r.round,
                Answer.of_pairs(r.answer_turns()),
                t.language,
                judge=judge,
                info=info,
                path_checker=path_checker,
                capacity_params=params,
                sources=sources,
            )
        )
    risks, actions = risks_and_actions(rubric, rounds, t.language)
    base = info or rounds[0].judge
    assert base is not None
    return Report(
        id=t.id, judge=base.over_rounds(rounds), rounds=rounds, risks=risks, next_actions=actions, language=t.language
    )
