"""An ASGI middleware for a judge server in a pool: every response says which server gave it.

A vLLM server started by `JudgePool` (`pool.py`) loads this with `--middleware
interview_replica_header.ReplicaHeader`: the file is copied as `interview_replica_header.py` into a
folder on the server's PYTHONPATH (`install_middleware`), since the vLLM venv does not have this
package. Each HTTP response then carries `x-judge-replica: <JUDGE_REPLICA_ID>` (the server's
`host:port` unless the environment names it otherwise). vllm-router passes a worker's response
headers through, so the grader behind the router learns which replica answered each request and
records it in the report's provenance (`JudgeInfo.replicas`).

Standard library only: it is imported by the vLLM server's own Python.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

HEADER = "x-judge-replica"
ENV = "JUDGE_REPLICA_ID"
MODULE = "interview_replica_header"
MIDDLEWARE = f"{MODULE}.ReplicaHeader"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class ReplicaHeader:
    """Adds `x-judge-replica` to every HTTP response of the wrapped ASGI app."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app
        self.value = os.environ.get(ENV, "").strip().encode("latin-1", "replace")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or not self.value:
            await self.app(scope, receive, send)
            return

        async def with_header(message: Message) -> None:
            if message.get("type") == "http.response.start":
                headers = list(message.get("headers") or [])
                headers.append((HEADER.encode(), self.value))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_header)


def install_middleware(folder: Path) -> Path:
    """Copy this file into `folder` as `interview_replica_header.py` (when it differs); return `folder`,
    to put on the server's PYTHONPATH."""
    folder.mkdir(parents=True, exist_ok=True)
    text = Path(__file__).read_text(encoding="utf-8")
    target = folder / f"{MODULE}.py"
    try:
        same = target.read_text(encoding="utf-8") == text
    except OSError:
        same = False
    if not same:
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    return folder
