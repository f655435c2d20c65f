"""The pieces of the practice loop as pure functions: the follow-up label, one distinct quote per
dimension, what an answer covered."""

from __future__ import annotations

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.rubric.model import DIMENSIONS
from agent.ui import views


def _round(*extra_turns: dict[str, object]) -> TranscriptRound:
    return TranscriptRound.model_validate(
        {
            "round": "concepts",
            "turns": [
                {"role": "interviewer", "text": "Q1"},
                {"role": "candidate", "text": "A1"},
                *extra_turns,
            ],
        }
    )


def test_follow_ups_are_counted_in_both_languages() -> None:
    tr = _round({"role": "interviewer", "text": "F1", "followup": "fu-a"})
    kind = views.question_kind(tr, "F1", max_followups=2)
    assert views.question_label(kind, "en") == "Follow-up 1 of 2"
    assert views.question_label(kind, "zh") == "追问 1/2"
    tr2 = _round(
        {"role": "interviewer", "text": "F1", "followup": "fu-a"},
        {"role": "candidate", "text": "A2"},
        {"role": "interviewer", "text": "F2", "followup": "fu-b"},
    )
    assert views.question_label(views.question_kind(tr2, "F2", max_followups=2), "en") == "Follow-up 2 of 2"
    assert views.question_label(views.question_kind(tr2, "F2", max_followups=0), "en") == "Follow-up 2"
    assert views.question_kind(_round(), "Q1", max_followups=2) is None  # the opening question
    given = _round({"role": "interviewer", "text": "G", "given": ["hbm"]})
    assert (
        views.question_label(views.question_kind(given, "G", max_followups=2), "en")
        == "The inputs you asked for"
    )


def test_one_distinct_quote_per_dimension() -> None:
    ra = RoundAssessment.model_validate(
        {
            "round": "concepts",
            "scores": dict.fromkeys(DIMENSIONS, 3),
            "total": 15,
            "quotes": {"accuracy": ["same"], "evidence": ["same", "other"], "tradeoffs": ["same"]},
        }
    )
    assert views.distinct_quotes(ra) == {"accuracy": "same", "evidence": "other"}
