"""A real persistent Chroma index over a small vLLM-shaped tree written by the test."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agent.knowledge import (
    BuildReport,
    KnowledgeIndexError,
    PathStatus,
    Scope,
    SourceError,
    SourceIndex,
    SourceKind,
    check_path,
    open_source,
)

from .conftest import FIXTURE_COMMIT, CountingEmbedder, write_tree, zip_tree

TRAIL_FILES = 4  # scheduler, block_pool, sampler, model_manager; vllm/utils.py is outside the trail


def build(index: SourceIndex, path: Path, scope: Scope = Scope.TRAIL) -> BuildReport:
    with open_source(path) as src:
        return index.build(src, scope)


def test_build_then_query_returns_the_code_that_answers(
    tmp_path: Path, tree: Path, embedder: CountingEmbedder
) -> None:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    report = build(index, tree)
    assert report.files == TRAIL_FILES
    assert report.chunks == report.embedded_chunks == embedder.documents > 10
    assert report.commit == FIXTURE_COMMIT

    # a fresh instance reads what is on disk
    again = SourceIndex(tmp_path / "index", embedder=embedder)
    status = again.status()
    assert status.built and status.files == TRAIL_FILES and status.chunks == report.chunks
    assert status.commit == FIXTURE_COMMIT and not status.matches_pin
    assert "not the pin" in status.relation_to_pin

    top = again.query("how does the scheduler preempt a request when KV cache blocks run out", k=3)
    assert top[0].path == "vllm/v1/core/sched/scheduler.py"
    assert top[0].symbol == "Scheduler._preempt_request"
    assert top[0].permalink == (
        f"https://github.com/vllm-project/vllm/blob/{FIXTURE_COMMIT}/"
        f"vllm/v1/core/sched/scheduler.py#L{top[0].start_line}-L{top[0].end_line}"
    )
    assert "def _preempt_request" in top[0].text
    assert 0 < top[0].score <= 1 and top == sorted(top, key=lambda s: -s.score)

    zh = again.query("块池如何通过哈希查找已缓存的块？", k=3)
    assert zh[0].symbol == "BlockPool.get_cached_block"
    lora = again.query("LoRA 适配器如何激活？", k=2)
    assert lora[0].path == "vllm/lora/model_manager.py"


def test_rebuild_embeds_only_changed_files(tmp_path: Path, tree: Path, embedder: CountingEmbedder) -> None:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    first = build(index, tree)
    embedder.documents = 0

    unchanged = build(index, tree)
    assert embedder.documents == 0
    assert unchanged.embedded_files == 0 and unchanged.reused_chunks == first.chunks
    assert unchanged.chunks == first.chunks

    pool = tree / "vllm/v1/core/block_pool.py"
    pool.write_text(
        pool.read_text() + '\n\ndef evict(block):\n    """Evict a cached block."""\n    return block\n'
    )
    changed = build(index, tree)
    assert changed.embedded_files == 1
    # only the new function is embedded; the file's other chunks keep their vectors
    assert embedder.documents == changed.embedded_chunks == 1
    assert changed.reused_chunks == first.chunks
    assert changed.chunks == first.chunks + 1
    assert index.query("evict a cached block", k=1)[0].symbol == "evict"

    (tree / "vllm/lora/model_manager.py").unlink()
    removed = build(index, tree)
    assert removed.removed_files == 1 and removed.files == TRAIL_FILES - 1
    # the live generation and the one before it (readers may still have it open); older ones are gone
    assert len(list(index.root.glob("gen-*"))) == 2
    assert all(s.path != "vllm/lora/model_manager.py" for s in index.query("LoRA adapter GPU slot", k=5))


def test_a_new_commit_with_the_same_text_relinks_without_re_embedding(
    tmp_path: Path, tree: Path, embedder: CountingEmbedder
) -> None:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    build(index, tree)
    embedder.documents = 0
    (tree / "vllm/_version.py").write_text("__version__ = version = '0.0.2'\ncommit_id = 'gfeedbeef99'\n")
    report = build(index, tree)
    assert embedder.documents == 0 and report.commit == "feedbeef99"
    hit = index.query("scheduler token budget", k=1)[0]
    assert hit.commit == "feedbeef99" and "/blob/feedbeef99/" in hit.permalink


def test_all_scope_adds_files_outside_the_trail(
    tmp_path: Path, tree: Path, embedder: CountingEmbedder
) -> None:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    report = build(index, tree, Scope.ALL)
    assert report.files == TRAIL_FILES + 3  # + vllm/utils.py, vllm/__init__.py, vllm/_version.py
    assert index.query("ceiling division", k=1)[0].path == "vllm/utils.py"
    assert index.status().scope == "all"


def test_a_wheel_is_read_in_place(tmp_path: Path, tree: Path, embedder: CountingEmbedder) -> None:
    wheel = zip_tree(tree, tmp_path / "vllm-0.0.1-py3-none-any.whl")
    with open_source(wheel) as src:
        assert src.kind is SourceKind.WHEEL and src.commit == FIXTURE_COMMIT and src.version == "0.0.1"
        assert len(src.files(Scope.TRAIL)) == TRAIL_FILES
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    report = build(index, wheel)
    assert report.files == TRAIL_FILES
    assert index.status().source == f"wheel {wheel}"


def test_a_git_checkout_records_head_and_compares_it_with_the_pin(tmp_path: Path, tree: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": "/usr/bin:/bin",
    }
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "fixture"]):
        subprocess.run(["git", "-C", str(tree), *cmd], check=True, env=env)
    head = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with open_source(tree) as src:
        assert src.kind is SourceKind.GIT and src.commit == head and not src.dirty
        assert "not the pin" in src.relation_to_pin()
        assert "pinned commit is not in this clone" in src.relation_to_pin()
        # pointing at the vllm/ package folder itself works too
    with open_source(tree / "vllm") as inner:
        assert inner.location == tree


def test_the_index_knows_symbols_for_path_checks(
    tmp_path: Path, tree: Path, embedder: CountingEmbedder
) -> None:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    build(index, tree)
    symbols = index.symbols()
    ok = check_path("vllm/v1/core/sched/scheduler.py::Scheduler.schedule", symbols=symbols)
    assert ok.status is PathStatus.EXISTS and ok.symbol_checked
    bad = check_path("vllm/v1/core/sched/scheduler.py::Scheduler.schedule_chunked_prefill", symbols=symbols)
    assert bad.status is PathStatus.SYMBOL_MISSING


# ---------------------------------------------------------------- bad inputs leave the index intact


@pytest.fixture
def built(tmp_path: Path, tree: Path, embedder: CountingEmbedder) -> SourceIndex:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    build(index, tree)
    return index


def _assert_intact(index: SourceIndex, chunks: int) -> None:
    fresh = SourceIndex(index.root, embedder=index.embedder)
    st = fresh.status()
    assert st.built and st.chunks == chunks and st.commit == FIXTURE_COMMIT
    assert fresh.query("scheduler token budget", k=1)[0].path == "vllm/v1/core/sched/scheduler.py"
    assert len(list(index.root.glob("gen-*"))) == 1


def test_a_folder_that_is_not_a_vllm_tree_is_refused(built: SourceIndex, tmp_path: Path) -> None:
    chunks = built.status().chunks
    other = tmp_path / "not-vllm"
    (other / "src").mkdir(parents=True)
    (other / "src" / "main.py").write_text("print('hello')\n")
    with pytest.raises(SourceError, match="not a vLLM source tree"):
        build(built, other)
    _assert_intact(built, chunks)


def test_an_empty_folder_is_refused(built: SourceIndex, tmp_path: Path) -> None:
    chunks = built.status().chunks
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="empty folder"):
        build(built, tmp_path / "empty")
    _assert_intact(built, chunks)


def test_a_corrupt_wheel_is_refused(built: SourceIndex, tmp_path: Path, tree: Path) -> None:
    chunks = built.status().chunks
    wheel = zip_tree(tree, tmp_path / "vllm-0.0.1-py3-none-any.whl")
    truncated = tmp_path / "vllm-0.0.2-py3-none-any.whl"
    truncated.write_bytes(wheel.read_bytes()[: wheel.stat().st_size // 2])
    with pytest.raises(SourceError, match="not a readable wheel"):
        build(built, truncated)
    garbage = tmp_path / "vllm-0.0.3-py3-none-any.whl"
    garbage.write_bytes(b"this is not a zip file at all")
    with pytest.raises(SourceError, match="not a readable wheel"):
        build(built, garbage)
    _assert_intact(built, chunks)


def test_a_wheel_with_a_damaged_member_is_refused(built: SourceIndex, tmp_path: Path, tree: Path) -> None:
    chunks = built.status().chunks
    wheel = zip_tree(tree, tmp_path / "vllm-0.0.1-py3-none-any.whl")
    data = bytearray(wheel.read_bytes())
    marker = b"Continuous batching"  # inside scheduler.py, stored uncompressed
    at = data.find(marker)
    assert at > 0
    data[at : at + len(marker)] = b"X" * len(marker)  # CRC no longer matches
    wheel.write_bytes(bytes(data))
    with pytest.raises(SourceError, match=r"cannot read vllm/v1/core/sched/scheduler\.py"):
        build(built, wheel)
    _assert_intact(built, chunks)


def test_a_build_that_dies_midway_leaves_the_index_intact(
    built: SourceIndex, tree: Path, embedder: CountingEmbedder
) -> None:
    chunks = built.status().chunks
    write_tree(tree, commit="0000000aaaa")
    (tree / "vllm/v1/core/block_pool.py").write_text("def changed():\n    return 1\n" * 3)
    (tree / "vllm/v1/sample/sampler.py").write_text("def changed_too():\n    return 2\n")
    embedder.fail_after = embedder.documents + 1
    with pytest.raises(RuntimeError, match="died mid-build"):
        build(built, tree)
    _assert_intact(built, chunks)


def test_querying_before_any_build_says_what_to_do(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = SourceIndex(tmp_path / "nothing", embedder=embedder)
    assert not index.status().built
    with pytest.raises(KnowledgeIndexError, match="interview index build"):
        index.query("scheduler")


def test_query_many_merges_snippets_for_several_claims(
    tmp_path: Path, tree: Path, embedder: CountingEmbedder
) -> None:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    assert not index.is_built()
    build(index, tree)
    assert index.is_built()
    claims = [
        "the scheduler preempts a request when blocks run out",
        "the block pool looks up cached blocks by hash",
        "the scheduler preempts a request when blocks run out",
    ]
    snippets = index.query_many(claims, k=4, per_text=2)
    assert len(snippets) <= 4
    assert len({(s.path, s.start_line) for s in snippets}) == len(snippets)
    symbols = {s.symbol for s in snippets}
    assert "Scheduler._preempt_request" in symbols and "BlockPool.get_cached_block" in symbols
    assert [s.score for s in snippets] == sorted((s.score for s in snippets), reverse=True)


def test_another_embedder_re_embeds_everything(
    tmp_path: Path, tree: Path, embedder: CountingEmbedder
) -> None:
    index = SourceIndex(tmp_path / "index", embedder=embedder)
    first = build(index, tree)

    class Renamed(CountingEmbedder):
        @property
        def name(self) -> str:
            return "another-model"

    other = Renamed(embedder.inner)
    report = build(SourceIndex(tmp_path / "index", embedder=other), tree)
    assert report.embedded_chunks == other.documents == first.chunks and report.reused_chunks == 0
    with pytest.raises(KnowledgeIndexError, match="rebuild"):
        index.query("scheduler")  # the old embedder no longer matches the index
