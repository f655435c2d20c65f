"""`python -m agent.judge.runtime`: start the local vLLM judge, print its URL, stay in the foreground.

    python -m agent.judge.runtime --judge-only [--port P] [--gpu] [--model DIR] [--replicas N]
                                  [--host ADDR] [--replica-id ID]

prepares the venv and the model, starts the server, prints `JUDGE_BASE_URL=http://127.0.0.1:P/v1` and
`JUDGE_MODEL=<served name>` on their own lines and stays until SIGINT/SIGTERM or until its parent
process ends (serve.sh killed, even with SIGKILL), then stops the server (serve.sh and `interview
judge` call this).

With `--replicas N` (N > 1) it starts N servers and vllm-router in front of them (`pool.py`): the
URL printed is the router's (on `--port`), followed by `JUDGE_REPLICAS=N`, `JUDGE_REPLICA_URLS=…`
(comma-separated) and `JUDGE_ROUTER_METRICS=…`. A replica that exits is reported and the pool goes
on with the others; it stops when the router exits or no replica is left.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from agent.judge.runtime.errors import RuntimeSetupError, log
from agent.judge.runtime.pool import JudgePool, mark_replica, prepare_pool
from agent.judge.runtime.server import DEFAULT_READY_TIMEOUT_S, JudgeServer, prepare_judge
from agent.judge.runtime.watchdog import die_with_parent


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent.judge.runtime",
        description="Start the local vLLM judge, print JUDGE_BASE_URL=..., stay in the foreground.",
    )
    parser.add_argument("--judge-only", action="store_true", help="start only the judge server (default)")
    parser.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    parser.add_argument(
        "--model", type=Path, default=None, help="model folder (default: JUDGE_MODEL or SmolLM2)"
    )
    parser.add_argument("--served-model-name", default=None)
    parser.add_argument("--gpu", action="store_true", help="`vllm serve` from a `pip install vllm` venv")
    parser.add_argument("--ready-timeout", type=float, default=DEFAULT_READY_TIMEOUT_S)
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address the server binds (a container: 0.0.0.0; default 127.0.0.1)",
    )
    parser.add_argument(
        "--replica-id",
        default=None,
        help="mark every response x-judge-replica: ID (one server of a pool behind a router, e.g. deploy/)",
    )
    parser.add_argument(
        "--replicas", type=int, default=1, help="N > 1: N servers behind vllm-router (its URL is printed)"
    )
    parser.add_argument(
        "--prepare-only",
        action="store_true",
        help="build the venv(s) and the model, then exit without starting a server (before going offline, "
        "or beside other work: a later start waits for a build in progress)",
    )
    args = parser.parse_args(argv)
    if args.replicas < 1:
        parser.error("--replicas must be at least 1")
    if args.prepare_only:
        return _prepare_main(args)
    if args.replicas > 1:
        return _pool_main(args)

    stop_event, serving = _stop_on_signals()
    server: JudgeServer | None = None
    try:
        server = prepare_judge(
            model_dir=args.model,
            gpu=args.gpu,
            port=args.port,
            served_model_name=args.served_model_name,
            ready_timeout=args.ready_timeout,
        )
        server.host = args.host
        if args.replica_id:
            server = mark_replica(server, args.replica_id)
        server.start()
        if not _serving(server, stop_event, serving):
            return 0
        while not stop_event.wait(1.0):
            if not server.running():
                log("vLLM exited on its own\n" + server.log_tail())
                return 1
        log("stopping vLLM judge")
        return 0
    except RuntimeSetupError as exc:
        log(f"error: {exc}")
        return 1
    except KeyboardInterrupt:
        log("interrupted before the judge was ready")
        return 130
    finally:
        if server is not None:
            server.stop()


def _stop_on_signals() -> tuple[threading.Event, threading.Event]:
    """(stop, serving), for `main` and `_pool_main`: SIGINT and SIGTERM set stop; the first while serving is
    not yet set (still preparing or starting) also raises KeyboardInterrupt, so `start()` stops a
    half-started server; a second signal while stopping is ignored: stop() must finish. A killed parent
    (serve.sh) takes the judge down too."""
    stop_event = threading.Event()
    serving = threading.Event()

    def _on_signal(signum: int, _frame: FrameType | None) -> None:
        first = not stop_event.is_set()
        stop_event.set()
        if first and not serving.is_set():
            raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    die_with_parent()
    return stop_event, serving


def _serving(
    judge: JudgeServer | JudgePool, stop_event: threading.Event, serving: threading.Event, more: str = ""
) -> bool:
    """`judge` has started: serving is set; False when a stop came meanwhile, else its vLLM version is
    logged (`more` after it) and the two lines serve.sh reads are printed (JUDGE_BASE_URL, JUDGE_MODEL)."""
    serving.set()
    if stop_event.is_set():
        return False
    with contextlib.suppress(Exception):
        log(f"vLLM version {judge.version()}, model {judge.served_model_name}{more}")
    print(f"JUDGE_BASE_URL={judge.base_url}", flush=True)
    print(f"JUDGE_MODEL={judge.served_model_name}", flush=True)
    return True


def _prepare_main(args: argparse.Namespace) -> int:
    """`--prepare-only`: what a start would build (venvs, model), built; nothing started."""
    die_with_parent()  # a killed caller (test.sh) takes the build down; a half-built venv is rebuilt later
    try:
        if args.replicas > 1:
            pool = prepare_pool(
                args.replicas, model_dir=args.model, gpu=args.gpu, served_model_name=args.served_model_name
            )
            server = pool.servers[0]
        else:
            server = prepare_judge(
                model_dir=args.model, gpu=args.gpu, served_model_name=args.served_model_name
            )
    except RuntimeSetupError as exc:
        log(f"error: {exc}")
        return 1
    log(f"prepared: {server.python} serves {server.model_dir} as {server.served_model_name}")
    return 0


def _pool_main(args: argparse.Namespace) -> int:
    """`--replicas N`: N servers and the router, as `main` does for one server."""
    stop_event, serving = _stop_on_signals()
    pool: JudgePool | None = None
    try:
        pool = prepare_pool(
            args.replicas,
            model_dir=args.model,
            gpu=args.gpu,
            port=args.port,
            served_model_name=args.served_model_name,
            ready_timeout=args.ready_timeout,
        )
        pool.start()
        if not _serving(pool, stop_event, serving, f", {args.replicas} replicas"):
            return 0
        print(f"JUDGE_REPLICAS={len(pool.servers)}", flush=True)
        print(f"JUDGE_REPLICA_URLS={','.join(pool.replica_urls)}", flush=True)
        print(f"JUDGE_ROUTER_METRICS={pool.router.metrics_url}", flush=True)
        gone: set[int] = set()
        while not stop_event.wait(1.0):
            for k, server in enumerate(pool.servers):
                if k not in gone and not server.running():
                    gone.add(k)
                    log(f"replica {server.root_url} exited; the pool goes on\n" + server.log_tail(10))
            if not pool.router.running():
                log("vllm-router exited on its own\n" + pool.router.log_tail())
                return 1
            if len(gone) == len(pool.servers):
                log("every replica exited")
                return 1
        log("stopping the judge pool")
        return 0
    except RuntimeSetupError as exc:
        log(f"error: {exc}")
        return 1
    except KeyboardInterrupt:
        log("interrupted before the judge pool was ready")
        return 130
    finally:
        if pool is not None:
            pool.stop()
