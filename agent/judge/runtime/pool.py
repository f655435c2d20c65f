"""A judge pool: N vLLM servers and vllm-router in front of them, on this machine.

    python -m agent.judge.runtime --judge-only --replicas N     (serve.sh --judge cpu --replicas N)

`prepare_pool` builds the venvs (the vLLM one, and `vllm-router` from PyPI in its own) and returns a
`JudgePool`; `start()` starts each vLLM server (one after another, each in its own process group with
its watchdog, as `JudgeServer` does alone), then the router with the servers as its workers.
The grader talks to the router's `/v1` like to one server. What each part does:

- CPU cores: on CPU each replica gets its share of the cores this process may use
  (`VLLM_CPU_OMP_THREADS_BIND`, e.g. 0 and 1 for two replicas on two cores), unless the environment
  sets the binding itself.
- Which replica answered: every server loads `replica_header.py` as ASGI middleware and marks its
  responses `x-judge-replica: 127.0.0.1:PORT`; the router passes worker headers through.
- Routing: vllm-router's `consistent_hash` policy (`JUDGE_ROUTER_POLICY` to change it) on the
  `x-session-id` the grader sends, a hash of the request's messages (`agent/judge/vllm_pool.py`): a
  round's parts (the same messages, another schema) go to one replica, whose prefix cache then holds
  the whole prompt, and different answers spread over the pool. With `cache_aware` instead (measured
  with stand-ins, 20 prompts of 3 parts, 8 at once): at the router's defaults (cache threshold 0.3,
  balance threshold 64 requests) every request went to the first replica, because every judge prompt
  starts with the same long rubric text; with a 0.9 threshold and a balance threshold of 4 the load
  spread but 17 of 20 rounds had their parts split over both replicas. `consistent_hash`: 33 / 27
  requests, no round split.
- A replica that dies: the router's circuit breaker takes it out after `ROUTER_CB_FAILURES` failed
  requests and its health check every `ROUTER_HEALTH_INTERVAL_S` seconds; until then a request sent to
  it fails (HTTP 5xx), and the grader sends it again (`agent/judge/vllm.py`, failover).
- Router metrics (requests per worker, circuit breaker state) on a free loopback port, printed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent import config
from agent.judge.runtime.errors import RuntimeSetupError, log
from agent.judge.runtime.replica_header import ENV as REPLICA_ENV
from agent.judge.runtime.replica_header import MIDDLEWARE, install_middleware
from agent.judge.runtime.server import DEFAULT_READY_TIMEOUT_S, JudgeServer, free_port, prepare_judge
from agent.judge.runtime.venv import ensure_router_venv, pip_env

DEFAULT_POLICY = "consistent_hash"
#: failed requests after which the router stops sending to a worker (its default is 10: with a dead
#: replica that is 10 failed requests the grader has to send again)
ROUTER_CB_FAILURES = 3
#: seconds between the router's health checks of its workers (default 60)
ROUTER_HEALTH_INTERVAL_S = 5
#: the request timeout the router applies (a CPU judge's request may wait minutes in a full batch)
ROUTER_REQUEST_TIMEOUT_S = 1800


def core_sets(replicas: int, cores: Sequence[int] | None = None) -> list[str]:
    """`VLLM_CPU_OMP_THREADS_BIND` for each of `replicas` servers: the cores split into contiguous
    shares (0 and 1 for 2 replicas on 2 cores; 0-1 and 2-3 on 4), one core each when there are more
    replicas than cores (shared round robin)."""
    if replicas < 1:
        raise ValueError("a pool has at least one replica")
    cores = sorted(cores if cores is not None else os.sched_getaffinity(0))
    if not cores:
        raise ValueError("no CPU cores")
    if replicas > len(cores):
        return [str(cores[k % len(cores)]) for k in range(replicas)]
    out = []
    size, extra = divmod(len(cores), replicas)
    start = 0
    for k in range(replicas):
        n = size + (1 if k < extra else 0)
        share = cores[start : start + n]
        start += n
        contiguous = share == list(range(share[0], share[-1] + 1))
        out.append(f"{share[0]}-{share[-1]}" if contiguous and n > 1 else ",".join(map(str, share)))
    return out


@dataclass
class RouterServer(JudgeServer):
    """vllm-router (`python -m vllm_router.launch_router` from its venv) as a `JudgeServer`: same process
    group, watchdog, readiness check (`/health`) and stop. `model_dir` is unused (the workers serve
    the model); `served_model_name` is theirs."""

    worker_urls: Sequence[str] = ()
    policy: str = DEFAULT_POLICY
    metrics_port: int | None = None

    def command(self) -> list[str]:
        if self.port is None:
            raise RuntimeSetupError("no port chosen")
        if not self.worker_urls:
            raise RuntimeSetupError("a router needs at least one worker")
        if self.metrics_port is None:
            self.metrics_port = free_port(self.host)
        return [
            str(self.python),
            "-m",
            "vllm_router.launch_router",
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--worker-urls",
            *self.worker_urls,
            "--policy",
            self.policy,
            "--prometheus-host",
            self.host,
            "--prometheus-port",
            str(self.metrics_port),
            "--cb-failure-threshold",
            str(ROUTER_CB_FAILURES),
            "--health-check-interval-secs",
            str(ROUTER_HEALTH_INTERVAL_S),
            "--request-timeout-secs",
            str(ROUTER_REQUEST_TIMEOUT_S),
            "--log-level",
            "warning",
            *self.extra_args,
        ]

    def environment(self) -> dict[str, str]:
        env = pip_env()
        env.update(self.extra_env)
        return env

    @property
    def metrics_url(self) -> str | None:
        return None if self.metrics_port is None else f"http://{self.host}:{self.metrics_port}/metrics"

    def workers(self) -> list[dict[str, Any]]:
        """The router's view of its workers (`GET /workers`: url, is_healthy, load)."""
        data = self.get_json("/workers")
        return [w for w in data.get("workers", []) if isinstance(w, dict)]


