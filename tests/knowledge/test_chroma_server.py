"""The index as a service: `CHROMA_URL` puts the index on a real Chroma server (`chroma run`, started
here on a free loopback port over a temporary folder), so several app replicas share one index."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent.judge.runtime.server import free_port
from agent.knowledge import KnowledgeIndexError, Scope, SourceIndex, open_source
from agent.knowledge.store import COLLECTION, http_client

from .conftest import FIXTURE_COMMIT, CountingEmbedder

TRAIL_FILES = 4
QUESTION = "how does the scheduler preempt a request when KV cache blocks run out"


def _chroma() -> str:
    exe = Path(sys.executable).with_name("chroma")
    return str(exe) if exe.exists() else (shutil.which("chroma") or "chroma")


@pytest.fixture()
def chroma_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = (tmp_path / "chroma.log").open("wb")
    proc = subprocess.Popen(
        [_chroma(), "run", "--path", str(tmp_path / "chroma-db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, (tmp_path / "chroma.log").read_text(errors="replace")
            assert time.monotonic() < deadline, "chroma run did not answer within 60 s"
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_build_and_query_through_the_server(
    chroma_server: str,
    tmp_path: Path,
    tree: Path,
    embedder: CountingEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHROMA_URL", chroma_server)
    index = SourceIndex(tmp_path / "builder", embedder=embedder)  # the env names the server
    assert not index.is_built() and index.status().location == chroma_server
    with open_source(tree) as src:
        report = index.build(src, Scope.TRAIL)
    assert report.files == TRAIL_FILES and report.embedded_chunks == report.chunks > 10
    # nothing of the index in the local folder: only the build lock
    assert not list((tmp_path / "builder").glob("gen-*"))

    # another replica, with its own (empty) data dir, reads the same index from the server
    replica = SourceIndex(tmp_path / "replica", embedder=embedder)
    status = replica.status()
    assert status.built and status.files == TRAIL_FILES and status.chunks == report.chunks
    assert status.commit == FIXTURE_COMMIT and status.location == chroma_server
    top = replica.query(QUESTION, k=3)
    assert top[0].path == "vllm/v1/core/sched/scheduler.py"
    assert top[0].symbol == "Scheduler._preempt_request" and "def _preempt_request" in top[0].text
    assert replica.symbols()["vllm/v1/core/sched/scheduler.py"]
    assert replica.query("块池如何通过哈希查找已缓存的块？", k=3)[0].symbol == "BlockPool.get_cached_block"

    # a rebuild with nothing changed embeds nothing, switches the live generation on the server, and
    # keeps only the new and the previous generation there
    first = index.current_generation()
    embedder.documents = 0
    with open_source(tree) as src:
        again = index.build(src, Scope.TRAIL)
    assert again.embedded_chunks == 0 and again.reused_chunks == report.chunks and embedder.documents == 0
    assert index.current_generation() != first
    with open_source(tree) as src:
        index.build(src, Scope.TRAIL)
    names = {c if isinstance(c, str) else c.name for c in http_client(chroma_server).list_collections()}
    gens = {n.removeprefix(f"{COLLECTION}-").removesuffix("-files") for n in names if "-gen-" in n}
    assert len(gens) == 2 and f"{COLLECTION}-current" in names
    # the replica follows the switch
    assert replica.current_generation() == index.current_generation()
    assert replica.query(QUESTION, k=1)[0].symbol == "Scheduler._preempt_request"


def test_a_server_that_does_not_answer_is_one_clear_error(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = SourceIndex(tmp_path / "i", embedder=embedder, url=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(KnowledgeIndexError, match="does not answer"):
        index.is_built()
    assert not index.status().built
    with pytest.raises(KnowledgeIndexError, match="must be http"):
        SourceIndex(tmp_path / "j", embedder=embedder, url="ftp://x").is_built()
