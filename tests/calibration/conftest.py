"""A small slice of the graded set (fast), the rubric, and a data dir of its own per test."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent.calibration.evaluation import GradedSet, load_graded_set
from agent.rubric import Rubric, default_rubric

SMALL = (
    "concepts-strong-en",
    "concepts-weak-en",
    "capacity-strong-zh",
    "capacity-qheads-zh",
    "capacity-fabricated-en",
    "incident-weak-zh",
    "incident-injection-zh",
)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data"
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(d))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    return d


@pytest.fixture(scope="session")
def rubric() -> Rubric:
    return default_rubric()


@pytest.fixture(scope="session")
def full_set() -> GradedSet:
    return load_graded_set()


@pytest.fixture(scope="session")
def small_set(full_set: GradedSet) -> GradedSet:
    answers = [a for a in full_set.answers if a.id in SMALL]
    pairs = [p for p in full_set.pairs if p.better in SMALL and p.worse in SMALL]
    return GradedSet(answers=answers, pairs=pairs)


@pytest.fixture
def small_set_file(small_set: GradedSet, tmp_path: Path) -> Path:
    p = tmp_path / "small.yaml"
    p.write_text(yaml.safe_dump(small_set.model_dump(mode="json"), allow_unicode=True), encoding="utf-8")
    return p
