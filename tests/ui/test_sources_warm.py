"""The source index loads in a background thread at start-up (`agent.ui.sources.warm_sources`): the first answer
no longer waits for the embedding model (a clean-clone CI run timed out after 60 s on it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.ui import sources


def test_warming_without_an_index_gives_up_quietly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(sources, "_index", [])
    t = sources.warm_sources()
    t.join(60)
    assert not t.is_alive() and sources._warm.is_set()
    with pytest.raises(sources.SourcesUnavailable, match="not built"):
        sources.default_retriever()


def test_a_query_waits_for_the_warm_up_then_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(sources, "_index", [])

    class Fake:
        def status(self) -> object:
            return type("S", (), {"built": True})()

        def query(self, text: str, k: int) -> list[str]:
            calls.append("query")
            return []

        def warm(self) -> None:
            calls.append("warm")

    import agent.knowledge

    monkeypatch.setattr(agent.knowledge, "SourceIndex", Fake)
    sources.warm_sources().join(10)
    assert sources.default_retriever()("paged kv", 3) == []
    assert calls == ["warm", "query"]
