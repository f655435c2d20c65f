"""A build's new generation of the index: which files changed, what to embed, what to keep, written
beside the live generation and switched to only when complete.

Files whose hash is unchanged keep their chunks and vectors; chunks of changed files whose embedded
text the live generation already has keep their vector; the rest is embedded. A failure discards
the new generation, so the live index stays as it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import time
from collections.abc import Callable
from typing import Any

from agent.knowledge.chunker import CHUNKER_VERSION, Chunk, chunk_source, file_symbols
from agent.knowledge.embedder import Embedder
from agent.knowledge.lexical import chunk_terms
from agent.knowledge.manifest import SCHEMA, BuildReport, FileEntry, Manifest
from agent.knowledge.pin import Pin
from agent.knowledge.source import Scope, Source, SourceError
from agent.knowledge.store import KnowledgeIndexError, Store

Progress = Callable[[str], None]

_INCOMPLETE = "the live index lacks chunks its manifest lists: rebuild it"


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def build_generation(
    store: Store,
    embedder: Callable[[], Embedder],
    pin: Pin,
    source: Source,
    scope: Scope,
    *,
    old_gen: str | None,
    old_manifest: Manifest | None,
    old_chunks: dict[str, dict[str, Any]],
    say: Progress,
    batch_size: int,
    started: float,
) -> tuple[str, BuildReport]:
    """Write a generation of `source` beside the live one (`old_gen`, its manifest and chunk metadata,
    None and empty when there is none or it is unreadable) and switch to it: (its name, the report).

    `embedder` is asked for the index's embedder only when one is needed (it is loaded lazily);
    `started` is when the build began (`time.perf_counter()`), for the report's seconds."""
    reusable = (
        old_manifest is not None
        and old_manifest.embedder == embedder().name
        and old_manifest.chunker == CHUNKER_VERSION
        and old_manifest.schema_version == SCHEMA
    )
    names = source.files(scope, pin)
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
    old_by_key = {m["ekey"]: cid for cid, m in old_chunks.items() if "ekey" in m} if reusable else {}
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
        for j, vec in zip(part, embedder().embed_documents([texts[j] for j in part]), strict=True):
            vectors[j] = vec
        say(f"embedded {min(i + batch_size, len(order))}/{len(order)} chunks")
    embed_seconds = time.perf_counter() - t_embed

    gen = f"gen-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
    try:
        chunk_meta = _write_chunks(
            store,
            pin,
            gen,
            old_gen if reusable else None,
            old_chunks,
            reuse_ids,
            to_embed,
            vectors,
            recycled,
            commit,
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
            relation_to_pin=source.relation_to_pin(pin),
        )
        manifest = Manifest(
            built_at=_now(),
            source_kind=source.kind.value,
            source_location=str(source.location),
            commit=commit,
            version=source.version,
            dirty=source.dirty,
            pin_commit=pin.commit,
            pin_note=source.pin_note,
            scope=scope.value,
            embedder=embedder().name,
            files=files,
            last_build=report,
        )
        store.write(
            gen,
            {"chunks": chunk_meta, "symbols": symbols, "manifest": manifest.model_dump(mode="json")},
        )
        store.switch(gen)
    except BaseException:
        store.discard(gen)
        raise
    return gen, report


def _write_chunks(
    store: Store,
    pin: Pin,
    gen: str,
    old_gen: str | None,
    old_meta: dict[str, dict[str, Any]],
    reuse_ids: list[str],
    new_chunks: list[Chunk],
    vectors: list[list[float]],
    recycled: list[tuple[Chunk, str]],
    commit: str | None,
) -> dict[str, Any]:
    """Create the generation's collection and fill it: the chunks of unchanged files copied from the live
    generation with their vectors, the recycled chunks with their twins' vectors, the embedded ones with
    `vectors`; returns what chunks.json holds (chunk id -> metadata and lexical terms)."""
    client, coll = store.create(gen)
    limit = min(client.get_max_batch_size(), 4096)
    chunk_meta: dict[str, Any] = {}
    link_commit = commit or pin.commit

    def meta_for(path: str, symbol: str, kind: str, a: int, b: int, part: int, parts: int) -> dict[str, Any]:
        return {
            "path": path,
            "symbol": symbol,
            "kind": kind,
            "start_line": a,
            "end_line": b,
            "part": part,
            "parts": parts,
            "commit": commit or "",
            "permalink": pin.permalink(path, a, b, commit=link_commit),
        }

    old: Any = None
    if reuse_ids or recycled:
        assert old_gen is not None
        old = store.collection(old_gen)
    if reuse_ids:
        for i in range(0, len(reuse_ids), limit):
            ids = reuse_ids[i : i + limit]
            got = old.get(ids=ids, include=["embeddings", "documents", "metadatas"])
            if len(got["ids"]) != len(ids):
                raise KnowledgeIndexError(_INCOMPLETE)
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
            raise KnowledgeIndexError(_INCOMPLETE)
        new_chunks = [*new_chunks, *(c for c, _ in pairs)]
        vectors = [*vectors, *([float(x) for x in by_id[old_id]] for _, old_id in pairs)]
    for i in range(0, len(new_chunks), limit):
        batch = new_chunks[i : i + limit]
        metas = [meta_for(c.path, c.symbol, c.kind, c.start_line, c.end_line, c.part, c.parts) for c in batch]
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
