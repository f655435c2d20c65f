"""Item cues read on answers a person wrote in the app (a blind tester's walk-through), not on the graded sets:
what an item's tick claims must be what the answer said."""

from __future__ import annotations

import pytest

from agent.graph.followups import matched_facts
from agent.judge.matching import match_cues, sentences
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.model import Cues


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


def ticked(rubric: Rubric, round_id: str, item_id: str, text: str) -> bool:
    item = next(i for i in rubric.evidence(round_id) if i.id == item_id)  # type: ignore[arg-type]
    return match_cues(item.cues, text, sentences(text)).found


# the tester's answer: the paging mechanism and the waste it removes, no cost paging still has
WALK_THROUGH = (
    "Paged KV cache (PagedAttention) splits each sequence's KV cache into fixed-size blocks, like virtual memory "
    "pages, so memory is allocated on demand and fragmentation drops from 60-80% waste to under 4%. The block "
    "table maps logical blocks to physical blocks, which also enables copy-on-write sharing for beam search and "
    "parallel sampling."
)


def test_the_waste_paging_removes_beside_the_block_table_is_not_its_remaining_cost(rubric: Rubric) -> None:
    assert not ticked(rubric, "concepts", "paged-kv-cost", WALK_THROUGH)


@pytest.mark.parametrize(
    "text",
    [
        "Leftover cost: at most one partly-filled page per request, and the tables themselves.",
        "Paging still has a cost: the last block of each request is partly empty.",
        "分页也有代价：每个请求最后一个 block 没填满，block table 本身也有开销。",
    ],
)
def test_the_remaining_cost_said_in_one_sentence_is_ticked(rubric: Rubric, text: str) -> None:
    assert ticked(rubric, "concepts", "paged-kv-cost", text)


@pytest.mark.parametrize(
    "text",
    [
        "Continuous batching re-forms the batch every iteration: a new sequence takes a finished one's place "
        "instead of waiting for the whole batch.",
        "静态批处理要等整个 batch 里最慢的请求结束，continuous batching 解决的就是这个。",
    ],
)
def test_waiting_for_the_whole_batch_is_the_problem_continuous_batching_solves(rubric: Rubric, text: str) -> None:
    assert ticked(rubric, "concepts", "cb-problem", text)


def test_cues_window_is_bounded() -> None:
    with pytest.raises(ValueError):
        Cues(groups=[["a"]], window=0)
    one = Cues(groups=[["block table"], ["cost"]], window=1)
    text = "The block table maps blocks. It has a cost."
    assert not match_cues(one, text, sentences(text)).found
    assert match_cues(one.model_copy(update={"window": 2}), text, sentences(text)).found


# a file-list trace whose only check is the round's own ask (which details to read from the current source)
TRACE_READ_ONLY = (
    "The request enters the OpenAI server in vllm/entrypoints/openai/api_server.py, is tokenized, and AsyncLLM hands "
    "it to the engine core. The scheduler in vllm/v1/core/sched/scheduler.py gives it KV blocks; the model runner runs "
    "the forward pass and the sampler in vllm/v1/sample/sampler.py applies top_p and the seed. Tokens stream back "
    "through the output processor as SSE. What I would confirm by reading the source at the pinned commit is the "
    "order of the sampling steps, since that changes between versions."
)


def test_reading_the_source_for_drifting_details_is_evidence_not_a_validation_step(rubric: Rubric) -> None:
    """Validation's level 3 asks for a validation step (benchmark, canary, test, reproduction) or a rollback; the
    source-trace question itself asks which details to read from the source, so naming them is evidence."""
    from agent.judge.assessment import assess_answer

    drift_verify = next(i for i in rubric.evidence("source-trace") if i.id == "drift-verify")
    assert drift_verify.dimensions == ["evidence"]
    scores = assess_answer(rubric, "source-trace", TRACE_READ_ONLY, "en").scores
    assert scores["validation"] <= 2
    assert scores["evidence"] >= 3


