"""Crash safety: a SIGKILLed terminal session resumes at the same question with every answer intact."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest

from agent.config import repo_root
from agent.graph import get_session
from agent.graph import nodes as graph_nodes
from agent.graph import session as graph_session
from agent.graph.store import open_store, thread_config
from agent.rubric import Rubric
from tests.graph.script import WEAK, answers_of, drive, strong

TIMEOUT = 30.0


class Cli:
    """`python -m agent.cli.practice_cmd ...` with piped standard input (not a terminal)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent.cli.practice_cmd", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=repo_root(),
            env=dict(os.environ),
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._collect, args=(self.proc.stderr,), daemon=True).start()

    @staticmethod
    def _pump(stream: IO[bytes], q: queue.Queue[str | None]) -> None:
        for raw in iter(stream.readline, b""):
            q.put(raw.decode("utf-8", "replace").rstrip("\n"))
        q.put(None)

    def _collect(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            self.err.append(raw.decode("utf-8", "replace"))

    def question(self) -> str:
        """The next `Q: ` line's question."""
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            assert line is not None, "the session ended: " + "".join(self.err)
            if line.startswith("Q: "):
                return line[3:]

    def stderr_has(self, needle: str) -> bool:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if needle in "".join(self.err):
                return True
            time.sleep(0.05)
        return False

    def send(self, data: str | bytes) -> None:
        assert self.proc.stdin is not None
        raw = data.encode() if isinstance(data, str) else data
        self.proc.stdin.write(raw + b"\n.\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        assert self.proc.wait(timeout=TIMEOUT) == -signal.SIGKILL

    def finish(self) -> tuple[int, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=TIMEOUT)
        out: list[str] = []
        while (line := self.lines.get(timeout=TIMEOUT)) is not None:
            out.append(line)
        return rc, "\n".join(out)


def _one_line(s: str | None) -> str:
    return " ".join((s or "").split())


def test_sigkill_mid_session_then_resume_with_every_answer_intact(rubric: Rubric, data_dir: Path) -> None:
    a1, a2 = (
        strong(rubric, "concepts"),
        "Multi-line answer.\nThe failure boundary is OOM; rollback the image.",
    )
    cli = Cli("practice", "--plan", "full", "--lang", "en", "--session", "kill-1")
    assert cli.question() == _one_line(rubric.round("concepts").prompt.en)
    cli.send(a1)
    cli.question()
    cli.send(a2)
    q3 = cli.question()
    cli.kill()

    v = get_session("kill-1")
    assert v.status == "waiting" and _one_line(v.question) == q3
    assert answers_of(v) == [a1, a2]

    # resume: the same pending question first; a binary answer is refused and the question asked again
    cli = Cli("practice", "--session", "kill-1")
    assert cli.question() == q3
    cli.send(b"\x89PNG\r\n\x1a\n\xff\xfe\x00binary")
    assert cli.question() == q3
    assert cli.stderr_has("not text")
    # an answer sent, then SIGKILL at once: either not recorded (same question) or recorded and moved on
    cli.send(WEAK)
    cli.kill()
    v = get_session("kill-1")
    got = answers_of(v)
    assert got in ([a1, a2], [a1, a2, WEAK])
    if got == [a1, a2]:
        assert _one_line(v.question) == q3

    assert answers_of(get_session("kill-1")) == got  # looking again changes nothing

    listing = subprocess.run(
        [sys.executable, "-m", "agent.cli.practice_cmd", "sessions", "--json"],
        capture_output=True,
        cwd=repo_root(),
        env=dict(os.environ),
        timeout=TIMEOUT,
        check=True,
    )
    sessions = json.loads(listing.stdout)
    assert [(s["id"], s["plan"], s["status"]) for s in sessions] == [("kill-1", "full", "waiting")]
    t = sessions[0]["transcript"]
    assert (
        t["id"] == "kill-1"
        and [x["text"] for r in t["rounds"] for x in r["turns"] if x["role"] == "candidate"] == got
    )


def test_a_terminal_session_runs_to_its_report(rubric: Rubric) -> None:
    cli = Cli("practice", "--plan", "incident", "--session", "cli-1")
    cli.question()
    cli.send(strong(rubric, "incident"))
    rc, out = cli.finish()
    assert rc == 0
    assert f"## {rubric.round('incident').title.en} — " in out and "/25" in out
    assert "# Interview report: cli-1" in out


def test_the_answer_is_checkpointed_before_it_is_assessed(
    rubric: Rubric, monkeypatch: pytest.MonkeyPatch
) -> None:
    v = graph_session.start_session("concepts", "en", session_id="crash-1")
    real = graph_nodes.assess_round

    def broken(*args: object, **kw: object) -> object:
        raise RuntimeError("judge process died")

    monkeypatch.setattr(graph_nodes, "assess_round", broken)
    with pytest.raises(RuntimeError, match="judge process died"):
        graph_session.answer("crash-1", WEAK, at_s=10)
    snap = open_store().graph.get_state(thread_config("crash-1"))
    assert snap.next == ("assess",)  # stopped at the assessment ...
    turns = snap.values["transcript"][-1]["turns"]
    assert turns[-1] == {"role": "candidate", "text": WEAK, "at_s": 10.0}  # ... with the answer on disk

    monkeypatch.setattr(graph_nodes, "assess_round", real)
    v = get_session("crash-1")  # the run that was cut short is finished first
    assert v.message is None and v.question != rubric.round("concepts").prompt.en  # moved on to a follow-up
    assert answers_of(v) == [WEAK] and v.last_assessment is not None
    v = drive(v, lambda _: WEAK, start_s=10)
    assert v.report is not None
