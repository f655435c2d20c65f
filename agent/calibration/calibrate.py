"""The judge against human labels: the graded set in eval/ and the override log.

Labels
- Graded set (`eval/graded/dev/answers.yaml`): a person gave each dimension an inclusive range
  [lo, hi]. Agreement treats the range as the label: *exact* = the judge's score lies in [lo, hi];
  *±1* = it lies in [lo - 1, hi + 1]. Kappa and Spearman need one number per item: the range
  midpoint ((lo + hi) / 2, so [4, 5] gives 4.5). Pairs (better, worse) give pair-order accuracy on
  round totals; `flags` (must be raised) and `absent_flags` (must not be) give flag precision and
  recall.
- Override log (`<data dir>/overrides.sqlite`): each row holds the judge's score at the time and the
  human's score; the latest row per (transcript, round, dimension) is the label, matched to the
  judge score in that row (rows of the calibrated judge's kind and model only). Rows exist only where
  a reviewer chose to look again, mostly to disagree, so agreement there is biased low, and it has
  no pairs or flag labels.

An assessment the chosen judge did not produce (it failed, and the embedded judge scored instead,
flagged `fallback`) measures the wrong judge: it is left out of the figures and counted, and an
item that fell back in any of the K runs is left out of the spread.
"""

from __future__ import annotations

import platform
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from agent.calibration import metrics as m
from agent.calibration.evaluation import GradedSet
from agent.calibration.grade import Job, assess_all
from agent.calibration.metrics import FlagCounts, Metric
from agent.contracts.report import JudgeInfo, RoundAssessment
from agent.judge.base import Judge
from agent.overrides import Override, OverrideLog, OverrideLogError
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS

TOTAL = "total"
SYSTEM_FLAGS = frozenset({"judge_fallback"})
"""Flags about the run, not the answer: never counted in flag precision or recall."""


class DimensionStats(BaseModel):
    dimension: str
    exact: Metric
    within_one: Metric
    kappa: Metric
    spearman: Metric


class FlagStats(BaseModel):
    flag: str
    recall: Metric
    precision: Metric
    strict_precision: Metric
    counts: FlagCounts


class Point(BaseModel):
    """One (label, judge) pair for the plot."""

    dimension: str
    label: float
    judge: int


class SourceStats(BaseModel):
    source: str
    labels: str
    n_items: int
    dimensions: list[DimensionStats]
    pair_order: Metric = Field(default_factory=lambda: Metric(value=None, n=0))
    pair_failures: list[str] = Field(default_factory=list)
    flags: list[FlagStats] = Field(default_factory=list)
    points: list[Point] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class SpreadDim(BaseModel):
    dimension: str
    max_range: int
    """the largest (max - min) of one item's score over the K runs"""
    mean_sd: float
    """mean over items of the standard deviation over the K runs"""
    items_changed: int
    """items whose score differed between runs"""


class Spread(BaseModel):
    repeat: int
    n_items: int
    dimensions: list[SpreadDim]
    total: SpreadDim
    left_out: list[str] = Field(default_factory=list)
    """items left out because the chosen judge failed on them in some run"""


class ItemRecord(BaseModel):
    id: str
    round: str
    language: str
    kind: str
    scores: dict[str, int]
    expected: dict[str, tuple[int, int]]
    total: int
    flags: list[str]
    expected_flags: list[str]
    fallback: bool = False
    """the first run's assessment came from the embedded judge because the chosen judge failed"""
    runs: list[dict[str, int]] = Field(default_factory=list)
    """scores of every run (K with --repeat)"""
    fallback_runs: list[bool] = Field(default_factory=list)


class CalibrationReport(BaseModel):
    created_at: str
    judge: JudgeInfo
    machine: str
    graded: SourceStats
    overrides: SourceStats
    spread: Spread | None = None
    fallbacks: int = 0
    """assessments the chosen judge did not produce (it failed and the embedded judge scored)"""
    fallback_reasons: list[str] = Field(default_factory=list)
    items: list[ItemRecord] = Field(default_factory=list)


def machine() -> str:
    import os

    return (
        f"{platform.machine()} · {os.cpu_count()} CPU · {platform.system()} {platform.release()} · "
        f"Python {platform.python_version()}"
    )


# ---------------------------------------------------------------- graded set


def _dim_stats(
    name: str, judge: Sequence[int], lo: Sequence[float], hi: Sequence[float], label: Sequence[float]
) -> DimensionStats:
    return DimensionStats(
        dimension=name,
        exact=m.exact_agreement(judge, lo, hi),
        within_one=m.within_one(judge, lo, hi),
        kappa=m.quadratic_weighted_kappa(judge, label),
        spearman=m.spearman(judge, label),
    )


