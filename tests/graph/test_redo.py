"""docs/interview.md: a second attempt redoes only the two weakest rounds and compares rubric dimensions."""

from __future__ import annotations

from agent.contracts.report import RoundAssessment
from agent.graph import SessionView, get_session, start_session
from agent.graph.plan import variant_seed, weakest
from agent.graph.report import session_markdown
from agent.rubric import DIMENSIONS, Rubric
from tests.graph.script import WEAK, drive, strong


def _ra(rid: str, total: int, weighted: float | None = None) -> RoundAssessment:
    scores = dict.fromkeys(DIMENSIONS, 1)
    return RoundAssessment(round=rid, scores=scores, total=total, weighted=weighted)  # type: ignore[arg-type]


def test_weakest_is_lowest_total_then_weighted_then_earliest() -> None:
    rounds = [
        _ra("concepts", 12, 12.0),
        _ra("capacity", 9, 9.5),
        _ra("incident", 12, 11.0),
        _ra("system-design", 9, 9.0),
    ]
    assert [a.round for a in weakest(rounds)] == ["system-design", "capacity"]
    assert [a.round for a in weakest([_ra("concepts", 5), _ra("incident", 5), _ra("capacity", 5)])] == [
        "concepts",
        "incident",
    ]


def test_redo_runs_the_two_weakest_rounds_and_compares_them(rubric: Rubric) -> None:
    first = start_session("full", "en", session_id="first")

    def attempt_one(v: SessionView) -> str:
        if v.round in ("capacity", "incident"):
            return WEAK
        return strong(rubric, v.round) if v.round else "No questions."

    first = drive(first, attempt_one)
    assert first.report is not None
    before = {a.round: a for a in first.report.rounds}
    assert {a.round for a in weakest(first.report.rounds)} == {"capacity", "incident"}

    v = start_session("redo first", "en", session_id="second")
    assert v.plan == "redo first" and v.n_rounds == 2 and v.round == "capacity"
    assert (
        v.question != rubric.round("capacity").prompt.en
    )  # the numbers are fresh: the candidate saw the old ones
    v = drive(v, lambda view: strong(rubric, view.round) if view.round else "")
    r = v.report
    assert r is not None and [a.round for a in r.rounds] == ["capacity", "incident"]
    assert r.candidate_questions == []  # a redo has no candidate-questions slot
    assert v.transcript.rounds[0].variant_seed == variant_seed("second", "capacity")
    cmp = r.comparison
    assert cmp is not None and cmp.previous_session == "first"
    assert [c.round for c in cmp.rounds] == ["capacity", "incident"]
    for c in cmp.rounds:
        now = next(a for a in r.rounds if a.round == c.round)
        assert [d.dimension for d in c.dimensions] == list(DIMENSIONS)
        for d in c.dimensions:
            assert (d.before, d.after, d.change) == (
                before[c.round].scores[d.dimension],
                now.scores[d.dimension],
                now.scores[d.dimension] - before[c.round].scores[d.dimension],
            )
        assert c.after_total > c.before_total
    md = session_markdown(r, rubric)
    assert (
        "Compared with session first" in md
        and f"{cmp.rounds[0].before_total} → {cmp.rounds[0].after_total}" in md
    )
    assert get_session("first").report == first.report  # the first attempt is untouched
