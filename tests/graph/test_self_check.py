"""The self-check round (the interview's closing 自检, docs/interview.md): the plans that add it, its four questions asked in
turn, graded like any round (good answers above thin ones, in both languages), in the report and in a
batch grade of its transcript."""

from __future__ import annotations

import pytest

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import Transcript
from agent.grading.single import grade_transcript
from agent.graph import PlanError, SessionView, answer, start_session
from agent.graph.plan import FULL_MOCK, make_plan, usage, weakest, with_self_check
from agent.judge.answer import Answer
from agent.judge.assessment import assess_answer
from agent.rubric import Lang, Rubric
from tests import self_check_answers
from tests.graph.script import strong

# ------------------------------------------------------------------------------------------------ plans


def test_the_self_check_round_is_added_after_a_plans_rounds(rubric: Rubric) -> None:
    full = make_plan("full self-check", rubric, "s1")
    assert full.name == "full self-check" and full.candidate_questions
    assert [r["round"] for r in full.rounds] == [*FULL_MOCK, "self-check"]
    assert full.rounds[-1]["minutes"] == rubric.round("self-check").minutes == 8
    fresh = make_plan("full fresh self-check", rubric, "s1")
    assert fresh.name == "full fresh self-check" and fresh.rounds[2]["variant_seed"] is not None
    assert make_plan("full self-check fresh", rubric, "s1").name == "full fresh self-check"
    alone = make_plan("self-check", rubric, "s1")
    assert (alone.name, [r["round"] for r in alone.rounds], alone.candidate_questions) == (
        "self-check",
        ["self-check"],
        False,
    )
    project = make_plan("project self-check", rubric, "s1")
    assert [r["round"] for r in project.rounds] == ["project-experience", "self-check"]
    assert "self-check" in usage()
    with pytest.raises(PlanError, match="unknown plan"):
        make_plan("self-check self-check", rubric, "s1")


def test_with_self_check_reads_a_plan_name_back() -> None:
    assert with_self_check("full self-check") == ("full", True)
    assert with_self_check("full fresh self-check") == ("full fresh", True)
    assert with_self_check("redo abc self-check") == ("redo abc", True)
    assert with_self_check("self-check") == ("self-check", False)
    assert with_self_check("capacity fresh") == ("capacity fresh", False)


