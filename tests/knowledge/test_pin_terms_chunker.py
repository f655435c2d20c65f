"""The pin, the Chinese term mapping and the ast chunker."""

from __future__ import annotations

import itertools

from agent.knowledge import load_pin, map_terms
from agent.knowledge.chunker import MODULE, chunk_source, file_symbols, split_identifier
from agent.knowledge.pin import expand_braces

from .conftest import BLOCK_POOL, SAMPLER_HEAD, SCHEDULER, long_forward


def test_the_pin_names_the_commit_the_trail_and_the_release() -> None:
    pin = load_pin()
    assert pin.commit == "b23bd73f540175f9e117eaee5029cd7d8df63964"
    assert pin.release.version == "0.26.0"
    assert "vllm/v1/core/kv_cache_utils.py" in pin.trail_patterns()
    assert pin.in_trail("vllm/v1/sample/ops/penalties.py")
    assert not pin.in_trail("vllm/v1/worker/gpu_input_batch.py")
    assert pin.release.drift_prone and all(pin.in_trail(p) for p in pin.release.drift_prone)
    assert pin.same_commit("b23bd73f") and not pin.same_commit("ffd46bfab")
    assert pin.permalink("vllm/v1/request.py", 3, 9) == (
        "https://github.com/vllm-project/vllm/blob/b23bd73f540175f9e117eaee5029cd7d8df63964/vllm/v1/request.py#L3-L9"
    )


def test_brace_expansion() -> None:
    assert expand_braces("a/{b,c}/{d,e}.py") == ["a/b/d.py", "a/b/e.py", "a/c/d.py", "a/c/e.py"]


def test_chinese_terms_become_english_and_english_is_kept() -> None:
    assert map_terms("how does the scheduler work") == "how does the scheduler work"
    mapped = map_terms("前缀缓存的块哈希是怎么计算的？")
    assert "prefix" in mapped and "hash" in mapped and "block" in mapped
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in mapped)
    # the longest term wins: 采样器 is the sampler, not 采样 + 器
    assert map_terms("采样器").startswith("sampler")
    assert "logits" in map_terms("结构化输出的位掩码在哪里应用到 logits 上？")


def test_functions_start_at_their_first_decorator_and_carry_dotted_symbols() -> None:
    chunks = chunk_source("vllm/v1/sample/sampler.py", SAMPLER_HEAD + long_forward(10))
    temp = next(c for c in chunks if c.symbol == "Sampler.apply_temperature")
    assert temp.kind == "method"
    assert temp.text.lstrip().startswith("@_decorate")
    assert temp.text.splitlines()[1].strip() == "@staticmethod"
    header = next(c for c in chunks if c.kind == "class")
    assert header.symbol == "Sampler" and "def " not in header.text
    module = chunks[0]
    assert module.symbol == MODULE and module.kind == "module" and module.start_line == 1


def test_module_class_and_method_chunks_tile_the_file_in_order() -> None:
    chunks = chunk_source("vllm/v1/core/sched/scheduler.py", SCHEDULER)
    assert [(c.kind, c.symbol) for c in chunks] == [
        ("module", MODULE),
        ("class", "Scheduler"),
        ("method", "Scheduler.__init__"),
        ("method", "Scheduler.schedule"),
        ("method", "Scheduler._preempt_request"),
        ("method", "Scheduler.finish_requests"),
    ]
    lines = SCHEDULER.splitlines()
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
    assert all(a.end_line < b.start_line for a, b in itertools.pairwise(chunks))


def test_a_long_function_splits_at_statements_and_keeps_its_symbol() -> None:
    source = SAMPLER_HEAD + long_forward(200)
    chunks = [c for c in chunk_source("vllm/v1/sample/sampler.py", source) if c.symbol == "Sampler.forward"]
    assert len(chunks) >= 3
    assert [c.part for c in chunks] == list(range(1, len(chunks) + 1))
    assert all(c.parts == len(chunks) for c in chunks)
    assert all(c.end_line - c.start_line + 1 <= 80 for c in chunks)
    # contiguous: together the parts are the whole function
    assert all(a.end_line + 1 == b.start_line for a, b in itertools.pairwise(chunks))
    assert chunks[0].text.lstrip().startswith("def forward")
    assert chunks[-1].text.rstrip().endswith("return logits")
    # later parts are embedded with the signature they belong to
    assert "def forward(self, logits, sampling_metadata):" in chunks[1].embed_text()
    assert chunks[1].embed_text().startswith("vllm/v1/sample/sampler.py Sampler.forward (method)")


def test_chunk_ids_are_stable_and_unique() -> None:
    a = chunk_source("vllm/v1/core/block_pool.py", BLOCK_POOL)
    b = chunk_source("vllm/v1/core/block_pool.py", BLOCK_POOL)
    assert [c.id for c in a] == [c.id for c in b]
    assert len({c.id for c in a}) == len(a)


def test_a_file_that_does_not_parse_is_chunked_by_lines() -> None:
    chunks = chunk_source("vllm/broken.py", "def f(:\n    pass\n")
    assert chunks and chunks[0].kind == "text"


def test_symbols_include_methods_attributes_and_nested_helpers() -> None:
    symbols = set(file_symbols(SCHEDULER + "\n\ndef outer():\n    def inner():\n        pass\n"))
    assert {
        "Scheduler",
        "Scheduler.schedule",
        "Scheduler.running",
        "Scheduler.max_num_batched_tokens",
        "logger",
        "outer",
        "outer.inner",
    } <= symbols


def test_identifiers_split_into_words() -> None:
    assert split_identifier("KVCacheManager.get_computed_blocks") == [
        "kv",
        "cache",
        "manager",
        "get",
        "computed",
        "blocks",
    ]
