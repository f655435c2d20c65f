"""`interview index …` through Typer's test runner, on a fixture tree, in a temporary data dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli.index import app
from agent.knowledge import Embedder

QUERIES = """\
version: 1
queries:
  - id: preempt
    lang: en
    query: how does the scheduler preempt a request when blocks run out
    expect:
      - {path: vllm/v1/core/sched/scheduler.py, symbol: Scheduler._preempt_request}
  - id: zh-cached-block
    lang: zh
    query: 块池如何通过哈希查找已缓存的块？
    expect:
      - {path: vllm/v1/core/block_pool.py, symbol: BlockPool.get_cached_block}
"""


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm: Embedder) -> CliRunner:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("INTERVIEW_EMBED_BASE_URL", raising=False)
    return CliRunner()


def test_build_status_query_eval_check(runner: CliRunner, tree: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["status"])
    assert res.exit_code == 1 and "interview index build" in res.output

    res = runner.invoke(app, ["build", "--source", str(tree), "-q"])
    assert res.exit_code == 0, res.output
    assert "indexed 4 files" in res.output
    assert "not the pin" in res.output

    res = runner.invoke(app, ["status", "--json"])
    status = json.loads(res.output)
    assert status["built"] and status["files"] == 4 and status["commit"] == "abc1234def"
    assert status["matches_pin"] is False

    res = runner.invoke(
        app, ["query", "where are KV cache blocks freed when a request is aborted", "-k", "2"]
    )
    assert res.exit_code == 0, res.output
    assert "vllm/v1/core/sched/scheduler.py:" in res.output
    assert "https://github.com/vllm-project/vllm/blob/abc1234def/" in res.output.replace("\n", "")

    res = runner.invoke(app, ["query", "调度器如何抢占请求", "-k", "2", "--json"])
    hits = json.loads(res.output)
    assert "Scheduler._preempt_request" in [h["symbol"] for h in hits]

    qfile = tmp_path / "queries.yaml"
    qfile.write_text(QUERIES, encoding="utf-8")
    res = runner.invoke(app, ["eval", "--queries", str(qfile), "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["overall"]["recall_at_k"] == 1.0 and set(report["by_lang"]) == {"en", "zh"}
    res = runner.invoke(app, ["eval", "--queries", str(qfile)])
    assert "recall@5 1.000" in res.output

    res = runner.invoke(
        app,
        [
            "check",
            "vllm/v1/core/{block_pool,kv_cache_manager}.py",
            "vllm/v1/core/sched/scheduler.py::Scheduler.schedule",
        ],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(
        app,
        [
            "check",
            "vllm/v1/core/sched/scheduler.py::Scheduler.schedule_decode_first",
            "vllm/v1/core/prefix_cache.py",
        ],
    )
    assert res.exit_code == 1
    assert "symbol_missing" in res.output and "missing" in res.output


def test_build_from_a_bad_source_fails_with_a_clear_message(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    res = runner.invoke(app, ["build", "--source", str(tmp_path / "empty")])
    assert res.exit_code == 1
    assert "empty folder" in res.output
    res = runner.invoke(app, ["build", "--source", str(tmp_path / "nope")])
    assert res.exit_code == 1 and "does not exist" in res.output


def test_eval_with_an_unreadable_query_file_says_so(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "queries.yaml"
    bad.write_text("queries: [{id: x, query: what?, expect: }\n", encoding="utf-8")
    res = runner.invoke(app, ["eval", "--queries", str(bad)])
    assert res.exit_code == 1 and "cannot read the labelled queries" in res.output
