"""The source reference: a snippet of the pinned vLLM source as a report shows it."""

from __future__ import annotations

from pydantic import BaseModel


class SourceRef(BaseModel):
    """A snippet as a report shows it: where, which symbol, a short excerpt and its permalink."""

    path: str
    symbol: str
    start_line: int
    end_line: int
    commit: str
    permalink: str
    excerpt: str
    score: float