@dataclass
class JudgePool:
    """N judge servers and the router in front of them; `start()` / `stop()` as one."""

    servers: list[JudgeServer]
    router: RouterServer
    _started: bool = field(default=False, init=False, repr=False)

    @property
    def base_url(self) -> str:
        return self.router.base_url

    @property
    def served_model_name(self) -> str:
        return self.servers[0].served_model_name

    @property
    def replica_urls(self) -> list[str]:
        return [s.root_url for s in self.servers]

    def start(self) -> JudgePool:
        try:
            for k, server in enumerate(self.servers):
                log(f"starting replica {k + 1} of {len(self.servers)}")
                server.start()
            self.router.worker_urls = self.replica_urls
            log(f"starting vllm-router ({self.router.policy}) in front of {', '.join(self.replica_urls)}")
            self.router.start()
        except BaseException:
            self.stop(grace=5.0)
            raise
        self._started = True
        return self

    def running(self) -> bool:
        """The router runs and at least one replica does."""
        return self.router.running() and any(s.running() for s in self.servers)

    def stop(self, grace: float = 20.0) -> None:
        with contextlib.suppress(Exception):
            self.router.stop(grace=grace)
        for server in self.servers:
            with contextlib.suppress(Exception):
                server.stop(grace=grace)
        self._started = False

    def version(self) -> str:
        return self.servers[0].version()

    def __enter__(self) -> JudgePool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def mark_replica(server: JudgeServer, replica_id: str, middleware_dir: Path | None = None) -> JudgeServer:
    """`server` marking its responses `x-judge-replica: replica_id` (the middleware on its PYTHONPATH)."""
    folder = install_middleware(middleware_dir or config.cache_dir() / "judge-middleware")
    env = dict(server.extra_env)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(folder), server.extra_env.get("PYTHONPATH")) if x)
    env[REPLICA_ENV] = replica_id
    return dataclasses.replace(
        server, extra_args=(*server.extra_args, "--middleware", MIDDLEWARE), extra_env=env
    )


def pool_of(
    template: JudgeServer,
    replicas: int,
    router_python: Path,
    *,
    port: int | None = None,
    policy: str | None = None,
    middleware_dir: Path | None = None,
    ready_timeout: float | None = None,
) -> JudgePool:
    """`replicas` copies of `template` (each on a free port, marked with `x-judge-replica`, on its share
    of the cores when on CPU) and a router on `port` in front of them. Not started."""
    if replicas < 1:
        raise RuntimeSetupError("--replicas must be at least 1")
    binds = core_sets(replicas) if not template.gpu and "VLLM_CPU_OMP_THREADS_BIND" not in os.environ else []
    servers = []
    for k in range(replicas):
        p = free_port(template.host)
        env = dict(template.extra_env)
        if binds:
            env["VLLM_CPU_OMP_THREADS_BIND"] = binds[k]
        server = dataclasses.replace(
            template,
            port=p,
            log_path=None if template.log_path is None else template.log_path.with_name(f"replica-{p}.log"),
            extra_env=env,
        )
        servers.append(mark_replica(server, f"{template.host}:{p}", middleware_dir))
    router = RouterServer(
        python=router_python,
        model_dir=template.model_dir,
        served_model_name=template.served_model_name,
        host=template.host,
        port=port,
        ready_timeout=ready_timeout or template.ready_timeout,
        policy=policy or os.environ.get("JUDGE_ROUTER_POLICY") or DEFAULT_POLICY,
    )
    return JudgePool(servers, router_log(router))


def router_log(router: RouterServer) -> RouterServer:
    """The router's log file is named after it (`vllm-router-PORT.log`), not `vllm-judge-…`."""
    if router.log_path is None:
        if router.port is None:
            router.port = free_port(router.host)
        router.log_path = config.data_dir() / "logs" / f"vllm-router-{router.port}.log"
    return router


def prepare_pool(
    replicas: int,
    cache: Path | None = None,
    *,
    model_dir: Path | None = None,
    gpu: bool = False,
    port: int | None = None,
    served_model_name: str | None = None,
    ready_timeout: float = DEFAULT_READY_TIMEOUT_S,
    policy: str | None = None,
) -> JudgePool:
    """The venvs, the model and a `JudgePool` of `replicas` servers behind vllm-router (not started)."""
    cache = cache or config.cache_dir()
    template = prepare_judge(
        cache, model_dir=model_dir, gpu=gpu, served_model_name=served_model_name, ready_timeout=ready_timeout
    )
    router_python = ensure_router_venv(cache)
    return pool_of(template, replicas, router_python, port=port, policy=policy)
