"""Two real vLLM CPU servers behind the real vllm-router (marked `vllm`; kept short: a few requests).

What the stand-in tests (`test_pool.py`) cannot show: vLLM loads the replica middleware through its
own `--middleware` flag, each server on its share of the cores answers, and the grader's provenance
names the real server of each part through the router. The pool is stopped at the end and no port
stays open.

Then one of the pool's servers is killed in the middle of a batch graded straight against it (no router):
the rounds graded before keep the vLLM checklist, the rest fall back to the embedded judge with
`judge_fallback`, and the batch completes. (The killed server is the pool's, so the suite starts no server
for that alone.)
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agent import config
from agent.contracts.report import Report
from agent.grading.batch import Outcome, grade_files
from agent.graph import grade_with_graph
from agent.judge.assessment import assess_answer
from agent.judge.parts import Part
from agent.judge.runtime import ensure_small_model, ensure_vllm_venv, port_is_open
from agent.judge.runtime.pool import JudgePool, core_sets, pool_of
from agent.judge.runtime.server import JudgeServer, context_length
from agent.judge.runtime.venv import ensure_router_venv
from agent.judge.vllm import VllmJudge
from agent.judge.vllm_pool import PooledVllmJudge
from agent.rubric import load_rubric
from agent.rubric.model import DIMENSIONS

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples" / "transcripts").glob("*.json"))

ANSWERS = [  # one answer: which replica answered its parts is the point; a second added ~20 s and nothing new
    "Paged KV splits the cache into blocks of 16 tokens; the block table maps each sequence to them.",
]


@pytest.fixture(scope="module")
def pool() -> Iterator[JudgePool]:
    """Two CPU servers (a core each) and the router, for the module; stopped at the end, no port left open."""
    cache = config.cache_dir()
    python = ensure_vllm_venv(cache)
    model = ensure_small_model(cache, python)
    template = JudgeServer(python=python, model_dir=model, max_model_len=context_length(model))
    pool = pool_of(template, 2, ensure_router_venv(cache))
    if "VLLM_CPU_OMP_THREADS_BIND" not in os.environ:  # else the environment binds the cores itself
        assert [s.extra_env["VLLM_CPU_OMP_THREADS_BIND"] for s in pool.servers] == core_sets(2)
    pool.start()
    try:
        yield pool
    finally:
        pool.stop()
    ports = [s.port for s in [*pool.servers, pool.router]]
    assert not any(port_is_open("127.0.0.1", p) for p in ports if p)


@pytest.mark.vllm
def test_two_real_servers_behind_the_router_say_who_answered(pool: JudgePool) -> None:
    rubric = load_rubric()
    # no holistic part (the longest output): which replica answered is the point here, not the scores
    judge = PooledVllmJudge(pool.base_url, timeout=900, max_in_flight=4, holistic=False)
    assert judge.replicas == 2 and judge.model == pool.servers[0].served_model_name
    with ThreadPoolExecutor(len(ANSWERS)) as ex:
        ras = list(
            ex.map(
                lambda a: assess_answer(rubric, "concepts", a, "en", judge=judge, info=judge.info(rubric)),
                ANSWERS,
            )
        )
    names = {u.removeprefix("http://") for u in pool.replica_urls}
    for ra in ras:
        assert ra.judge is not None
        if ra.judge.fallback:  # the small model may fail a part; then no replica is recorded
            continue
        assert ra.judge.replicas and set(ra.judge.replicas) <= names, ra.judge
        assert len(set(ra.judge.replicas)) == 1  # a round's parts on one replica
    assert any(ra.judge is not None and ra.judge.replicas for ra in ras)
    assert set(judge._served.values()) <= names


class KillingJudge(VllmJudge):
    """The real client; once armed, the next request starts a timer that kills the server mid-request."""

    def __init__(self, *args: Any, kill: Any, delay: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kill = kill
        self.delay = delay
        self.armed = False
        self.killed_at: float | None = None

    def _ask(self, body: dict[str, Any], model: type[BaseModel], part: Part) -> dict[str, Any]:
        if self.armed:
            self.armed = False

            def fire() -> None:
                self.killed_at = time.monotonic()
                self.kill()

            threading.Timer(self.delay, fire).start()
        return super()._ask(body, model, part)


def _reports(outcomes: list[Outcome]) -> list[Report]:
    assert [o.error for o in outcomes] == [None] * len(EXAMPLES)
    reports = [o.report for o in outcomes]
    assert all(r is not None for r in reports)
    return [r for r in reports if r is not None]


@pytest.mark.vllm
def test_a_judge_server_killed_mid_batch_the_rest_falls_back_and_the_batch_completes(pool: JudgePool) -> None:
    """Runs after the router test (it kills one of the pool's servers); graded straight against that server."""
    rubric = load_rubric()
    server = pool.servers[1]
    pid = server.pid
    assert pid is not None

    def kill() -> None:
        os.killpg(os.getpgid(pid), signal.SIGKILL)  # a crash: no graceful shutdown

    judge = KillingJudge(server.base_url, kill=kill, delay=2.0, timeout=900, max_in_flight=4, holistic=False)
    # no holistic part: the first transcript only has to finish before the kill
    info = judge.info(rubric)
    done: list[Outcome] = []

    def on_done(o: Outcome) -> None:
        done.append(o)
        if len(done) == 1:
            judge.armed = True  # the first transcript is graded: kill during the next request

    t0 = time.monotonic()
    outcomes = grade_files(
        rubric, EXAMPLES, judge=judge, info=info, on_done=on_done, concurrency=1, replay=grade_with_graph
    )
    elapsed = time.monotonic() - t0
    reports = _reports(outcomes)
    assert judge.killed_at is not None
    after_kill = time.monotonic() - judge.killed_at

    first, rest = reports[0], reports[1:]
    assert first.id == "t-001"
    assert not first.judge.fallback
    assert all(r.judge is not None and not r.judge.fallback for r in first.rounds)
    assert all("judge_fallback" not in r.flags for r in first.rounds)
    # the first round after the kill was in flight when the server died (not refused at connect)
    in_flight = rest[0].rounds[0].judge
    assert in_flight is not None and in_flight.fallback_reason is not None
    assert "ConnectError" not in in_flight.fallback_reason, in_flight.fallback_reason
    n = 0
    for rep in rest:
        assert rep.judge.kind == "vllm" and rep.judge.fallback
        for rnd in rep.rounds:
            n += 1
            assert rnd.judge is not None and rnd.judge.fallback
            assert "judge_fallback" in rnd.flags
            assert rnd.judge.fallback_reason is not None and "judge unreachable" in rnd.judge.fallback_reason
            assert set(rnd.scores) == set(DIMENSIONS)
    assert n == 7
    assert after_kill < 60, f"the rounds after the kill took {after_kill:.0f} s"
    print(
        f"\nbatch {elapsed:.0f} s; after the kill {after_kill:.1f} s for {n} rounds; in flight: {in_flight.fallback_reason}"
    )
