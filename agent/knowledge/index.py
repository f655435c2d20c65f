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

`SourceIndex` reads, queries and builds the index; where generations live is `store.py`, what a build
writes is `generation.py`, and `manifest.json` is the model in `manifest.py`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agent import config
from agent.knowledge.embedder import Embedder, default_embedder
from agent.knowledge.generation import Progress, build_generation
from agent.knowledge.lexical import BM25, tokens
from agent.knowledge.manifest import BuildReport, Manifest
from agent.knowledge.pin import Pin, load_pin
from agent.knowledge.snippet import Snippet
from agent.knowledge.source import Scope, Source, relation_to_pin
from agent.knowledge.store import KnowledgeIndexError, LocalStore, RemoteStore, Store, chroma_url
from agent.knowledge.terms import map_terms

VECTOR_WEIGHT = 0.6
"""Fused score = VECTOR_WEIGHT * cosine + (1 - VECTOR_WEIGHT) * BM25 / best BM25 among candidates."""


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
        self._store: Store | None = None
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
    def store(self) -> Store:
        if self._store is None:
            self._store = RemoteStore(self.url) if self.url else LocalStore(self.root)
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
            gen, report = build_generation(
                self.store,
                lambda: self.embedder,
                self.pin,
                source,
                scope,
                old_gen=old_gen,
                old_manifest=old_manifest,
                old_chunks=self._chunks,
                say=say,
                batch_size=batch_size,
                started=started,
            )
            self._collection = None
            self._open(gen)
            # Keep the generation readers may still have open; drop the older ones.
            self.store.prune({gen, old_gen or ""})
            say(f"indexed {report.chunks} chunks from {report.files} files in {report.seconds:.1f} s")
            return report
