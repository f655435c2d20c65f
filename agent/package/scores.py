"""The score sheet: the judge's and the effective score of each round and dimension, each override with its
reviewer and reason, the judge's provenance; and the override log as the package reads it."""

from __future__ import annotations

from agent.graph.report import SessionReport
from agent.overrides import EffectiveScore, Override, OverrideLog, OverrideLogError
from agent.package.model import DimensionRow, Omission, OverrideRecord, RoundScore, ScoreSheet
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang
from agent.util.messages import t


def override_record(o: Override, stale: bool) -> OverrideRecord:
    """An override as the package shows it; `stale`: made on another rubric or judge."""
    return OverrideRecord(
        id=o.id,
        judge_score=o.judge_score,
        human_score=o.human_score,
        reviewer=o.reviewer,
        reason=o.reason,
        created_at=o.created_at,
        original_created_at=o.original_created_at,
        rubric_version=o.rubric_version,
        judge_model=o.judge_model,
        judge_kind=o.judge_kind,
        stale=stale,
    )


def effective_by_cell(eff: list[EffectiveScore]) -> dict[tuple[str, str], EffectiveScore]:
    """(round, dimension) -> its effective score."""
    return {(e.round, e.dimension): e for e in eff}


def override_rows(
    key: str, omitted: list[Omission], lang: Lang
) -> tuple[list[Override] | None, bool | None, str | None]:
    """The overrides of report `key`, whether the log is intact, its first problem; a note in `omitted`
    when the log cannot be read."""
    log = OverrideLog()
    try:
        rows = log.rows(key)
        v = log.verify()
    except OverrideLogError as e:
        omitted.append(
            Omission(
                what=t("package.omit.overrides", lang, session=key),
                why=t("package.omit.overrides_why", lang, error=e),
            )
        )
        return [], None, str(e)
    return rows, v.ok, None if v.ok else str(v.problems[0])


def score_sheet(
    rubric: Rubric,
    report: SessionReport,
    eff: list[EffectiveScore],
    lang: Lang,
    intact: bool | None,
    problem: str | None,
) -> ScoreSheet:
    by = effective_by_cell(eff)
    rounds: list[RoundScore] = []
    for ra in report.rounds:
        dims: list[DimensionRow] = []
        ds_of = {ds.dimension: ds for ds in ra.dimensions}
        for d in DIMENSIONS:
            e = by[(ra.round, d)]
            ds = ds_of.get(d)
            dims.append(
                DimensionRow(
                    dimension=d,
                    title=rubric.dimensions[d].title.get(lang),
                    judge=e.judge,
                    effective=e.effective,
                    band=ds.band if ds else (e.judge, e.judge),
                    caps=list(ds.caps) if ds else [],
                    reason=ds.reason if ds else "",
                    override=override_record(e.override, e.stale) if e.override else None,
                )
            )
        info = ra.judge or report.judge
        rounds.append(
            RoundScore(
                round=ra.round,
                title=rubric.round(ra.round).title.get(lang),
                judge_total=ra.total,
                effective_total=sum(r.effective for r in dims),
                passed=ra.passed,
                flags=list(ra.flags),
                fallback=bool(info.fallback),
                provenance=info,
                dimensions=dims,
                notes=ra.notes_in(lang),
            )
        )
    return ScoreSheet(
        judge=report.judge, override_log_intact=intact, override_log_problem=problem, rounds=rounds
    )
