"""Two real app processes (`python -m agent.ui`) over one Postgres database, each with its own data
dir, as replicas behind a load balancer: a session started on one is resumed on the other; an
override saved on one is seen on the other; users from the database sign in on both; a user never sees
another's session unless given the reviewer role."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent.config import repo_root
from agent.graph import get_session
from agent.overrides import OverrideLog
from agent.ui.auth import add_reviewer, add_user
from tests.graph.script import answers_of
from tests.ui.conftest import free_port
from tests.ui.test_api import GOOD_ANSWER, P_QUESTION, P_SID, P_STATUS, R_LOG, R_STATUS, log_rows

Client = pytest.importorskip("gradio_client").Client
PASSWORDS = {"alice": "alice-password", "bob": "bob-password", "rita": "rita-password"}
READY_S = 180.0


class Replica:
    def __init__(self, name: str, tmp_path: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = tmp_path / f"replica-{name}.log"
        env = {**os.environ, "INTERVIEW_DATA_DIR": str(tmp_path / f"replica-{name}")}
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "agent.ui", "--port", str(self.port)],
                cwd=repo_root(),
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_S
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text(errors="replace")
            try:
                if httpx.get(self.url, timeout=2).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise AssertionError(f"replica not ready in {READY_S} s: {self.log.read_text(errors='replace')}")

    def client(self, who: str, tmp_path: Path) -> Any:
        d = tmp_path / f"dl-{self.port}-{who}"
        d.mkdir(exist_ok=True)
        return Client(
            self.url,
            verbose=False,
            download_files=str(d),
            analytics_enabled=False,
            auth=(who, PASSWORDS[who]),
        )

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)


@pytest.fixture
def replicas(pg_url: str, tmp_path: Path) -> Iterator[tuple[Replica, Replica]]:
    for name, pw in PASSWORDS.items():
        add_user(name, pw)
    add_reviewer("rita")
    a, b = Replica("a", tmp_path), Replica("b", tmp_path)
    try:
        a.wait_ready()
        b.wait_ready()
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_two_app_replicas_share_sessions_overrides_and_users(
    replicas: tuple[Replica, Replica], tmp_path: Path
) -> None:
    a, b = replicas
    alice_a, alice_b = a.client("alice", tmp_path), b.client("alice", tmp_path)
    started = alice_a.predict("concepts", "en", "", api_name="/start_practice")
    sid = started[P_SID]
    after_first = alice_a.predict(GOOD_ANSWER, api_name="/send_answer")

    resumed = alice_b.predict(sid, api_name="/resume_practice")  # the other replica, same user
    assert resumed[P_SID] == sid and "resumed" in resumed[P_STATUS], resumed[P_STATUS]
    assert resumed[P_QUESTION] == after_first[P_QUESTION]
    alice_b.predict("I would check the block table in the KV cache manager.", api_name="/send_answer")
    alice_b.predict(api_name="/finish_round")
    assert answers_of(get_session(sid, owner="alice")) == [
        GOOD_ANSWER,
        "I would check the block table in the KV cache manager.",
    ]

    bob_b = b.client("bob", tmp_path)  # another user, on either replica: no such session
    assert "no such session" in bob_b.predict(sid, api_name="/resume_practice")[P_STATUS]
    assert "no such session" in bob_b.predict(sid, "en", api_name="/open_session_report")[R_STATUS]

    rita_a = a.client("rita", tmp_path)  # the reviewer role, from the database
    assert rita_a.predict(sid, "en", api_name="/open_session_report")[R_STATUS].startswith(f"Opened {sid}")
    msg = rita_a.predict("concepts", "tradeoffs", 5, "second reviewer", "", "en", api_name="/save_override")[
        0
    ]
    assert msg.startswith("✓") and "rita" in msg, msg

    seen = alice_b.predict(sid, "en", api_name="/open_session_report")  # the override, on the other replica
    assert any(row[8] == "rita" and row[9] == "second reviewer" for row in log_rows(seen[R_LOG])), seen[R_LOG]
    [row] = OverrideLog().rows(sid)
    assert (row.reviewer, row.human_score) == ("rita", 5)
    assert OverrideLog().verify().ok
