"""Effective scores: the judge's score, or the latest human override of it, side by side."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from agent.contracts.report import Report
from agent.overrides.log import OverrideLog
from agent.overrides.model import Override
from agent.rubric.model import DIMENSIONS, Dimension, RoundId


class EffectiveScore(BaseModel):
    round: RoundId
    dimension: Dimension
    judge: int
    effective: int
    override: Override | None = None
    stale: bool = False
    """The override was made against another judge score or rubric version than this report's."""


def effective_scores(
    report: Report, overrides: Iterable[Override] | None = None, *, key: str | None = None
) -> list[EffectiveScore]:
    """One entry per round and dimension of `report`, in report order; the latest override wins.

    `key`: the id the report's rows are kept under in the log (default: the report's id; the app keeps
    an uploaded report that names no stored session under `upload:<uploader>:<id>`).
    `overrides`: rows of the log (default: the key's rows in the data dir's log); rows for
    other keys are ignored. An override whose judge score or rubric version
    differs from the report's still applies (a human decided), but is marked `stale`.
    """
    key = report.id if key is None else key
    if overrides is None:
        overrides = OverrideLog().rows(key)
    latest: dict[tuple[str, str], Override] = {}
    for row in sorted(overrides, key=lambda r: r.id):
        if row.transcript_id == key:
            latest[(row.round, row.dimension)] = row
    out: list[EffectiveScore] = []
    for ra in report.rounds:
        for d in DIMENSIONS:
            judge = ra.scores[d]
            o: Override | None = latest.get((ra.round, d))
            rubric_version = (ra.judge or report.judge).rubric_version
            out.append(
                EffectiveScore(
                    round=ra.round,
                    dimension=d,
                    judge=judge,
                    effective=o.human_score if o else judge,
                    override=o,
                    stale=bool(o and (o.judge_score != judge or o.rubric_version != rubric_version)),
                )
            )
    return out


def effective_totals(scores: Iterable[EffectiveScore]) -> dict[RoundId, tuple[int, int]]:
    """Per round: (judge total, effective total)."""
    totals: dict[RoundId, tuple[int, int]] = {}
    for s in scores:
        j, e = totals.get(s.round, (0, 0))
        totals[s.round] = (j + s.judge, e + s.effective)
    return totals
