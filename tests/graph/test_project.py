"""The project-experience interview and the narrative template (docs/interview.md)."""

from __future__ import annotations

from agent.contracts.transcript import TranscriptRound, Turn
from agent.graph import answer, start_session
from agent.graph.report import fill_narrative
from agent.rubric import Rubric
from tests.graph.script import cue_answer, drive


def _evidence_text(rubric: Rubric, ids: list[str]) -> str:
    return cue_answer(rubric, "project-experience", ids)


def test_project_plan_asks_the_description_then_each_question_with_its_trigger(rubric: Rubric) -> None:
    rnd = rubric.round("project-experience")
    qs = rnd.questions
    assert len(qs) >= 2
    v = start_session("project", "en")
    assert v.round == "project-experience" and v.question == rnd.prompt.en
    v = answer(
        v.session_id, "I ran the vLLM serving of a 14B model on four GPUs; I owned the load tests.", at_s=60
    )
    assert v.question == qs[0].text.en
    at = 60.0
    for k, q in enumerate(qs):
        assert v.question == q.text.en
        at += 30
        if q.evidence and q.followup_if_missing:
            v = answer(v.session_id, "We just did it.", at_s=at)  # lacks what the question asks for
            assert v.question is not None and q.followup_if_missing[0].en in v.question
            at += 30
            v = answer(v.session_id, _evidence_text(rubric, q.evidence) or "Not collected.", at_s=at)
        else:
            v = answer(v.session_id, _evidence_text(rubric, q.evidence) or "Not collected.", at_s=at)
        if k + 1 < len(qs):
            assert v.question == qs[k + 1].text.en  # no trigger once the evidence is there
    assert v.status == "done" and v.report is not None and v.report.narrative is not None


def test_a_question_answered_with_its_evidence_gets_no_trigger_follow_up(rubric: Rubric) -> None:
    qs = rubric.round("project-experience").questions
    k = next(k for k, q in enumerate(qs) if q.evidence and q.followup_if_missing)
    v = start_session("project", "en")
    v = answer(v.session_id, "My project.", at_s=10)
    for j in range(k):
        v = answer(v.session_id, _evidence_text(rubric, qs[j].evidence) or "Not collected.", at_s=20 + j)
        if v.question != qs[j + 1].text.en:  # a trigger: answer it and move on
            v = answer(v.session_id, "Not collected.", at_s=20 + j)
    assert v.question == qs[k].text.en
    v = answer(v.session_id, _evidence_text(rubric, qs[k].evidence), at_s=100)
    assert v.question == (qs[k + 1].text.en if k + 1 < len(qs) else None)


def test_narrative_uses_the_candidates_words_and_not_collected_where_there_are_none(rubric: Rubric) -> None:
    nar = rubric.narrative
    v = start_session("project", "en")
    v = drive(v, lambda _: "No.")
    n = v.report.narrative  # type: ignore[union-attr]
    assert n is not None and [s.id for s in n.sections] == [s.id for s in nar.sections]
    assert all(not f.collected and f.text == nar.not_collected.en for s in n.sections for f in s.fields)

    rnd = rubric.round("project-experience")
    said = [
        "The business users were internal support agents; the model was Qwen 14B with vLLM image sha abc123.",
        "The symptom was TTFT p99 above the SLO.",
        "Alternatives: more replicas, or chunked prefill.",
        "The rollback unit was the immutable image. The dashboard report shows the result.",
        "Next time I would add instrumentation for queue time first.",
    ]
    turns = [Turn(role="interviewer", text=rnd.prompt.en), Turn(role="candidate", text=said[0])]
    for q, a in zip(rnd.questions, [*said[1:], *["Not collected."] * len(rnd.questions)], strict=False):
        turns += [Turn(role="interviewer", text=q.text.en), Turn(role="candidate", text=a)]
    n = fill_narrative(rubric, TranscriptRound(round="project-experience", turns=turns), "en")
    collected = [f for s in n.sections for f in s.fields if f.collected]
    assert collected and all(any(f.text in a for a in said) for f in collected)  # verbatim, never invented
    first = n.sections[0]
    assert any(
        f.collected and "Qwen 14B" in f.text for f in first.fields
    )  # the description feeds the context
    assert any(not f.collected and f.text == nar.not_collected.en for s in n.sections for f in s.fields)
