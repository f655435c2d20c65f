"""Source evidence in assessments: snippets and symbol checks from a real Chroma index, and
grading that goes on, and says so, when the index is missing or broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.judge.assessment import assess_answer
from agent.judge.sources import Sources
from agent.rubric import Rubric, load_rubric

ANSWER = (
    "The scheduler in vllm/v1/core/sched/scheduler.py:Scheduler.schedule picks tokens and blocks each step; "
    "preemption lives in vllm/v1/core/sched/scheduler.py:Scheduler.preempt_everything, I believe. "
    "If a client disconnects, finish_requests frees the blocks; I would verify with a disconnect test and roll back."
)


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


def test_no_index_grades_without_snippets_and_says_so(
    rubric: Rubric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    src = Sources.open()
    assert not src.available and src.note and "without snippets" in src.note.said("en")
    with_src = assess_answer(rubric, "source-trace", ANSWER, "en", sources=src)
    plain = assess_answer(rubric, "source-trace", ANSWER, "en")
    assert with_src.scores == plain.scores
    assert with_src.snippets == []
    assert any("without snippets" in n for n in with_src.notes)


def test_a_corrupt_index_is_a_note_not_a_crash(
    rubric: Rubric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("chromadb")
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "current").write_text("\x00garbage")
    (tmp_path / "index" / "manifest.json").write_text("{not json")
    src = Sources.open()
    ra = assess_answer(rubric, "source-trace", ANSWER, "en", sources=src)
    assert ra.total >= 5
    assert src.note is None or any("without snippets" in n for n in ra.notes)


def test_a_built_index_gives_snippets_symbol_checks_and_the_index_commit(
    rubric: Rubric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("chromadb")
    pytest.importorskip("sentence_transformers")
    from agent.knowledge import SourceIndex, open_source
    from tests.knowledge.conftest import FIXTURE_COMMIT, write_tree

    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    tree = write_tree(tmp_path / "src")
    with open_source(tree) as s:
        SourceIndex().build(s)
    src = Sources.open()
    assert src.available and src.commit == FIXTURE_COMMIT
    ra = assess_answer(rubric, "source-trace", ANSWER, "en", sources=src)
    assert ra.snippets, "snippets for the cited scheduler code"
    assert any(s.path == "vllm/v1/core/sched/scheduler.py" for s in ra.snippets)
    assert all(FIXTURE_COMMIT in s.permalink and "#L" in s.permalink for s in ra.snippets)
    assert ra.judge is not None and ra.judge.index_commit == FIXTURE_COMMIT
    assert ra.checklist is not None
    status = {p.cited: p.status for p in ra.checklist.checks.paths}
    assert status["vllm/v1/core/sched/scheduler.py:Scheduler.schedule"] == "exists"
    assert status["vllm/v1/core/sched/scheduler.py:Scheduler.preempt_everything"] == "symbol_missing"
    assert "nonexistent_path" in ra.flags
