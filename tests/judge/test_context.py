"""A round is read in context: each answer with its question, evidence from any turn, quotes within one answer."""

from __future__ import annotations

import pytest

from agent.judge.answer import Answer, AnswerTurn
from agent.judge.assessment import assess_answer
from agent.judge.checks import run_checks
from agent.judge.matching import sentences
from agent.rubric import load_rubric
from agent.rubric.lexicon import Lexicon
from agent.rubric.loader import Rubric, load_lexicon

BLOCK_Q = "Is a smaller block size always better?"
BLOCK_A = "No. Smaller blocks waste less tail memory but increase block-table size and kernel overhead."


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


@pytest.fixture(scope="module")
def lex() -> Lexicon:
    return load_lexicon()


def _covered(rubric: Rubric, answer: Answer) -> set[str]:
    ra = assess_answer(rubric, "concepts", answer, "en")
    assert ra.checklist is not None
    return ra.checklist.covered()


def test_a_follow_up_answer_is_read_with_its_question(rubric: Rubric) -> None:
    with_question = Answer((AnswerTurn(BLOCK_A, BLOCK_Q),))
    alone = Answer((AnswerTurn(BLOCK_A),))
    assert "block-size-tradeoff" in _covered(rubric, with_question)
    assert "block-size-tradeoff" not in _covered(rubric, alone)


def test_a_question_alone_covers_nothing(rubric: Rubric) -> None:
    """The question supplies a subject, never the whole item: an empty reply earns nothing from it."""
    answer = Answer((AnswerTurn("I am not sure.", BLOCK_Q),))
    assert "block-size-tradeoff" not in _covered(rubric, answer)


def test_evidence_from_any_turn_counts_and_quotes_stay_within_one_answer(rubric: Rubric) -> None:
    first = "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand."
    answer = Answer((AnswerTurn(first, "Explain paged KV."), AnswerTurn(BLOCK_A, BLOCK_Q)))
    ra = assess_answer(rubric, "concepts", answer, "en")
    assert ra.checklist is not None
    assert {"paged-kv-mapping", "block-size-tradeoff"} <= ra.checklist.covered()
    for item in ra.checklist.items:
        if item.covered and item.quote:
            assert item.quote in first or item.quote in BLOCK_A, item.quote


def test_sentences_carry_their_turn_and_question() -> None:
    answer = Answer((AnswerTurn("One. Two.", "Q1?"), AnswerTurn("Three.", "Q2?")))
    assert [(s.text, s.turn, s.question) for s in answer.sents] == [
        ("One.", 0, "q1?"),
        ("Two.", 0, "q1?"),
        ("Three.", 1, "q2?"),
    ]
    assert answer.text == "One. Two.\n\nThree."
    for s in answer.sents:
        assert answer.text[s.start : s.end] == s.text


def test_numbers_the_question_gives_are_not_unlabeled(lex: Lexicon) -> None:
    text = "Each GPU has 80 GiB and the request is 4,000 tokens. We keep 12 GiB for non-KV."
    asked = "Four 80 GiB GPUs, 12 GiB non-KV, 3,000 + 1,000 tokens"
    given = run_checks("capacity", text, lex, given_text=asked + " 4000")
    bare = run_checks("capacity", text, lex)
    assert given.unlabeled_numbers == []
    assert len(bare.unlabeled_numbers) >= 2


def test_a_time_box_is_not_a_claimed_quantity(lex: Lexicon) -> None:
    plan = "0–5 min: declare and contain. 5–15 min: read-only evidence. 15–30 分钟：单变量验证。"
    assert run_checks("incident", plan, lex).unlabeled_numbers == []


def test_a_setting_named_by_its_key_and_a_model_named_by_its_size_are_no_claims(lex: Lexicon) -> None:
    """Labelled absent by both labellers of a34 and a9 (eval/graded/dev): a config value the candidate chose and
    "一个 7B 的客服模型" are not quantities that need a label; the same values claimed as results still do."""
    settings = (
        "We set max_model_len capped at 16k and --max-num-seqs 256, and max_num_batched_tokens 调到 8192. "
        "我们测的是一个 7B 的客服模型。"
    )
    assert run_checks("project-experience", settings, lex).unlabeled_numbers == []
    claims = "Requests went to 16k tokens and 256 ran at once; 吞吐到了 8192 tokens/s。"
    assert len(run_checks("project-experience", claims, lex).unlabeled_numbers) >= 2
    # one underscore names a setting only with a verb of setting: a computation's variables are claims
    assert run_checks("project-experience", "We had block_size set to 32 and max_num_seqs=128.", lex).unlabeled_numbers == []
    sums = "kv_rank = 41.37 GiB and w_rank = 18.63 GiB."
    assert {"41.37", "18.63"} <= set(run_checks("capacity", sums, lex).unlabeled_numbers)


