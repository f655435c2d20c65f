"""The vLLM judge in front of a pool: several servers behind vllm-router (`JUDGE_BASE_URL` = the router).

`PooledVllmJudge` is `VllmJudge` (agent/judge/vllm.py) with three additions, and is the same judge when
the URL is one server:

- **The pool kept full.** The number of replicas is `JUDGE_REPLICAS`, else what the router says at
  `GET /workers` (vllm-router lists its workers there), else 1. Requests in flight are per replica:
  `set_in_flight(n)` allows n × replicas at once, so a batch keeps every server's batch full.
- **A replica that dies mid-batch.** While the router still sends to a dead worker (until its circuit
  breaker opens or its health check notices, `agent/judge/runtime/pool.py`), a request comes back as
  HTTP 500/502/503/504 or the connection drops. With more than one replica the request is sent
  again (up to 2 × replicas times, waiting 0.5 s, 1 s, 2 s … at most 8 s), and the router gives it
  to a live replica: nothing is lost and the batch finishes. These resends come before, and do not
  count against, the judge's own retry for a bad answer. A timeout is not resent this way (a slow
  server in a full batch is not a dead one). With one server nothing changes.
- **Which replica answered.** A server started by the pool marks each response `x-judge-replica:
  host:port` (`agent/judge/runtime/replica_header.py`) and the router passes the header through.
  `fill` returns a `PooledFill` whose `served_by` lists the replica of each part, in part order; an
  answer shared from an identical request names the replica that answered it. A pool whose servers
  do not send the header (another deployment's) leaves `served_by` empty: the provenance then has
  the router's address (`endpoint`) and the served model id, not the replica.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import httpx
from pydantic import BaseModel, Field

from agent.judge.base import Fill
from agent.judge.matching import Sentence
from agent.judge.parts import Part, model_view
from agent.judge.vllm import MEMO_SIZE, VllmJudge
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId

REPLICA_HEADER = "x-judge-replica"
#: what a router answers when the worker it chose failed (and what a worker says when it is going away)
FAILOVER_STATUS = frozenset({500, 502, 503, 504})
#: connection failures that mean the server went away, not that it is slow
FAILOVER_ERRORS: tuple[type[Exception], ...] = (
    httpx.ConnectError,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
)
#: the router's session key (consistent_hash policy): the same prompt, the same replica
SESSION_HEADER = "x-session-id"
BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0


def replicas_from_env() -> int | None:
    """`JUDGE_REPLICAS` as a whole number ≥ 1, or None when unset; anything else is refused."""
    raw = os.environ.get("JUDGE_REPLICAS", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"JUDGE_REPLICAS={raw!r} must be a whole number ≥ 1")
    return int(raw)


def discover_replicas(http: httpx.Client, root_url: str) -> int:
    """How many servers answer behind `root_url`: `JUDGE_REPLICAS`, else the router's healthy workers
    (`GET /workers`), else 1 (a single vLLM server has no such endpoint)."""
    env = replicas_from_env()
    if env is not None:
        return env
    try:
        r = http.get(f"{root_url}/workers", timeout=5.0)
        if r.status_code != 200:
            return 1
        workers = r.json().get("workers")
    except (httpx.HTTPError, ValueError, AttributeError):
        return 1
    if not isinstance(workers, list):
        return 1
    healthy = [w for w in workers if isinstance(w, dict) and w.get("is_healthy", True)]
    return max(1, len(healthy))


def prompt_session(content: bytes) -> str | None:
    """A chat request's session key for the router: a hash of its messages, so a round's parts (the
    same messages, another schema) go to one replica and its prefix cache, and different answers
    spread over the pool. None when the body is not a chat request."""
    try:
        messages = json.loads(content).get("messages")
    except (ValueError, AttributeError):
        return None
    if not messages:
        return None
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]


class FailoverTransport(httpx.BaseTransport):
    """Sends a request again when the server behind a router went away (see the module docstring), and
    keeps, per thread, the `x-judge-replica` of the last response (`last_replica()`)."""

    def __init__(
        self,
        inner: httpx.BaseTransport,
        failovers: int,
        *,
        backoff: float = BACKOFF_S,
        max_backoff: float = MAX_BACKOFF_S,
        on_failover: Callable[[str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.inner = inner
        self.failovers = failovers
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.on_failover = on_failover
        self.sleep = sleep
        self._local = threading.local()

    def last_replica(self) -> str | None:
        return getattr(self._local, "replica", None)

    def _wait(self, attempt: int, why: str) -> None:
        if self.on_failover is not None:
            self.on_failover(why)
        self.sleep(min(self.max_backoff, self.backoff * 2**attempt))

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._local.replica = None
        if request.method == "POST" and SESSION_HEADER not in request.headers:
            session = prompt_session(request.content)
            if session:
                request.headers[SESSION_HEADER] = session
        attempt = 0
        while True:
            try:
                response = self.inner.handle_request(request)
            except FAILOVER_ERRORS as e:
                if attempt >= self.failovers:
                    raise
                self._wait(attempt, f"{type(e).__name__}")
                attempt += 1
                continue
            if response.status_code in FAILOVER_STATUS and attempt < self.failovers:
                response.read()
                response.close()
                self._wait(attempt, f"HTTP {response.status_code}")
                attempt += 1
                continue
            self._local.replica = response.headers.get(REPLICA_HEADER) or None
            return response

    def close(self) -> None:
        self.inner.close()


class PooledFill(Fill):
    """A judge's fill with the replica that answered each part (empty when the servers do not say)."""

    served_by: list[str] = Field(default_factory=list)


