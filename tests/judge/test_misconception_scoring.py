"""A matched wrong claim costs accuracy whatever else was said, and the report shows it with its correction."""

from __future__ import annotations

from agent.judge.assessment import assess_answer
from agent.rubric import load_rubric

RIGHT = (
    "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand; the tail block "
    "wastes a little and the block table is metadata. Continuous batching reschedules at every step boundary, "
    "bounded by the token budget and by the KV blocks the manager can allocate. Prefix caching hashes full "
    "blocks as a chain with extra keys for LoRA, multimodal inputs and the cache salt, and reuses computed KV. "
    "I would confirm this in vllm/v1/core/kv_cache_utils.py and vllm/v1/core/sched/scheduler.py."
)
WRONG = RIGHT + " Prefix caching is basically a response cache: the same prompt returns the stored answer."


def test_a_wrong_claim_lowers_accuracy_and_is_flagged_with_its_correction() -> None:
    rubric = load_rubric()
    right = assess_answer(rubric, "concepts", RIGHT, "en")
    wrong = assess_answer(rubric, "concepts", WRONG, "en")
    assert "misconception" not in right.flags
    assert "misconception" in wrong.flags
    assert wrong.scores["accuracy"] < right.scores["accuracy"]
    assert wrong.scores["accuracy"] <= 3
    assert wrong.checklist is not None
    found = wrong.checklist.checks.misconceptions
    assert found and found[0].quote in WRONG
    assert any(found[0].correction.en in n for n in wrong.notes)


def test_a_denied_wrong_claim_costs_nothing() -> None:
    rubric = load_rubric()
    denied = RIGHT + " Prefix caching is not a response cache: decode still runs for every request."
    assert "misconception" not in assess_answer(rubric, "concepts", denied, "en").flags
