"""deploy/team.sh --import-from DIR: a one-machine data dir goes into the team's database before the app
replicas start (README, Team deployment). A replica makes a browser-id secret of its own when the database
has none, and the import then keeps that one and refuses the machine's: so the order is what lets a
browser that used the one-machine app see its sessions on the team's. A real run of the script (Postgres,
Chroma, two replicas, the embedded judge, no proxy): after it, the database holds the machine's secret and
its session; a second start importing a data dir with another secret stops at the import (its refusal
said) and starts no replica."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import psycopg

from tests.deploy.test_team import REPO, _open, pytestmark, team_env  # noqa: F401 (the fixture, the markers)

PY = str(REPO / ".venv" / "bin" / "python")
MACHINE = """
from agent.graph import start_session
from agent.ui.auth import browser_secret
start_session("concepts", "en", session_id="{sid}", owner="browser:one-machine")
print(browser_secret())
"""


def _one_machine(folder: Path, sid: str) -> str:
    """A one-machine data dir (no database): a session under way and the browser-id secret, returned."""
    env = {**os.environ, "INTERVIEW_DATA_DIR": str(folder), "HF_HUB_OFFLINE": "1"}
    env.pop("INTERVIEW_DATABASE_URL", None)
    out = subprocess.run(
        [PY, "-c", MACHINE.format(sid=sid)], env=env, capture_output=True, text=True, timeout=300, check=True
    )
    secret = out.stdout.strip().splitlines()[-1]
    assert (folder / "ui-secret").read_text().strip() == secret
    return secret


def _team(env: dict[str, str], log: Path, machine: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(REPO / "deploy" / "team.sh"), "--judge", "embedded", "--no-index", "--no-proxy",
         "--import-from", str(machine)],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip


def _in_database(env: dict[str, str]) -> tuple[str | None, set[str]]:
    """The browser-id secret and the session ids the team's database holds (as the apps' role)."""
    shared = dict(
        line.split("=", 1) for line in (Path(env["TEAM_DIR"]) / "team.env").read_text().split() if "=" in line
    )
    with psycopg.connect(shared["INTERVIEW_DATABASE_URL"]) as conn:
        row = conn.execute("SELECT value FROM interview_secrets WHERE name = 'ui-secret'").fetchone()
        sids = {str(r[0]) for r in conn.execute("SELECT id FROM interview_sessions")}
    return (str(row[0]) if row else None), sids


def test_the_import_runs_before_the_replicas_and_a_refusal_starts_none(
    team_env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    machine = tmp_path / "one-machine"
    secret = _one_machine(machine, "m-open")
    log = tmp_path / "run1.log"
    proc = _team(team_env, log, machine)
    try:
        deadline = time.monotonic() + 600
        while "team ready" not in log.read_text(errors="replace"):
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(1)
        text = log.read_text(errors="replace")
        assert "importing" in text and f"imported {machine}" in text, text
        # the machine's secret, not one a replica made: the import came first; and its session
        in_db, sids = _in_database(team_env)
        assert in_db == secret and "m-open" in sids
        report = (Path(team_env["TEAM_DIR"]) / "logs" / "import.log").read_text()
        assert "browser-id secret 1 imported" in " ".join(report.split()), report
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 143
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    # another machine whose secret the database does not take: the import says so, no replica starts
    other = tmp_path / "other-machine"
    assert _one_machine(other, "m-other") != secret
    log2 = tmp_path / "run2.log"
    proc = _team(team_env, log2, other)
    try:
        assert proc.wait(timeout=600) == 1, log2.read_text(errors="replace")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = log2.read_text(errors="replace")
    assert "refused" in text and "no app replica was started" in text, text
    assert not [p for p in team_env["APP_PORTS"].split() if _open(int(p))], text
    assert not _open(int(team_env["PG_PORT"])), "Postgres outlived team.sh"
