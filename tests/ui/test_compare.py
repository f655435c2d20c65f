"""Reports → Compare two attempts (issue 12), without the app: the scores after overrides, marked; the
attempts preselected are two that share a round, or none."""

from __future__ import annotations

from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.grading.effective import effective_rounds
from agent.overrides import effective_scores
from agent.overrides.model import Override
from agent.rubric import default_rubric
from agent.ui.tabs.reports import comparable_pair, compare_rows

JUDGE = JudgeInfo(kind="embedded", model="embedded-cues-v1", rubric_version="rubric-abc")
SCORES = {"accuracy": 3, "evidence": 3, "tradeoffs": 3, "validation": 3, "communication": 3}


def _report(rid: str, round_id: str = "concepts") -> Report:
    return Report(id=rid, judge=JUDGE, rounds=[RoundAssessment(round=round_id, scores=SCORES, total=15)])  # type: ignore[arg-type]


def _override(rid: str, human: int) -> Override:
    return Override.model_validate(
        {"id": 1, "created_at": "2026-12-02T10:00:00+00:00", "transcript_id": rid, "round": "concepts",
         "dimension": "accuracy", "judge_score": 3, "human_score": human, "reason": "missed", "reviewer": "alice",
         "rubric_version": "rubric-abc", "judge_model": "embedded-cues-v1", "judge_kind": "embedded"}
    )  # fmt: skip


def test_compare_counts_the_scores_after_overrides_and_marks_them() -> None:
    rubric = default_rubric()
    a, b = _report("a"), _report("b")
    ea = effective_rounds(rubric, a, effective_scores(a, []))
    eb = effective_rounds(rubric, b, effective_scores(b, [_override("b", 4)]))
    for lang, marked, total in (
        ("en", "4 (overridden; judge: 3)", "16 (overridden; judge: 15)"),
        ("zh", "4（人工改分；评分器：3）", "16（人工改分；评分器：15）"),
    ):
        rows = compare_rows(rubric, ea, eb, lang)  # type: ignore[arg-type]
        accuracy, *_, last = rows
        assert accuracy[2:] == [3, marked, "+1"]
        assert last[2:] == [15, total, "+1"]
        assert all(r[4] == "+0" for r in rows[1:-1])


def test_compare_has_no_rows_for_attempts_without_a_round_in_common() -> None:
    rubric = default_rubric()
    a, b = _report("a", "concepts"), _report("b", "capacity")
    rows = compare_rows(rubric, effective_rounds(rubric, a, None), effective_rounds(rubric, b, None), "en")
    assert rows == []


def test_the_attempts_preselected_share_a_round() -> None:
    latest_first = [("s3", {"capacity"}), ("s2", {"concepts"}), ("s1", {"concepts", "capacity"})]
    assert comparable_pair(latest_first) == ("s1", "s3")  # s2 is of another plan than s3
    assert comparable_pair([("s2", {"concepts"}), ("s1", {"capacity"})]) == (None, None)
    assert comparable_pair([("s1", {"concepts"})]) == (None, None)
    assert comparable_pair([]) == (None, None)


def test_an_accepted_draft_score_is_no_override_in_the_report() -> None:
    """Issue 12 (walk4 #11): Co-pilot's Accept logs the judge's score as a row; the finished report read
    "overridden: 3 → 3" and the round's total "(overridden; judge: 15)". An accept keeps the judge's score:
    nothing is marked as changed; a later override of it is."""
    from agent.graph.report import SessionReport, session_markdown
    from agent.ui.views import effective_md

    rubric = default_rubric()
    report = SessionReport.model_validate(_report("b").model_dump())
    accepted = effective_scores(report, [_override("b", 3)])
    [er] = effective_rounds(rubric, report, accepted)
    assert not er.changed and er.override_of("accuracy") is None and er.total == er.judge_total == 15
    md = session_markdown(report, rubric, accepted) + effective_md(report, accepted, rubric)
    assert "→" not in md and "overridden" not in md, md
    [er] = effective_rounds(rubric, report, effective_scores(report, [_override("b", 3), _override("b", 4).model_copy(update={"id": 2})]))
    assert er.changed and er.total == 16
