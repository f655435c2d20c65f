"""Two real vLLM CPU servers behind the real vllm-router (marked `vllm`; kept short: a few requests).

What the stand-in tests (`test_pool.py`) cannot show: vLLM loads the replica middleware through its
own `--middleware` flag, each server on its share of the cores answers, and the grader's provenance
names the real server of each part through the router. The pool is stopped at the end and no port
stays open.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from agent import config
from agent.judge.assessment import assess_answer
from agent.judge.runtime import ensure_small_model, ensure_vllm_venv, port_is_open
from agent.judge.runtime.pool import core_sets, pool_of
from agent.judge.runtime.server import JudgeServer, context_length
from agent.judge.runtime.venv import ensure_router_venv
from agent.judge.vllm_pool import PooledVllmJudge
from agent.rubric import load_rubric

ANSWERS = [  # one answer: which replica answered its parts is the point; a second added ~20 s and nothing new
    "Paged KV splits the cache into blocks of 16 tokens; the block table maps each sequence to them.",
]


@pytest.mark.vllm
def test_two_real_servers_behind_the_router_say_who_answered() -> None:
    cache = config.cache_dir()
    python = ensure_vllm_venv(cache)
    model = ensure_small_model(cache, python)
    template = JudgeServer(python=python, model_dir=model, max_model_len=context_length(model))
    pool = pool_of(template, 2, ensure_router_venv(cache))
    if "VLLM_CPU_OMP_THREADS_BIND" not in os.environ:  # else the environment binds the cores itself
        assert [s.extra_env["VLLM_CPU_OMP_THREADS_BIND"] for s in pool.servers] == core_sets(2)
    pool.start()
    try:
        rubric = load_rubric()
        # no holistic part (the longest output): which replica answered is the point here, not the scores
        judge = PooledVllmJudge(pool.base_url, timeout=900, max_in_flight=4, holistic=False)
        assert judge.replicas == 2 and judge.model == template.served_model_name
        with ThreadPoolExecutor(len(ANSWERS)) as ex:
            ras = list(
                ex.map(
                    lambda a: assess_answer(
                        rubric, "concepts", a, "en", judge=judge, info=judge.info(rubric)
                    ),
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
    finally:
        pool.stop()
    ports = [s.port for s in [*pool.servers, pool.router]]
    assert not any(port_is_open("127.0.0.1", p) for p in ports if p)
