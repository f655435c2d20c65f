"""Cited paths are checked against the pinned file list, with no index built."""

from __future__ import annotations

import pytest

from agent.knowledge import PathStatus, check_citations, check_path, extract_citations, known_paths, load_pin

SYMBOLS = {
    "vllm/v1/core/sched/scheduler.py": ["Scheduler", "Scheduler.schedule", "Scheduler.running"],
    "vllm/v1/core/block_pool.py": ["BlockPool", "BlockPool.get_cached_block"],
}


def test_the_path_list_covers_every_source_trail_entry() -> None:
    paths = known_paths()
    assert len(paths) > 2000
    for pattern in load_pin().trail_patterns():
        if pattern.endswith("/"):
            assert any(p.startswith(pattern) for p in paths), pattern
        else:
            assert pattern in paths, pattern


def test_an_existing_file_exists() -> None:
    r = check_path("vllm/v1/core/sched/scheduler.py")
    assert r.status is PathStatus.EXISTS and r.kind == "file" and r.ok


def test_a_made_up_file_is_missing() -> None:
    r = check_path("vllm/v1/core/scheduler.py")
    assert r.status is PathStatus.MISSING
    assert r.missing == ["vllm/v1/core/scheduler.py"]
    assert not r.ok


def test_brace_forms_expand_and_every_member_is_checked() -> None:
    ok = check_path("vllm/v1/core/{block_pool,kv_cache_manager,kv_cache_utils}.py")
    assert ok.status is PathStatus.EXISTS
    assert ok.paths == [
        "vllm/v1/core/block_pool.py",
        "vllm/v1/core/kv_cache_manager.py",
        "vllm/v1/core/kv_cache_utils.py",
    ]
    bad = check_path("vllm/v1/core/{block_pool,prefix_cache}.py")
    assert bad.status is PathStatus.MISSING
    assert bad.missing == ["vllm/v1/core/prefix_cache.py"]


@pytest.mark.parametrize("cited", ["vllm/entrypoints/openai/", "vllm/entrypoints/openai", "vllm/v1/sample/"])
def test_directories_exist(cited: str) -> None:
    r = check_path(cited)
    assert r.status is PathStatus.EXISTS and r.kind == "dir"


def test_a_made_up_directory_is_missing() -> None:
    assert check_path("vllm/v1/prefix_cache/").status is PathStatus.MISSING


@pytest.mark.parametrize(
    "cited",
    [
        "vllm/v1/core/sched/scheduler.py:Scheduler.schedule",
        "vllm/v1/core/sched/scheduler.py::Scheduler.schedule",
        "vllm/v1/core/sched/scheduler.py::schedule",
        "`vllm/v1/core/sched/scheduler.py:Scheduler.schedule()`",
        "scheduler.py:Scheduler.running",
    ],
)
def test_a_symbol_the_index_knows_is_found(cited: str) -> None:
    r = check_path(cited, symbols=SYMBOLS)
    assert r.status is PathStatus.EXISTS and r.symbol_checked, r


def test_a_symbol_missing_from_an_indexed_file_is_reported() -> None:
    r = check_path("vllm/v1/core/sched/scheduler.py::Scheduler.schedule_prefill_first", symbols=SYMBOLS)
    assert r.status is PathStatus.SYMBOL_MISSING
    assert "Scheduler.schedule_prefill_first" in r.reason
    # a class attribute that does not exist is not rescued by the class existing
    assert (
        check_path("vllm/v1/core/sched/scheduler.py:Scheduler.nope", symbols=SYMBOLS).status
        is PathStatus.SYMBOL_MISSING
    )


def test_symbols_are_not_judged_without_an_index() -> None:
    r = check_path("vllm/v1/core/sched/scheduler.py::Scheduler.anything")
    assert r.status is PathStatus.EXISTS and not r.symbol_checked
    # nor for a file the index does not cover
    r = check_path("vllm/v1/request.py:Request.nope", symbols=SYMBOLS)
    assert r.status is PathStatus.EXISTS and not r.symbol_checked


def test_line_numbers_urls_dotted_modules_and_short_forms() -> None:
    assert check_path("vllm/v1/request.py:120").line == 120
    url = "https://github.com/vllm-project/vllm/blob/b23bd73f/vllm/v1/request.py#L10-L20"
    r = check_path(url)
    assert r.status is PathStatus.EXISTS and r.paths == ["vllm/v1/request.py"] and r.line == 10
    r = check_path("vllm.v1.core.sched.scheduler.Scheduler")
    assert r.paths == ["vllm/v1/core/sched/scheduler.py"] and r.symbol == "Scheduler"
    assert check_path("v1/sample/sampler.py").paths == ["vllm/v1/sample/sampler.py"]
    bare = check_path("sampler.py")
    assert bare.status is PathStatus.EXISTS and "vllm/v1/sample/sampler.py" in bare.matches


def test_paths_outside_vllm_are_unknown_not_missing() -> None:
    r = check_path("tests/v1/core/test_scheduler.py")
    assert r.status is PathStatus.UNKNOWN and r.ok


def test_citations_are_found_in_chinese_and_english_text() -> None:
    text = (
        "能指出 vllm/v1/core/{block_pool,kv_cache_manager,kv_cache_utils}.py 和 scheduler 作为核准入口；"
        "request / core：vllm/v1/request.py、vllm/v1/engine/core.py。See "
        "`vllm/v1/core/sched/scheduler.py::Scheduler.schedule` and vllm/v1/core/prefix_cache.py. vllm.ai"
    )
    cites = extract_citations(text)
    assert cites == [
        "vllm/v1/core/{block_pool,kv_cache_manager,kv_cache_utils}.py",
        "vllm/v1/request.py",
        "vllm/v1/engine/core.py",
        "vllm/v1/core/sched/scheduler.py::Scheduler.schedule",
        "vllm/v1/core/prefix_cache.py",
    ]
    statuses = [c.status for c in check_citations(text)]
    assert statuses == [PathStatus.EXISTS] * 4 + [PathStatus.MISSING]


def test_moved_paths_are_gone_at_the_pin_and_point_to_pinned_files() -> None:
    from agent.knowledge.paths import moved_paths

    paths, moved = known_paths(), moved_paths()
    assert moved
    for old, now in moved.items():
        assert old not in paths, old
        assert now and all(n in paths for n in now), (old, now)
        r = check_path(old)
        assert r.status is PathStatus.MOVED and r.ok and set(now) <= set(r.matches)
    near = check_path("vllm/entrypoints/openai/serving_chat_v2.py")
    assert near.status is PathStatus.MISSING and not near.ok