@pytest.mark.parametrize(
    ("text", "fabricated"),
    [
        ("After the migration our throughput went up about 4x and p99 latency dropped by half, to 300 ms.", True),
        (
            "In the load-test report (same image, same prompts, 32 concurrent requests) throughput went up 1.8x "
            "and p99 dropped from 900 ms to 610 ms.",
            False,
        ),
    ],
)
def test_results_told_as_went_up_or_dropped_are_claims_of_measurement(rubric: Rubric, text: str, fabricated: bool) -> None:
    """'went up 4x' / 'dropped by half' claim a measured result as much as 'improved' does: with nothing behind
    them they are fabricated metrics; with the record and its conditions they are not."""
    from agent.judge.assessment import assess_answer

    flags = assess_answer(rubric, "project-experience", text, "en").flags
    assert ("fabricated_metrics" in flags) is fabricated


@pytest.mark.parametrize(
    "text",
    [
        "先看 retry 翻三倍是不是从 10:05 之后才开始的，再看旧 pod 的 running batch 有没有跟着涨。",
        "First I'd check whether p99 really went up 3x after the deploy or was already climbing at 9:50.",
    ],
)
def test_a_figure_in_a_question_to_check_is_no_claim_of_measurement(rubric: Rubric, text: str) -> None:
    from agent.judge.assessment import assess_answer

    assert "fabricated_metrics" not in assess_answer(rubric, "incident", text, "zh" if "先" in text else "en").flags


def test_the_proof_that_kv_was_freed_is_one_statement(rubric: Rubric) -> None:
    """A metric named in one sentence and 'confirm' / 'back' in the next are not the proof that the KV was freed."""
    apart = (
        "Sampled ids return to the scheduler, which updates the running requests. "
        "I'd confirm the sampler order in the source."
    )
    assert not ticked(rubric, "source-trace", "cancel-kv-proof", apart)
    said = "I'd confirm the KV was freed by watching kv_cache_usage drop back on /metrics after the abort."
    assert ticked(rubric, "source-trace", "cancel-kv-proof", said)


# a second blind tester's answers (walk-through in the app): each says the item in words of its own
@pytest.mark.parametrize(
    ("item", "text"),
    [
        (
            "prefix-problem",
            "Prefix caching solves recomputation of shared prompt prefixes such as system prompts: a request whose "
            "prefix blocks are already cached skips that prefill.",
        ),
        (
            "relation",
            "Continuous batching needs cheap, fine-grained allocation and freeing of KV memory per step, which the block "
            "manager gives, and prefix caching is built on the same blocks.",
        ),
    ],
)
def test_an_item_said_in_other_words_is_ticked(rubric: Rubric, item: str, text: str) -> None:
    assert ticked(rubric, "concepts", item, text)


def test_a_reply_that_says_mixing_needs_chunked_prefill_is_ticked(rubric: Rubric) -> None:
    from agent.judge.answer import Answer

    reply = Answer.of_pairs(
        [
            (
                "Does continuous batching mean prefill and decode always run in the same step?",
                "No. Continuous batching only means scheduling at each step; with chunked prefill enabled, V1 mixes "
                "prefill chunks and decodes in one step under a token budget.",
            )
        ]
    )
    item = next(i for i in rubric.evidence("concepts") if i.id == "mixed-prefill-decode")
    assert match_cues(item.cues, reply.text, reply.sents).found


