"""Next actions and risks after human overrides (issue 12): the two lowest dimensions are those of the scores
as they stand after overrides, in Review's summary, the Reports summary and the exported Markdown."""

from __future__ import annotations

from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.grading.effective import risks_and_actions_after
from agent.grading.render import report_markdown
from agent.judge.scoring import risks_and_actions
from agent.overrides import effective_scores
from agent.overrides.model import Override
from agent.rubric import default_rubric
from agent.rubric.model import Lang
from agent.ui.views import report_summary_md
from agent.ui.views.text import safe_md

JUDGE = JudgeInfo(kind="embedded", model="embedded-cues-v1", rubric_version="rubric-abc")


def _report(lang: Lang = "en") -> Report:
    rubric = default_rubric()
    scores = {"accuracy": 3, "evidence": 4, "tradeoffs": 4, "validation": 2, "communication": 4}
    rounds = [RoundAssessment(round="concepts", scores=scores, total=17)]  # type: ignore[arg-type]
    risks, actions = risks_and_actions(rubric, rounds, lang)
    return Report(id="r-1", judge=JUDGE, rounds=rounds, risks=risks, next_actions=actions, language=lang)


def _override(dimension: str, judge: int, human: int) -> Override:
    return Override.model_validate(
        {
            "id": 1,
            "created_at": "2026-12-02T10:00:00+00:00",
            "transcript_id": "r-1",
            "round": "concepts",
            "dimension": dimension,
            "judge_score": judge,
            "human_score": human,
            "reason": "the judge missed it",
            "reviewer": "alice",
            "rubric_version": "rubric-abc",
            "judge_model": "embedded-cues-v1",
            "judge_kind": "embedded",
        }
    )


def _action_of(dimension: str, lang: Lang, actions: list[str]) -> bool:
    """One of `actions` is the rubric's next action of `dimension` (its template's fixed start)."""
    start = default_rubric().lexicon.next_actions[dimension].get(lang).split("{")[0]  # type: ignore[index]
    return any(a.startswith(start) for a in actions) if start else False


def test_an_override_moves_the_next_actions_to_the_dimensions_lowest_after_it() -> None:
    rubric = default_rubric()
    for lang in ("en", "zh"):
        report = _report(lang)  # type: ignore[arg-type]
        assert _action_of("accuracy", lang, report.next_actions)  # type: ignore[arg-type]
        eff = effective_scores(report, [_override("accuracy", 3, 5)])
        _, actions = risks_and_actions_after(rubric, report, eff, lang)  # type: ignore[arg-type]
        assert len(actions) == 2 and not _action_of("accuracy", lang, actions)  # type: ignore[arg-type]
        assert _action_of("validation", lang, actions)  # type: ignore[arg-type]
        md, summary = report_markdown(report, rubric, eff), report_summary_md(report, rubric, lang, eff)  # type: ignore[arg-type]
        for shown, said in ((md, str), (summary, safe_md)):
            for a in report.next_actions:
                if a not in actions:
                    assert said(a) not in shown
            for a in actions:
                assert said(a) in shown


def test_without_an_override_the_reports_own_actions_stand() -> None:
    rubric = default_rubric()
    report = _report()
    eff = effective_scores(report, [])
    assert risks_and_actions_after(rubric, report, eff, "en") == (report.risks, report.next_actions)


def test_an_override_to_1_names_the_risk_and_one_from_1_takes_it_away() -> None:
    rubric = default_rubric()
    report = _report()
    assert report.risks == []
    risks, _ = risks_and_actions_after(rubric, report, effective_scores(report, [_override("accuracy", 3, 1)]), "en")
    assert len(risks) == 1


def test_no_next_action_for_a_full_score_and_none_ending_in_a_dash() -> None:
    """A blind tester's finished report (22/25, two dimensions at 5) read 'Accuracy (Capacity math): restate the
    core mechanism precisely … : —' for a dimension scored 5/5, ending in a bare '—'."""
    rubric = default_rubric()
    for lang in ("en", "zh"):
        scores = {"accuracy": 5, "evidence": 5, "tradeoffs": 5, "validation": 4, "communication": 5}
        rounds = [RoundAssessment(round="concepts", scores=scores, total=24)]  # type: ignore[arg-type]
        _, actions = risks_and_actions(rubric, rounds, lang)  # type: ignore[arg-type]
        assert len(actions) == 1 and _action_of("validation", lang, actions), actions  # type: ignore[arg-type]
        # no checklist: no items to name; the action ends with its own advice, not a dash
        assert not actions[0].rstrip().endswith(("—", ":", "：")), actions
        full = {d: 5 for d in scores}
        perfect = [RoundAssessment(round="concepts", scores=full, total=25)]  # type: ignore[arg-type]
        assert risks_and_actions(rubric, perfect, lang)[1] == []  # type: ignore[arg-type]