def test_a_result_restated_in_other_units_keeps_its_label(lex: Lexicon) -> None:
    """"4,000 tokens, 983,040,000 bytes, about 0.916 GiB" is one derived quantity (a35 in eval/graded/dev, labelled
    without unlabeled_numbers by both labellers); two figures after a comma that restate nothing stay unlabelled."""
    en = "A request is 3,000 + 1,000 = 4,000 tokens, 983,040,000 bytes, about 0.916 GiB."
    zh = "一个 p95 请求 3000 + 1000 = 4000 token，就是 9.83e8 字节，约 0.916 GiB。"
    for said in (en, zh):
        found = run_checks("capacity", said, lex).numbers
        assert [n.label for n in found] == ["derived"] * 3, found
    apart = "We run 4 replicas, 30 requests each at 45 ms."
    assert len(run_checks("capacity", apart, lex).unlabeled_numbers) >= 2


def test_a_load_test_report_labels_its_figures_observed(lex: Lexicon) -> None:
    said = "压测报告里，同样 16 并发下，吞吐从大约 900 token/s 到 1300 token/s，TTFT P95 从 800 ms 降到 450 ms 左右。"
    assert run_checks("project-experience", said, lex).unlabeled_numbers == []
    bare = "同样 16 并发下，吞吐从大约 900 token/s 到 1300 token/s，TTFT P95 从 800 ms 降到 450 ms 左右。"
    assert len(run_checks("project-experience", bare, lex).unlabeled_numbers) >= 2


def test_a_named_limit_or_verification_refutes_happy_path_only(lex: Lexicon) -> None:
    bounded = run_checks(
        "capacity",
        "About 180 requests is a KV-only upper bound. It ignores requests longer than p95, which preempt "
        "others; I would confirm it with a step load test.",
        lex,
    )
    happy = run_checks("capacity", "About 180 requests fit, so we run 180 at once.", lex)
    assert not bounded.happy_path_only
    assert happy.happy_path_only


def test_a_request_the_server_rejects_is_a_failure_boundary(rubric: Rubric) -> None:
    """"The server may reject it unless max_logprobs allows it" names where the path breaks."""
    trace = (
        "The API server validates logprobs, the scheduler schedules the request and the sampler computes the "
        "full-vocab log-softmax before gathering the top five."
    )
    plain = assess_answer(rubric, "source-trace", trace, "en")
    bounded = assess_answer(
        rubric, "source-trace", trace + " With logprobs=-1 the server may reject it unless max_logprobs allows it.", "en"
    )
    assert "happy_path_only" in plain.flags
    assert "happy_path_only" not in bounded.flags


def test_the_capacity_check_reads_the_answer_to_the_prompt_not_the_fp8_follow_up(rubric: Rubric) -> None:
    main = (
        "Derived: KV per token = 2 × 60 × 8 × 128 × 2 B = 245,760 B; a 4,000-token request is about 0.916 GiB "
        "(derived), 0.229 GiB per rank (derived)."
    )
    fp8 = "With FP8 each element is 1 B, so 122,880 B per token (derived), and the bound roughly doubles."
    ra = assess_answer(
        rubric,
        "capacity",
        Answer((AnswerTurn(main, "capacity prompt"), AnswerTurn(fp8, "If KV were FP8?"))),
        "en",
    )
    assert "unit_error" not in ra.flags


def test_a_coherent_answer_is_not_communication_1_and_pleasantries_are_not_content(rubric: Rubric) -> None:
    text = (
        "Paged KV keeps a block table per request in vllm/v1/core/kv_cache_manager.py. Continuous batching "
        "re-plans every step within max_num_batched_tokens. Prefix caching hashes full blocks with cache_salt "
        "as an extra key. The scheduler in vllm/v1/core/sched/scheduler.py ties them together."
    )
    fluff = (
        "Thanks, that is a great question. I have thought about it for years. It is important for any team. "
        "I always give it my full energy."
    )
    assert len(sentences(text)) >= 4 and len(sentences(fluff)) >= 4
    assert assess_answer(rubric, "concepts", text, "en").scores["communication"] >= 2
    assert assess_answer(rubric, "concepts", fluff, "en").scores["communication"] == 1


