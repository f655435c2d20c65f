"""The next round's clock starts when the candidate continues (issue 12): start_round_clock moves the
round's start and its opening question's time to then, while the round has no answer; the time spent
reading the round-finished scores does not count against the round."""

from __future__ import annotations

from agent.graph import answer, close_round, get_session, rejoin, start_round_clock, start_session
from agent.graph.clock import THINKING_S
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


def test_time_away_from_a_session_is_not_counted(rubric: Rubric) -> None:
    """Nine minutes away in a ten-minute round: the first answer back does not close the round on time."""
    minutes = rubric.round("concepts").minutes
    for sid in ("away", "back"):
        start_session("full", "en", session_id=sid, owner="ana")
        answer(sid, "The scheduler admits requests by KV blocks.", at_s=60, owner="ana")
    away_s = minutes * 60 - 30
    # without rejoin (as before): the break counts and the next answer is past the budget
    v = answer("away", "Prefix caching reuses full blocks.", at_s=60 + away_s, owner="ana")
    assert v.round == "source-trace"  # the round closed on time

    back = rejoin("back", at_s=60 + away_s, owner="ana")
    assert back.paused_s == away_s - THINKING_S  # the first two minutes may have been thinking: they count
    assert back.view.round == "concepts"
    now = 60 + THINKING_S  # the session's clock, the time away left out
    v = answer("back", "Prefix caching reuses full blocks.", at_s=now + 30, owner="ana")
    assert v.round == "concepts" and v.round_elapsed_s == now + 30  # still the same round
    assert rejoin("back", at_s=now + 60, owner="ana").paused_s == 0.0  # a reload a moment later moves nothing


def test_a_reload_within_the_thinking_time_keeps_the_clock(rubric: Rubric) -> None:
    """Answered, then 100 s on the open page and a reload: the 100 s count (a blind tester lost them)."""
    start_session("full", "en", session_id="think", owner="ana")
    answer("think", "The scheduler admits requests by KV blocks.", at_s=60, owner="ana")
    assert rejoin("think", at_s=160, owner="ana").paused_s == 0.0
    v = answer("think", "Prefix caching reuses full blocks.", at_s=170, owner="ana")
    assert v.round_elapsed_s == 170.0


def test_rejoin_at_the_opening_question_keeps_the_round_at_zero(rubric: Rubric) -> None:
    start_session("full", "en", session_id="f1", owner="ana")
    assert rejoin("f1", at_s=10_000, owner="ana").paused_s == 10_000.0 - THINKING_S  # at its first question
    assert get_session("f1", owner="ana").round_elapsed_s == 0.0
