"""The OpenAI-compatible `/v1/embeddings` backend against a local server, end to end through Chroma."""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from agent.knowledge import EmbedderError, OpenAIEmbedder, Scope, SourceIndex, open_source
from agent.knowledge.lexical import tokens

DIM = 64


def bag_of_words(text: str) -> list[float]:
    vec = [0.0] * DIM
    for tok in tokens(text):
        vec[int(hashlib.md5(tok.encode()).hexdigest(), 16) % DIM] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Handler.requests.append(body)
        if self.path != "/v1/embeddings" or body.get("model") == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"model exploded")
            return
        data = [
            {"object": "embedding", "index": i, "embedding": bag_of_words(t)}
            for i, t in enumerate(body["input"])
        ]
        out = json.dumps({"object": "list", "data": data[::-1], "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_vectors_come_back_in_input_order_and_in_batches(endpoint: str) -> None:
    Handler.requests.clear()
    emb = OpenAIEmbedder(endpoint, "bow", batch_size=2)
    texts = ["scheduler token budget", "block pool", "sampler temperature"]
    vectors = emb.embed_documents(texts)
    assert vectors == [bag_of_words(t) for t in texts]  # the server answers in reverse order
    assert [len(r["input"]) for r in Handler.requests] == [2, 1]  # type: ignore[arg-type]
    assert emb.name == "openai:bow"


def test_an_endpoint_error_is_named(endpoint: str) -> None:
    with pytest.raises(EmbedderError, match="answered 500"):
        OpenAIEmbedder(endpoint, "broken").embed_query("x")
    with pytest.raises(EmbedderError, match="unreachable"):
        OpenAIEmbedder("http://127.0.0.1:9/v1", "bow", timeout=2).embed_query("x")


def test_an_index_built_through_the_endpoint_answers_queries(
    endpoint: str, tmp_path: Path, tree: Path
) -> None:
    pytest.importorskip("chromadb", reason="the index needs the app extras: pip install -e '.[app]'")
    index = SourceIndex(tmp_path / "index", embedder=OpenAIEmbedder(endpoint, "bow"))
    with open_source(tree) as src:
        report = index.build(src, Scope.TRAIL)
    assert report.files == 4
    assert index.status().embedder == "openai:bow"
    assert index.query("block pool cached block hash lookup", k=1)[0].symbol == "BlockPool.get_cached_block"
