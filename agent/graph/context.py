"""The context every graph run is given (`GraphContext`, agent/graph/state.py), which the checkpoint must
not hold: the rubric, the judge (vLLM when JUDGE_BASE_URL answers, else the embedded judge) and a
retriever over the source index. One per rubric version, judge URL, judge model and data dir, made once
in a process."""

from __future__ import annotations

import threading
from collections.abc import Callable

from agent import config
from agent.graph.state import GraphContext
from agent.judge.factory import make_judge
from agent.knowledge.snippet import Snippet
from agent.rubric.loader import Rubric, default_rubric

SNIPPETS = 3
"""co-pilot: source snippets retrieved per answer."""

_CTX: dict[tuple[str, str | None, str | None, str], GraphContext] = {}
_CTX_LOCK = threading.Lock()


def _retriever() -> Callable[[str], list[Snippet]] | None:
    """Source retrieval over the index in the data dir (`interview index build`); None when the knowledge
    extras are not installed. Without a usable index a call raises with the reason, and the co-pilot
    says so in its notice and goes on without snippets (an index built later is used from then on)."""
    try:
        from agent.knowledge import KnowledgeIndexError, SourceIndex

        index = SourceIndex()
    except Exception:  # the knowledge extras are not installed: co-pilot runs without snippets
        return None

    def retrieve(text: str) -> list[Snippet]:
        if not index.is_built():
            raise KnowledgeIndexError(index.status().relation_to_pin, not_built=True)
        return index.query(text[:2000], k=SNIPPETS)

    return retrieve


def graph_context(rubric: Rubric | None = None) -> GraphContext:
    """The rubric, the judge (vLLM when JUDGE_BASE_URL answers, else the embedded judge), the index."""
    rubric = rubric or default_rubric()
    key = (rubric.version, config.judge_base_url(), config.judge_model(), str(config.data_dir()))
    with _CTX_LOCK:
        if key not in _CTX:
            judge, info, _why = make_judge("auto", rubric)
            _CTX[key] = GraphContext(rubric=rubric, judge=judge, info=info, retrieve=_retriever())
        return _CTX[key]
