"""Grade mode: a recorded transcript replayed through the graph scores exactly as `grade_transcript`."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import repo_root
from agent.contracts.report import JudgeInfo, Report
from agent.contracts.transcript import Transcript, load_transcript
from agent.grading.single import grade_transcript
from agent.graph import SessionReport, grade_with_graph, list_sessions, start_session
from agent.graph.plan import variant_seed
from agent.judge.embedded import EmbeddedJudge
from agent.rubric import Rubric
from tests.graph.script import WEAK, drive, partial, strong

EXAMPLES = sorted((repo_root() / "examples" / "transcripts").glob("*.json"))


def _same_scores(a: Report, b: Report) -> None:
    assert [r.round for r in a.rounds] == [r.round for r in b.rounds]
    for x, y in zip(a.rounds, b.rounds, strict=True):
        assert (x.scores, x.total, x.flags, x.quotes, x.missing_evidence) == (
            y.scores,
            y.total,
            y.flags,
            y.quotes,
            y.missing_evidence,
        )
    assert (a.risks, a.next_actions) == (b.risks, b.next_actions)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: Path(p).stem)
def test_grade_mode_equals_grade_transcript_on_the_examples(rubric: Rubric, path: Path) -> None:
    t = load_transcript(path)
    via_graph = grade_with_graph(t)
    assert isinstance(via_graph, SessionReport) and via_graph.mode == "grade"
    _same_scores(via_graph, grade_transcript(rubric, t))
    assert list_sessions() == []  # grading leaves no session behind


def test_a_live_session_and_its_transcript_graded_in_batch_agree(rubric: Rubric) -> None:
    v = start_session("full fresh", "en", session_id="live-1")

    def script(view: object) -> str:
        rid = getattr(view, "round", None)
        if rid is None:
            return "No questions."
        return {"concepts": strong(rubric, "concepts"), "capacity": partial(rubric, "capacity", 6)}.get(
            rid, WEAK
        )

    v = drive(v, script)
    assert v.report is not None
    cap = next(r for r in v.transcript.rounds if r.round == "capacity")
    assert cap.variant_seed == variant_seed("live-1")  # the batch grader sees the variant's numbers too
    recorded = Transcript.model_validate(v.transcript.model_dump(mode="json"))
    _same_scores(v.report, grade_transcript(rubric, recorded))
    _same_scores(v.report, grade_with_graph(recorded))


def test_grade_mode_takes_the_judge_a_command_chose(rubric: Rubric) -> None:
    t = load_transcript(EXAMPLES[0])
    info = JudgeInfo(kind="embedded", model="embedded-cues-v1", rubric_version=rubric.version, seed=7)
    r = grade_with_graph(t, judge=EmbeddedJudge(), info=info)
    assert r.judge.seed == 7
    _same_scores(r, grade_transcript(rubric, t, judge=EmbeddedJudge(), info=info))