def _scored(rid: str, total: int) -> RoundAssessment:
    dims = ("accuracy", "evidence", "tradeoffs", "validation", "communication")
    scores = dict.fromkeys(dims, total // 5)
    return RoundAssessment.model_validate({"round": rid, "scores": scores, "total": sum(scores.values())})


def test_a_redo_repeats_interview_rounds_not_the_self_check(rubric: Rubric) -> None:
    done = [
        _scored("concepts", 20),
        _scored("capacity", 15),
        _scored("incident", 10),
        _scored("self-check", 5),
    ]
    assert [a.round for a in weakest(done)] == ["incident", "capacity"]
    assert [a.round for a in weakest([_scored("self-check", 5)])] == ["self-check"]
    previous = [a.model_dump(mode="json") for a in done]
    redo = make_plan("redo prev self-check", rubric, "s2", previous=lambda sid: previous)
    assert redo.name == "redo prev self-check"
    assert [r["round"] for r in redo.rounds] == ["capacity", "incident", "self-check"]
    assert redo.previous is not None and set(redo.previous["rounds"]) == {"capacity", "incident"}


# ------------------------------------------------------------------------------------------------ sessions


def _self_check_script(rubric: Rubric, lang: Lang, good: bool) -> tuple[list[str], dict[str, str]]:
    """What the candidate answers to each of the four questions; a follow-up gets a short reply."""
    qs = self_check_answers.questions(lang, rubric)
    return qs, dict(zip(qs, self_check_answers.answers(lang, good), strict=True))


def _answer_self_check(v: SessionView, rubric: Rubric, good: bool, at: float = 0.0) -> SessionView:
    qs, by_question = _self_check_script(rubric, v.language, good)
    reply = "不太确定。" if v.language == "zh" else "I'm not sure."
    asked: list[str] = []
    for _ in range(12):
        if v.status == "done" or v.round != "self-check":
            break
        assert v.question is not None
        asked.append(v.question)
        at += 60
        v = answer(v.session_id, by_question.get(v.question, reply), at_s=at)
        assert v.message is None, v.message
    assert [q for q in asked if q in qs] == qs  # the four questions, in the seed's order
    return v


def _round(v: SessionView, rid: str) -> RoundAssessment:
    assert v.report is not None
    return next(r for r in v.report.rounds if r.round == rid)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_good_self_check_scores_above_a_thin_one(rubric: Rubric, lang: Lang) -> None:
    good = _answer_self_check(start_session("self-check", lang, session_id=f"good-{lang}"), rubric, True)
    thin = _answer_self_check(start_session("self-check", lang, session_id=f"thin-{lang}"), rubric, False)
    g, t = _round(good, "self-check"), _round(thin, "self-check")
    assert g.scores["accuracy"] > t.scores["accuracy"] and g.scores["evidence"] > t.scores["evidence"]
    assert g.total >= 20 and t.total <= 10, (g.scores, t.scores)
    assert g.quotes and len(g.missing_evidence) <= 2
    # the thin answers assert what the round's misconceptions name, and the scores say so
    assert t.checklist is not None and t.checklist.checks.misconceptions
    assert "misconception" in t.flags
    # a good answer asks no follow-up; a thin one gets the question's follow-up for what it lacks
    turns = [x for x in good.transcript.rounds[0].turns if x.role == "interviewer"]
    assert len(turns) == 4
    thin_turns = [x for x in thin.transcript.rounds[0].turns if x.role == "interviewer"]
    assert any((x.model_extra or {}).get("trigger") for x in thin_turns)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_medium_self_check_lands_between_the_good_and_the_thin(rubric: Rubric, lang: Lang) -> None:
    """Right in outline but without the evidence (no labelled numbers, no artefacts named, no plan to measure
    now): the judge puts it between the two, on the round's questions as the graph asks them."""
    medium = self_check_answers.MEDIUM_ZH if lang == "zh" else self_check_answers.MEDIUM_EN
    pairs = list(zip(self_check_answers.questions(lang, rubric), medium, strict=True))
    mid = assess_answer(rubric, "self-check", Answer.of_pairs(pairs), lang)
    good = assess_answer(rubric, "self-check", self_check_answers.answer(lang, True, rubric), lang)
    thin = assess_answer(rubric, "self-check", self_check_answers.answer(lang, False, rubric), lang)
    assert good.total > mid.total > thin.total, (good.scores, mid.scores, thin.scores)
    assert good.scores["evidence"] > mid.scores["evidence"] > thin.scores["evidence"]
    assert (
        not mid.checklist or not mid.checklist.checks.misconceptions
    )  # "if we scale first, ..." is no claim


def test_full_self_check_asks_it_after_the_incident_and_before_the_candidates_questions(
    rubric: Rubric,
) -> None:
    v = start_session("full self-check", "en", session_id="full-sc")
    assert v.n_rounds == 6
    texts = {rid: strong(rubric, rid) for rid in FULL_MOCK}
    at = 0.0
    for _ in range(40):
        if v.round == "self-check":
            break
        at += 30
        v = answer(v.session_id, texts.get(v.round or "", "No questions."), at_s=at)
    assert v.round == "self-check" and v.round_index == 5
    v = _answer_self_check(v, rubric, True, at)
    assert v.status == "waiting" and v.round is None  # the candidate's own questions close the interview
    v = answer(v.session_id, "How does the team review capacity plans?", at_s=at + 600)
    assert v.status == "done" and v.report is not None
    assert [r.round for r in v.report.rounds] == [*FULL_MOCK, "self-check"]
    assert [t.round for t in v.report.timing] == [*FULL_MOCK, "self-check"]
    sc = _round(v, "self-check")
    assert sc.total >= 20 and set(sc.scores) == {
        "accuracy",
        "evidence",
        "tradeoffs",
        "validation",
        "communication",
    }
    # the self-check's two lowest dimensions too (those below 5: a full score needs no next action)
    below = [min(2, sum(s < 5 for s in a.scores.values())) for a in v.report.rounds]
    assert len(v.report.rounds) == 6 and len(v.report.next_actions) == sum(below)


def test_a_self_check_transcript_grades_in_batch_as_it_scored_live(rubric: Rubric) -> None:
    v = _answer_self_check(start_session("self-check", "zh", session_id="batch-sc"), rubric, True)
    assert v.report is not None
    recorded = Transcript.model_validate(v.transcript.model_dump(mode="json"))
    batch = grade_transcript(rubric, recorded)
    live = _round(v, "self-check")
    assert [r.round for r in batch.rounds] == ["self-check"]
    assert (batch.rounds[0].scores, batch.rounds[0].quotes) == (live.scores, live.quotes)
