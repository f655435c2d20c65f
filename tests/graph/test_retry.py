"""Retry the last answer (issue 12): the same question answered again before the round closes; the new
answer decides the follow-up and the draft, the earlier attempts stay on its turn; nothing to retry once
the round has closed, and only the owner may retry."""

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
    assert (cand.model_extra or {})["earlier"] == [{"text": WEAK, "at_s": 30.0}]
    assert cand.at_s == 60.0
    assert v.last_assessment is not None and v.last_assessment.total > before  # the draft is the new answer's
    assert v.round == "concepts" and v.status == "waiting"

    # a second retry keeps both earlier attempts, in order
    v = retry_answer("r1", good + " Prefix caching reuses blocks.", at_s=90, owner="ana")
    (cand,) = [t for r in v.transcript.rounds for t in r.turns if t.role == "candidate"]
    assert [e["text"] for e in (cand.model_extra or {})["earlier"]] == [WEAK, good]

    # the session goes on from the retried answer
    v = answer("r1", "I would open vllm/v1/core/sched/scheduler.py.", at_s=120, owner="ana")
    assert v.message is None and [r for r, _ in _turns("r1", "ana")].count("candidate") == 2


def test_nothing_to_retry_before_an_answer_or_after_the_round_closed(rubric: Rubric) -> None:
    v = start_session("full", "en", session_id="r2")
    v = retry_answer("r2", "an answer", at_s=10)
    assert v.message and "no answer to retry" in v.message
    answer("r2", strong(rubric, "concepts"), at_s=30)
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
