"""`python -m agent.judge.runtime`: start the local vLLM judge, print its URL, stay in the foreground.

    python -m agent.judge.runtime --judge-only [--port P] [--gpu] [--model DIR]

prepares the venv and the model, starts the server, prints `JUDGE_BASE_URL=http://127.0.0.1:P/v1` and
`JUDGE_MODEL=<served name>` on their own lines and stays until SIGINT/SIGTERM or until its parent
process ends (serve.sh killed, even with SIGKILL), then stops the server (serve.sh and `interview
judge` call this).
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
    args = parser.parse_args(argv)

    stop_event = threading.Event()
    serving = threading.Event()

    def _on_signal(signum: int, _frame: FrameType | None) -> None:
        first = not stop_event.is_set()
        stop_event.set()  # a second signal while stopping is ignored: stop() must finish
        if first and not serving.is_set():
            # still preparing or starting: unwind, so `start()` stops a half-started server
            raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    die_with_parent()  # a killed serve.sh takes the judge down too

    server: JudgeServer | None = None
    try:
        server = prepare_judge(
            model_dir=args.model,
            gpu=args.gpu,
            port=args.port,
            served_model_name=args.served_model_name,
            ready_timeout=args.ready_timeout,
        )
        server.start()
        serving.set()
        if stop_event.is_set():
            return 0
        with contextlib.suppress(Exception):
            log(f"vLLM version {server.version()}, model {server.served_model_name}")
        print(f"JUDGE_BASE_URL={server.base_url}", flush=True)
        print(f"JUDGE_MODEL={server.served_model_name}", flush=True)
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
