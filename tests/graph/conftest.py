"""Every graph test runs on the embedded judge (no LLM) with its own data dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.rubric import Rubric, default_rubric


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data"
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(d))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    return d


@pytest.fixture(scope="session")
def rubric() -> Rubric:
    return default_rubric()
