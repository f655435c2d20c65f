"""Fixtures: a small vLLM-shaped source tree written by the tests, and the real embedder (loaded once)."""

from __future__ import annotations

import os
import textwrap
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.knowledge.embedder import Embedder, Vector

os.environ.setdefault("HF_HUB_OFFLINE", "1")

FIXTURE_COMMIT = "abc1234def"

SCHEDULER = '''\
"""The scheduler: decides which requests run in each step."""

import logging

logger = logging.getLogger(__name__)


class Scheduler:
    """Continuous batching: picks running and waiting requests under the token budget."""

    max_num_batched_tokens: int = 2048

    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager
        self.running = []
        self.waiting = []

    def schedule(self):
        """Schedule running requests first, then waiting ones, within the token budget."""
        token_budget = self.max_num_batched_tokens
        scheduled = []
        for request in self.running:
            blocks = self.kv_cache_manager.allocate_slots(request, request.num_new_tokens)
            if blocks is None:
                self._preempt_request(request)
                continue
            token_budget -= request.num_new_tokens
            scheduled.append(request)
        return scheduled

    def _preempt_request(self, request):
        """Preempt a running request when KV cache blocks run out: free its blocks, requeue it."""
        self.kv_cache_manager.free(request)
        self.waiting.insert(0, request)

    def finish_requests(self, request_ids):
        """Finish requests aborted by the client and free their KV cache blocks."""
        for request_id in request_ids:
            self.kv_cache_manager.free(request_id)
'''

BLOCK_POOL = '''\
"""Pool of KV cache blocks with prefix caching."""


class BlockPool:
    """Holds every KV cache block; a free block queue gives eviction order."""

    def __init__(self, num_blocks):
        self.num_blocks = num_blocks
        self.cached_block_hash_to_block = {}

    def get_cached_block(self, block_hash):
        """Look up a cached block by its block hash for prefix caching."""
        return self.cached_block_hash_to_block.get(block_hash)

    def free_blocks(self, blocks):
        """Return blocks to the free queue (they stay cached until evicted)."""
        for block in blocks:
            block.ref_cnt -= 1
'''

SAMPLER_HEAD = '''\
"""Sampler for the V1 engine."""

import torch


def _decorate(fn):
    return fn


class Sampler(torch.nn.Module):
    """Samples next tokens: penalties, then temperature, then top-k / top-p, then sampling."""

    @_decorate
    @staticmethod
    def apply_temperature(logits, temp):
        """Divide the logits by the temperature."""
        return logits / temp

'''


def long_forward(n: int = 120) -> str:
    body = "\n".join(f"        x{i} = logits.sum() + {i}" for i in range(n))
    return f'''    def forward(self, logits, sampling_metadata):
        """Apply penalties, temperature and top-k/top-p, then sample the next token."""
{body}
        return logits
'''


MODEL_MANAGER = '''\
"""LoRA model manager."""


class LoRAModelManager:
    """Keeps LoRA adapters in GPU slots."""

    def activate_adapter(self, lora_id):
        """Activate a LoRA adapter into a free GPU slot, evicting the least recently used one."""
        return lora_id
'''

UTILS = '''\
"""Not in the source trail: only `--all` indexes it."""


def cdiv(a, b):
    """Ceiling division."""
    return -(a // -b)
'''


def write_tree(root: Path, *, commit: str = FIXTURE_COMMIT) -> Path:
    """A minimal vLLM source tree at source-trail paths (plus one file outside the trail)."""
    files = {
        "vllm/__init__.py": '"""vLLM (test fixture)."""\n',
        "vllm/_version.py": textwrap.dedent(f"""\
            __version__ = version = '0.0.1'
            __commit_id__ = commit_id = 'g{commit}'
            """),
        "vllm/v1/core/sched/scheduler.py": SCHEDULER,
        "vllm/v1/core/block_pool.py": BLOCK_POOL,
        "vllm/v1/sample/sampler.py": SAMPLER_HEAD + long_forward(),
        "vllm/lora/model_manager.py": MODEL_MANAGER,
        "vllm/utils.py": UTILS,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def zip_tree(tree: Path, wheel: Path) -> Path:
    with zipfile.ZipFile(wheel, "w") as zf:
        for path in sorted((tree / "vllm").rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(tree).as_posix())
    return wheel


class CountingEmbedder:
    """Wraps a real embedder and counts what it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.documents = 0
        self.fail_after: int | None = None

    @property
    def name(self) -> str:
        return self.inner.name

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        if self.fail_after is not None and self.documents + len(texts) > self.fail_after:
            raise RuntimeError("embedding backend died mid-build (test)")
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        return self.inner.embed_query(text)


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    pytest.importorskip("chromadb", reason="the index needs the app extras: pip install -e '.[app]'")
    pytest.importorskip(
        "sentence_transformers", reason="MiniLM needs the app extras: pip install -e '.[app]'"
    )
    from agent.knowledge.embedder import default_embedder

    return default_embedder()


@pytest.fixture
def embedder(minilm: Embedder) -> CountingEmbedder:
    return CountingEmbedder(minilm)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "src")