def flag_stats(per_item: Sequence[dict[str, FlagCounts]]) -> list[FlagStats]:
    """Overall ("all") first, then one row per flag that any label or the judge mentions."""
    by_flag: dict[str, FlagCounts] = defaultdict(FlagCounts)
    for item in per_item:
        for f, c in item.items():
            if f not in SYSTEM_FLAGS:
                by_flag[f] = by_flag[f].add(c)
    total = FlagCounts()
    for c in by_flag.values():
        total = total.add(c)
    rows = [("all", total), *sorted(by_flag.items())]
    return [
        FlagStats(
            flag=f,
            recall=m.recall(c),
            precision=m.precision(c),
            strict_precision=m.strict_precision(c),
            counts=c,
        )
        for f, c in rows
    ]


def graded_stats(
    gs: GradedSet, results: dict[str, RoundAssessment], source: str, left_out: Sequence[str] = ()
) -> SourceStats:
    """Figures over the answers not `left_out` (and the pairs whose two answers are both in)."""
    notes: list[str] = []
    if left_out:
        notes.append(
            f"{len(left_out)} answer(s) left out: the chosen judge failed and the embedded judge scored them "
            f"({', '.join(left_out)})"
        )
    skip = set(left_out)
    gs = GradedSet(
        answers=[a for a in gs.answers if a.id not in skip],
        pairs=[p for p in gs.pairs if p.better not in skip and p.worse not in skip],
    )
    dims: list[DimensionStats] = []
    points: list[Point] = []
    tot_j: list[int] = []
    tot_lo: list[float] = []
    tot_hi: list[float] = []
    complete = [a for a in gs.answers if all(d in a.expected.scores for d in DIMENSIONS)]
    for d in DIMENSIONS:
        rows = [a for a in gs.answers if d in a.expected.scores]
        j = [results[a.id].scores[d] for a in rows]
        lo = [float(a.expected.scores[d][0]) for a in rows]
        hi = [float(a.expected.scores[d][1]) for a in rows]
        mid = [(a + b) / 2 for a, b in zip(lo, hi, strict=True)]
        dims.append(_dim_stats(d, j, lo, hi, mid))
        points += [Point(dimension=d, label=x, judge=y) for x, y in zip(mid, j, strict=True)]
    for a in complete:
        tot_j.append(results[a.id].total)
        tot_lo.append(float(sum(a.expected.scores[d][0] for d in DIMENSIONS)))
        tot_hi.append(float(sum(a.expected.scores[d][1] for d in DIMENSIONS)))
    tot_mid = [(a + b) / 2 for a, b in zip(tot_lo, tot_hi, strict=True)]
    dims.append(_dim_stats(TOTAL, tot_j, tot_lo, tot_hi, tot_mid))
    pairs = [(results[p.better].total, results[p.worse].total) for p in gs.pairs]
    failures = [
        f"{p.better} ({b}) should beat {p.worse} ({w})"
        for p, (b, w) in zip(gs.pairs, pairs, strict=True)
        if not b > w
    ]
    per_item = [
        m.flag_counts(list(results[a.id].flags), a.expected.flags, a.expected.absent_flags)
        for a in gs.answers
    ]
    return SourceStats(
        source=source,
        labels="per dimension a range [lo, hi]: exact = judge in range, ±1 = within 1 of the range; "
        "kappa and Spearman against the range midpoint",
        n_items=len(gs.answers),
        dimensions=dims,
        pair_order=m.pair_order_accuracy(pairs),
        pair_failures=failures,
        flags=flag_stats(per_item),
        points=points,
        notes=notes,
    )


def item_records(gs: GradedSet, runs: Sequence[dict[str, RoundAssessment]]) -> list[ItemRecord]:
    results = runs[0]
    return [
        ItemRecord(
            id=a.id,
            round=a.round,
            language=a.language,
            kind=a.kind,
            scores={str(d): v for d, v in results[a.id].scores.items()},
            expected={d: (lo, hi) for d, (lo, hi) in a.expected.scores.items()},
            total=results[a.id].total,
            flags=list(results[a.id].flags),
            expected_flags=list(a.expected.flags),
            fallback=results[a.id].fell_back,
            runs=[{str(d): v for d, v in r[a.id].scores.items()} for r in runs],
            fallback_runs=[r[a.id].fell_back for r in runs],
        )
        for a in gs.answers
    ]


# ---------------------------------------------------------------- override log


def latest_overrides(rows: Sequence[Override]) -> list[Override]:
    """The latest row per (transcript, round, dimension): a later correction replaces an earlier one."""
    latest: dict[tuple[str, str, str], Override] = {}
    for r in sorted(rows, key=lambda r: r.id):
        latest[(r.transcript_id, r.round, r.dimension)] = r
    return sorted(latest.values(), key=lambda r: r.id)


