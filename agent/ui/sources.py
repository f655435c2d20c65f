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
            return idx.query(text, k)

        _index.append(query)
        return query
