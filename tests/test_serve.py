"""serve.sh stops everything it started when it is told to stop: a supervisor, `docker stop` or systemd
sends SIGTERM to serve.sh alone, and the app (and the judge, when there is one) must not outlive it
holding its port. serve.sh used to run the app in the foreground, and bash runs a trap only once the
foreground child exits, so SIGTERM left both running."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agent.config import cache_dir, repo_root

READY_S = 180.0
"""serve.sh up to an answering app (the venv exists: its bootstrap is a stamp check)."""
STOP_S = 30.0
"""SIGTERM to serve.sh until the port is free and no process it started is left."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _in_session(sid: int) -> dict[int, str]:
    """Live processes of session `sid` (serve.sh started with its own session: all it started, however
    deep, unless one made its own session), with their command lines; zombies left out."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # state ppid pgrp session ...
        if int(fields[3]) == sid and fields[0] != "Z":
            found[int(entry.name)] = cmd
    return found


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """serve.sh with `args` in its own session and process group, as under a supervisor; output to `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            ["./serve.sh", *args],
            cwd=repo_root(),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _sigterm_until_gone(serve: subprocess.Popen[bytes], port: int) -> dict[int, str]:
    """SIGTERM to serve.sh alone (not its group); wait up to STOP_S for its port and its session to go.
    What is left of its session."""
    os.kill(serve.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_S
    while (_listening(port) or _in_session(serve.pid)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return _in_session(serve.pid)


def _kill_session(serve: subprocess.Popen[bytes]) -> None:
    for pid in _in_session(serve.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    serve.wait(timeout=10)


@pytest.mark.slow  # the app's start: 5 s idle, over a minute on 2 busy cores
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigterm_to_serve_sh_stops_the_app_and_frees_its_port(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE", "JUDGE_BASE_URL", "INTERVIEW_USERS")}
    env.update(INTERVIEW_DATA_DIR=str(tmp_path / "data"), HF_HUB_OFFLINE="1")
    log = tmp_path / "serve.log"
    serve = _start(["--judge", "embedded", "--port", str(port), "--no-index"], env, log)
    sid = serve.pid
    try:
        deadline = time.monotonic() + READY_S
        while not _answers(port):
            assert serve.poll() is None, f"serve.sh exited {serve.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no HTTP 200 within {READY_S:g} s:\n{log.read_text()}"
            time.sleep(0.5)
        started = _in_session(sid)
        assert len(started) >= 2, started  # serve.sh and the app it runs

        left = _sigterm_until_gone(serve, port)
        assert not _listening(port), f"port {port} still held {STOP_S:g} s after SIGTERM; left: {left}"
        assert not left, f"still running {STOP_S:g} s after SIGTERM to serve.sh: {left}"
        assert serve.wait(timeout=5) == 143, log.read_text()  # 128 + SIGTERM: it says it was stopped
    finally:
        _kill_session(serve)


@pytest.mark.vllm
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_serve_sh_with_the_cpu_judge_stays_up_and_stops_on_sigterm(tmp_path: Path) -> None:
    """`./serve.sh --judge cpu --judge-only`: the real vLLM CPU judge, up and serving until SIGTERM. It once
    died as the judge came up: a single server prints no JUDGE_REPLICAS line, and the grep for it failed the
    script under `set -o pipefail` (the app path shares that code; the judge alone keeps this test short)."""
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE", "JUDGE_BASE_URL", "INTERVIEW_USERS")}
    # the built vLLM venv and converted model are shared (else a fresh data dir rebuilds them: ~3 minutes)
    env.update(
        INTERVIEW_DATA_DIR=str(tmp_path / "data"), INTERVIEW_CACHE_DIR=str(cache_dir()), HF_HUB_OFFLINE="1"
    )
    log = tmp_path / "serve.log"
    serve = _start(["--judge", "cpu", "--judge-only"], env, log)
    sid = serve.pid
    try:
        deadline = time.monotonic() + READY_S + 240
        while "JUDGE_BASE_URL=" not in log.read_text():
            assert serve.poll() is None, f"serve.sh exited {serve.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no judge within the deadline:\n{log.read_text()}"
            time.sleep(0.5)
        url = log.read_text().split("JUDGE_BASE_URL=", 1)[1].split()[0]
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        time.sleep(3)  # what killed it came right after the URL
        assert serve.poll() is None, f"serve.sh exited {serve.returncode}:\n{log.read_text()}"
        with urllib.request.urlopen(f"{url}/models", timeout=10) as resp:
            assert resp.status == 200
        assert any("vllm.entrypoints" in c for c in _in_session(sid).values())

        left = _sigterm_until_gone(serve, port)
        assert not _listening(port) and not left, left
        assert serve.wait(timeout=5) == 143, log.read_text()
    finally:
        _kill_session(serve)
