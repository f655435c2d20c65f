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


def test_a_wrong_claims_note_names_no_seed_and_speaks_one_language() -> None:
    """A blind tester read "(source: seed 000: continuous batching 是否意味着…)" under a wrong claim, in the
    Chinese page and the English report alike: the seed is the rubric's origin, not a document the reader has,
    and its quote is Chinese. The note names a source only when it is a vLLM path the reader can open; the
    finding keeps its source in the JSON."""
    rubric = load_rubric()
    for lang in ("en", "zh"):
        wrong = assess_answer(rubric, "concepts", WRONG, lang)  # type: ignore[arg-type]
        assert wrong.checklist is not None
        finding = wrong.checklist.checks.misconceptions[0]
        assert finding.source  # kept for the JSON
        notes = [n for n in wrong.notes if finding.correction.get(lang) in n]
        assert notes, wrong.notes
        assert not any("seed 0" in n for n in notes), notes
        if lang == "en":
            assert not any(any("\u4e00" <= ch <= "\u9fff" for ch in n) for n in notes if "Wrong claim" in n), notes


def test_a_denied_wrong_claim_costs_nothing() -> None:
    rubric = load_rubric()
    denied = RIGHT + " Prefix caching is not a response cache: decode still runs for every request."
    assert "misconception" not in assess_answer(rubric, "concepts", denied, "en").flags


def test_a_wrong_practice_costs_its_own_dimension_not_the_mechanism_flag() -> None:
    """'Close the incident when the graph is green' is a wrong practice, not a wrong mechanism: it costs
    validation (its entry's dimension) and shows its correction, but raises no `misconception` flag and leaves
    accuracy alone (the flag's accuracy cap is for mechanisms)."""
    rubric = load_rubric()
    base = (
        "First pause the rollout and cap retries at the gateway. Then compare canary and old pods: image SHA, "
        "startup args, the sampling backend fallback log, batch size and output lengths. Roll the canary back, "
        "draining in-flight streams."
    )
    green = base + " Once the TPOT graph comes back down, the incident is over and the rollout can continue."
    b = assess_answer(rubric, "incident", green, "en")
    assert b.checklist is not None
    assert [m.id for m in b.checklist.checks.misconceptions] == ["graph-green-means-resolved"]
    assert "misconception" not in b.flags
    caps = {d.dimension: " ".join(d.caps) for d in b.dimensions}
    assert "misconception graph-green-means-resolved" in caps["validation"]
    assert "misconception" not in caps["accuracy"] and "misconceptions" not in caps["evidence"]
    # scaling out before limiting retries costs accuracy too (its entry names it): that one is flagged
    scale = assess_answer(rubric, "incident", "全池都慢，先扩容再说，扩完再看日志。", "zh")
    assert scale.checklist is not None
    assert [m.id for m in scale.checklist.checks.misconceptions] == ["scale-out-first"]
    assert "misconception" in scale.flags


def test_a_sentence_that_asserts_a_wrong_claim_is_no_evidence_for_an_item() -> None:
    """"Since the seed is set, the output is fully reproducible on any batch" asserts the wrong claim about seeds:
    the words seed, batch and reproducible in it do not also cover the rubric's item that a seed promises no
    bitwise determinism across batches; nor does any item quote hold that sentence."""
    rubric = load_rubric()
    trace = "The sampler applies top_p and then draws with the request's generator."
    wrong = trace + " Since the seed is set, the output is fully reproducible on any batch, not a different one."
    ra = assess_answer(rubric, "source-trace", wrong, "en")
    assert ra.checklist is not None
    found = ra.checklist.checks.misconceptions
    assert [f.id for f in found] == ["seed-bitwise-deterministic"]
    covered = ra.checklist.covered()
    assert "seed-not-bitwise" not in covered
    assert not any(i.covered and i.quote and found[0].quote in i.quote for i in ra.checklist.items)
