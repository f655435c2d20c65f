"""A redo compared with its first attempt: both attempts per round and dimension, with the delta and the
quotes of each."""

from __future__ import annotations

from agent.contracts.report import RoundAssessment
from agent.graph import get_session
from agent.graph.errors import SessionNotFound
from agent.graph.report import SessionReport
from agent.overrides import EffectiveScore, effective_scores
from agent.package.model import Omission, Retry, RetryDimension, RetryRound
from agent.package.scores import effective_by_cell, override_rows
from agent.rubric.loader import Rubric
from agent.rubric.model import Dimension, Lang
from agent.util.messages import t


def retry(
    rubric: Rubric,
    report: SessionReport,
    eff: list[EffectiveScore],
    owner: str | None,
    lang: Lang,
    omitted: list[Omission],
) -> Retry | None:
    cmp = report.comparison
    if cmp is None:
        return None
    prev_rounds: dict[str, RoundAssessment] = {}
    prev_eff: dict[tuple[str, str], EffectiveScore] = {}
    try:
        prev = get_session(cmp.previous_session, owner=owner).report
    except SessionNotFound:
        prev = None
        omitted.append(
            Omission(
                what=t("package.omit.first_attempt", lang, session=cmp.previous_session),
                why=t("package.omit.first_attempt_why", lang),
            )
        )
    if prev is not None:
        prev_rounds = {r.round: r for r in prev.rounds}
        rows, _, _ = override_rows(prev.id, omitted, lang)
        prev_eff = effective_by_cell(effective_scores(prev, rows))
    now = {r.round: r for r in report.rounds}
    by = effective_by_cell(eff)
    rounds: list[RetryRound] = []
    for rc in cmp.rounds:
        old = prev_rounds.get(rc.round)
        dims = []
        for dc in rc.dimensions:
            d: Dimension = dc.dimension
            pe = prev_eff.get((rc.round, d))
            dims.append(
                RetryDimension(
                    dimension=d,
                    title=rubric.dimensions[d].title.get(lang),
                    before=dc.before,
                    after=dc.after,
                    delta=dc.change,
                    before_effective=pe.effective if pe else None,
                    after_effective=by[(rc.round, d)].effective,
                    quotes_before=list(old.quotes.get(d, [])) if old else [],
                    quotes_after=list(now[rc.round].quotes.get(d, [])),
                )
            )
        rounds.append(
            RetryRound(
                round=rc.round,
                title=rubric.round(rc.round).title.get(lang),
                before_total=rc.before_total,
                after_total=rc.after_total,
                delta=rc.change,
                dimensions=dims,
            )
        )
    return Retry(previous_session=cmp.previous_session, rounds=rounds)
