"""Choose the judge a command asked for: embedded, vllm, or auto (vllm when one answers)."""

from __future__ import annotations

from pathlib import Path

from agent import config
from agent.contracts.report import JudgeInfo
from agent.judge.base import Judge, JudgeUnavailable
from agent.judge.embedded import EmbeddedJudge
from agent.rubric.loader import Rubric

#: requests a vLLM judge has at each server at once unless the command says otherwise (`--concurrency`),
#: the same for the app, `interview grade` and `interview eval`: the parts of two rounds (at most 4 each), so
#: one answer's parts go together and the server batches more than one answer (the README's benchmarks:
#: 8 in flight beat 4). A pool of N servers behind vllm-router gets N times as many (agent/judge/vllm_pool.py).
DEFAULT_IN_FLIGHT = 8


def make_judge(
    kind: str,
    rubric: Rubric,
    *,
    base_url: str | None = None,
    model: str | None = None,
    holistic: bool = True,
    in_flight: int = DEFAULT_IN_FLIGHT,
) -> tuple[Judge, JudgeInfo, str | None]:
    """The judge, its provenance, and a sentence for the user when it is not what they asked for.

    `in_flight`: most requests a vLLM judge has at the server at once (`set_in_flight` for a batch).

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
    from agent.judge.vllm_pool import PooledVllmJudge

    try:
        served = model or config.judge_model()
        if (
            served and Path(served).expanduser().is_dir()
        ):  # serve.sh's JUDGE_MODEL is a folder: ask the server
            served = None
        vj = PooledVllmJudge(url, served, holistic=holistic, max_in_flight=in_flight)
    except (JudgeUnavailable, ValueError) as e:  # ValueError: a JUDGE_REPLICAS that is not a number
        if kind == "vllm":
            return embedded, info.model_copy(update={"fallback": True, "fallback_reason": str(e)}), str(e)
        return embedded, info, f"{e}: the embedded judge scores"
    return vj, vj.info(rubric), None


def replicas_of(judge: Judge) -> int:
    """How many servers answer for `judge`: the pool's size for a vLLM judge, else 1."""
    return int(getattr(judge, "replicas", 1) or 1)


def batch_size(judge: Judge, n: int = 0) -> int:
    """How many answers or transcripts a batch grades at once, and the judge set for it: `n` a server
    (`--concurrency N`; 0: `DEFAULT_IN_FLIGHT` for a vLLM judge, 1 for a judge with no server), so a vLLM
    judge has at most that many requests at each server; a pool of servers grades that many for each."""
    per_server = n or (DEFAULT_IN_FLIGHT if judge.kind == "vllm" else 1)
    set_in_flight(judge, per_server)
    return per_server * replicas_of(judge)


def set_in_flight(judge: Judge, n: int) -> None:
    """A batch of `n` in flight: a vLLM judge then has at most `n` requests at each server at once
    (a round's parts count one each; n × replicas behind a router); other judges have no server and are
    left as they are."""
    from agent.judge.vllm import VllmJudge

    if isinstance(judge, VllmJudge):
        judge.set_in_flight(n)
