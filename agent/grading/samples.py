"""Self-consistency: a transcript graded K times; each score is the median, with the spread beside it.

A sample is one whole grading. With the vLLM judge the K samples are K different requests: seeds
seed..seed+K-1 at a sampling temperature (`DEFAULT_SAMPLE_TEMPERATURE`). At temperature 0 every
sample would be the same greedy answer, and the judge sends a request identical to one it already
answered only once. The embedded judge has no randomness: its K samples are the same, the spread is
zero by construction, and the report says so (`SampleSpread.deterministic`).

Fallbacks are never mixed in: a round where a sample's judge failed (the embedded judge scored it,
flagged) is left out of that round's median and counted (`RoundSpread.fallbacks`). When every
sample of a round fell back, the round is the embedded judge's assessment, flagged `judge_fallback`,
and the report is a fallback report. The median of an even number of scores is the lower middle
one: a grade is never rounded up. A round shows the checklist, quotes and reasons of the counted
sample closest to the median, scored at the median (flags, pass, notes and totals follow it).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from agent.contracts.report import (
    DimensionSpread,
    JudgeInfo,
    Report,
    RoundAssessment,
    RoundSpread,
    SampleSpread,
)
from agent.contracts.transcript import Transcript
from agent.grading.single import grade_transcript
from agent.judge.base import Judge
from agent.judge.checks import PathChecker
from agent.judge.embedded import EmbeddedJudge
from agent.judge.scoring import risks_and_actions, score_round
from agent.judge.sources import Sources
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Dimension, Lang

#: the vLLM judge's temperature for K > 1 samples (at 0 every sample would be the same answer)
DEFAULT_SAMPLE_TEMPERATURE = 0.7

#: one grading of a transcript by a judge with its provenance (None: the defaults of `grade_transcript`)
GradeOnce = Callable[[Transcript, Judge | None, JudgeInfo | None], Report]


@runtime_checkable
class Resamplable(Protocol):
    """A judge that samples: the same judge with another seed and temperature (the vLLM judge)."""

    seed: int

    def resampled(self, seed: int, temperature: float) -> Judge: ...


def sampled_info(
    info: JudgeInfo, judge: Judge, k: int, temperature: float = DEFAULT_SAMPLE_TEMPERATURE
) -> JudgeInfo:
    """The provenance of K samples: K, the seeds and the temperature. K = 1 is `info` itself."""
    if k == 1:
        return info
    if isinstance(judge, Resamplable):
        return info.model_copy(
            update={"samples": k, "seeds": _seeds(judge, k), "seed": judge.seed, "temperature": temperature}
        )
    return info.model_copy(update={"samples": k})


def _seeds(judge: Resamplable, k: int) -> list[int]:
    return [judge.seed + i for i in range(k)]


def sample_judges(
    judge: Judge, info: JudgeInfo, k: int, temperature: float = DEFAULT_SAMPLE_TEMPERATURE
) -> list[tuple[Judge, JudgeInfo]]:
    """The judge and provenance of each sample: seeds seed..seed+K-1 when the judge samples, else K times the same."""
    if not isinstance(judge, Resamplable):
        return [(judge, info)] * k
    return [
        (
            judge.resampled(seed, temperature),
            info.model_copy(update={"seed": seed, "temperature": temperature}),
        )
        for seed in _seeds(judge, k)
    ]


def grade_samples(
    rubric: Rubric,
    t: Transcript,
    k: int,
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    path_checker: PathChecker | None = None,
    sources: Sources | None = None,
    temperature: float | None = None,
    grade: GradeOnce | None = None,
) -> Report:
    """Grade `t` K times (one after the other) and return the median report with its spread.

    K = 1 is one grading, the same report as `grade_transcript` (or `grade`). `grade` replaces
    `grade_transcript`, e.g. the interview graph's replay; `temperature` is the vLLM judge's sampling
    temperature (default `DEFAULT_SAMPLE_TEMPERATURE`).
    """
    if k < 1:
        raise ValueError(f"samples must be at least 1, got {k}")

    def by_transcript(tr: Transcript, j: Judge | None, i: JudgeInfo | None) -> Report:
        return grade_transcript(rubric, tr, judge=j, info=i, path_checker=path_checker, sources=sources)

    once = grade or by_transcript
    if k == 1:
        return once(t, judge, info)
    temp = DEFAULT_SAMPLE_TEMPERATURE if temperature is None else temperature
    jd: Judge = judge or EmbeddedJudge()
    base = info or JudgeInfo(kind="embedded", model=jd.model, rubric_version=rubric.version)
    reports = [once(t, j, i) for j, i in sample_judges(jd, base, k, temp)]
    return combine(
        rubric, reports, sampled_info(base, jd, k, temp), deterministic=not isinstance(jd, Resamplable)
    )


def combine(rubric: Rubric, reports: list[Report], info: JudgeInfo, *, deterministic: bool) -> Report:
    """K reports of the same transcript as one: each round at the median of its counted samples.

    `info` is the provenance of the K samples (`sampled_info`); the report keeps the first sample's
    other fields (id, language and, from the interview graph, timing and narrative).
    """
    if len(reports) < 2:
        raise ValueError("combining samples needs at least two reports")
    first = reports[0]
    n = len(first.rounds)
    if any(len(r.rounds) != n for r in reports):
        raise ValueError("the samples do not have the same rounds")
    rounds: list[RoundAssessment] = []
    spreads: list[RoundSpread] = []
    for idx in range(n):
        ra, rs = _median_round(rubric, [r.rounds[idx] for r in reports], info, first.language)
        rounds.append(ra)
        spreads.append(rs)
    risks, actions = risks_and_actions(rubric, rounds, first.language)
    fell = next((ra.judge for ra in rounds if ra.fell_back), None)
    judge = info
    if fell is not None and not info.fallback:
        judge = info.model_copy(update={"fallback": True, "fallback_reason": fell.fallback_reason})
    spread = SampleSpread(
        k=len(reports),
        seeds=info.seeds,
        temperature=info.temperature,
        deterministic=deterministic,
        fallback_samples=sorted({i for s in spreads for i in s.fallbacks}),
        rounds=spreads,
    )
    return first.model_copy(
        update={"judge": judge, "rounds": rounds, "risks": risks, "next_actions": actions, "samples": spread}
    )


def _median_round(
    rubric: Rubric, samples: list[RoundAssessment], info: JudgeInfo, lang: Lang
) -> tuple[RoundAssessment, RoundSpread]:
    fallbacks = [i for i, ra in enumerate(samples) if ra.fell_back]
    all_fallback = len(fallbacks) == len(samples)
    counted = (
        list(range(len(samples))) if all_fallback else [i for i in range(len(samples)) if i not in fallbacks]
    )
    per: dict[Dimension, list[int]] = {d: [samples[i].scores[d] for i in counted] for d in DIMENSIONS}
    median: dict[Dimension, int] = {d: statistics.median_low(v) for d, v in per.items()}
    rep = min(counted, key=lambda i: (sum(abs(samples[i].scores[d] - median[d]) for d in DIMENSIONS), i))
    chosen = samples[rep]
    own = chosen.judge or info
    round_info = info.model_copy(
        update={
            "index_commit": own.index_commit,
            "fallback": own.fallback,
            "fallback_reason": own.fallback_reason,
        }
    )
    spread = RoundSpread(
        round=chosen.round,
        counted=counted,
        fallbacks=fallbacks,
        all_fallback=all_fallback,
        representative=rep,
        dimensions={
            d: DimensionSpread(
                score=median[d], median=float(statistics.median(v)), min=min(v), max=max(v), scores=v
            )
            for d, v in per.items()
        },
    )
    if chosen.scores == median:
        return chosen.model_copy(update={"judge": round_info}), spread
    if chosen.checklist is None:
        raise ValueError(
            f"round {chosen.round}: a sample without its checklist cannot be scored at the median"
        )
    # the sample scored again at the median; notes added after scoring (sources, timing) are kept
    plain = score_round(rubric, chosen.checklist, chosen.judge, lang)
    at_median = score_round(rubric, chosen.checklist, round_info, lang, scores_given=median)
    dims = [
        ds
        if ds.score == chosen.scores[ds.dimension]
        else ds.model_copy(
            update={
                "reason": f"{ds.reason}; median of {len(counted)} samples {per[ds.dimension]} "
                f"(this sample: {chosen.scores[ds.dimension]})",
                "coverage": ds.coverage.model_copy(
                    update={"samples": list(per[ds.dimension]), "sample_score": chosen.scores[ds.dimension]}
                )
                if ds.coverage is not None
                else None,
            }
        )
        for ds in at_median.dimensions
    ]
    notes = at_median.notes + [x for x in chosen.notes if x not in plain.notes]
    added = [n for n in chosen.noted or [] if n not in (plain.noted or [])]
    noted = None if at_median.noted is None else [*at_median.noted, *added]
    update = {"dimensions": dims, "notes": notes, "noted": noted, "snippets": chosen.snippets}
    ra = at_median.model_copy(update=update)
    return ra, spread
