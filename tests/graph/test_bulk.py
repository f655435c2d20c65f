"""The grading worker (agent.graph.bulk) on its own: an error raised while grading comes back as the
same exception and the worker goes on; an exception that cannot be sent back comes as GradingError; the
worker ends when the process that started it is SIGKILLed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.config import repo_root
from agent.contracts.transcript import load_transcript
from agent.graph.bulk import GradingError, GradingWorker, _sendable
from agent.graph.errors import SessionBusy

EXAMPLE = repo_root() / "examples" / "transcripts" / "t-001.json"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_grading_errors_come_back_and_the_worker_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    worker = GradingWorker()
    try:
        t = load_transcript(EXAMPLE)
        first = worker.grade(t)
        pid = worker.pid
        assert first.id == "t-001" and first.rounds[0].scores
        unknown = t.model_copy(update={"rounds": [t.rounds[0].model_copy(update={"round": "nope"})]})
        with pytest.raises(KeyError, match="unknown round 'nope'"):  # raised in the worker, raised here
            worker.grade(unknown)
        assert worker.grade(t).rounds[0].scores == first.rounds[0].scores
        assert worker.pid == pid  # one worker, kept
    finally:
        worker.close()
    assert worker.pid is None


def test_an_exception_that_cannot_be_pickled_is_sent_as_its_type_and_message() -> None:
    busy = SessionBusy("s-1", 42, for_life=True)  # its __init__ takes keyword arguments: no unpickling
    sent = _sendable(busy)
    assert isinstance(sent, GradingError) and str(sent).startswith("SessionBusy: session s-1")
    err = ValueError("plain")
    assert _sendable(err) is err


def test_the_worker_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    code = (
        "import time\n"
        "from pathlib import Path\n"
        "from agent.contracts.transcript import load_transcript\n"
        "from agent.graph.bulk import default_worker, grade_in_worker\n"
        f"grade_in_worker(load_transcript(Path({str(EXAMPLE)!r})))\n"
        "print(default_worker().pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    env = {**os.environ, "INTERVIEW_DATA_DIR": str(tmp_path / "data")}
    env.pop("JUDGE_BASE_URL", None)
    parent = subprocess.Popen(
        [sys.executable, "-c", code], cwd=repo_root(), env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()
        assert line.strip().isdigit(), line
        worker = int(line)
        assert _alive(worker)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(30)
        deadline = time.monotonic() + 15
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker), "the grading worker outlived the app that started it"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(30)
