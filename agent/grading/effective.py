"""A report's rounds as they stand after human overrides: each round's effective scores, total and pass line
beside the judge's, and the overrides that made the difference. The exported Markdown and JSON and the
Reports history read them from here, so the three agree."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from agent.contracts.report import Report, RoundAssessment
from agent.judge.gates import pass_rule
from agent.judge.scoring import risks_and_actions
from agent.overrides import EffectiveScore
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Dimension, Lang, RoundId


class OverriddenScore(BaseModel):
    """One dimension a human overrode (to another score than the judge's: an accept is none): the judge's
    score, the human's, who and why."""

    dimension: Dimension
    judge: int
    effective: int
    reviewer: str
    reason: str
    at: str = Field(description="when the override was logged")
    stale: bool = Field(description="made against another judge score or rubric version than this report's")


class EffectiveRound(BaseModel):
    """A round after overrides, the judge's scores kept beside."""

    round: RoundId
    scores: dict[Dimension, int] = Field(description="after overrides")
    total: int = Field(description="after overrides")
    passed: bool | None = Field(description="the round's pass rule on the scores after overrides")
    judge_scores: dict[Dimension, int]
    judge_total: int
    judge_passed: bool | None
    overridden: list[OverriddenScore] = Field(default_factory=list)

    @property
    def changed(self) -> bool:
        """A human override stands on one of its dimensions (a score other than the judge's)."""
        return bool(self.overridden)

    def override_of(self, dimension: str) -> OverriddenScore | None:
        return next((o for o in self.overridden if o.dimension == dimension), None)


def effective_round(rubric: Rubric, ra: RoundAssessment, effective: Sequence[EffectiveScore]) -> EffectiveRound:
    """`ra` after the overrides among `effective` (the other rounds' entries are ignored). The pass line is
    decided again by the round's pass rule (rubric gates, `pass_min`) when the judge's report has one."""
    mine = {e.dimension: e for e in effective if e.round == ra.round}
    scores = {d: mine[d].effective if d in mine else ra.scores[d] for d in DIMENSIONS}
    overridden = [
        OverriddenScore(
            dimension=d,
            judge=e.judge,
            effective=e.effective,
            reviewer=e.override.reviewer,
            reason=e.override.reason,
            at=e.override.created_at,
            stale=e.stale,
        )
        for d in DIMENSIONS
        if (e := mine.get(d)) is not None and e.override is not None and e.effective != e.judge
    ]  # an accept (Co-pilot's, the judge's score logged as the decision) changed nothing: not an override
    passed = ra.passed
    rule = pass_rule(rubric.round(ra.round).gates) if ra.passed is not None and overridden else None
    if rule is not None:
        dim, least = rule
        passed = scores[dim] >= least
    return EffectiveRound(
        round=ra.round,
        scores=scores,
        total=sum(scores.values()),
        passed=passed,
        judge_scores=dict(ra.scores),
        judge_total=ra.total,
        judge_passed=ra.passed,
        overridden=overridden,
    )


def effective_rounds(
    rubric: Rubric, report: Report, effective: Sequence[EffectiveScore] | None
) -> list[EffectiveRound]:
    """Every round of `report` after the overrides among `effective` (none: the judge's as they are)."""
    return [effective_round(rubric, ra, effective or []) for ra in report.rounds]


def risks_and_actions_after(
    rubric: Rubric,
    report: Report,
    effective: Sequence[EffectiveScore] | None,
    lang: Lang,
    items: Lang | None = None,
) -> tuple[list[str], list[str]]:
    """The report's risks and next actions (the two lowest dimensions of each round) in `lang`, of its scores
    after the overrides among `effective`; without an override, the report's own when `lang` is its language.
    `items`: the language of the rubric's items an action names (`risks_and_actions`)."""
    after = effective_rounds(rubric, report, effective)
    if not any(er.changed for er in after):
        if lang == report.language:
            return list(report.risks), list(report.next_actions)
        return risks_and_actions(rubric, report.rounds, lang, items=items)
    rounds = [ra.model_copy(update={"scores": er.scores}) for ra, er in zip(report.rounds, after, strict=True)]
    return risks_and_actions(rubric, rounds, lang, items=items)
