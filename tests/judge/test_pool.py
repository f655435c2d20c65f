"""The judge pool: N judge servers behind the real vllm-router, and the grader in front of it.

Stand-in servers (`standin_server.py`, started through `JudgePool` like real vLLM servers: own process
group, watchdog, `/health`) answer every part with a valid reply after STANDIN_DELAY_S; the router is
the real one from PyPI (`vllm-router`, its venv built once under the cache like the vLLM one). The
grader's own logic is tested without the router too: resends on a gone server (`FailoverTransport`
over httpx's mock transport) and the replica count it discovers. A real-vLLM pool is in
`test_pool_vllm.py` (marked `vllm`).
"""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent import config
from agent.judge.assessment import assess_answer
from agent.judge.factory import make_judge, replicas_of, set_in_flight
from agent.judge.runtime.pool import JudgePool, core_sets, pool_of
from agent.judge.runtime.replica_header import HEADER, ReplicaHeader, install_middleware
from agent.judge.runtime.server import port_is_open
from agent.judge.runtime.venv import ensure_router_venv
from agent.judge.vllm_pool import (
    SESSION_HEADER,
    FailoverTransport,
    PooledVllmJudge,
    discover_replicas,
    prompt_session,
    served_by,
)
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from tests.judge.standin_server import standin_judge

REPO = Path(__file__).resolve().parents[2]
ROUND = "system-design"
#: a stand-in holds each request this long, so a batch has requests in flight when a replica is killed
HOLD_S = 1.0


def _answers(n: int) -> list[str]:
    return [
        f"Answer {k}: paged KV maps tokens to blocks of {k + 8} tokens; the scheduler admits "
        f"requests under a budget of {512 * (k + 1)} tokens and preempts the newest first."
        for k in range(n)
    ]


# --------------------------------------------------------------------------- without the router


def test_core_sets_split_the_cores_between_replicas() -> None:
    assert core_sets(2, [0, 1]) == ["0", "1"]
    assert core_sets(2, [0, 1, 2, 3]) == ["0-1", "2-3"]
    assert core_sets(3, [0, 1, 2, 3]) == ["0-1", "2", "3"]
    assert core_sets(3, [0, 1]) == ["0", "1", "0"]  # more replicas than cores: shared, one each
    assert core_sets(1, [0, 2]) == ["0,2"]
    with pytest.raises(ValueError):
        core_sets(0, [0])


def test_the_middleware_marks_every_http_response(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGE_REPLICA_ID", "127.0.0.1:9001")
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"x")]})
        await send({"type": "http.response.body", "body": b"{}"})

    async def send(message: Any) -> None:
        sent.append(dict(message))

    async def receive() -> Any:
        return {"type": "http.request"}

    asyncio.run(ReplicaHeader(app)({"type": "http"}, receive, send))
    assert (HEADER.encode(), b"127.0.0.1:9001") in sent[0]["headers"]
    assert (b"content-type", b"x") in sent[0]["headers"]
    # the copy a vLLM server imports is this file
    folder = install_middleware(tmp_path / "mw")
    assert (folder / "interview_replica_header.py").read_text() == Path(__file__).parents[2].joinpath(
        "agent/judge/runtime/replica_header.py"
    ).read_text()


def _mock(replies: list[Any]) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item  # type: ignore[no-any-return]

    return httpx.MockTransport(handler), seen


def test_a_gone_replica_is_resent_until_a_live_one_answers() -> None:
    ok = httpx.Response(200, json={"ok": 1}, headers={HEADER: "127.0.0.1:2"})
    inner, seen = _mock([httpx.ConnectError("refused"), httpx.Response(502), httpx.Response(500), ok])
    waits: list[float] = []
    tr = FailoverTransport(inner, failovers=4, sleep=waits.append)
    r = httpx.Client(transport=tr).post("http://router/v1/chat/completions", json={"messages": [{"a": 1}]})
    assert r.status_code == 200 and r.json() == {"ok": 1}
    assert len(seen) == 4
    assert waits == [0.5, 1.0, 2.0]
    assert tr.last_replica() == "127.0.0.1:2"
    # every resend is the same request, with the session key of its messages
    assert {s.content for s in seen} == {seen[0].content}
    assert {s.headers[SESSION_HEADER] for s in seen} == {prompt_session(seen[0].content)}


def test_resends_are_bounded_and_one_server_gets_none() -> None:
    inner, seen = _mock([httpx.Response(503)] * 3)
    r = httpx.Client(transport=FailoverTransport(inner, failovers=2, sleep=lambda _s: None)).post(
        "http://router/v1/chat/completions", json={}
    )
    assert r.status_code == 503 and len(seen) == 3
    inner, seen = _mock([httpx.Response(500)])
    r = httpx.Client(transport=FailoverTransport(inner, failovers=0)).post("http://one/v1/x", json={})
    assert r.status_code == 500 and len(seen) == 1  # one server: the judge's own retry decides
    inner, seen = _mock([httpx.ReadTimeout("slow")])
    with pytest.raises(httpx.ReadTimeout):  # slow is not gone: never resent here
        httpx.Client(transport=FailoverTransport(inner, failovers=3)).post("http://r/v1/x", json={})
    assert len(seen) == 1


