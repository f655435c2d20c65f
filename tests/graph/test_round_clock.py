"""The next round's clock starts when the candidate continues (issue 12): start_round_clock moves the
round's start and its opening question's time to then, while the round has no answer; the time spent
reading the round-finished scores does not count against the round."""

from __future__ import annotations

from agent.graph import answer, close_round, get_session, start_round_clock, start_session
from agent.rubric import Rubric
from tests.graph.script import strong


def test_the_round_clock_starts_at_continue(rubric: Rubric) -> None:
    start_session("full", "en", session_id="c1", owner="ana")
    answer("c1", strong(rubric, "concepts"), at_s=60, owner="ana")
    v = close_round("c1", owner="ana")
    assert v.round == "source-trace"
    opened = v.transcript.rounds  # the new round has no answer yet, so it is not in the transcript view
    assert [r.round for r in opened] == ["concepts"]

    v = start_round_clock("c1", at_s=400, owner="ana")  # five minutes on the banner
    v = answer("c1", "I would open vllm/v1/core/sched/scheduler.py first.", at_s=430, owner="ana")
    tr = next(r for r in v.transcript.rounds if r.round == "source-trace")
    assert tr.turns[0].role == "interviewer" and tr.turns[0].at_s == 400.0
    assert v.round_elapsed_s == 30.0  # counted from Continue, not from when the round opened

    # once the round has an answer, its clock stays where it started
    v = start_round_clock("c1", at_s=900, owner="ana")
    assert v.round_elapsed_s == 30.0
    assert get_session("c1", owner="ana").transcript.rounds[1].turns[0].at_s == 400.0
