"""The real source trail from the vllm 0.26.0 wheel: build, status against the pin, retrieval goal."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.knowledge import Scope, SourceIndex, evaluate, load_pin, load_queries, open_source
from agent.knowledge.source import cached_wheel

WHEEL = cached_wheel()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        WHEEL is None, reason="vllm 0.26.0 wheel not in the cache: run `interview index build` once"
    ),
]


@pytest.fixture(scope="module")
def real_index(tmp_path_factory: pytest.TempPathFactory) -> SourceIndex:
    """The index `./test.sh` built from the wheel into the data dir (`interview index build`), read only;
    else (run alone, or that build failed) one built here from the wheel (about 50 s)."""
    pytest.importorskip("chromadb", reason="the index needs the app extras")
    from agent.knowledge import default_embedder

    assert WHEEL is not None
    built = SourceIndex(embedder=default_embedder())
    if built.url is None and built.manifest() is not None:
        st = built.status()
        if st.version == load_pin().release.version and st.files > 0:
            return built
    index = SourceIndex(tmp_path_factory.mktemp("real") / "index", embedder=default_embedder())
    with open_source(WHEEL) as src:
        index.build(src, Scope.TRAIL)
    return index


def test_the_source_trail_is_indexed_from_the_release_wheel(real_index: SourceIndex) -> None:
    st = real_index.status()
    pin = load_pin()
    assert st.files == 116 and st.chunks > 2000
    assert st.version == pin.release.version and st.commit == pin.release.commit
    assert not st.matches_pin and "release 0.26.0" in st.relation_to_pin
    symbols = real_index.symbols()
    assert "Scheduler.schedule" in symbols["vllm/v1/core/sched/scheduler.py"]
    assert "Sampler.forward" in symbols["vllm/v1/sample/sampler.py"]


def test_retrieval_meets_the_goal_in_both_languages(real_index: SourceIndex) -> None:
    report = evaluate(real_index, load_queries(), k=5)
    assert report.overall.queries >= 30 and report.by_lang["zh"].queries >= 10
    assert report.overall.recall_at_k >= 0.8
    assert report.by_lang["en"].recall_at_k >= 0.8
    assert report.by_lang["zh"].recall_at_k >= 0.8


def test_every_label_names_a_real_path_and_symbol(real_index: SourceIndex) -> None:
    symbols = real_index.symbols()
    for q in load_queries():
        for e in q.expect:
            assert e.path in symbols, (q.id, e.path)
            if e.symbol:
                assert e.symbol in symbols[e.path], (q.id, e.symbol)


def test_wheel_file_list_matches_the_committed_path_list() -> None:
    from agent.knowledge import known_paths
    from agent.knowledge.paths import paths_from_wheel

    assert WHEEL is not None
    assert frozenset(paths_from_wheel(Path(WHEEL))) == known_paths()