def test_a_rounds_parts_share_one_session_key_and_answers_do_not() -> None:
    msgs = {"messages": [{"role": "user", "content": "answer A"}]}
    a1 = httpx.Request("POST", "http://r", json={**msgs, "response_format": {"name": "part 1"}}).content
    a2 = httpx.Request("POST", "http://r", json={**msgs, "response_format": {"name": "part 2"}}).content
    b = httpx.Request(
        "POST", "http://r", json={"messages": [{"role": "user", "content": "answer B"}]}
    ).content
    assert prompt_session(a1) == prompt_session(a2) != prompt_session(b)
    assert prompt_session(b"not json") is None and prompt_session(b"{}") is None


def test_replicas_come_from_the_environment_or_the_routers_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    workers = {"workers": [{"url": "a", "is_healthy": True}, {"url": "b", "is_healthy": True}, {"url": "c"}]}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/workers" and request.url.host == "router":
            return httpx.Response(200, json=workers)
        return httpx.Response(404)

    http = httpx.Client(transport=httpx.MockTransport(handler))
    monkeypatch.delenv("JUDGE_REPLICAS", raising=False)
    assert discover_replicas(http, "http://router") == 3
    assert discover_replicas(http, "http://single-vllm") == 1
    monkeypatch.setenv("JUDGE_REPLICAS", "5")
    assert discover_replicas(http, "http://router") == 5
    monkeypatch.setenv("JUDGE_REPLICAS", "two")
    with pytest.raises(ValueError):
        discover_replicas(http, "http://router")


# --------------------------------------------------------------------------- behind the real router


@pytest.fixture(scope="module")
def router_python() -> Path:
    return ensure_router_venv(config.cache_dir())  # honours INTERVIEW_CACHE_DIR; built once


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


