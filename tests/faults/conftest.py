"""Fault tests: every test has its own data dir and the embedded judge (no LLM)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.rubric import Rubric, default_rubric

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(d))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    return d


@pytest.fixture(scope="session")
def rubric() -> Rubric:
    return default_rubric()
