"""Where the generations of the index live (the layout is in the docstring of `agent.knowledge.index`).

`LocalStore`: folders under `<data dir>/index`, `CURRENT` naming the live one (the default).
`RemoteStore`: collections on a Chroma server (`CHROMA_URL`), so several app replicas share one index.
Both read, create, write, switch to, discard and prune generations the same way.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

COLLECTION = "vllm_source"


class KnowledgeIndexError(Exception):
    """The index is missing, busy or unreadable; the message says what to do. `not_built`: there is simply no
    index yet (a caller can say so in its own language)."""

    def __init__(self, message: str, *, not_built: bool = False) -> None:
        super().__init__(message)
        self.not_built = not_built


def _compact(data: Any) -> str:
    """JSON as the index stores it: UTF-8 text, no spaces."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(_compact(data), encoding="utf-8")
    os.replace(tmp, path)


def _client(path: Path) -> Any:
    import chromadb
    from chromadb.config import Settings

    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


def chroma_url() -> str | None:
    """`CHROMA_URL` (e.g. http://127.0.0.1:8000): the index is on that Chroma server; unset: a local folder."""
    return os.environ.get("CHROMA_URL", "").strip() or None


def http_client(url: str) -> Any:
    """A Chroma HttpClient for `url` (http or https, host, port; a path prefix is not supported)."""
    import chromadb
    from chromadb.config import Settings

    u = urlparse(url if "://" in url else f"http://{url}")
    if u.scheme not in ("http", "https") or not u.hostname:
        raise KnowledgeIndexError(f"CHROMA_URL={url!r} must be http(s)://host[:port]")
    port = u.port or (443 if u.scheme == "https" else 8000)
    try:
        return chromadb.HttpClient(
            host=u.hostname, port=port, ssl=u.scheme == "https", settings=Settings(anonymized_telemetry=False)
        )
    except Exception as exc:  # chromadb raises ValueError / ConnectionError / its own errors when unreachable
        raise KnowledgeIndexError(f"the Chroma server at {url} does not answer: {exc}") from exc


FILES = ("manifest", "chunks", "symbols")


class LocalStore:
    """Generations in folders under `root` (the default)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def location(self) -> str:
        return str(self.root)

    def current(self) -> str | None:
        pointer = self.root / "CURRENT"
        if not pointer.is_file():
            return None
        name = pointer.read_text(encoding="utf-8").strip()
        return name if (self.root / name / "manifest.json").is_file() else None

    def read(self, gen: str) -> dict[str, str]:
        return {f: (self.root / gen / f"{f}.json").read_text(encoding="utf-8") for f in FILES}

    def collection(self, gen: str) -> Any:
        return _client(self.root / gen / "chroma").get_collection(COLLECTION, embedding_function=None)

    def create(self, gen: str) -> tuple[Any, Any]:
        (self.root / gen).mkdir(parents=True)
        client = _client(self.root / gen / "chroma")
        return client, client.create_collection(
            COLLECTION, embedding_function=None, metadata={"hnsw:space": "cosine"}
        )

    def write(self, gen: str, data: dict[str, Any]) -> None:
        for f in FILES:
            _write_json(self.root / gen / f"{f}.json", data[f])

    def switch(self, gen: str) -> None:
        tmp = self.root / "CURRENT.tmp"
        tmp.write_text(gen, encoding="utf-8")
        os.replace(tmp, self.root / "CURRENT")

    def discard(self, gen: str) -> None:
        shutil.rmtree(self.root / gen, ignore_errors=True)

    def prune(self, keep: set[str]) -> None:
        for other in self.root.glob("gen-*"):
            if other.name not in keep:
                shutil.rmtree(other, ignore_errors=True)


class RemoteStore:
    """Generations as collections on a Chroma server (see the docstring of `agent.knowledge.index`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = http_client(url)

    @property
    def location(self) -> str:
        return self.url

    def _name(self, gen: str, files: bool = False) -> str:
        return f"{COLLECTION}-{gen}" + ("-files" if files else "")

    def current(self) -> str | None:
        try:
            meta = self.client.get_collection(f"{COLLECTION}-current").metadata or {}
        except Exception as exc:  # NotFoundError (no index yet), or the server went away
            if _not_found(exc):
                return None
            raise KnowledgeIndexError(f"the Chroma server at {self.url}: {exc}") from exc
        gen = meta.get("generation")
        return str(gen) if gen else None

    def read(self, gen: str) -> dict[str, str]:
        try:
            got = self.client.get_collection(self._name(gen, files=True)).get(
                ids=list(FILES), include=["documents"]
            )
        except Exception as exc:
            raise OSError(f"{self._name(gen, files=True)} on {self.url}: {exc}") from exc
        docs = dict(zip(got["ids"], got["documents"] or [], strict=False))
        missing = [f for f in FILES if not docs.get(f)]
        if missing:
            raise OSError(f"{self._name(gen, files=True)} on {self.url} lacks {', '.join(missing)}")
        return {f: str(docs[f]) for f in FILES}

    def collection(self, gen: str) -> Any:
        return self.client.get_collection(self._name(gen), embedding_function=None)

    def create(self, gen: str) -> tuple[Any, Any]:
        return self.client, self.client.create_collection(
            self._name(gen), embedding_function=None, metadata={"hnsw:space": "cosine"}
        )

    def write(self, gen: str, data: dict[str, Any]) -> None:
        coll = self.client.create_collection(self._name(gen, files=True), embedding_function=None)
        texts = [_compact(data[f]) for f in FILES]
        coll.add(ids=list(FILES), documents=texts, embeddings=[[0.0] for _ in FILES])

    def switch(self, gen: str) -> None:
        pointer = self.client.get_or_create_collection(f"{COLLECTION}-current", metadata={"generation": gen})
        pointer.modify(metadata={"generation": gen})

    def discard(self, gen: str) -> None:
        for name in (self._name(gen), self._name(gen, files=True)):
            with contextlib.suppress(Exception):
                self.client.delete_collection(name)

    def prune(self, keep: set[str]) -> None:
        prefix = f"{COLLECTION}-gen-"
        for coll in self.client.list_collections():
            name = coll if isinstance(coll, str) else coll.name
            if not name.startswith(prefix):
                continue
            gen = name.removeprefix(f"{COLLECTION}-").removesuffix("-files")
            if gen not in keep:
                with contextlib.suppress(Exception):
                    self.client.delete_collection(name)


def _not_found(exc: Exception) -> bool:
    return type(exc).__name__ == "NotFoundError" or "does not exist" in str(exc)


Store = LocalStore | RemoteStore
