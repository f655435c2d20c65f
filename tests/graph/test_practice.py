"""Practice sessions on the embedded judge: the full mock, the seed's interview rules, bad input, owners."""

from __future__ import annotations

import pytest

from agent.contracts.transcript import MAX_ANSWER_CHARS
from agent.graph import (
    PlanError,
    SessionNotFound,
    SessionView,
    answer,
    close_round,
    get_session,
    list_sessions,
    start_session,
)
from agent.graph.plan import FULL_MOCK, variant_seed
from agent.judge import capacity
from agent.rubric import Rubric
from tests.graph.script import WEAK, answers_of, drive, strong


def test_full_mock_with_scripted_answers_reaches_a_report(rubric: Rubric) -> None:
    v = start_session("full", "en", session_id="mock-1")
    assert (v.status, v.round, v.round_index, v.n_rounds) == ("waiting", "concepts", 0, 5)
    assert v.question == rubric.round("concepts").prompt.en
    assert v.round_minutes == rubric.round("concepts").minutes == 5
    seen: list[str] = []

    def script(view: SessionView) -> str:
        if view.round is None:  # the candidate's own questions at the end
            return "How does the team review vLLM upgrades?"
        if view.round not in seen:
            seen.append(view.round)
        return strong(rubric, view.round) if view.round != "incident" else WEAK

    v = drive(v, script)
    assert seen == list(FULL_MOCK)
    assert [r.minutes for r in rubric.rounds.values()][:5] == [5, 15, 15, 30, 20]
    r = v.report
    assert r is not None and v.status == "done" and v.question is None
    assert [a.round for a in r.rounds] == list(FULL_MOCK)
    for a in r.rounds:
        assert set(a.scores) == {"accuracy", "evidence", "tradeoffs", "validation", "communication"}
        assert a.total == sum(a.scores.values())
    strong_rounds = [a for a in r.rounds if a.round != "incident"]
    assert all(a.total >= 18 and a.quotes for a in strong_rounds)
    # risks are shown on their own, not folded into the total
    incident = r.rounds[-1]
    assert incident.scores["accuracy"] == 1 and any("= 1" in x for x in r.risks)
    # the two lowest dimensions of every round below 5 become next actions (a full score needs none)
    assert len(r.next_actions) == sum(min(2, sum(s < 5 for s in a.scores.values())) for a in r.rounds)
    assert len(r.next_actions) >= len(r.rounds)
    assert r.candidate_questions == ["How does the team review vLLM upgrades?"]
    # and on screen: the closing question and the candidate's own under the rounds (a tester missed them there)
    assert v.candidate_questions == ["How does the team review vLLM upgrades?"]
    from agent.ui.views import conversation_md

    shown = conversation_md(rubric, v.transcript, "en", v.candidate_questions)
    assert "Your questions" in shown and "How does the team review vLLM upgrades?" in shown
    assert shown.index("Your questions") > shown.index(rubric.round("incident").title.en)
    assert [t.round for t in r.timing] == list(FULL_MOCK) and not any(t.over_budget for t in r.timing)
    assert r.judge.kind == "embedded"
    # the transcript holds every answer, in the Transcript contract's shape (agent/contracts/transcript.py)
    assert [x.round for x in v.transcript.rounds] == list(FULL_MOCK)
    assert all(x.candidate_text() for x in v.transcript.rounds)
    assert [(s.session_id, s.status) for s in list_sessions()] == [("mock-1", "done")]
    # a finished session says so and changes nothing
    again = answer("mock-1", "one more thing")
    assert again.message and "finished" in again.message and answers_of(again) == answers_of(v)


def test_practice_asks_follow_ups_that_target_missing_evidence(rubric: Rubric) -> None:
    rnd = rubric.round("concepts")
    v = start_session("concepts", "en")
    v = answer(v.session_id, WEAK, at_s=10)
    assert v.status == "waiting" and v.round == "concepts"
    assert v.last_assessment is not None and v.last_assessment.missing_evidence
    asked = next(f for f in rnd.followups if f.text.en == v.question)
    missing = {i.id for i in rubric.evidence("concepts")} - v.last_assessment.checklist.covered()  # type: ignore[union-attr]
    assert set(asked.probes) & missing
    v = answer(v.session_id, WEAK, at_s=20)
    assert v.question != asked.text.en  # never the same follow-up twice
    v = answer(v.session_id, WEAK, at_s=30)
    assert v.status == "done"  # at most two listed follow-ups a round
    assert len([t for t in v.transcript.rounds[0].turns if t.role == "interviewer"]) == 3


