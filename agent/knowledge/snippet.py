"""A retrieved piece of vLLM source, as the judge, the reports and the CLI show it."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Snippet(BaseModel):
    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    commit: str = Field(description="The commit of the indexed source these lines come from")
    permalink: str
    text: str
    score: float = Field(description="Fused retrieval score, higher is better (0..1)")

    @property
    def location(self) -> str:
        """`vllm/v1/request.py:120-168`"""
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def excerpt(self, max_lines: int = 12) -> str:
        lines = self.text.splitlines()
        more = len(lines) - max_lines
        # "# … +46": the lines left out, in no language (the excerpt is shown in English and Chinese pages alike)
        return "\n".join(lines[:max_lines]) + (f"\n# … +{more}" if more > 0 else "")
