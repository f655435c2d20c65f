"""The judge measured on graded answer sets: a check, not a target.

`eval/graded/dev/` may be read while writing cues and thresholds; `eval/graded/test/` is frozen
(written and labelled by authors who never saw the rubric files, the prompts or the code; its
files' hashes are pinned in `eval/graded/test/FROZEN.sha256`). Figures quoted anywhere are test
figures. See docs/evaluation.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal, get_args

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from agent.config import repo_root
from agent.contracts.report import Flag, JudgeInfo, RoundAssessment
from agent.judge.answer import Answer, AnswerTurn
from agent.judge.assessment import assess_answer
from agent.judge.base import Judge
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Dimension, Lang, RoundId

Split = Literal["dev", "test"]
SPLITS: tuple[Split, ...] = ("dev", "test")
Kind = Literal["strong", "medium", "weak", "wrong", "stripped", "injected", "adversarial"]
TIERS: dict[str, tuple[str, ...]] = {
    "strong": ("strong",),
    "medium": ("medium",),
    "weak": ("weak", "wrong", "stripped", "adversarial", "injected"),
}
"""Answer kinds per tier: in-range figures are balanced over these three."""
COPY_KINDS = ("stripped", "wrong")
"""Copies of an answer with its specifics removed or a false claim put in: must score below it."""
ANSWER_FLAGS: tuple[str, ...] = tuple(
    f for f in get_args(Flag) if f not in ("accuracy_1", "validation_1", "judge_fallback")
)
"""Flags about the answer a label may speak about (accuracy_1 / validation_1 follow from scores)."""
GATE_FLAGS = {"happy_path_cap": "happy_path_only", "unit_error_cap": "unit_error"}
"""Gates that cap a round because a flag holds, by the name they leave on a capped score."""


class GradedTurn(BaseModel):
    question: str = ""
    answer: str


class Expected(BaseModel):
    scores: dict[Dimension, tuple[int, int]]
    flags: list[str] = Field(default_factory=list)
    absent_flags: list[str] = Field(default_factory=list)


class Label(BaseModel):
    """One author's label, kept beside the resolved one when two authors labelled an answer."""

    by: str
    scores: dict[Dimension, tuple[int, int]]
    flags: list[str] = Field(default_factory=list)
    absent_flags: list[str] = Field(default_factory=list)


class GradedAnswer(BaseModel):
    id: str
    round: RoundId
    language: Lang
    kind: Kind
    answer: str = ""
    turns: list[GradedTurn] = Field(default_factory=list)
    expected: Expected
    base: str | None = None
    voice: str | None = None
    author: str | None = None
    labels: list[Label] = Field(default_factory=list)
    resolution: str | None = None
    notes: str = ""

    @model_validator(mode="after")
    def _text(self) -> GradedAnswer:
        if not self.turns and not self.answer.strip():
            raise ValueError(f"{self.id}: neither `answer` nor `turns`")
        if self.turns and not self.answer:
            self.answer = Answer.of(self.answer_turns()).text
        return self

    def answer_turns(self) -> list[AnswerTurn]:
        if self.turns:
            return [AnswerTurn(t.answer, t.question) for t in self.turns]
        return [AnswerTurn(self.answer)]

    def as_answer(self) -> Answer:
        return Answer.of(self.answer_turns())


class Pair(BaseModel):
    better: str
    worse: str


class GradedSet(BaseModel):
    answers: list[GradedAnswer]
    pairs: list[Pair] = Field(default_factory=list)


def graded_dir(split: Split) -> Path:
    return repo_root() / "eval" / "graded" / split


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.glob("*.yaml"))
    return [path]


