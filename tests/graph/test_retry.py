"""Retry the last answer (issue 12): the same question answered again; the new answer decides the follow-up,
the draft and whether the round closes, the earlier attempts stay on its turn; a round that closed on its
last answer may have it retried until the next round has an answer; nothing to retry once the candidate
finished the round, and only the owner may retry."""

from __future__ import annotations

import pytest

from agent.graph import SessionNotFound, answer, close_round, get_session, retry_answer, start_session
from agent.rubric import Rubric
from tests.graph.script import WEAK, partial, strong


def _turns(sid: str, owner: str | None = None) -> list[tuple[str, str]]:
    v = get_session(sid, owner=owner)
    return [(t.role, t.text) for r in v.transcript.rounds for t in r.turns]


def test_a_retry_answers_the_same_question_and_keeps_the_first_attempt(rubric: Rubric) -> None:
    v = start_session("concepts", "en", session_id="r1", owner="ana")
    opening = v.question
    first = answer("r1", WEAK, at_s=30, owner="ana")
    assert first.last_assessment is not None
    before = first.last_assessment.total
    assert first.question != opening  # a follow-up was asked after the weak answer

    good = partial(rubric, "concepts", 2)
    v = retry_answer("r1", good, at_s=60, owner="ana")
    assert v.message is None
    turns = _turns("r1", "ana")
    assert [role for role, _ in turns] == [
        "interviewer",
        "candidate",
        "interviewer",
    ]  # one answer, one follow-up
    assert turns[0][1] == opening and turns[1][1] == good and WEAK not in [t for _, t in turns]
    (cand,) = [t for r in v.transcript.rounds for t in r.turns if t.role == "candidate"]
    extra = cand.model_extra or {}
    assert extra["earlier"] == [
        {"text": WEAK, "at_s": 30.0, "total": before, "scores": first.last_assessment.scores}
    ]  # with the round's scores as they stood with it
    assert cand.at_s == 60.0
    assert v.last_assessment is not None and v.last_assessment.total > before  # the draft is the new answer's
    assert extra["total"] == v.last_assessment.total and extra["scores"] == v.last_assessment.scores
    assert v.round == "concepts" and v.status == "waiting"

    # a second retry keeps both earlier attempts, in order
    v = retry_answer("r1", good + " Prefix caching reuses blocks.", at_s=90, owner="ana")
    (cand,) = [t for r in v.transcript.rounds for t in r.turns if t.role == "candidate"]
    assert [e["text"] for e in (cand.model_extra or {})["earlier"]] == [WEAK, good]
    assert [e["total"] for e in (cand.model_extra or {})["earlier"]] == [before, extra["total"]]

    # the session goes on from the retried answer
    v = answer("r1", "I would open vllm/v1/core/sched/scheduler.py.", at_s=120, owner="ana")
    assert v.message is None and [r for r, _ in _turns("r1", "ana")].count("candidate") == 2


def test_nothing_to_retry_before_an_answer_or_after_the_candidate_finished_the_round(rubric: Rubric) -> None:
    v = start_session("full", "en", session_id="r2")
    v = retry_answer("r2", "an answer", at_s=10)
    assert v.message and "no answer to retry" in v.message
    v = answer("r2", WEAK, at_s=30)
    assert v.round == "concepts"  # a follow-up was asked; the candidate then finishes the round
    v = close_round("r2")
    assert v.round == "source-trace"
    kept = _turns("r2")
    v = retry_answer("r2", "a better answer", at_s=60)
    assert v.message and "no answer to retry" in v.message
    assert _turns("r2") == kept  # nothing changed


def test_a_retry_is_checked_like_an_answer_and_only_the_owner_may_retry() -> None:
    start_session("concepts", "zh", session_id="r3", owner="ana")
    answer("r3", "分页 KV cache 把显存切成 block。", at_s=20, owner="ana")
    v = retry_answer("r3", "   ", at_s=30, owner="ana")
    assert v.message and "为空" in v.message
    with pytest.raises(SessionNotFound):
        retry_answer("r3", "someone else's answer", owner="bob")
    with pytest.raises(SessionNotFound):
        retry_answer("r3", "no owner", owner=None)
    assert [t for r, t in _turns("r3", "ana") if r == "candidate"] == ["分页 KV cache 把显存切成 block。"]


def test_the_answer_a_round_closed_on_can_be_retried_until_the_next_round_has_an_answer(
    rubric: Rubric,
) -> None:
    """The round's time ran out on its last answer: that answer may be answered again while the next round
    waits for its first answer; the round closes again on time with the new answer's scores."""
    minutes = rubric.round("concepts").minutes
    start_session("full", "en", session_id="r4", owner="ana")
    answer("r4", WEAK, at_s=30, owner="ana")
    late = minutes * 60 + 5
    v = answer("r4", "Paged KV is blocks.", at_s=late, owner="ana")
    assert v.round == "source-trace" and v.last_assessment is not None
    closed_total = v.last_assessment.total

    good = strong(rubric, "concepts")
    v = retry_answer("r4", good, at_s=late + 30, owner="ana")
    assert v.message is None
    assert v.round == "source-trace"  # closed again: its time had run out
    assert v.last_assessment is not None and v.last_assessment.round == "concepts"
    assert v.last_assessment.total > closed_total  # the round's scores are the new answer's
    concepts = next(r for r in v.transcript.rounds if r.round == "concepts")
    said = [t for t in concepts.turns if t.role == "candidate"]
    assert [t.text for t in said] == [WEAK, good]
    assert [e["text"] for e in (said[-1].model_extra or {})["earlier"]] == ["Paged KV is blocks."]
    # the comparison: the scores the round closed with, then with the new answer
    assert [e["total"] for e in (said[-1].model_extra or {})["earlier"]] == [closed_total]
    assert (said[-1].model_extra or {})["total"] == v.last_assessment.total

    # once the next round has an answer, the closed round's answer is no longer retried
    answer("r4", "I would open vllm/v1/core/sched/scheduler.py.", at_s=late + 60, owner="ana")
    kept = _turns("r4", "ana")
    v = retry_answer("r4", "another try at the scheduler", at_s=late + 90, owner="ana")
    assert [r for r, _ in _turns("r4", "ana")].count("candidate") == 3 and v.message is None
    assert _turns("r4", "ana") != kept  # the source-trace answer was retried; concepts is as it was
    concepts_now = next(r for r in get_session("r4", owner="ana").transcript.rounds if r.round == "concepts")
    assert [t.text for t in concepts_now.turns if t.role == "candidate"] == [WEAK, good]
