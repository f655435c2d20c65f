"""Two processes on one session: every answer a process acknowledged (it went on to the next question)
is in the session. Two `interview practice` processes used to each resume the same checkpoint and
write their own next one, so half the acknowledged answers vanished; now the first process holds the
session until it ends and a second one is refused, naming the session and the holder's pid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from agent.config import repo_root
from agent.graph import SessionBusy, answer, get_session, rejoin, start_session
from tests.graph.script import answers_of
from tests.graph.test_resume import TIMEOUT, Cli


def _next_question(cli: Cli) -> str | None:
    """The next `Q: ` line's question, or None when the process ended without one."""
    while True:
        line = cli.lines.get(timeout=TIMEOUT)
        if line is None:
            return None
        if line.startswith("Q: "):
            return line[3:]


def _text(who: str, i: int) -> str:
    return f"Answer {who}{i}: paged KV cache blocks are allocated on demand; continuous batching."


def test_two_practice_processes_on_one_session_lose_no_acknowledged_answer() -> None:
    start_session("full", "en", session_id="two-1")
    a = Cli("practice", "--session", "two-1")
    assert _next_question(a) is not None
    b = Cli("practice", "--session", "two-1")  # the same session, while the first one drives it
    live = {"A": a}
    if _next_question(b) is not None:
        live["B"] = b
    acknowledged: list[str] = []
    for i in range(4):
        sent = {}
        for who, cli in live.items():  # both answer at once, as two people at two terminals would
            sent[who] = _text(who, i)
            cli.send(sent[who])
        for who, cli in live.items():
            assert _next_question(cli) is not None, "".join(cli.err)
            acknowledged.append(sent[who])  # the process went on to the next question
    rc_b = b.proc.wait(timeout=TIMEOUT) if "B" not in live else b.finish()[0]
    rc_a, _ = a.finish()

    stored = answers_of(get_session("two-1"))
    assert [t for t in acknowledged if t not in stored] == [], f"acknowledged but lost; stored: {stored}"
    assert stored == [_text("A", i) for i in range(4)]
    # the second process was refused at once, saying which session and who holds it
    assert "B" not in live and rc_b == 1 and rc_a == 0
    err = "".join(b.err)
    assert "session two-1 is open in another process" in err and f"pid {a.proc.pid}" in err, err
    assert "Traceback" not in err

    # the first process has ended: its lock went with it, and the session resumes where it was
    c = Cli("practice", "--session", "two-1")
    assert _next_question(c) == " ".join((get_session("two-1").question or "").split())
    c.send(_text("C", 0))
    assert _next_question(c) is not None
    assert c.finish()[0] == 0
    assert answers_of(get_session("two-1"))[-1] == _text("C", 0)


def test_while_a_terminal_drives_a_session_other_processes_read_it_but_cannot_answer() -> None:
    v = start_session("concepts", "en", session_id="held-1")
    a = Cli("practice", "--session", "held-1")
    assert _next_question(a) is not None
    try:
        t0 = time.monotonic()
        with pytest.raises(
            SessionBusy, match=rf"session held-1 is open in another process \(pid {a.proc.pid}\)"
        ):
            answer("held-1", "An answer from another process.", at_s=5)
        assert time.monotonic() - t0 < 5, "refused at once, not after the store's busy timeout"
        seen = get_session("held-1")  # reading never waits for the holder, and changes nothing
        assert seen.question == v.question and answers_of(seen) == []
        back = rejoin("held-1", at_s=600)  # a page opening it: shown as it is, its clock left to the holder
        assert back.paused_s == 0.0 and back.view.question == v.question
        listing = subprocess.run(
            [sys.executable, "-m", "agent.cli.practice_cmd", "sessions", "--json"],
            capture_output=True,
            cwd=repo_root(),
            env=dict(os.environ),
            timeout=TIMEOUT,
            check=True,
        )
        assert [s["id"] for s in json.loads(listing.stdout)] == ["held-1"]
    finally:
        a.kill()  # SIGKILL: the kernel drops the lock with the process
    assert answers_of(answer("held-1", "Paged KV blocks.", at_s=10)) == ["Paged KV blocks."]
