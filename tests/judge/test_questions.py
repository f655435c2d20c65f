"""Which rubric question an interviewer asked: answers are judged against the evidence their question asks for."""

from __future__ import annotations

import pytest

from agent.judge.answer import Answer, AnswerTurn
from agent.judge.assessment import assess_answer
from agent.judge.questions import evidence_scope, match_question
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


@pytest.mark.parametrize(
    ("round_id", "question", "kind", "qid"),
    [
        ("concepts", "Is smaller block size better?", "followup", "fu-block-size"),
        ("concepts", "block size 越小越好吗？", "followup", "fu-block-size"),
        ("concepts", "Explain paged attention and prefix caching briefly.", "prompt", "concepts"),
        ("project-experience", "为什么选 vLLM，而不是 TGI 或 TensorRT-LLM？", "project", "q4-why-vllm"),
        ("concepts", "What is your favourite programming language and why?", "outside", None),
        ("concepts", "你最喜欢的编程语言是什么？", "outside", None),
        ("project-experience", "Tell me about a time you disagreed with your manager.", "outside", None),
    ],
)
def test_a_question_is_matched_in_either_language(
    rubric: Rubric, round_id: str, question: str, kind: str, qid: str | None
) -> None:
    m = match_question(rubric, round_id, question)
    assert m is not None and (m.kind, m.id) == (kind, qid), m


def test_another_rounds_prompt_is_outside_this_round(rubric: Rubric) -> None:
    m = match_question(rubric, "concepts", rubric.round("incident").prompt.en)
    assert m is not None and m.kind == "outside"


def test_no_question_text_is_no_match(rubric: Rubric) -> None:
    assert match_question(rubric, "concepts", "") is None


def test_a_project_answer_is_judged_on_its_own_questions_evidence(rubric: Rubric) -> None:
    why = match_question(rubric, "project-experience", "Why did you choose vLLM rather than TGI?")
    scope = evidence_scope(rubric, "project-experience", [why])
    assert scope is not None and why is not None
    assert set(why.evidence) <= scope
    other = {e for q in rubric.round("project-experience").questions if q.id != why.id for e in q.evidence}
    assert not (other - set(why.evidence)) & scope
    assert evidence_scope(rubric, "concepts", [why]) is None


def test_a_round_outside_the_rubric_says_so_and_holds_what_it_cannot_show(rubric: Rubric) -> None:
    text = (
        "Python, because the ecosystem is huge and I can prototype fast. If a change breaks something I roll it "
        "back and verify with tests."
    )
    ra = assess_answer(
        rubric, "concepts", Answer((AnswerTurn(text, "What is your favourite programming language?"),)), "en"
    )
    assert any("outside the rubric" in n for n in ra.notes)
    assert any("Not judged" in n and "Accuracy" in n for n in ra.notes)
    assert ra.scores["accuracy"] <= 2 and ra.scores["tradeoffs"] <= 2


def test_an_off_rubric_turn_does_not_count_for_the_round(rubric: Rubric) -> None:
    on = AnswerTurn(
        "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand.",
        rubric.round("concepts").prompt.en,
    )
    off = AnswerTurn(
        "Continuous batching reschedules at every step boundary, bounded by the token budget.",
        "What is your favourite programming language?",
    )
    ra = assess_answer(rubric, "concepts", Answer((on, off)), "en")
    assert ra.checklist is not None
    assert "paged-kv-mapping" in ra.checklist.covered()
    assert "cb-step-reschedule" not in ra.checklist.covered()


@pytest.mark.parametrize("round_id", ["system-design", "capacity"])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("facts", [1, 2, 5])
def test_the_interviewers_reply_with_asked_inputs_continues_the_prompt(
    rubric: Rubric, round_id: str, lang: str, facts: int
) -> None:
    """The inputs a candidate asked for (the interviewer's reply, as agent/graph/nodes.py words it) are the
    round's own question going on: what the candidate answers next is judged on the round's evidence, not set
    aside as a question outside the rubric."""
    from agent.util.messages import t

    given = rubric.round(round_id).given[:facts]
    sep = "" if lang == "zh" else " "
    reply = t("interview.given", lang, facts=sep.join(f.text.get(lang) for f in given))  # type: ignore[arg-type]
    m = match_question(rubric, round_id, reply)
    assert m is not None and (m.kind, m.id) == ("prompt", round_id), m


def test_an_answer_after_the_asked_inputs_is_judged_on_the_round(rubric: Rubric) -> None:
    from agent.util.messages import t

    rnd = rubric.round("system-design")
    reply = t("interview.given", "en", facts=" ".join(f.text.en for f in rnd.given))
    first = AnswerTurn("Questions first: which GPU type, how many nodes, model sizes?", rnd.prompt.en)
    then = AnswerTurn(
        "Per-replica good rate from a stepped load test, then replicas = ceil(120 / good rate), plus one node "
        "spare for N+1 so one node failure keeps the SLO, plus a rollout reserve.",
        reply,
    )
    ra = assess_answer(rubric, "system-design", Answer((first, then)), "en")
    assert ra.checklist is not None and not ra.checklist.outside
