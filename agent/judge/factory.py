"""Choose the judge a command asked for: embedded, vllm, or auto (vllm when one answers)."""

from __future__ import annotations

from pathlib import Path

from agent import config
from agent.judge.base import Judge, JudgeUnavailable
from agent.judge.embedded import EmbeddedJudge
from agent.report import JudgeInfo
from agent.rubric.loader import Rubric


def make_judge(
    kind: str, rubric: Rubric, *, base_url: str | None = None, model: str | None = None, holistic: bool = True
) -> tuple[Judge, JudgeInfo, str | None]:
    """The judge, its provenance, and a sentence for the user when it is not what they asked for.

    `vllm` that cannot be reached gives the embedded judge with `fallback` set: every report says so.
    `auto` uses vLLM when JUDGE_BASE_URL answers, else the embedded judge (not a fallback: a choice).
    """
    embedded = EmbeddedJudge()
    info = JudgeInfo(kind="embedded", model=embedded.model, rubric_version=rubric.version)
    if kind == "embedded":
        return embedded, info, None
    url = base_url or config.judge_base_url()
    if not url:
        if kind == "vllm":
            reason = "JUDGE_BASE_URL is not set (start one with ./serve.sh --judge cpu --judge-only)"
            return embedded, info.model_copy(update={"fallback": True, "fallback_reason": reason}), reason
        return embedded, info, "no JUDGE_BASE_URL: the embedded judge scores"
    from agent.judge.vllm import VllmJudge

    try:
        served = model or config.judge_model()
        if (
            served and Path(served).expanduser().is_dir()
        ):  # serve.sh's JUDGE_MODEL is a folder: ask the server
            served = None
        vj = VllmJudge(url, served, holistic=holistic)
    except JudgeUnavailable as e:
        if kind == "vllm":
            return embedded, info.model_copy(update={"fallback": True, "fallback_reason": str(e)}), str(e)
        return embedded, info, f"{e}: the embedded judge scores"
    return vj, vj.info(rubric), None