def test_a_named_cost_of_small_blocks_is_a_concrete_specific(rubric: Rubric) -> None:
    """A trade-off naming the tail block, block tables, hashing and attention kernels names concrete things: it is
    not held at 2 for 'few specifics'."""
    from agent.judge.answer import Answer
    from agent.judge.assessment import assess_answer

    answer = Answer.of_pairs(
        [
            (
                "What problem does each of paged KV cache, continuous batching and prefix caching solve?",
                "Paged KV stores the KV cache in fixed-size blocks allocated on demand, so memory is not reserved for "
                "the maximum length.",
            ),
            (
                "Is a smaller block size always better?",
                "No. Smaller blocks waste less in the last partly filled block, but block tables get longer, hashing "
                "and scheduling overhead grows and attention kernels get less efficient.",
            ),
        ]
    )
    tradeoffs = next(d for d in assess_answer(rubric, "concepts", answer, "en").dimensions if d.dimension == "tradeoffs")
    assert not any(c.startswith("few_specifics") for c in tradeoffs.caps)
    assert tradeoffs.score >= 3


# a blind tester's capacity walk-through (issue 12): asking for the missing inputs was ticked for answers that
# asked nothing: in English the interviewer's "How would you confirm …?" lent the answer its question word; in
# Chinese the candidate's own "为什么不能…" (why) read as "什么" (what)
CONFIRM = "How would you confirm that the KV budget per rank you computed is really available?"
CONFIRMED = (
    "I would verify it from runtime evidence: the startup log prints num_gpu_blocks after the profiling run. "
    "Then I watch /metrics under a load test at p99 lengths and max_model_len."
)
WHY_NOT = (
    "为什么不能作为生产并发承诺：没有算最大 batch 时的激活峰值，也没有算前缀和输出长度的长尾；"
    "p95 挡不住 p99 或最长请求导致的 OOM 和抢占。"
)


def test_the_interviewers_question_word_is_not_the_candidates_asking(rubric: Rubric) -> None:
    item = next(i for i in rubric.evidence("capacity") if i.id == "cap-ask-inputs")
    assert not match_cues(item.cues, CONFIRMED, sentences(CONFIRMED, question=CONFIRM)).found


def test_why_in_an_answer_is_not_asking_for_an_input(rubric: Rubric) -> None:
    assert not ticked(rubric, "capacity", "cap-ask-inputs", WHY_NOT)
    assert not matched_facts(rubric.round("capacity"), WHY_NOT, [])


@pytest.mark.parametrize(
    "text",
    [
        "Before I compute: what is the p99 length, and is max_model_len set?",
        "先问一下：p99 长度是多少？有没有复制的权重？",
        "I'd need to know the block size and whether any weights are replicated.",
    ],
)
def test_asking_for_an_input_is_ticked_and_answered(rubric: Rubric, text: str) -> None:
    assert ticked(rubric, "capacity", "cap-ask-inputs", text)
    assert matched_facts(rubric.round("capacity"), text, [])


@pytest.mark.parametrize(
    ("item", "text"),
    [
        ("lifecycle-learn", "Postmortem with two concrete fixes: a canary gate that fails on sampling-backend changes."),
        ("lifecycle-learn", "最后复盘：加一条兼容矩阵，再加一个 canary gate。"),
        ("lifecycle-learn", "After: timeline kept; add a canary gate that aborts on fallback warnings."),
        ("lifecycle-diagnose", "Read-only diff canary vs old: image SHA, effective sampling path, batch sizes."),
    ],
)
def test_a_lifecycle_stage_said_in_other_words_is_ticked(rubric: Rubric, item: str, text: str) -> None:
    """Strong incident answers by new blind authors lost validation 5 on the learn stage said as 'fixes' /
    '加一条', or diagnosis said as a read-only diff."""
    assert ticked(rubric, "incident", item, text)


def test_a_postmortem_alone_is_not_learning(rubric: Rubric) -> None:
    assert not ticked(rubric, "incident", "lifecycle-learn", "We would do a postmortem later.")


@pytest.mark.parametrize(
    "text",
    [
        "p95 request = 3,000 + 1,000 = 4,000 tokens -> 4,000 x 240 KiB = about 0.92 GiB total.",
        "A 4,000-token request holds about 937.5 MiB of KV.",
        "p95 请求 4,000 token，大约 0.98 GB 的 KV。",
    ],
)
def test_the_requests_kv_rounded_is_ticked(rubric: Rubric, text: str) -> None:
    """A blind tester wrote 'about 0.92 GiB total' and was told the 0.916 GiB item was missing."""
    assert ticked(rubric, "capacity", "cap-request-kv", text)