@pytest.fixture()
def standin_pool(router_python: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[JudgePool]:
    monkeypatch.setenv("INTERVIEW_CACHE_DIR", str(config.cache_dir()))
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STANDIN_DELAY_S", str(HOLD_S))
    monkeypatch.delenv("JUDGE_REPLICAS", raising=False)
    monkeypatch.delenv("JUDGE_ROUTER_POLICY", raising=False)
    pool = pool_of(standin_judge(tmp_path / "standin"), 2, router_python, middleware_dir=tmp_path / "mw")
    pool.start()
    try:
        yield pool
    finally:
        pool.stop()
        ports = [s.port for s in [*pool.servers, pool.router]]
        assert not any(port_is_open("127.0.0.1", p) for p in ports if p), "a pool process still listens"


def test_the_pool_keeps_both_replicas_busy_and_says_who_answered(
    standin_pool: JudgePool, rubric: Rubric
) -> None:
    judge = PooledVllmJudge(standin_pool.base_url, timeout=30)
    assert judge.replicas == 2  # from the router's /workers
    judge.set_in_flight(2)
    assert judge.max_in_flight == 4 and judge.per_replica_in_flight == 2
    names = {u.removeprefix("http://") for u in standin_pool.replica_urls}
    with ThreadPoolExecutor(4) as pool:
        ras = list(
            pool.map(
                lambda a: assess_answer(rubric, ROUND, a, "en", judge=judge, info=judge.info(rubric)),
                _answers(8),
            )
        )
    assert all(ra.judge is not None and not ra.judge.fallback for ra in ras)
    # the report's provenance names the server of each part
    for ra in ras:
        assert ra.judge is not None and ra.judge.replicas and set(ra.judge.replicas) <= names, ra.judge
        assert ra.judge.endpoint == standin_pool.base_url.removeprefix("http://").removesuffix("/v1")
        assert "replicas" in ra.model_dump(mode="json")["judge"]
    counts = collections.Counter(judge._served.values())
    # both replicas answer: the router places each answer's session key on its hash ring, whose split between
    # two workers on random ports can be lopsided (52 of 60 requests on one in bench/judge_pool_bench.py), so
    # a few more distinct answers are sent until the other replica has answered too (at most 48 more)
    extra = _answers(56)[8:]
    while set(counts) != names and extra:
        batch, extra = extra[:8], extra[8:]
        with ThreadPoolExecutor(4) as pool:
            list(
                pool.map(
                    lambda a: assess_answer(rubric, ROUND, a, "en", judge=judge, info=judge.info(rubric)),
                    batch,
                )
            )
        counts = collections.Counter(judge._served.values())
    assert set(counts) == names, counts
    # a round's parts went to one replica (the router hashes the session key of its messages)
    for answer in _answers(8):
        fill = judge.fill(rubric, ROUND, answer, "en", *_checks(rubric, answer))
        assert len(set(served_by(fill))) == 1 and set(served_by(fill)) <= names
    assert judge.stats["valid"] == judge.stats["requests"]


def _checks(rubric: Rubric, answer: str) -> tuple[Any, Any]:
    """The checks and sentences `assess_answer` would give the judge for `answer`."""
    from agent.judge.checks import run_checks
    from agent.judge.matching import sentences

    sents = list(sentences(answer))
    return run_checks(ROUND, answer, rubric.lexicon, sents=sents), sents


def test_make_judge_gives_the_pooled_judge(standin_pool: JudgePool, rubric: Rubric) -> None:
    judge, info, note = make_judge("vllm", rubric, base_url=standin_pool.base_url)
    assert note is None and info.kind == "vllm" and info.model == "standin"
    assert isinstance(judge, PooledVllmJudge) and replicas_of(judge) == 2
    set_in_flight(judge, 3)
    assert judge.max_in_flight == 6
    assert "replicas" not in info.model_dump(mode="json")  # a report-level provenance stays as it was


def test_a_replica_killed_mid_batch_loses_nothing(standin_pool: JudgePool, rubric: Rubric) -> None:
    judge = PooledVllmJudge(standin_pool.base_url, timeout=60, max_in_flight=2)
    killed: list[str] = []

    def kill_the_busier() -> None:
        time.sleep(2.5 * HOLD_S)  # a few parts answered, others in flight
        counts = collections.Counter(judge._served.values())
        victim = max(standin_pool.servers, key=lambda s: counts.get(s.root_url.removeprefix("http://"), 0))
        killed.append(victim.root_url.removeprefix("http://"))
        assert victim._pgid is not None
        os.killpg(victim._pgid, signal.SIGKILL)

    killer = threading.Thread(target=kill_the_busier)
    killer.start()
    t0 = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        ras = list(
            pool.map(
                lambda a: assess_answer(rubric, ROUND, a, "en", judge=judge, info=judge.info(rubric)),
                _answers(12),
            )
        )
    killer.join()
    elapsed = time.monotonic() - t0
    assert killed and not any(s.running() for s in standin_pool.servers if s.root_url.endswith(killed[0]))
    # every round graded by the pool, none fell back to the embedded judge
    assert len(ras) == 12
    assert [ra.judge.fallback if ra.judge else None for ra in ras] == [False] * 12, [
        ra.judge.fallback_reason for ra in ras if ra.judge
    ]
    assert judge.stats["valid"] == judge.stats["requests"] - judge.stats["http_error"]
    survivor = ({u.removeprefix("http://") for u in standin_pool.replica_urls} - set(killed)).pop()
    assert collections.Counter(judge._served.values())[survivor] > 0
    assert elapsed < 120, elapsed


# --------------------------------------------------------------------------- the command line


def test_the_runtime_starts_a_pool_prints_it_and_stops_it(
    router_python: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m agent.judge.runtime --judge-only --replicas 2` (stand-ins for vLLM): the router's URL
    and the replicas are printed, the router answers, and SIGTERM stops every process of the pool."""
    env = {
        **os.environ,
        "INTERVIEW_CACHE_DIR": str(config.cache_dir()),
        "INTERVIEW_DATA_DIR": str(tmp_path / "d"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.judge.standin_server", "pool-cli", str(tmp_path / "s"), "2"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: dict[str, str] = {}
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            key, _, value = line.strip().partition("=")
            lines[key] = value
            if key == "JUDGE_ROUTER_METRICS":
                break
        assert lines["JUDGE_REPLICAS"] == "2" and lines["JUDGE_MODEL"]
        replica_urls = lines["JUDGE_REPLICA_URLS"].split(",")
        assert len(replica_urls) == 2
        models = httpx.get(f"{lines['JUDGE_BASE_URL']}/models", timeout=10).json()
        assert models["data"][0]["id"] == "standin"
        assert "vllm_router" in httpx.get(lines["JUDGE_ROUTER_METRICS"], timeout=10).text
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    ports = [httpx.URL(u).port for u in [lines["JUDGE_BASE_URL"], *replica_urls]]
    assert not any(port_is_open("127.0.0.1", p) for p in ports if p), "a pool process outlived the runtime"


def test_serve_sh_refuses_replicas_without_the_cpu_judge() -> None:
    for args in (["--judge", "embedded", "--replicas", "2"], ["--judge", "cpu", "--replicas", "0"]):
        r = subprocess.run(["./serve.sh", *args], cwd=REPO, capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and "--replicas" in r.stderr, r.stderr