class PooledVllmJudge(VllmJudge):
    """`VllmJudge` for a router in front of several servers (also right for one server)."""

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        replicas: int | None = None,
        max_in_flight: int = 1,
        timeout: float = 300.0,
        api_key: str = "EMPTY",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            base_url, model, timeout=timeout, api_key=api_key, max_in_flight=max_in_flight, **kwargs
        )
        self.replicas = replicas or discover_replicas(self._http, self.root_url)
        self.failovers = 2 * self.replicas if self.replicas > 1 else 0
        self.transport = FailoverTransport(
            httpx.HTTPTransport(), self.failovers, on_failover=lambda _why: self._count("failover")
        )
        self._http.close()
        self._http = httpx.Client(
            timeout=timeout, headers={"Authorization": f"Bearer {api_key}"}, transport=self.transport
        )
        #: request hash -> the replica that answered it (for answers shared from an identical request)
        self._served: OrderedDict[str, str] = OrderedDict()
        self._served_lock = threading.Lock()
        self.in_flight.set_limit(max_in_flight * self.replicas)

    def set_in_flight(self, n: int) -> None:
        """At most `n` requests at once at each replica: n × replicas from this judge."""
        super().set_in_flight(n * self.replicas)

    @property
    def per_replica_in_flight(self) -> int:
        return max(1, self.max_in_flight // self.replicas)

    def _ask(self, body: dict[str, Any], model: type[BaseModel], part: Part) -> dict[str, Any]:
        out = super()._ask(body, model, part)
        replica = self.transport.last_replica()
        if replica:
            with self._served_lock:
                self._served[_key(body)] = replica
                while len(self._served) > MEMO_SIZE:
                    self._served.popitem(last=False)
        return out

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Any,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill:
        base = super().fill(rubric, round_id, answer, lang, checks, sents, snippets)
        bodies = self.request_bodies(rubric, round_id, model_view(answer, sents), checks, snippets)
        with self._served_lock:
            served = [self._served.get(_key(body)) for _, body in bodies]
        if not any(served):
            return base
        return PooledFill(
            items=base.items,
            strong=base.strong,
            weak=base.weak,
            holistic=base.holistic,
            served_by=[s or "?" for s in served],
        )


def _key(body: dict[str, Any]) -> str:
    """The same hash `VllmJudge` uses for identical requests."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def served_by(fill: Fill) -> list[str]:
    """The replicas that answered a fill's parts (empty for other judges and unmarked servers)."""
    return list(fill.served_by) if isinstance(fill, PooledFill) else []
