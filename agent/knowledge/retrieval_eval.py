"""Retrieval quality over a labelled query set (eval/retrieval/queries.yaml): recall@k and MRR,
overall and per language, at file level and at symbol level."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import yaml
from pydantic import BaseModel, Field

from agent import config
from agent.knowledge.snippet import Snippet


class Expected(BaseModel):
    path: str
    symbol: str | None = None


class LabelledQuery(BaseModel):
    id: str
    lang: str
    query: str
    expect: list[Expected] = Field(min_length=1)

    def file_hit(self, s: Snippet) -> bool:
        return any(s.path == e.path for e in self.expect)

    def symbol_hit(self, s: Snippet) -> bool:
        return any(
            s.path == e.path
            and e.symbol is not None
            and (s.symbol == e.symbol or s.symbol.startswith(e.symbol + "."))
            for e in self.expect
        )

    @property
    def has_symbol(self) -> bool:
        return any(e.symbol for e in self.expect)


class QueryResult(BaseModel):
    id: str
    lang: str
    query: str
    file_rank: int | None
    """1-based rank of the first result in an expected file; None when not in the top k."""
    symbol_rank: int | None
    top: list[str]
    """`path:start-end symbol` of each result."""
    seconds: float


class Metrics(BaseModel):
    queries: int
    recall_at_k: float
    mrr: float
    symbol_recall_at_k: float | None
    """None when no query in the set names a symbol."""
    symbol_mrr: float | None


class RetrievalReport(BaseModel):
    k: int
    overall: Metrics
    by_lang: dict[str, Metrics]
    results: list[QueryResult]
    index_commit: str | None = None


class Retriever(Protocol):
    def query(self, text: str, k: int = 5) -> list[Snippet]: ...


def default_queries_file() -> Path:
    return config.repo_root() / "eval" / "retrieval" / "queries.yaml"


def load_queries(path: Path | None = None) -> list[LabelledQuery]:
    data = yaml.safe_load((path or default_queries_file()).read_text(encoding="utf-8"))
    return [LabelledQuery.model_validate(q) for q in data["queries"]]


def _metrics(results: Sequence[QueryResult], with_symbol: Sequence[QueryResult]) -> Metrics:
    n = len(results) or 1
    ns = len(with_symbol)
    return Metrics(
        queries=len(results),
        recall_at_k=round(sum(r.file_rank is not None for r in results) / n, 4),
        mrr=round(sum(1 / r.file_rank for r in results if r.file_rank) / n, 4),
        symbol_recall_at_k=round(sum(r.symbol_rank is not None for r in with_symbol) / ns, 4) if ns else None,
        symbol_mrr=round(sum(1 / r.symbol_rank for r in with_symbol if r.symbol_rank) / ns, 4)
        if ns
        else None,
    )


def evaluate(retriever: Retriever, queries: Sequence[LabelledQuery], k: int = 5) -> RetrievalReport:
    """Run every query once and score the top `k` results."""
    results: list[QueryResult] = []
    symbol_ids: set[str] = set()
    for q in queries:
        t0 = time.perf_counter()
        snippets = retriever.query(q.query, k)
        took = time.perf_counter() - t0
        file_rank = next((i for i, s in enumerate(snippets, 1) if q.file_hit(s)), None)
        symbol_rank = next((i for i, s in enumerate(snippets, 1) if q.symbol_hit(s)), None)
        if q.has_symbol:
            symbol_ids.add(q.id)
        results.append(
            QueryResult(
                id=q.id,
                lang=q.lang,
                query=q.query,
                file_rank=file_rank,
                symbol_rank=symbol_rank,
                top=[f"{s.location} {s.symbol}" for s in snippets],
                seconds=round(took, 4),
            )
        )
    by_lang: dict[str, Metrics] = {}
    for lang in sorted({r.lang for r in results}):
        subset = [r for r in results if r.lang == lang]
        by_lang[lang] = _metrics(subset, [r for r in subset if r.id in symbol_ids])
    overall = _metrics(results, [r for r in results if r.id in symbol_ids])
    return RetrievalReport(k=k, overall=overall, by_lang=by_lang, results=results)
