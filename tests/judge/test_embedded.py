"""The embedded judge: repeated text is not more evidence."""

from __future__ import annotations

import pytest

from agent.calibration.evaluation import load_graded_set
from agent.judge.assessment import assess_answer
from agent.judge.embedded import first_occurrences
from agent.judge.matching import sentences
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


def test_first_occurrences_drops_repeats_whitespace_and_case_aside() -> None:
    sents = sentences("Blocks are 16 tokens. Preemption recomputes.\n\nblocks  are 16 tokens. New point.")
    assert [s.text for s in first_occurrences(sents)] == [
        "Blocks are 16 tokens.",
        "Preemption recomputes.",
        "New point.",
    ]


# answers whose repetition once raised a dimension (the window joined the last sentence to the first)
REPEATED = [
    "source-trace-medium-zh",
    "source-trace-medium-en",
    "source-trace-strong-zh",
    "system-design-verbose-en",
]


@pytest.mark.parametrize("answer_id", REPEATED)
def test_an_answer_said_twice_scores_as_said_once(answer_id: str, rubric: Rubric) -> None:
    a = next(x for x in load_graded_set().answers if x.id == answer_id)
    once = assess_answer(rubric, a.round, a.answer, a.language)
    twice = assess_answer(rubric, a.round, f"{a.answer.strip()}\n\n{a.answer.strip()}", a.language)
    assert twice.scores == once.scores


def test_a_weak_signal_is_in_the_candidates_own_words(rubric: Rubric) -> None:
    """A strong design answer (a6, both labellers accuracy 4-5) was capped for treating structured output as tool
    authorization: 'structured output' came from the prompt, 'is authorized' from the answer, which said the
    opposite. The question an answer replies to lends a weak signal nothing."""
    from agent.judge.answer import Answer, AnswerTurn

    prompt = rubric.round("system-design").prompt.en
    said = (
        "Tool execution is authorized in our own service layer: constrained decoding guarantees the JSON's shape, "
        "not the caller's permission."
    )
    ra = assess_answer(rubric, "system-design", Answer((AnswerTurn(said, prompt),)), "en")
    assert ra.checklist is not None
    assert not [w.id for w in ra.checklist.weak if w.present]
    wrong = "Structured output acts as the tool authorization, so no other check is needed."
    ra = assess_answer(rubric, "system-design", Answer((AnswerTurn(wrong, prompt),)), "en")
    assert ra.checklist is not None and "structured-as-authz" in [w.id for w in ra.checklist.weak if w.present]


def test_a_strong_signal_is_what_the_candidate_brought_not_what_the_follow_up_asked(rubric: Rubric) -> None:
    """"The abort frees its blocks" said in the trace is the strong signal cancellation-lifecycle; said in reply to
    "After the client disconnects, what evidence proves the KV is eventually freed?" it answers the question (its
    items), and lifts no score as a distinction of its own (dev: a35-source-trace-filelist-en, validation 4 where
    both labellers said 1-2)."""
    from agent.judge.answer import Answer, AnswerTurn

    prompt = "A streaming chat request with top_p, seed and logprobs=5 enters V1. Trace it."
    follow_up = "After the client disconnects, what evidence proves the KV is eventually freed?"
    trace = "The API server hands it to AsyncLLM, the scheduler runs it and the sampler samples."
    said = "The server aborts the request in the engine and the scheduler frees its blocks back to the pool."

    def strong(ans: Answer) -> set[str]:
        ra = assess_answer(rubric, "source-trace", ans, "en")
        assert ra.checklist is not None
        return {s.id for s in ra.checklist.strong if s.present}

    asked = Answer((AnswerTurn(trace, prompt), AnswerTurn(said, follow_up)))
    brought = Answer((AnswerTurn(trace + " If the client leaves, " + said[0].lower() + said[1:], prompt),))
    assert "cancellation-lifecycle" not in strong(asked)
    assert "cancellation-lifecycle" in strong(brought)
