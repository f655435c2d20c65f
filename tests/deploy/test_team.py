"""deploy/team.sh: the team setup as plain processes (Postgres, Chroma, two app replicas, nginx when
installed) with the embedded judge, on free loopback ports in a temporary folder. It comes up, the
proxy keeps a browser (its cookie) on one replica and spreads new ones, SIGTERM stops everything,
and `--stop` ends what a SIGKILLed team.sh left behind; the apps' role cannot disable the override
log's triggers. (The judge pool is tested in
tests/judge/test_pool.py; team.sh starts it with `python -m agent.judge.runtime --replicas N`.)

`--import-from DIR`: a one-machine data dir goes into the team's database before the app replicas start
(README, Team deployment). A replica makes a browser-id secret of its own when the database has none, and
the import then keeps that one and refuses the machine's: so the order is what lets a browser that used
the one-machine app see its sessions on the team's. After the first start, the database holds the
machine's secret and its session; a start importing a data dir with another secret stops at the import
(its refusal said) and starts no replica. (All in one test: each cold start of the team is half a minute
of CPU.)"""

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
PY = str(REPO / ".venv" / "bin" / "python")
pytestmark = [pytest.mark.slow, pytest.mark.postgres]
MACHINE = """
from agent.graph import start_session
from agent.ui.auth import browser_secret
start_session("concepts", "en", session_id="{sid}", owner="browser:one-machine")
print(browser_secret())
"""


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
    judge = ("JUDGE", "JUDGE_BASE_URL", "JUDGE_REPLICAS", "JUDGE_MODEL")
    for k in (*judge, "INTERVIEW_DATABASE_URL", "CHROMA_URL"):
        env.pop(k, None)
    try:
        yield env
    finally:
        subprocess.run(
            [str(REPO / "deploy" / "team.sh"), "--stop"], env=env, capture_output=True, timeout=120
        )
        shutil.rmtree(pg_dir, ignore_errors=True)


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


def _in_database(env: dict[str, str]) -> tuple[str | None, set[str]]:
    """The browser-id secret and the session ids the team's database holds (as the apps' role)."""
    shared = dict(
        line.split("=", 1) for line in (Path(env["TEAM_DIR"]) / "team.env").read_text().split() if "=" in line
    )
    with psycopg.connect(shared["INTERVIEW_DATABASE_URL"]) as conn:
        row = conn.execute("SELECT value FROM interview_secrets WHERE name = 'ui-secret'").fetchone()
        sids = {str(r[0]) for r in conn.execute("SELECT id FROM interview_sessions")}
    return (str(row[0]) if row else None), sids


def _launch(
    env: dict[str, str], log: Path, *extra: str, judge: tuple[str, ...] = ("--judge", "embedded")
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(REPO / "deploy" / "team.sh"), *judge, "--no-index", *extra],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def _start(
    env: dict[str, str], log: Path, *extra: str, judge: tuple[str, ...] = ("--judge", "embedded")
) -> subprocess.Popen[bytes]:
    """team.sh started with `extra` arguments, once it says it is ready."""
    proc = _launch(env, log, *extra, judge=judge)
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


def test_team_imports_comes_up_is_sticky_stops_refuses_and_restarts(
    team_env: dict[str, str], tmp_path: Path
) -> None:
    """Up with a one-machine data dir imported first, shared stores, the app role's limits, stickiness,
    SIGTERM; a start importing another machine's data refused before any replica; then a start on the same
    folder (its database kept) killed with SIGKILL, and `--stop` ends what it left."""
    machine = tmp_path / "one-machine"
    secret = _one_machine(machine, "m-open")
    log = tmp_path / "run1.log"
    proc = _start(team_env, log, "--import-from", str(machine))
    try:
        text = log.read_text(errors="replace")
        assert "importing" in text and f"imported {machine}" in text, text
        # the machine's secret, not one a replica made: the import came first; and its session
        in_db, sids = _in_database(team_env)
        assert in_db == secret and "m-open" in sids
        report = (Path(team_env["TEAM_DIR"]) / "logs" / "import.log").read_text()
        assert "browser-id secret 1 imported" in " ".join(report.split()), report
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

    # another machine whose secret the database does not take: the import says so, no replica starts
    other = tmp_path / "other-machine"
    assert _one_machine(other, "m-other") != secret
    refused_log = tmp_path / "refused.log"
    proc = _launch(team_env, refused_log, "--no-proxy", "--import-from", str(other))
    try:
        assert proc.wait(timeout=600) == 1, refused_log.read_text(errors="replace")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = refused_log.read_text(errors="replace")
    assert "refused" in text and "no app replica was started" in text, text
    assert not [p for p in _ports(team_env) if _open(p)], text

    # no --judge, no JUDGE_MODEL: the pool would serve the demonstration model; the embedded judge scores
    proc = _start(team_env, tmp_path / "run2.log", judge=())
    assert "the embedded judge scores" in (tmp_path / "run2.log").read_text(errors="replace")
    assert "JUDGE_BASE_URL" not in (Path(team_env["TEAM_DIR"]) / "team.env").read_text()
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
    if not shutil.which("nginx"):
        pytest.skip(
            "nginx is not installed (apt-get install nginx-light; scripts/system_deps.sh does it in CI): "
            "everything above passed but the sticky proxy, which was not checked"
        )


def test_a_cluster_made_for_another_team_dir_is_named_and_left_alone(team_env: dict[str, str]) -> None:
    """A Postgres cluster whose apps' password this TEAM_DIR does not have (seen: a second data dir on a
    machine where team.sh, as root, had put the first one's cluster in the postgres user's home) stops
    team.sh before anything starts, naming the cluster, the missing file and the ways out; it used to die
    on `cat: …/pg-password: No such file or directory`."""
    data = Path(team_env["PG_DIR"]) / "data"
    data.mkdir(parents=True)
    (data / "PG_VERSION").write_text("15\n")
    r = subprocess.run(
        [str(REPO / "deploy" / "team.sh"), "--judge", "embedded", "--no-index", "--no-proxy"],
        env=team_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "No such file" not in r.stderr
    said = " ".join(r.stderr.split())
    assert f"the Postgres cluster in {data} is not this TEAM_DIR's" in said, said
    assert f"{team_env['TEAM_DIR']}/pg-password" in said and "PG_DIR" in said
    assert sorted(p.name for p in data.iterdir()) == ["PG_VERSION"]
    assert not [p for p in _ports(team_env) if _open(p)]
