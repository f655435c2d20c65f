"""The judge server dies with whoever started it (issue 16: a test run stopped by a timeout left its
vLLM CPU server running for over an hour, reparented to init).

No vLLM here: `standin_server` gives `JudgeServer` a tiny HTTP server in vLLM's place, started
through the same code path (`JudgeServer.start()`), so these run in seconds. Each kills a parent
with SIGKILL, which no cleanup code can catch, and expects the server's process group gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from agent.judge.runtime import JudgeServer, port_is_open
from tests.judge.standin_server import standin_judge

REPO = Path(__file__).resolve().parents[2]
#: how long a server may outlive its killed parent
GONE_WITHIN_S = 5.0

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def _state(pid: int) -> str | None:
    """The process's state letter from /proc, None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _alive(pid: int) -> bool:
    return _state(pid) not in (None, "Z", "X")  # a zombie is dead, whoever reaps it


def _group(pgid: int) -> list[int]:
    """Live processes of process group `pgid`."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def _wait_gone(pids: list[int], pgid: int, port: int) -> None:
    deadline = time.monotonic() + GONE_WITHIN_S
    while any(_alive(p) for p in pids) or _group(pgid) or port_is_open("127.0.0.1", port):
        if time.monotonic() > deadline:
            left = {p: _state(p) for p in [*pids, *_group(pgid)]}
            for p in [*pids, *_group(pgid)]:  # do not leave them behind for the next test
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p, signal.SIGKILL)
            pytest.fail(f"still running {GONE_WITHIN_S:.0f} s after the parent was killed: {left}")
        time.sleep(0.1)


def _read_json_line(proc: subprocess.Popen[str], timeout: float = 60.0) -> dict[str, int]:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    line = proc.stdout.readline()
    assert line, f"no output (exit {proc.poll()}) within {time.monotonic() - deadline + timeout:.0f} s"
    return dict(json.loads(line))


def test_standin_is_served_through_judge_server(tmp_path: Path) -> None:
    with standin_judge(tmp_path) as server:
        assert server.pid is not None and server.port is not None
        assert httpx.get(f"{server.root_url}/health", timeout=5).status_code == 200
        assert server.version() == "standin"
        pgid, port = os.getpgid(server.pid), server.port
        assert pgid != os.getpgrp()  # its own process group
        assert server.pid in _group(pgid) and len(_group(pgid)) == 2  # with its watchdog
    assert not server.running()
    assert not _group(pgid) and not port_is_open("127.0.0.1", port)


def test_server_started_from_a_thread_outlives_the_thread(tmp_path: Path) -> None:
    # Linux sends the parent-death signal when the *thread* that started a process ends: the
    # watchdog must look at its parent process, not take the signal for its death
    started: list[JudgeServer] = []
    thread = threading.Thread(target=lambda: started.append(standin_judge(tmp_path).start()))
    thread.start()
    thread.join(60)
    [server] = started
    try:
        assert server.pid is not None and server.port is not None
        pgid = os.getpgid(server.pid)
        time.sleep(2.0)
        assert server.running() and len(_group(pgid)) == 2  # the server and its watchdog
        assert httpx.get(f"{server.root_url}/health", timeout=5).status_code == 200
    finally:
        server.stop()
    assert not _group(pgid)


def test_server_dies_when_its_parent_is_sigkilled(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-m", "tests.judge.standin_server", "parent", str(tmp_path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        info = _read_json_line(parent)
        assert _alive(info["pid"]) and port_is_open("127.0.0.1", info["port"])
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        _wait_gone([info["pid"]], info["pgid"], info["port"])
        assert (
            f"process {parent.pid} that started this server is gone" in (tmp_path / "standin.log").read_text()
        )
    finally:
        parent.kill()
        parent.wait()


def test_judge_only_cli_stops_its_server_when_its_parent_is_sigkilled(tmp_path: Path) -> None:
    # as serve.sh runs it: a shell starts `python -m agent.judge.runtime --judge-only` in the
    # background and waits; the shell is killed, the CLI must stop the server and exit
    cli = [sys.executable, "-m", "tests.judge.standin_server", "cli", str(tmp_path)]
    shell = subprocess.Popen(
        ["bash", "-c", '"$@" & echo "$!"; wait', "bash", *cli],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert shell.stdout is not None
        cli_pid = int(shell.stdout.readline())
        deadline = time.monotonic() + 60
        while not (line := shell.stdout.readline()).startswith("JUDGE_BASE_URL="):
            assert line and time.monotonic() < deadline, f"the CLI printed no URL: {line!r}"
        port = int(line.strip().rsplit(":", 1)[1].split("/")[0])
        server_pid = next(p for p in _children(cli_pid) if "vllm.entrypoints" in _cmdline(p))
        pgid = os.getpgid(server_pid)
        os.kill(shell.pid, signal.SIGKILL)
        shell.wait(10)
        _wait_gone([cli_pid, server_pid], pgid, port)
    finally:
        shell.kill()
        shell.wait()


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
