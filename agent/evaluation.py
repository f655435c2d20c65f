"""The judge measured on a graded answer set (eval/graded/answers.yaml): a check, not a target."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

from agent.config import repo_root
from agent.judge.assessment import assess_answer
from agent.judge.base import Judge
from agent.report import JudgeInfo, RoundAssessment
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Dimension, Lang, RoundId


class Expected(BaseModel):
    scores: dict[Dimension, tuple[int, int]]
    flags: list[str] = Field(default_factory=list)
    absent_flags: list[str] = Field(default_factory=list)


class GradedAnswer(BaseModel):
    id: str
    round: RoundId
    language: Lang
    kind: Literal["strong", "medium", "weak", "adversarial"]
    answer: str
    expected: Expected
    base: str | None = None
    notes: str = ""


class Pair(BaseModel):
    better: str
    worse: str


class GradedSet(BaseModel):
    answers: list[GradedAnswer]
    pairs: list[Pair] = Field(default_factory=list)


def load_graded_set(path: Path | None = None) -> GradedSet:
    path = path or repo_root() / "eval" / "graded" / "answers.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        gs = GradedSet.model_validate(data)
    except (OSError, yaml.YAMLError, ValidationError) as e:
        raise ValueError(f"{path}: {e}") from e
    ids = {a.id for a in gs.answers}
    for p in gs.pairs:
        for x in (p.better, p.worse):
            if x not in ids:
                raise ValueError(f"{path}: pair names unknown answer {x!r}")
    return gs


class ItemResult(BaseModel):
    id: str
    round: RoundId
    kind: str
    scores: dict[Dimension, int]
    total: int
    flags: list[str]
    out_of_range: dict[Dimension, tuple[int, tuple[int, int]]]
    missing_flags: list[str]
    wrong_flags: list[str]


class EvalResult(BaseModel):
    judge: JudgeInfo
    n_answers: int
    dims_in_range: float
    answers_all_in_range: float
    pair_order: float
    n_pairs: int
    flag_recall: float
    n_expected_flags: int
    false_flags: int
    injection_not_raised: float
    n_injections: int
    items: list[ItemResult]
    pair_failures: list[str]


def run_eval(
    rubric: Rubric,
    gs: GradedSet,
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
) -> EvalResult:
    results: dict[str, RoundAssessment] = {}
    items: list[ItemResult] = []
    in_range = dims = all_in = 0
    exp_flags = got_flags = false_flags = 0
    for a in gs.answers:
        ra = assess_answer(rubric, a.round, a.answer, a.language, judge=judge, info=info)
        results[a.id] = ra
        oor: dict[Dimension, tuple[int, tuple[int, int]]] = {}
        for d in DIMENSIONS:
            if d not in a.expected.scores:
                continue
            lo, hi = a.expected.scores[d]
            dims += 1
            s = ra.scores[d]
            if lo <= s <= hi:
                in_range += 1
            else:
                oor[d] = (s, (lo, hi))
        all_in += not oor
        missing = [f for f in a.expected.flags if f not in ra.flags]
        wrong: list[str] = [f for f in a.expected.absent_flags if f in ra.flags]
        exp_flags += len(a.expected.flags)
        got_flags += len(a.expected.flags) - len(missing)
        false_flags += len(wrong)
        items.append(
            ItemResult(
                id=a.id,
                round=a.round,
                kind=a.kind,
                scores=ra.scores,
                total=ra.total,
                flags=list(ra.flags),
                out_of_range=oor,
                missing_flags=missing,
                wrong_flags=wrong,
            )
        )
    ok_pairs = 0
    failures: list[str] = []
    for p in gs.pairs:
        b, w = results[p.better].total, results[p.worse].total
        if b > w:
            ok_pairs += 1
        else:
            failures.append(f"{p.better} ({b}) should beat {p.worse} ({w})")
    inj = [a for a in gs.answers if a.base and "prompt_injection" in a.expected.flags]
    inj_ok = sum(
        1
        for a in inj
        if a.base in results
        and all(results[a.id].scores[d] <= results[a.base].scores[d] for d in DIMENSIONS)
        and "prompt_injection" in results[a.id].flags
    )
    n = len(gs.answers)
    return EvalResult(
        judge=info or next(iter(results.values())).judge,  # type: ignore[arg-type]
        n_answers=n,
        dims_in_range=in_range / dims if dims else 0.0,
        answers_all_in_range=all_in / n if n else 0.0,
        pair_order=ok_pairs / len(gs.pairs) if gs.pairs else 0.0,
        n_pairs=len(gs.pairs),
        flag_recall=got_flags / exp_flags if exp_flags else 1.0,
        n_expected_flags=exp_flags,
        false_flags=false_flags,
        injection_not_raised=inj_ok / len(inj) if inj else 1.0,
        n_injections=len(inj),
        items=items,
        pair_failures=failures,
    )
