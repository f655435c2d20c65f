"""vLLM source evidence for an assessment: snippets from the index and path checks with symbols.

Optional by design: with no index built (or a broken one) grading goes on without snippets and
the assessment says so in its notes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.contracts.report import JudgeNote
from agent.contracts.sources import SourceRef
from agent.judge.checks import PathChecker, cited_paths, default_path_checker
from agent.judge.matching import sentences
from agent.judge.notes import catalogue_note
from agent.rubric.loader import Rubric
from agent.rubric.model import RoundId

if TYPE_CHECKING:
    from agent.knowledge import Snippet, SourceIndex

_CODE = re.compile(r"vllm/|\w+\.py|\b[A-Z][a-z]+[A-Z]\w+|\b\w+_\w+\b")


class Sources:
    """The index (when built) behind snippets and symbol-aware path checks."""

    def __init__(
        self, index: SourceIndex | None, note: JudgeNote | None = None, commit: str | None = None
    ) -> None:
        self.index = index
        self.note = note
        self.commit = commit
        self._symbols: dict[str, frozenset[str]] | None = None

    @classmethod
    def open(cls) -> Sources:
        """The index in the data dir; a missing or unreadable one gives Sources with a note, never an error."""
        try:
            from agent.knowledge import SourceIndex

            index = SourceIndex()
            status = index.status()
            if not status.built:
                return cls(None, catalogue_note("report.note.no_index", why=status.relation_to_pin))
            return cls(index, None, status.commit)
        except Exception as e:  # chromadb missing, corrupt store, …: grading must go on
            return cls(None, catalogue_note("report.note.index_unavailable", why=f"{type(e).__name__}: {e}"))

    @property
    def available(self) -> bool:
        return self.index is not None

    def path_checker(self) -> PathChecker | None:
        """A checker that also knows symbols (file.py:Symbol) when the index is built."""
        if self.index is None:
            return None
        if self._symbols is None:
            try:
                self._symbols = self.index.symbols()
            except Exception:
                self._symbols = {}
        return default_path_checker(self._symbols or None)

    def for_answer(self, rubric: Rubric, round_id: RoundId, answer: str, k: int = 4) -> list[Snippet]:
        """Snippets for what the answer cites or claims about code, and for the round's question."""
        if self.index is None:
            return []
        texts = list(cited_paths(answer))[:3]
        texts += [s.text for s in sentences(answer) if _CODE.search(s.text)][:3]
        texts.append(rubric.round(round_id).prompt.en)
        try:
            return self.index.query_many(texts, k=k, per_text=2)
        except Exception as e:
            self.note = catalogue_note("report.note.index_query_failed", why=f"{type(e).__name__}: {e}")
            self.index = None
            return []


def refs(snippets: list[Snippet]) -> list[SourceRef]:
    return [
        SourceRef(
            path=s.path,
            symbol=s.symbol,
            start_line=s.start_line,
            end_line=s.end_line,
            commit=s.commit,
            permalink=s.permalink,
            excerpt=s.excerpt(8),
            score=round(s.score, 3),
        )
        for s in snippets
    ]


def prompt_text(snippets: list[Snippet], max_lines: int = 10) -> str:
    """Snippets as the judge's prompt shows them (after the static block, before the answer)."""
    return "\n\n".join(
        f"- {s.location} `{s.symbol}`\n```python\n{s.excerpt(max_lines)}\n```" for s in snippets
    )
