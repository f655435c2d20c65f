"""The Chroma index of the vLLM source, in `<data dir>/index`, or on a Chroma server (`CHROMA_URL`).

Layout: `CURRENT` names the live generation folder (`gen-…/`), which holds the Chroma database
(`chroma/`), `manifest.json` (what was indexed, per-file hashes), `chunks.json` (chunk metadata and
lexical terms) and `symbols.json` (path -> defined symbols, for `check_path`). A build writes a new
generation, re-using the embeddings of files whose hash is unchanged, and switches `CURRENT` only
when everything is written: a failed build leaves the live index as it was.

With `CHROMA_URL=http://host:port` (Chroma's client/server mode, `chroma run`), the same generations
live on the server, so several app replicas share one index: collection `vllm_source-<gen>` holds
the chunks, `vllm_source-<gen>-files` the three JSON files as documents, and the metadata of
collection `vllm_source-current` names the live generation (`generation`), switched last. A build
is locked against another on the same machine only (`<data dir>/index/.lock`): build from one place.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel, Field

from agent import config
from agent.knowledge.chunker import CHUNKER_VERSION, Chunk, chunk_source, file_symbols
from agent.knowledge.embedder import Embedder, default_embedder
from agent.knowledge.lexical import BM25, chunk_terms, tokens
from agent.knowledge.pin import Pin, load_pin
from agent.knowledge.snippet import Snippet
from agent.knowledge.source import Scope, Source, SourceError, relation_to_pin
from agent.knowledge.terms import map_terms

COLLECTION = "vllm_source"
SCHEMA = 1
VECTOR_WEIGHT = 0.6
"""Fused score = VECTOR_WEIGHT * cosine + (1 - VECTOR_WEIGHT) * BM25 / best BM25 among candidates."""

Progress = Callable[[str], None]


class KnowledgeIndexError(Exception):
    """The index is missing, busy or unreadable; the message says what to do."""


class FileEntry(BaseModel):
    sha256: str
    chunks: list[str]


class BuildReport(BaseModel):
    files: int
    chunks: int
    embedded_files: int
    embedded_chunks: int
    reused_chunks: int
    removed_files: int
    seconds: float
    embed_seconds: float
    commit: str | None
    relation_to_pin: str


class Manifest(BaseModel):
    schema_version: int = SCHEMA
    built_at: str
    source_kind: str
    source_location: str
    commit: str | None
    version: str | None
    dirty: bool = False
    pin_commit: str
    pin_note: str | None = None
    """For a git checkout: how far HEAD is from the pin (when the clone has the pinned commit)."""
    scope: str
    embedder: str
    chunker: str = CHUNKER_VERSION
    files: dict[str, FileEntry] = Field(default_factory=dict)
    last_build: BuildReport | None = None


class IndexStatus(BaseModel):
    built: bool
    location: str
    source: str | None = None
    commit: str | None = None
    version: str | None = None
    pin_commit: str
    matches_pin: bool = False
    relation_to_pin: str = "no index built yet: run `interview index build`"
    scope: str | None = None
    files: int = 0
    chunks: int = 0
    embedder: str | None = None
    built_at: str | None = None
    last_build: BuildReport | None = None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
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


class _LocalStore:
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


class _RemoteStore:
    """Generations as collections on a Chroma server (see the module docstring)."""

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
        texts = [json.dumps(data[f], ensure_ascii=False, separators=(",", ":")) for f in FILES]
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


class SourceIndex:
    """Build, query and describe the index. One instance caches the open collection and BM25."""

    def __init__(
        self,
        root: Path | None = None,
        *,
        embedder: Embedder | None = None,
        pin: Pin | None = None,
        url: str | None = None,
    ) -> None:
        """`url` (else `CHROMA_URL`): the index on that Chroma server; else the folder `root`
        (default `<data dir>/index`), which then also holds the build lock."""
        self.root = Path(root) if root else config.data_dir() / "index"
        self.url = url or chroma_url()
        self._store: _LocalStore | _RemoteStore | None = None
        self._embedder = embedder
        self.pin = pin or load_pin()
        self._gen: str | None = None
        self._collection: Any = None
        self._manifest: Manifest | None = None
        self._chunks: dict[str, dict[str, Any]] = {}
        self._bm25: BM25 | None = None
        self._symbols: dict[str, frozenset[str]] | None = None

    # ------------------------------------------------------------------ reading

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    @property
    def store(self) -> _LocalStore | _RemoteStore:
        if self._store is None:
            self._store = _RemoteStore(self.url) if self.url else _LocalStore(self.root)
        return self._store

    @property
    def location(self) -> str:
        """Where the index is: its folder, or the Chroma server's URL."""
        return self.url or str(self.root)

    def current_generation(self) -> str | None:
        """The live generation's name (`gen-…`), or None when no complete index is in place."""
        return self.store.current()

    def manifest(self) -> Manifest | None:
        gen = self.current_generation()
        if gen is None:
            return None
        if self._manifest is None or self._gen != gen:
            self._open(gen)
        return self._manifest

    def _open(self, gen: str) -> None:
        try:
            files = self.store.read(gen)
            manifest = Manifest.model_validate_json(files["manifest"])
            chunks = json.loads(files["chunks"])
            symbols = json.loads(files["symbols"])
        except (OSError, ValueError) as exc:
            raise KnowledgeIndexError(
                f"index at {self.location} ({gen}) is unreadable ({exc}): rebuild with `interview index build`"
            ) from exc
        self._manifest = manifest
        self._chunks = chunks
        self._symbols = {p: frozenset(s) for p, s in symbols.items()}
        self._bm25 = None
        self._collection = None
        self._gen = gen

    def _require(self) -> tuple[str, Manifest]:
        gen = self.current_generation()
        if gen is None:
            raise KnowledgeIndexError(f"no index at {self.location}: run `interview index build` first")
        if self._gen != gen or self._manifest is None:
            self._open(gen)
        assert self._manifest is not None
        return gen, self._manifest

    def collection(self) -> Any:
        gen, _ = self._require()
        if self._collection is None:
            self._collection = self.store.collection(gen)
        return self._collection

    def symbols(self) -> dict[str, frozenset[str]]:
        """path -> symbols defined in it, for every indexed file (pass to `check_path(symbols=...)`)."""
        self._require()
        return dict(self._symbols or {})

    def status(self) -> IndexStatus:
        try:
            manifest = self.manifest()
        except KnowledgeIndexError as exc:
            return IndexStatus(
                built=False, location=self.location, pin_commit=self.pin.commit, relation_to_pin=str(exc)
            )
        if manifest is None:
            return IndexStatus(built=False, location=self.location, pin_commit=self.pin.commit)
        return IndexStatus(
            built=True,
            location=self.location,
            source=f"{manifest.source_kind} {manifest.source_location}",
            commit=manifest.commit,
            version=manifest.version,
            pin_commit=self.pin.commit,
            matches_pin=self.pin.same_commit(manifest.commit),
            relation_to_pin=relation_to_pin(
                manifest.source_kind,
                manifest.commit,
                manifest.version,
                self.pin,
                dirty=manifest.dirty,
                note=manifest.pin_note,
            ),
            scope=manifest.scope,
            files=len(manifest.files),
            chunks=sum(len(f.chunks) for f in manifest.files.values()),
            embedder=manifest.embedder,
            built_at=manifest.built_at,
            last_build=manifest.last_build,
        )

    # ------------------------------------------------------------------ querying

    def _lexical(self) -> BM25:
        if self._bm25 is None:
            self._bm25 = BM25({cid: meta["terms"] for cid, meta in self._chunks.items()})
        return self._bm25

    def is_built(self) -> bool:
        """True when a complete index is in place (query() will not raise for lack of one)."""
        return self.current_generation() is not None

    def query_many(self, texts: Sequence[str], k: int = 5, *, per_text: int = 3) -> list[Snippet]:
        """Snippets for several texts at once (a round's expected-evidence items, an answer's claims):
        the best `per_text` for each, merged, de-duplicated, best first, at most `k`."""
        best: dict[tuple[str, int], Snippet] = {}
        for text in texts:
            if not text.strip():
                continue
            for s in self.query(text, per_text):
                key = (s.path, s.start_line)
                if key not in best or best[key].score < s.score:
                    best[key] = s
        return sorted(best.values(), key=lambda s: (-s.score, s.path, s.start_line))[:k]

    def warm(self) -> None:
        """Load the model, collection and BM25 ahead of the first query."""
        self.collection()
        self._lexical()
        self.embedder.embed_query("warm up")

    def query(
        self, text: str, k: int = 5, *, max_per_file: int | None = 2, paths: Sequence[str] | None = None
    ) -> list[Snippet]:
        """The `k` chunks that best answer `text` (English, Chinese or mixed), best first.

        Vector similarity (query with Chinese terms mapped to English) fused with BM25 over path,
        symbol and identifiers. `max_per_file` keeps one file from filling the list; `paths`
        restricts results to files under those prefixes.
        """
        _, manifest = self._require()
        if manifest.embedder != self.embedder.name:
            raise KnowledgeIndexError(
                f"index was built with {manifest.embedder}, but the embedder is "
                f"{self.embedder.name}: rebuild with `interview index build`"
            )
        if k <= 0 or not self._chunks:
            return []
        mapped = map_terms(text)
        collection = self.collection()
        n = min(len(self._chunks), max(60, k * 12))
        qvec = self.embedder.embed_query(mapped)
        res = collection.query(query_embeddings=[qvec], n_results=n, include=["distances"])
        vec = {cid: 1.0 - float(d) for cid, d in zip(res["ids"][0], res["distances"][0], strict=True)}
        lex_all = self._lexical().scores(tokens(mapped))
        lex_top = sorted(lex_all.items(), key=lambda kv: -kv[1])[:n]
        best_lex = lex_top[0][1] if lex_top else 0.0
        # Lexical candidates the vector search did not return still get their true cosine.
        unseen = [cid for cid, _ in lex_top if cid not in vec]
        if unseen:
            got = collection.get(ids=unseen, include=["embeddings"])
            for cid, emb in zip(got["ids"], got["embeddings"], strict=True):
                vec[cid] = float(sum(a * b for a, b in zip(qvec, emb, strict=True)))
        candidates = set(vec) | {cid for cid, _ in lex_top}
        fused: list[tuple[float, str]] = []
        for cid in candidates:
            meta = self._chunks.get(cid)
            if meta is None:
                continue
            if paths and not any(meta["path"].startswith(p) for p in paths):
                continue
            v = vec.get(cid, 0.0)
            lx = lex_all.get(cid, 0.0) / best_lex if best_lex else 0.0
            fused.append((VECTOR_WEIGHT * v + (1 - VECTOR_WEIGHT) * lx, cid))
        fused.sort(key=lambda t: (-t[0], t[1]))
        chosen: list[tuple[float, str]] = []
        per_file: dict[str, int] = {}
        for score, cid in fused:
            path = self._chunks[cid]["path"]
            if max_per_file is not None and per_file.get(path, 0) >= max_per_file:
                continue
            per_file[path] = per_file.get(path, 0) + 1
            chosen.append((score, cid))
            if len(chosen) == k:
                break
        if not chosen:
            return []
        docs = collection.get(ids=[cid for _, cid in chosen], include=["documents"])
        text_of = dict(zip(docs["ids"], docs["documents"] or [], strict=False))
        out: list[Snippet] = []
        for score, cid in chosen:
            m = self._chunks[cid]
            commit = manifest.commit or self.pin.commit
            out.append(
                Snippet(
                    path=m["path"],
                    symbol=m["symbol"],
                    kind=m["kind"],
                    start_line=m["start_line"],
                    end_line=m["end_line"],
                    commit=commit,
                    permalink=self.pin.permalink(m["path"], m["start_line"], m["end_line"], commit=commit),
                    text=text_of.get(cid) or "",
                    score=round(max(0.0, min(1.0, score)), 4),
                )
            )
        return out

    # ------------------------------------------------------------------ building

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("w") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise KnowledgeIndexError(f"another index build is running in {self.root}") from exc
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def build(
        self,
        source: Source,
        scope: Scope = Scope.TRAIL,
        *,
        progress: Progress | None = None,
        batch_size: int = 256,
    ) -> BuildReport:
        """Index `source` (incrementally against the live index); switch to it only when complete."""
        say = progress or (lambda _msg: None)
        started = time.perf_counter()
        with self._lock():
            old_gen = self.current_generation()
            old_manifest: Manifest | None = None
            if old_gen is not None:
                try:
                    self._open(old_gen)
                    old_manifest = self._manifest
                except KnowledgeIndexError:
                    old_manifest = None  # unreadable: rebuild everything
            reusable = (
                old_manifest is not None
                and old_manifest.embedder == self.embedder.name
                and old_manifest.chunker == CHUNKER_VERSION
                and old_manifest.schema_version == SCHEMA
            )
            names = source.files(scope, self.pin)
            if not names:
                raise SourceError(f"{source.describe()}: no vLLM .py files in scope '{scope.value}'")

            files: dict[str, FileEntry] = {}
            symbols: dict[str, list[str]] = {}
            new_chunks: list[Chunk] = []
            reuse_ids: list[str] = []
            embedded_files = 0
            for name in names:
                raw = source.read(name)
                sha = hashlib.sha256(raw).hexdigest()
                text = raw.decode("utf-8", errors="replace")
                symbols[name] = file_symbols(text)
                previous = old_manifest.files.get(name) if (reusable and old_manifest) else None
                if previous is not None and previous.sha256 == sha:
                    files[name] = previous
                    reuse_ids.extend(previous.chunks)
                    continue
                chunks = chunk_source(name, text)
                files[name] = FileEntry(sha256=sha, chunks=[c.id for c in chunks])
                new_chunks.extend(chunks)
                embedded_files += 1
            removed = len(set(old_manifest.files) - set(files)) if old_manifest else 0
            # Chunks of changed files whose embedded text the live index already has keep their vector.
            old_by_key = (
                {m["ekey"]: cid for cid, m in self._chunks.items() if "ekey" in m} if reusable else {}
            )
            recycled = [(c, old_by_key[c.embed_key]) for c in new_chunks if c.embed_key in old_by_key]
            to_embed = [c for c in new_chunks if c.embed_key not in old_by_key]
            say(
                f"{len(names)} files: {embedded_files} changed ({len(to_embed)} chunks to embed, "
                f"{len(recycled)} unchanged chunks kept), {len(names) - embedded_files} unchanged "
                f"({len(reuse_ids)} chunks kept), {removed} removed"
            )

            commit = source.commit
            t_embed = time.perf_counter()
            # Embed in length order (less padding per batch), then put the vectors back in chunk order.
            texts = [c.embed_text() for c in to_embed]
            order = sorted(range(len(texts)), key=lambda j: len(texts[j]))
            vectors: list[list[float]] = [[] for _ in texts]
            for i in range(0, len(order), batch_size):
                part = order[i : i + batch_size]
                for j, vec in zip(part, self.embedder.embed_documents([texts[j] for j in part]), strict=True):
                    vectors[j] = vec
                say(f"embedded {min(i + batch_size, len(order))}/{len(order)} chunks")
            embed_seconds = time.perf_counter() - t_embed

            gen = f"gen-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
            try:
                chunk_meta = self._write_generation(
                    gen, old_gen if reusable else None, reuse_ids, to_embed, vectors, recycled, commit
                )
                report = BuildReport(
                    files=len(files),
                    chunks=len(chunk_meta),
                    embedded_files=embedded_files,
                    embedded_chunks=len(to_embed),
                    reused_chunks=len(reuse_ids) + len(recycled),
                    removed_files=removed,
                    seconds=round(time.perf_counter() - started, 2),
                    embed_seconds=round(embed_seconds, 2),
                    commit=commit,
                    relation_to_pin=source.relation_to_pin(self.pin),
                )
                manifest = Manifest(
                    built_at=_now(),
                    source_kind=source.kind.value,
                    source_location=str(source.location),
                    commit=commit,
                    version=source.version,
                    dirty=source.dirty,
                    pin_commit=self.pin.commit,
                    pin_note=source.pin_note,
                    scope=scope.value,
                    embedder=self.embedder.name,
                    files=files,
                    last_build=report,
                )
                self.store.write(
                    gen,
                    {"chunks": chunk_meta, "symbols": symbols, "manifest": manifest.model_dump(mode="json")},
                )
                self.store.switch(gen)
            except BaseException:
                self.store.discard(gen)
                raise
            self._collection = None
            self._open(gen)
            # Keep the generation readers may still have open; drop the older ones.
            self.store.prune({gen, old_gen or ""})
            say(f"indexed {report.chunks} chunks from {report.files} files in {report.seconds:.1f} s")
            return report

    def _write_generation(
        self,
        gen: str,
        old_gen: str | None,
        reuse_ids: list[str],
        new_chunks: list[Chunk],
        vectors: list[list[float]],
        recycled: list[tuple[Chunk, str]],
        commit: str | None,
    ) -> dict[str, Any]:
        client, coll = self.store.create(gen)
        limit = min(client.get_max_batch_size(), 4096)
        chunk_meta: dict[str, Any] = {}
        link_commit = commit or self.pin.commit

        def meta_for(
            path: str, symbol: str, kind: str, a: int, b: int, part: int, parts: int
        ) -> dict[str, Any]:
            return {
                "path": path,
                "symbol": symbol,
                "kind": kind,
                "start_line": a,
                "end_line": b,
                "part": part,
                "parts": parts,
                "commit": commit or "",
                "permalink": self.pin.permalink(path, a, b, commit=link_commit),
            }

        old_meta = self._chunks
        old: Any = None
        if reuse_ids or recycled:
            assert old_gen is not None
            old = self.store.collection(old_gen)
        if reuse_ids:
            for i in range(0, len(reuse_ids), limit):
                ids = reuse_ids[i : i + limit]
                got = old.get(ids=ids, include=["embeddings", "documents", "metadatas"])
                if len(got["ids"]) != len(ids):
                    raise KnowledgeIndexError("the live index lacks chunks its manifest lists: rebuild it")
                metas = []
                for cid, m in zip(got["ids"], got["metadatas"] or [], strict=True):
                    md = meta_for(
                        str(m["path"]),
                        str(m["symbol"]),
                        str(m["kind"]),
                        int(m["start_line"]),
                        int(m["end_line"]),
                        int(m["part"]),
                        int(m["parts"]),
                    )
                    metas.append(md)
                    chunk_meta[cid] = {
                        **{k: md[k] for k in ("path", "symbol", "kind", "start_line", "end_line")},
                        "terms": old_meta[cid]["terms"],
                        "ekey": old_meta[cid].get("ekey", ""),
                    }
                coll.add(
                    ids=list(got["ids"]),
                    embeddings=got["embeddings"],
                    documents=got["documents"],
                    metadatas=metas,
                )
        for i in range(0, len(recycled), limit):
            pairs = recycled[i : i + limit]
            got = old.get(ids=[old_id for _, old_id in pairs], include=["embeddings"])
            by_id = dict(zip(got["ids"], got["embeddings"], strict=True))
            if len(by_id) != len({old_id for _, old_id in pairs}):
                raise KnowledgeIndexError("the live index lacks chunks its manifest lists: rebuild it")
            new_chunks = [*new_chunks, *(c for c, _ in pairs)]
            vectors = [*vectors, *([float(x) for x in by_id[old_id]] for _, old_id in pairs)]
        for i in range(0, len(new_chunks), limit):
            batch = new_chunks[i : i + limit]
            metas = [
                meta_for(c.path, c.symbol, c.kind, c.start_line, c.end_line, c.part, c.parts) for c in batch
            ]
            coll.add(
                ids=[c.id for c in batch],
                embeddings=vectors[i : i + limit],
                documents=[c.text for c in batch],
                metadatas=metas,
            )
            for c in batch:
                chunk_meta[c.id] = {
                    "path": c.path,
                    "symbol": c.symbol,
                    "kind": c.kind,
                    "start_line": c.start_line,
                    "end_line": c.end_line,
                    "terms": chunk_terms(c),
                    "ekey": c.embed_key,
                }
        return chunk_meta
