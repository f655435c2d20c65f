"""deploy/team.sh: the team setup as plain processes (Postgres, Chroma, two app replicas, nginx when
installed) with the embedded judge, on free loopback ports in a temporary folder. It comes up, the
proxy keeps a browser (its cookie) on one replica and spreads new ones, SIGTERM stops everything,
and `--stop` ends what a SIGKILLed team.sh left behind; the apps' role cannot disable the override
log's triggers. (The judge pool is tested in
tests/judge/test_pool.py; team.sh starts it with `python -m agent.judge.runtime --replicas N`.)"""

from __future__ import annotations

import collections
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def _free_ports(n: int) -> list[int]:
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def _open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture()
def team_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    if not list(Path("/usr/lib/postgresql").glob("*/bin/postgres")) and not shutil.which("postgres"):
        pytest.skip("no Postgres server binaries (apt-get install postgresql)")
    pg_dir = Path(tempfile.mkdtemp(prefix="team-pg-"))  # reachable by the postgres user when root
    pg_dir.chmod(0o755)
    pg, chroma, app1, app2, proxy = _free_ports(5)
    env = {
        **os.environ,
        "TEAM_DIR": str(tmp_path / "team"),
        "PG_DIR": str(pg_dir),
        "PG_PORT": str(pg),
        "CHROMA_PORT": str(chroma),
        "APP_PORTS": f"{app1} {app2}",
        "PROXY_PORT": str(proxy),
        "STOP_GRACE_S": "15",
    }
    for k in ("JUDGE", "JUDGE_BASE_URL", "JUDGE_REPLICAS", "INTERVIEW_DATABASE_URL", "CHROMA_URL"):
        env.pop(k, None)
    try:
        yield env
    finally:
        subprocess.run(
            [str(REPO / "deploy" / "team.sh"), "--stop"], env=env, capture_output=True, timeout=120
        )
        shutil.rmtree(pg_dir, ignore_errors=True)


def _start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [str(REPO / "deploy" / "team.sh"), "--judge", "embedded", "--no-index"],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 600
    while "team ready" not in log.read_text(errors="replace"):
        assert proc.poll() is None, log.read_text(errors="replace")
        assert time.monotonic() < deadline, log.read_text(errors="replace")
        time.sleep(1)
    return proc


def _ports(env: dict[str, str]) -> list[int]:
    return [int(env[k]) for k in ("PG_PORT", "CHROMA_PORT", "PROXY_PORT")] + [
        int(p) for p in env["APP_PORTS"].split()
    ]


def test_team_comes_up_is_sticky_stops_and_restarts(team_env: dict[str, str], tmp_path: Path) -> None:
    """Up, shared stores, the app role's limits, stickiness, SIGTERM; then a second start on the same folder
    (its database kept) killed with SIGKILL, and `--stop` ends what it left. (One test: each cold start of
    the team is half a minute of CPU.)"""
    proc = _start(team_env, tmp_path / "run1.log")
    try:
        app_ports = team_env["APP_PORTS"].split()
        for port in app_ports:
            assert httpx.get(f"http://127.0.0.1:{port}/", timeout=30).status_code == 200
        # the shared stores: the database is migrated, and team.env points a shell at them
        env_file = Path(team_env["TEAM_DIR"]) / "team.env"
        assert oct(env_file.stat().st_mode & 0o777) == "0o600"
        shared = dict(line.split("=", 1) for line in env_file.read_text().split() if "=" in line)
        assert shared["INTERVIEW_DATABASE_URL"].startswith("postgresql://coach:")
        r = subprocess.run(
            [str(REPO / ".venv" / "bin" / "interview"), "db", "migrate"],
            env={**os.environ, **shared},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0 and "schema up to date" in r.stdout, r.stdout + r.stderr
        # the apps' role owns nothing: it cannot disable the override log's triggers (issue 15); the
        # owner's URL is kept apart, for an admin
        with (
            psycopg.connect(shared["INTERVIEW_DATABASE_URL"], autocommit=True) as conn,
            pytest.raises(psycopg.errors.InsufficientPrivilege),
        ):
            conn.execute("ALTER TABLE overrides DISABLE TRIGGER ALL")
        owner_url = Path(team_env["TEAM_DIR"]) / "pg-owner-url"
        assert oct(owner_url.stat().st_mode & 0o777) == "0o600"
        assert owner_url.read_text().startswith("postgresql://coach_owner:")
        assert "coach_owner" not in env_file.read_text()
        assert httpx.get(f"{shared['CHROMA_URL']}/api/v2/heartbeat", timeout=10).status_code == 200
        if shutil.which("nginx"):
            proxy = f"http://127.0.0.1:{team_env['PROXY_PORT']}/"
            first = httpx.get(proxy, timeout=30)
            assert first.status_code == 200
            cookie = first.cookies["coach_replica"]
            pinned = {
                httpx.get(proxy, cookies={"coach_replica": cookie}, timeout=30).headers["x-coach-upstream"]
                for _ in range(5)
            }
            assert pinned == {first.headers["x-coach-upstream"]}
            spread = collections.Counter(
                httpx.get(proxy, timeout=30).headers["x-coach-upstream"] for _ in range(12)
            )
            assert set(spread) == {f"127.0.0.1:{p}" for p in app_ports}, spread
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 143
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert not [p for p in _ports(team_env) if _open(p)], "a process of the team outlived team.sh"

    proc = _start(team_env, tmp_path / "run2.log")
    os.kill(proc.pid, signal.SIGKILL)  # team.sh alone: its children, each in its own group, stay
    proc.wait()
    assert _open(int(team_env["PG_PORT"])) and _open(int(team_env["APP_PORTS"].split()[0]))
    r = subprocess.run(
        [str(REPO / "deploy" / "team.sh"), "--stop"],
        env=team_env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 0 and "postgres" in r.stdout, r.stdout + r.stderr
    time.sleep(1)
    assert not [p for p in _ports(team_env) if _open(p)]