def test_a_copy_without_specifics_scores_evidence_below_its_original(rubric: Rubric) -> None:
    original = (
        "Derived: weights 40e9 × 2 B = 80e9 B ≈ 74.5 GiB, 18.6 GiB per rank at TP=4. KV budget per rank "
        "80 − 18.6 − 12 − 8 ≈ 41.4 GiB (derived). KV per token 2 × 60 × 8 × 128 × 2 B = 245,760 B (derived); "
        "a 4,000-token request ≈ 0.916 GiB, 0.229 GiB per rank, so ≈ 180 is a KV-only upper bound. It ignores "
        "page rounding, activation peaks and requests longer than p95; I would read num_gpu_blocks from the "
        "startup log and run a step load test for the SLO concurrency."
    )
    stripped = (
        "Convert the parameter count to bytes using the dtype, then to GiB, and split that across the ranks. "
        "Subtract the overheads to get the KV budget per rank. Multiply the K and V factor by layers, KV heads, "
        "head dimension and bytes per element, then by the request length. Divide to get an upper bound. It "
        "ignores several real effects, so I would check the engine's own numbers and run a load test."
    )
    a = assess_answer(rubric, "capacity", original, "en")
    s = assess_answer(rubric, "capacity", stripped, "en")
    assert a.checklist is not None and s.checklist is not None
    assert len(s.checklist.checks.specifics) <= 2 < len(a.checklist.checks.specifics)
    assert s.scores["evidence"] <= 2 < a.scores["evidence"]
    assert s.total < a.total


def test_an_ordered_concrete_answer_communicates_better_than_a_wall_of_words(rubric: Rubric) -> None:
    ordered = (
        "1. Frontend: vllm/entrypoints/openai/ validates the request, renders the chat template and tokenizes.\n"
        "2. Engine: an EngineCoreRequest goes to vllm/v1/engine/core.py and becomes a Request.\n"
        "3. Scheduler: vllm/v1/core/sched/scheduler.py picks tokens and KV blocks for this step.\n"
        "4. Runner: vllm/v1/worker/gpu_model_runner.py runs the persistent batch.\n"
        "5. Sampler: vllm/v1/sample/sampler.py applies penalties, temperature, top_p with the seed's generator.\n"
        "6. Output: the engine updates the finish reason and the frontend streams each delta back."
    )
    wall = (
        "The request goes in and gets processed by the engine and then the model runs and then the sampler "
        "picks a token and it goes back to the client and that is basically how it works in general."
    )
    a = assess_answer(rubric, "source-trace", ordered, "en")
    b = assess_answer(rubric, "source-trace", wall, "en")
    assert a.checklist is not None and a.checklist.checks.structure >= 6
    assert a.scores["communication"] > b.scores["communication"]


def test_a_verification_path_is_a_verb_of_checking_not_any_look(rubric: Rubric) -> None:
    """'看' and '读' alone are everywhere in Chinese (看起来, 看到, 解读): a walk through the source that happens to
    hold one is no way of verifying a claim. Reading or checking the source, the log or the config is
    (去看 / 看一下 / 以当前源码为准 / 读源码), in either language."""

    def verified(text: str, lang: str = "zh") -> set[str]:
        ra = assess_answer(rubric, "source-trace", text, lang)  # type: ignore[arg-type]
        assert ra.checklist is not None
        return ra.checklist.covered() & {"drift-verify", "common-verify-source"}

    walk = "请求先到 vllm/entrypoints/openai/api_server.py，看起来就是解析成 ChatCompletionRequest，再交给 AsyncLLM。"
    assert verified(walk) == set()
    assert verified("采样顺序每个版本都可能变，我会以当前源码为准，去看 vllm/v1/sample/sampler.py 确认，不凭经验。") == {
        "drift-verify",
        "common-verify-source",
    }
    assert verified("读一下启动日志里打印的 sampler 后端就知道了。")
    assert verified("I'd read vllm/v1/sample/sampler.py at the pinned commit to confirm the order.", "en")