def test_a_complete_answer_closes_the_round_without_follow_ups(rubric: Rubric) -> None:
    v = start_session("incident", "en")
    v = answer(v.session_id, strong(rubric, "incident"), at_s=60)
    assert v.status == "done" and v.report is not None


def test_the_candidate_can_close_a_round_early_and_skip_the_questions_slot() -> None:
    v = start_session("full", "en")
    for k in range(5):
        v = answer(v.session_id, WEAK, at_s=10 * k + 5)
        assert v.round_index == k
        v = close_round(v.session_id)
    assert v.status == "waiting" and v.round is None and v.round_minutes == 5  # the candidate's questions
    v = close_round(v.session_id)
    assert v.status == "done" and v.report is not None and len(v.report.rounds) == 5
    assert v.report.candidate_questions == []


def test_hidden_inputs_are_given_only_when_the_candidate_asks(rubric: Rubric) -> None:
    rnd = rubric.round("capacity")
    assert rnd.given
    v = start_session("capacity", "en")
    v = answer(
        v.session_id,
        "The weights are 74.5 GiB (derived) and the KV budget is 41.4 GiB per rank (derived).",
        at_s=60,
    )
    interviewer = [
        t.text for t in get_session(v.session_id).transcript.rounds[0].turns if t.role == "interviewer"
    ]
    assert v.question is not None
    for f in rnd.given:  # nothing volunteered
        assert all(f.text.en not in q for q in [*interviewer, v.question])
    v = answer(v.session_id, "Before I go on: what is the block size, is it given?", at_s=120)
    fact = next(f for f in rnd.given if f.id == "given-block-size")
    assert v.question is not None and fact.text.en in v.question
    turn = v.transcript.rounds[0].turns[-1]
    assert turn.role == "interviewer" and "given-block-size" in (turn.model_extra or {}).get("given", [])
    v = drive(v, lambda _: strong(rubric, "capacity"), start_s=120)
    note = [n for n in v.report.rounds[0].notes if "without prompting" in n]  # type: ignore[union-attr]
    assert note and "given-block-size" not in note[0] and f"of the round's {len(rnd.given)} given" in note[0]


def test_a_chinese_session_asks_and_answers_in_chinese(rubric: Rubric) -> None:
    rnd = rubric.round("capacity")
    v = start_session("capacity", "zh")
    assert v.question == rnd.prompt.zh
    v = answer(v.session_id, "先确认一下：block size 是多少？题设有没有给出？", at_s=30)
    fact = next(f for f in rnd.given if f.id == "given-block-size")
    assert v.question is not None and v.question.startswith("你问到的信息如下：") and fact.text.zh in v.question
    v = drive(v, lambda _: strong(rubric, "capacity", "zh"), start_s=30)
    assert v.report is not None and v.report.language == "zh"
    assert any("主动询问" in n for n in v.report.rounds[0].notes)


def test_time_budget_overrun_closes_the_round_with_a_note(rubric: Rubric) -> None:
    v = start_session("full", "en")
    v = answer(v.session_id, WEAK, at_s=100)
    assert v.round == "concepts" and v.notice is None
    v = answer(v.session_id, WEAK, at_s=5 * 60 + 101)  # past the 5-minute budget
    assert v.round == "source-trace" and v.round_index == 1
    assert v.notice and "Time is up" in v.notice
    assert v.last_assessment is not None and any("Over the time budget" in n for n in v.last_assessment.notes)
    assert v.round_elapsed_s == 0  # the next round's clock starts at the answer that closed the last one
    v = answer(v.session_id, WEAK, at_s=5 * 60 + 160)
    assert v.round_elapsed_s == pytest.approx(59)
    v = drive(v, lambda _: WEAK, start_s=400)
    t = v.report.timing[0]  # type: ignore[union-attr]
    assert t.over_budget and t.used_s == pytest.approx(401)
    assert not any(x.over_budget for x in v.report.timing[1:])  # type: ignore[union-attr]


