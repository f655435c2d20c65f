"""Sessions driven through the real graph API for the evidence package: an override, a fallback score
(a judge that raises JudgeUnavailable in the incident round), a unit error in round 3, a nonexistent
source path and a source snippet with its permalink."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.contracts.checklist import Checks
from agent.contracts.report import JudgeInfo
from agent.graph import SessionView, answer, session, start_session
from agent.graph.state import GraphContext
from agent.judge.base import Fill, JudgeUnavailable
from agent.judge.embedded import EmbeddedJudge
from agent.judge.matching import Sentence
from agent.judge.sources import Sources
from agent.knowledge.snippet import Snippet
from agent.overrides import NewOverride, OverrideLog
from agent.rubric import Lang, RoundId, Rubric, default_rubric
from tests.graph.script import strong

SNIPPET = Snippet(
    path="vllm/v1/core/kv_cache_manager.py",
    symbol="KVCacheManager.allocate_slots",
    kind="function",
    start_line=200,
    end_line=260,
    commit="b23bd73f540175f9e117eaee5029cd7d8df63964",
    permalink="https://github.com/vllm-project/vllm/blob/b23bd73f540175f9e117eaee5029cd7d8df63964/"
    "vllm/v1/core/kv_cache_manager.py#L200-L260",
    text="def allocate_slots(self, request, num_new_tokens):\n    ...",
    score=0.9,
)
UNIT_ERROR = (
    "Given: 40B parameters in BF16 at 2 bytes each, TP=4 on 80 GiB GPUs. "
    "Weights: 40e9 x 2 bytes = 80 GB, so each rank holds 20 GiB of weights. "
    "Derived KV budget per rank = 80 - 20 - 12 - 8 = 40 GiB. "
    "Derived KV per token = 2 x 60 x 8 x 128 x 2 = 245,760 bytes. "
    "Roughly 40 concurrent requests would fit, I estimate."
)
UNIT_ERROR_ZH = (
    "题设：40B 参数，BF16 每个 2 字节，TP=4，每卡 80 GiB。权重 40e9 x 2 = 80 GB，所以每个 rank 20 GiB。"
    "推导：每个 rank 的 KV 预算 = 80 - 20 - 12 - 8 = 40 GiB。推导：每 token KV = 2 x 60 x 8 x 128 x 2 = 245,760 字节。"
)
SOURCE_TRACE_EXTRA = (
    " The allocation happens in vllm/v1/core/kv_cache_manager.py, in KVCacheManager.allocate_slots."
    " The eviction is in vllm/v1/core/kv_cache_evictor.py:Evictor."
)
REVIEWER = "coach-ana"
REASON = "The GB/GiB slip is one step; the method is right: one point more."


class FlakyJudge:
    """The embedded judge, except in the incident round, where it is 'down' (the caller falls back)."""

    kind = "vllm"
    model = "test-flaky-judge"

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Checks,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill:
        if round_id == "incident":
            raise JudgeUnavailable("connection refused: http://127.0.0.1:9/v1 (test)")
        return EmbeddedJudge().fill(rubric, round_id, answer, lang, checks, sents, snippets)


class OneSnippet(Sources):
    """Source evidence without an index: one fixed snippet for every answer."""

    def __init__(self) -> None:
        super().__init__(None, None, SNIPPET.commit)

    def for_answer(self, rubric: Rubric, round_id: RoundId, answer: str, k: int = 4) -> list[Snippet]:
        return [SNIPPET]


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data"
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(d))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    return d


@pytest.fixture(scope="session")
def rubric() -> Rubric:
    return default_rubric()


@pytest.fixture
def flaky(monkeypatch: pytest.MonkeyPatch, rubric: Rubric) -> GraphContext:
    """Every session call of the test uses the flaky judge and the one-snippet source."""
    info = JudgeInfo(
        kind="vllm", model=FlakyJudge.model, rubric_version=rubric.version, endpoint="http://127.0.0.1:9/v1"
    )
    ctx = GraphContext(rubric=rubric, judge=FlakyJudge(), info=info, sources=OneSnippet())
    monkeypatch.setattr(session, "graph_context", lambda rubric=None: ctx)
    return ctx


def drive(
    view: SessionView, text_for: dict[str | None, str], first: dict[str, str], step_s: float = 45.0
) -> SessionView:
    """Answer until done: a round's first answer from `first` when given, else `text_for[round]`."""
    seen: set[str | None] = set()
    at = 0.0
    for _ in range(80):
        if view.status == "done":
            return view
        at += step_s
        rid = view.round
        text = first[rid] if rid in first and rid not in seen else text_for[rid]
        seen.add(rid)
        view = answer(view.session_id, text, at_s=at)
        assert view.message is None, view.message
    raise AssertionError("session not done")


@dataclass
class Sessions:
    first: SessionView
    redo: SessionView | None = None


def full_session(rubric: Rubric, sid: str = "first") -> SessionView:
    texts: dict[str | None, str] = {
        rid: strong(rubric, rid) for rid in ("concepts", "system-design", "incident")
    }
    texts["source-trace"] = strong(rubric, "source-trace") + SOURCE_TRACE_EXTRA
    texts["capacity"] = "I would ask whether weights are replicated and what the block size is."
    texts[None] = "How does the team review capacity plans?"
    v = start_session("full", "en", session_id=sid)
    return drive(v, texts, {"capacity": UNIT_ERROR})


def override_capacity(view: SessionView) -> None:
    assert view.report is not None
    ra = next(r for r in view.report.rounds if r.round == "capacity")
    info = ra.judge or view.report.judge
    OverrideLog().append(
        NewOverride(
            transcript_id=view.session_id,
            round="capacity",
            dimension="accuracy",
            judge_score=ra.scores["accuracy"],
            human_score=min(5, ra.scores["accuracy"] + 1),
            reason=REASON,
            reviewer=REVIEWER,
            rubric_version=info.rubric_version,
            judge_model=info.model,
            judge_kind=info.kind,
        )
    )


@pytest.fixture
def done(flaky: GraphContext, rubric: Rubric) -> Iterator[Sessions]:
    first = full_session(rubric)
    override_capacity(first)
    yield Sessions(first=first)
