"""vLLM source snippets to check an answer against, from the knowledge index when it is built."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.knowledge import Snippet

Retriever = Callable[[str, int], "list[Snippet]"]


class SourcesUnavailable(RuntimeError):
    """No index to query (not built, or its dependencies are not installed). `not_built`: the index was simply
    never built, which the interface says in its own language."""

    def __init__(self, why: str, *, not_built: bool = False) -> None:
        super().__init__(why)
        self.not_built = not_built


_lock = threading.Lock()
_index: list[Retriever] = []
_warming = threading.Event()  # a start-up thread is loading the index
_warm = threading.Event()  # ... and has finished (or given up)
WARM_WAIT_S = 300.0


def default_retriever() -> Retriever:
    """The Chroma index in the data dir; `SourcesUnavailable` says why when there is none."""
    with _lock:
        if _index:
            return _index[0]
        try:
            from agent.knowledge import SourceIndex
        except ImportError as e:
            raise SourcesUnavailable(f"the knowledge index needs {e.name} (pip install '.[app]')") from e
        idx = SourceIndex()
        if not idx.status().built:
            raise SourcesUnavailable(
                "the source index is not built yet (interview index build)", not_built=True
            )

        def query(text: str, k: int) -> list[Snippet]:
            if _warming.is_set():
                _warm.wait(WARM_WAIT_S)  # the model loads once, in the start-up thread, not twice at once
            return idx.query(text, k)

        query.warm = idx.warm  # type: ignore[attr-defined]
        _index.append(query)
        return query


def warm_sources() -> threading.Thread:
    """Load the index (its embedding model, collection and BM25) in a background thread at start-up, so the first
    answer does not wait for it (on a busy 2-core machine that took over a minute). Without an index it does
    nothing: the interface says so when an answer asks for sources."""

    def run() -> None:
        try:
            warm = getattr(default_retriever(), "warm", None)
            if warm is not None:
                warm()
        except Exception:
            pass
        finally:
            _warm.set()

    _warming.set()
    t = threading.Thread(target=run, name="warm-sources", daemon=True)
    t.start()
    return t
