"""A stand-in for the vLLM server, started through the judge runtime's own code path.

`fake_vllm(folder)` writes a package `vllm.entrypoints.openai.api_server` into `folder`; with that
folder on PYTHONPATH (`JudgeServer(extra_env=...)`), `JudgeServer.start()` runs its usual command with
this venv's python and gets a tiny stdlib HTTP server that answers `/health` and `/version` on the
`--host`/`--port` it is given, and dies on SIGTERM like any Python program. No vLLM, no model.

It also answers like a judge server, for the pool tests (`test_pool.py`): `GET /v1/models` (served id
`standin`), `POST /v1/chat/completions` with a reply that fits the request's JSON schema (every quote
empty, every score its minimum) after `STANDIN_DELAY_S` seconds (default 0), and `GET /metrics` with
its request count. Given `--middleware interview_replica_header.ReplicaHeader` (as a pool starts its
servers), it marks each response `x-judge-replica: $JUDGE_REPLICA_ID`, as that middleware does in vLLM.

Run as a module it plays the processes around the server, for the tests that kill them:

    python -m tests.judge.standin_server parent FOLDER   # a JudgeServer owner: start, print JSON, sleep
    python -m tests.judge.standin_server cli FOLDER      # `python -m agent.judge.runtime --judge-only`
                                                         # with the stand-in in place of prepare_judge
    python -m tests.judge.standin_server pool-cli FOLDER N   # the same with `--replicas N`: N stand-ins
                                                             # behind the real vllm-router
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SHIM = """import runpy
runpy.run_path({path!r})["serve"](__import__("sys").argv[1:])
"""


def fake_vllm(folder: Path) -> Path:
    """Write the `vllm.entrypoints.openai.api_server` shim into `folder` (for PYTHONPATH); return it."""
    package = folder / "vllm" / "entrypoints" / "openai"
    package.mkdir(parents=True, exist_ok=True)
    for init in (folder / "vllm", folder / "vllm" / "entrypoints", package):
        (init / "__init__.py").write_text("")
    (package / "api_server.py").write_text(SHIM.format(path=str(Path(__file__).resolve())))
    return folder


def valid_reply(schema: dict[str, Any]) -> Any:
    """A reply that fits a part's schema: every quote empty, every holistic score its minimum."""
    defs = schema.get("$defs", {})

    def build(node: dict[str, Any]) -> Any:
        if "$ref" in node:
            return build(defs[node["$ref"].rsplit("/", 1)[-1]])
        if node.get("type") == "object":
            return {k: build(v) for k, v in node["properties"].items()}
        if node.get("type") == "integer":
            return node.get("minimum", 1)
        return ""

    return build(schema)


def serve(argv: Sequence[str]) -> None:
    """Answer on --host/--port until killed (other vLLM flags ignored): see the module docstring."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--middleware", action="append", default=[])
    args, _ = parser.parse_known_args(argv)
    replica = (
        os.environ.get("JUDGE_REPLICA_ID", "") if any("ReplicaHeader" in m for m in args.middleware) else ""
    )
    delay = float(os.environ.get("STANDIN_DELAY_S", "0") or 0)
    served = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *items: Any) -> None:
            return

        def _send(self, code: int, payload: Any, content_type: str = "application/json") -> None:
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if replica:
                self.send_header("x-judge-replica", replica)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path == "/version":
                self._send(200, {"version": "standin"})
            elif self.path == "/health":
                self._send(200, {})
            elif self.path == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": "standin", "max_model_len": 4096}]})
            elif self.path == "/metrics":
                self._send(200, f"standin_requests_total {served['n']}\n".encode(), "text/plain")
            else:
                self._send(404, {})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if self.path != "/v1/chat/completions":
                self._send(404, {})
                return
            time.sleep(delay)
            served["n"] += 1
            schema = body["response_format"]["json_schema"]["schema"]
            message = {"role": "assistant", "content": json.dumps(valid_reply(schema))}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            usage = {"prompt_tokens": 2000, "completion_tokens": 100}
            self._send(
                200, {"id": f"chatcmpl-{args.port}", "model": "standin", "choices": [choice], "usage": usage}
            )

    print(f"stand-in vLLM on {args.host}:{args.port}, pid {os.getpid()}", flush=True)
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


def standin_judge(folder: Path) -> Any:
    """A `JudgeServer` (not started) whose command runs the stand-in from `folder`."""
    from agent.judge.runtime import JudgeServer

    fake_vllm(folder)
    return JudgeServer(
        python=Path(sys.executable),
        model_dir=folder,
        log_path=folder / "standin.log",
        ready_timeout=60,
        extra_env={"PYTHONPATH": str(folder)},
    )


def _parent(folder: Path) -> None:
    server = standin_judge(folder).start()
    print(json.dumps({"pid": server.pid, "pgid": os.getpgid(server.pid), "port": server.port}), flush=True)
    while True:
        time.sleep(60)


def _cli(folder: Path) -> int:
    from agent.judge.runtime import cli

    cli.prepare_judge = lambda **_: standin_judge(folder)  # type: ignore[assignment]
    return cli.main(["--judge-only"])


def _pool_cli(folder: Path, replicas: int) -> int:
    from agent import config
    from agent.judge.runtime import cli
    from agent.judge.runtime.pool import pool_of
    from agent.judge.runtime.venv import ensure_router_venv

    def prepare(n: int, **_: Any) -> Any:
        return pool_of(
            standin_judge(folder), n, ensure_router_venv(config.cache_dir()), middleware_dir=folder / "mw"
        )

    cli.prepare_pool = prepare  # type: ignore[assignment]
    return cli.main(["--judge-only", "--replicas", str(replicas)])


if __name__ == "__main__":
    mode, where = sys.argv[1], Path(sys.argv[2])
    if mode == "parent":
        _parent(where)
    elif mode == "cli":
        sys.exit(_cli(where))
    elif mode == "pool-cli":
        sys.exit(_pool_cli(where, int(sys.argv[3])))
    else:
        sys.exit(f"unknown mode {mode!r}")