def test_round_three_can_use_a_fresh_variant_of_the_numbers(rubric: Rubric) -> None:
    v = start_session("capacity fresh", "en", session_id="fresh-1")
    seed = v.transcript.rounds[0].variant_seed if v.transcript.rounds else None
    assert seed is None  # no answer yet: the round is not in the transcript
    var = capacity.variant(variant_seed("fresh-1"), "en")
    assert v.question == var.prompt["en"] and v.question != rubric.round("capacity").prompt.en
    v = answer(v.session_id, WEAK, at_s=30)
    assert v.transcript.rounds[0].variant_seed == var.seed


@pytest.mark.parametrize(
    ("bad", "needle"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x" * 100_000, "limit"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "not text"),
        ("ELF\x00\x01\x02binary", "not text"),
        ("".join(chr(c) for c in range(1, 32) if chr(c) not in "\n\r\t") * 5, "not text"),
    ],
)
def test_bad_input_gets_a_clear_message_and_the_session_stays_at_the_question(
    rubric: Rubric, bad: str | bytes, needle: str
) -> None:
    v = start_session("concepts", "en")
    v = answer(v.session_id, WEAK, at_s=5)
    before = get_session(v.session_id)
    after = answer(v.session_id, bad, at_s=10)
    assert after.message and needle in after.message and "question stays open" in after.message
    assert after.status == "waiting" and after.question == before.question
    assert answers_of(after) == answers_of(before) == [WEAK]
    resumed = answer(v.session_id, "A real answer about paged KV blocks.", at_s=15)
    assert resumed.message is None and answers_of(resumed) == [WEAK, "A real answer about paged KV blocks."]


def test_the_round_limit_counts_every_answer_of_the_round() -> None:
    v = start_session("concepts", "en")
    v = answer(v.session_id, "a" * (MAX_ANSWER_CHARS - 10), at_s=5)
    v2 = answer(v.session_id, "b" * 20, at_s=6)
    assert v2.message and "limit" in v2.message and answers_of(v2) == answers_of(v)


def test_a_session_with_an_owner_is_visible_only_to_that_owner() -> None:
    v = start_session("concepts", "en", owner="alice")
    sid = v.session_id
    for other in ("bob", None):
        with pytest.raises(SessionNotFound, match="no such session"):
            get_session(sid, owner=other)
        with pytest.raises(SessionNotFound, match="no such session"):
            answer(sid, "hello", owner=other)
    assert list_sessions(owner="bob") == [] and list_sessions() == []
    assert [s.session_id for s in list_sessions(owner="alice")] == [sid]
    v = answer(sid, WEAK, owner="alice", at_s=3)
    assert v.owner == "alice" and answers_of(v) == [WEAK]
    with pytest.raises(SessionNotFound, match="no such session"):
        start_session(f"redo {sid}", "en", owner="bob")


def test_unknown_plans_and_ids_are_refused_clearly() -> None:
    with pytest.raises(PlanError, match=r"unknown plan 'lunch'.*full"):
        start_session("lunch", "en")
    with pytest.raises(SessionNotFound):
        start_session("redo nope", "en")
    with pytest.raises(ValueError, match="language"):
        start_session("full", "fr")  # type: ignore[arg-type]
    start_session("concepts", "en", session_id="same")
    with pytest.raises(ValueError, match="already taken"):
        start_session("concepts", "en", session_id="same")


def test_a_view_survives_a_json_round_trip_before_and_after_answers() -> None:
    v = start_session("concepts", "en", "copilot")
    assert SessionView.model_validate_json(v.model_dump_json()) == v  # no answer yet: still readable
    v = answer(v.session_id, WEAK, at_s=4)
    back = SessionView.model_validate_json(v.model_dump_json())
    assert back == v and back.transcript.rounds[0].candidate_text() == WEAK
