"""A stand-in for the vLLM server, started through the judge runtime's own code path.

`fake_vllm(folder)` writes a package `vllm.entrypoints.openai.api_server` into `folder`; with that
folder on PYTHONPATH (`JudgeServer(extra_env=...)`), `JudgeServer.start()` runs its usual command with
this venv's python and gets a tiny stdlib HTTP server that answers `/health` and `/version` on the
`--host`/`--port` it is given, and dies on SIGTERM like any Python program. No vLLM, no model.

Run as a module it plays the processes around the server, for the tests that kill them:

    python -m tests.judge.standin_server parent FOLDER   # a JudgeServer owner: start, print JSON, sleep
    python -m tests.judge.standin_server cli FOLDER      # `python -m agent.judge.runtime --judge-only`
                                                         # with the stand-in in place of prepare_judge
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


def serve(argv: Sequence[str]) -> None:
    """Answer GET /health and /version on --host/--port until killed (other vLLM flags ignored)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args, _ = parser.parse_known_args(argv)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *items: Any) -> None:
            return

        def do_GET(self) -> None:
            body = json.dumps({"version": "standin"} if self.path == "/version" else {}).encode()
            self.send_response(200 if self.path in ("/health", "/version") else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

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


if __name__ == "__main__":
    mode, where = sys.argv[1], Path(sys.argv[2])
    if mode == "parent":
        _parent(where)
    elif mode == "cli":
        sys.exit(_cli(where))
    else:
        sys.exit(f"unknown mode {mode!r}")