def _signal(rubric: Rubric, text: str) -> bool:
    sig = next(s for s in rubric.weak_signals("capacity") if s.id == "bound-as-plan")  # type: ignore[arg-type]
    return match_cues(sig.cues, text, sentences(text, question=rubric.round("capacity").prompt.zh)).found


@pytest.mark.parametrize(
    "text",
    [
        "So in production I would plan for around 140 concurrent requests per instance to keep some headroom.",
        "I'd recommend planning for ~70–80% of that, i.e. around 130–140 concurrent requests.",
        "好的，那就按 180 个并发上线吧，应该没问题。",
    ],
)
def test_the_bound_taken_as_the_production_plan_is_a_weak_signal(rubric: Rubric, text: str) -> None:
    """Both labellers put such medium answers at accuracy 2-3 (the seed: 180 is a KV-only upper bound, never a
    production concurrency); the judge gave 4 for the arithmetic."""
    assert _signal(rubric, text)


@pytest.mark.parametrize(
    "text",
    [
        "所以 gateway 侧的并发 / token 上限按压测值设，不按 180，回退就是改回网关配置。",
        "41.4 / 0.229 ≈ 180 个请求，这只是只算 KV 的理论上限。",
        "Ceiling: 41.4 / 0.229 ≈ 180 requests, not a number I'd put in front of anyone as concurrency.",
    ],
)
def test_the_bound_rejected_or_stated_is_no_plan(rubric: Rubric, text: str) -> None:
    assert not _signal(rubric, text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("每个假设一条证据去验证，不会上来就重启全池或者调大并发。", False),
        ("别急着调大 max_num_seqs，先取证。", False),
        ("第一步先重启全池，再看。", True),
        ("我会先调大 max_num_seqs，让队列下去。", True),
    ],
)
def test_a_restart_said_not_to_be_done_is_no_weak_signal(rubric: Rubric, text: str, found: bool) -> None:
    """A strong spoken incident answer by a new blind author (validation 5 by both labellers) lost it to the
    weak signal 'restarts the whole pool' for '不会上来就重启全池': the negation stood a few words before."""
    sig = next(s for s in rubric.weak_signals("incident") if s.id == "raise-seqs-or-restart")  # type: ignore[arg-type]
    assert match_cues(sig.cues, text, sentences(text)).found is found


@pytest.mark.parametrize("text", ["I'd roll the canary back to the v1 build.", "We rolled the v2 image back at 10:20."])
def test_rolling_something_back_is_a_rollback(rubric: Rubric, text: str) -> None:
    """The translation probe's English happy-path incident answer ('roll the canary back to the previous image')
    had no rollback where its Chinese twin (回滚) had one: flagged happy_path_only, 3 points under it."""
    assert ticked(rubric, "incident", "lifecycle-recover", text)
    common = next(i for i in rubric.common.evidence if i.id == "common-rollback")
    said = text + " The trigger: TPOT p99 above 80 ms."
    assert match_cues(common.cues, said, sentences(said)).found


def test_which_in_a_statement_is_not_asking(rubric: Rubric) -> None:
    """The translation probe's English capacity answer asked for nothing, yet was ticked for asking: 'the 12 GiB
    non-KV peak … Weights, derived: 80e9 bytes, which is about 74.5 GiB'; its Chinese twin was not."""
    said = "Given: a 12 GiB non-KV peak per rank. Weights, derived: 80e9 bytes, which is about 74.5 GiB."
    assert not ticked(rubric, "capacity", "cap-ask-inputs", said)
    assert ticked(rubric, "capacity", "cap-ask-inputs", "Which block size should I assume, and is the non-KV peak given?")