def override_stats(rows: Sequence[Override], info: JudgeInfo, source: str) -> SourceStats:
    notes: list[str] = []
    latest = latest_overrides(rows)
    mine = [r for r in latest if r.judge_kind == info.kind and r.judge_model == info.model]
    others = len(latest) - len(mine)
    if others:
        notes.append(f"{others} override(s) of other judges (kind or model) left out")
    stale = sum(1 for r in mine if r.rubric_version != info.rubric_version)
    if stale:
        notes.append(f"{stale} override(s) made under another rubric version are included")
    if mine:
        notes.append(
            "rows exist only where a reviewer looked again (mostly to disagree): agreement here is biased low"
        )
    dims: list[DimensionStats] = []
    points: list[Point] = []
    for d in DIMENSIONS:
        rs = [r for r in mine if r.dimension == d]
        j = [r.judge_score for r in rs]
        h = [float(r.human_score) for r in rs]
        dims.append(_dim_stats(d, j, h, h, h))
        points += [Point(dimension=d, label=x, judge=y) for x, y in zip(h, j, strict=True)]
    j_all = [r.judge_score for r in mine]
    h_all = [float(r.human_score) for r in mine]
    dims.append(_dim_stats("all dimensions", j_all, h_all, h_all, h_all))
    return SourceStats(
        source=source,
        labels="the human score of the latest override per (transcript, round, dimension), against the judge "
        "score recorded in that row",
        n_items=len(mine),
        dimensions=dims,
        points=points,
        notes=notes,
    )


def read_overrides(path: Path | None) -> tuple[list[Override], str, str | None]:
    """Rows of the log, its location, and a message when it could not be read (then no rows)."""
    log = OverrideLog(path)
    try:
        return log.rows(), str(log.path), None
    except OverrideLogError as e:
        return [], str(log.path), f"override log not used: {e}"


# ---------------------------------------------------------------- spread


def spread(gs: GradedSet, runs: Sequence[dict[str, RoundAssessment]]) -> Spread:
    """Per dimension, over the items the chosen judge scored in every run."""
    left_out = [a.id for a in gs.answers if any(r[a.id].fell_back for r in runs)]
    ids = [a.id for a in gs.answers if a.id not in left_out]

    def dim(name: str, per_run: list[list[int]]) -> SpreadDim:
        worst, mean_sd = m.spread(per_run)
        changed = sum(1 for i in range(len(ids)) if len({r[i] for r in per_run}) > 1)
        return SpreadDim(dimension=name, max_range=worst, mean_sd=round(mean_sd, 4), items_changed=changed)

    dims = [dim(d, [[r[i].scores[d] for i in ids] for r in runs]) for d in DIMENSIONS]
    total = dim(TOTAL, [[r[i].total for i in ids] for r in runs])
    return Spread(repeat=len(runs), n_items=len(ids), dimensions=dims, total=total, left_out=left_out)


# ---------------------------------------------------------------- the run


def calibrate(
    rubric: Rubric,
    gs: GradedSet,
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    overrides: Sequence[Override] = (),
    graded_source: str = "eval/graded/dev",
    overrides_source: str = "override log",
    overrides_note: str | None = None,
    repeat: int = 1,
    concurrency: int = 1,
) -> CalibrationReport:
    """Grade the set (`repeat` times; the first run gives the agreement figures) and compare with labels."""
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    jobs = [Job(a.id, a.round, a.as_answer(), a.language) for a in gs.answers]
    runs = []
    for _ in range(repeat):
        # each run is sent in full: a judge that answers identical requests from memory (the vLLM
        # judge does, within one run) would otherwise show a spread of zero
        forget = getattr(judge, "forget", None)
        if callable(forget):
            forget()
        runs.append(assess_all(rubric, jobs, judge=judge, info=info, concurrency=concurrency))
    first = runs[0]
    judge_info = info or next(iter(first.values())).judge
    assert judge_info is not None
    ov = override_stats(overrides, judge_info, overrides_source)
    if overrides_note:
        ov.notes.insert(0, overrides_note)
    left_out = [a.id for a in gs.answers if first[a.id].fell_back]
    reasons = {ra.fallback_reason or "?" for r in runs for ra in r.values() if ra.fell_back}
    return CalibrationReport(
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        judge=judge_info,
        machine=machine(),
        graded=graded_stats(gs, first, graded_source, left_out),
        overrides=ov,
        spread=spread(gs, runs) if repeat > 1 else None,
        fallbacks=sum(1 for r in runs for x in r.values() if x.fell_back),
        fallback_reasons=sorted(reasons)[:20],
        items=item_records(gs, runs),
    )