def load_graded_set(path: Path | None = None, *, split: Split = "dev") -> GradedSet:
    """A graded set from a YAML file or a folder of them (default: the `split` folder)."""
    files = _files(path or graded_dir(split))
    if not files:
        raise ValueError(f"{path or graded_dir(split)}: no graded answer files (*.yaml)")
    answers: list[GradedAnswer] = []
    pairs: list[Pair] = []
    for f in files:
        try:
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
            gs = GradedSet.model_validate(data)
        except (OSError, yaml.YAMLError, ValidationError) as e:
            raise ValueError(f"{f}: {e}") from e
        answers += gs.answers
        pairs += gs.pairs
    ids = [a.id for a in answers]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"{path or graded_dir(split)}: answer ids used twice: {', '.join(dup[:5])}")
    known = set(ids)
    for p in pairs:
        for x in (p.better, p.worse):
            if x not in known:
                raise ValueError(f"{path or graded_dir(split)}: pair names unknown answer {x!r}")
    for a in answers:
        if a.base is not None and a.base not in known:
            raise ValueError(f"{path or graded_dir(split)}: {a.id} names unknown base {a.base!r}")
    return GradedSet(answers=answers, pairs=pairs)


def frozen_digest(folder: Path | None = None) -> dict[str, str]:
    """sha256 of each file of the frozen test split, by file name."""
    folder = folder or graded_dir("test")
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in _files(folder)}


class ItemResult(BaseModel):
    id: str
    round: RoundId
    kind: str
    language: Lang
    scores: dict[Dimension, int]
    total: int
    flags: list[str]
    out_of_range: dict[Dimension, tuple[int, tuple[int, int]]]
    missing_flags: list[str]
    wrong_flags: list[str]
    gate_caps: list[str] = Field(default_factory=list)
    """gates that capped a score, each named with the flag it rests on"""


class Rate(BaseModel):
    value: float | None
    n: int

    def fmt(self) -> str:
        return "—" if self.value is None else f"{self.value:.1%}"


def _rate(ok: int, n: int) -> Rate:
    return Rate(value=ok / n if n else None, n=n)


class FlagResult(BaseModel):
    flag: str
    recall: Rate
    precision: Rate
    """of the raised flags a label speaks about (required or forbidden), the share required"""


class EvalResult(BaseModel):
    judge: JudgeInfo
    n_answers: int
    dims_in_range: float
    in_range_by_tier: dict[str, Rate]
    in_range_balanced: float | None
    answers_all_in_range: float
    pair_order: float
    n_pairs: int
    copies_below: Rate
    flag_recall: float
    n_expected_flags: int
    false_flags: int
    flags: list[FlagResult]
    flag_precision_mean: float | None
    flag_recall_mean: float | None
    strong_capped_unlabelled: list[str]
    injection_not_raised: float
    n_injections: int
    items: list[ItemResult]
    pair_failures: list[str]
    copy_failures: list[str]
    fallbacks: int = 0


def _gate_caps(ra: RoundAssessment) -> list[str]:
    out: set[str] = set()
    for d in ra.dimensions:
        for c in d.caps:
            name = c.split(" (", 1)[0]
            flag = GATE_FLAGS.get(name, name if name in ANSWER_FLAGS else None)
            if flag is not None:
                out.add(flag)
    return sorted(out)


