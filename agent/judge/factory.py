"""Choose the judge a command asked for: embedded, vllm, or auto (vllm when one answers)."""

from __future__ import annotations

from agent.judge.base import Judge
from agent.judge.embedded import EmbeddedJudge
from agent.report import JudgeInfo
from agent.rubric.loader import Rubric


def make_judge(kind: str, rubric: Rubric) -> tuple[Judge, JudgeInfo, str | None]:
    """The judge, its provenance, and a sentence for the user when it is not what they asked for."""
    embedded = EmbeddedJudge()
    info = JudgeInfo(kind="embedded", model=embedded.model, rubric_version=rubric.version)
    if kind == "embedded":
        return embedded, info, None
    return (
        embedded,
        info,
        f"the vLLM judge client is not built yet; the embedded judge scores (asked: {kind})",
    )