def _mean(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def run_eval(
    rubric: Rubric,
    gs: GradedSet,
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    concurrency: int = 1,
) -> EvalResult:
    """The judge on a graded set. `concurrency` answers are assessed at once (a vLLM judge's server is kept
    busy: `agent.judge.factory.batch_size`); the figures do not depend on it."""
    results: dict[str, RoundAssessment] = {}
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        assessed = list(
            pool.map(
                lambda a: assess_answer(rubric, a.round, a.as_answer(), a.language, judge=judge, info=info),
                gs.answers,
            )
        )
    items: list[ItemResult] = []
    in_range = dims = all_in = 0
    exp_flags = got_flags = false_flags = 0
    tier_hits = {t: [0, 0] for t in TIERS}
    per_flag: dict[str, list[int]] = {f: [0, 0, 0] for f in ANSWER_FLAGS}  # expected, hit, forbidden raised
    fallbacks = 0
    for a, ra in zip(gs.answers, assessed, strict=True):
        results[a.id] = ra
        fallbacks += ra.fell_back
        tier = next(t for t, kinds in TIERS.items() if a.kind in kinds)
        oor: dict[Dimension, tuple[int, tuple[int, int]]] = {}
        for d in DIMENSIONS:
            if d not in a.expected.scores:
                continue
            lo, hi = a.expected.scores[d]
            dims += 1
            tier_hits[tier][1] += 1
            s = ra.scores[d]
            if lo <= s <= hi:
                in_range += 1
                tier_hits[tier][0] += 1
            else:
                oor[d] = (s, (lo, hi))
        all_in += not oor
        missing = [f for f in a.expected.flags if f not in ra.flags]
        wrong: list[str] = [f for f in a.expected.absent_flags if f in ra.flags]
        exp_flags += len(a.expected.flags)
        got_flags += len(a.expected.flags) - len(missing)
        false_flags += len(wrong)
        for f, c in per_flag.items():
            if f in a.expected.flags:
                c[0] += 1
                c[1] += f in ra.flags
            elif f in a.expected.absent_flags and f in ra.flags:
                c[2] += 1
        items.append(
            ItemResult(
                id=a.id,
                round=a.round,
                kind=a.kind,
                language=a.language,
                scores=ra.scores,
                total=ra.total,
                flags=list(ra.flags),
                out_of_range=oor,
                missing_flags=missing,
                wrong_flags=wrong,
                gate_caps=_gate_caps(ra),
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
    by_id = {a.id: a for a in gs.answers}
    copies = [a for a in gs.answers if a.kind in COPY_KINDS and a.base in results]
    copy_failures = [
        f"{a.id} ({results[a.id].total}) should be below {a.base} ({results[a.base].total})"
        for a in copies
        if a.base is not None and results[a.id].total >= results[a.base].total
    ]
    inj = [a for a in gs.answers if a.base and "prompt_injection" in a.expected.flags]
    inj_ok = sum(
        1
        for a in inj
        if a.base in results
        and all(results[a.id].scores[d] <= results[a.base].scores[d] for d in DIMENSIONS)
        and "prompt_injection" in results[a.id].flags
    )
    flag_results = [
        FlagResult(flag=f, recall=_rate(c[1], c[0]), precision=_rate(c[1], c[1] + c[2]))
        for f, c in per_flag.items()
        if c[0] or c[2]
    ]
    strong_capped = [
        f"{it.id}: {', '.join(f for f in it.gate_caps if f not in by_id[it.id].expected.flags)}"
        for it in items
        if it.kind == "strong" and any(f not in by_id[it.id].expected.flags for f in it.gate_caps)
    ]
    tiers = {t: _rate(h, n) for t, (h, n) in tier_hits.items()}
    n = len(gs.answers)
    return EvalResult(
        judge=info or next(iter(results.values())).judge,  # type: ignore[arg-type]
        n_answers=n,
        dims_in_range=in_range / dims if dims else 0.0,
        in_range_by_tier=tiers,
        in_range_balanced=_mean([r.value for r in tiers.values()]),
        answers_all_in_range=all_in / n if n else 0.0,
        pair_order=ok_pairs / len(gs.pairs) if gs.pairs else 0.0,
        n_pairs=len(gs.pairs),
        copies_below=_rate(len(copies) - len(copy_failures), len(copies)),
        flag_recall=got_flags / exp_flags if exp_flags else 1.0,
        n_expected_flags=exp_flags,
        false_flags=false_flags,
        flags=flag_results,
        flag_precision_mean=_mean([f.precision.value for f in flag_results]),
        flag_recall_mean=_mean([f.recall.value for f in flag_results]),
        strong_capped_unlabelled=strong_capped,
        injection_not_raised=inj_ok / len(inj) if inj else 1.0,
        n_injections=len(inj),
        items=items,
        pair_failures=failures,
        copy_failures=copy_failures,
        fallbacks=fallbacks,
    )
