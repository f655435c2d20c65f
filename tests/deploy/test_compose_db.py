"""deploy/compose.yaml's database steps, run for real against a Postgres server of their own (marker
`postgres`), with the values Docker Compose v2 resolved from the file (tests/deploy/test_compose.py):

1. deploy/postgres-init.sh, as the postgres image runs it on a new volume: `sh`, as the image's
   superuser over the local socket, with the `postgres` service's environment;
2. the `migrate` service's script, with the real `interview`, connecting with its URL (the host
   `postgres:5432` is this server's loopback port);
3. the `init` service's script: its index steps recorded (tests/knowledge builds the index), the first
   user added for real with the real `python -m agent.ui --add-user`;
4. then what an app replica does with its URL: the schema up to date, read only; the first user signs
   in with COACH_ADMIN_PASSWORD and is a reviewer; the override log's triggers stay out of its reach.

TCP connections need a password here (scram-sha-256), so each URL's password is checked too: the ones
postgres-init.sh gave the roles are the ones the file gives the services.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.deploy.test_compose import ADMIN_PASSWORD, ROOT, resolved, script_of  # noqa: F401  (the fixture)
from tests.postgres.cluster import Cluster, running

pytestmark = pytest.mark.postgres


class PasswordCluster(Cluster):
    """A throwaway server whose TCP connections need a password (the local socket stays trust, as the
    postgres image's first start has it)."""

    def __init__(self, bindir: Path) -> None:
        super().__init__(bindir)
        hba = self.data / "pg_hba.conf"
        rules = hba.read_text().splitlines()
        tcp = [r.replace(" trust", " scram-sha-256") if r.startswith("host") else r for r in rules]
        hba.write_text("\n".join(tcp) + "\n")
        self._run("pg_ctl", "-D", str(self.data), "reload")


@pytest.fixture(scope="module")
def server() -> Iterator[PasswordCluster]:
    with running(PasswordCluster) as cluster:
        yield cluster


def _here(url: str, server: Cluster) -> str:
    """A URL of the file, at this server: `postgres:5432` is its loopback port."""
    assert "@postgres:5432/" in url, url
    return url.replace("@postgres:5432/", f"@127.0.0.1:{server.port}/")


def _env(service: dict[str, Any], server: Cluster, base: dict[str, str], **extra: str) -> dict[str, str]:
    """A service's environment as the file resolves it, over `base`, with `extra`; its database URL (if
    any) at this server."""
    env = {**base, **service["environment"], **extra}
    if "INTERVIEW_DATABASE_URL" in env:
        env["INTERVIEW_DATABASE_URL"] = _here(env["INTERVIEW_DATABASE_URL"], server)
    return env


def _sh(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", script], env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def brought_up(
    server: PasswordCluster,
    resolved: dict[str, Any],  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    """The database as the file's steps leave it (init script, migrate, init): the index steps init ran,
    the apps' URL, the first user, a data dir of the apps' own."""
    services = resolved["services"]
    tmp = tmp_path_factory.mktemp("compose-db")
    venv_bin = str(Path(sys.executable).parent)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("INTERVIEW_", "COACH_", "PG"))}

    # 1. the postgres image: its init scripts, as its superuser, over the local socket
    pg_env = _env(
        services["postgres"], server, base,
        PGHOST=str(server.root), PGPORT=str(server.port), PATH=f"{server.bindir}:{base['PATH']}",
    )
    init_sql = _sh(f"sh {ROOT / 'deploy' / 'postgres-init.sh'}", pg_env, tmp)
    assert init_sql.returncode == 0, init_sql.stderr

    # 2. migrate: the real `interview`, nothing mounted at /import
    empty = tmp / "import"
    empty.mkdir()
    migrate_env = _env(
        services["migrate"], server, base,
        PATH=f"{venv_bin}:{base['PATH']}", INTERVIEW_DATA_DIR=str(tmp / "migrate-data"),
    )
    migrate = _sh(script_of(services["migrate"]).replace("/import", str(empty)), migrate_env, tmp)
    assert migrate.returncode == 0, migrate.stdout + migrate.stderr

    # 3. init: the index steps recorded, the first user added for real
    shim = tmp / "shim"
    shim.mkdir()
    calls = tmp / "index-calls"
    (shim / "interview").write_text(f'#!/bin/sh\necho "$*" >> {calls}\n[ "$2" != status ] || exit 1\n')
    (shim / "interview").chmod(0o755)
    init_env = _env(
        services["init"], server, base,
        PATH=f"{shim}:{venv_bin}:{base['PATH']}", INTERVIEW_DATA_DIR=str(tmp / "init-data"),
        INTERVIEW_CACHE_DIR=str(tmp / "cache"), HF_HUB_OFFLINE="1",
    )
    init = _sh(script_of(services["init"]), init_env, ROOT)
    assert init.returncode == 0, init.stdout + init.stderr
    app_url = _here(services["app-1"]["environment"]["INTERVIEW_DATABASE_URL"], server)
    return {
        "index": calls.read_text().splitlines(),
        "app_url": app_url,
        "admin": services["init"]["environment"]["COACH_ADMIN"],
        "data": tmp / "app-data",
    }


def test_the_steps_leave_the_schema_current_for_the_apps(brought_up: dict[str, Any]) -> None:
    from agent.db.migrate import migrate, migrations

    assert brought_up["index"] == ["index status", "index build"]
    read_only = f"{brought_up['app_url']}?options=-c%20default_transaction_read_only%3Don"
    out = migrate(read_only)  # what an app replica does on start: read, never change
    assert out.applied == [] and out.current == len(migrations())


def test_the_apps_url_is_the_apps_role_and_cannot_touch_the_log(brought_up: dict[str, Any]) -> None:
    with psycopg.connect(brought_up["app_url"], autocommit=True) as conn:
        row = conn.execute(
            "SELECT current_user, (SELECT tableowner FROM pg_tables WHERE tablename = 'overrides'),"
            " pg_has_role(current_user, 'interview_app', 'MEMBER')"
        ).fetchone()
        assert row == ("coach", "coach_owner", True)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("ALTER TABLE overrides DISABLE TRIGGER ALL")


def test_a_wrong_password_is_refused(brought_up: dict[str, Any]) -> None:
    """The server checks passwords, so the other tests' connections prove the file's are the roles'."""
    wrong = brought_up["app_url"].replace(":coach-db-password@", ":not-the-password@")
    assert wrong != brought_up["app_url"]
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong).close()


def test_the_first_user_signs_in_on_the_apps_url_as_a_reviewer(
    brought_up: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.ui.auth import load_reviewers, load_users, make_auth

    monkeypatch.setenv("INTERVIEW_DATABASE_URL", brought_up["app_url"])
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(brought_up["data"]))
    users = load_users({})
    auth = make_auth(users)
    assert auth(brought_up["admin"], ADMIN_PASSWORD)
    assert not auth(brought_up["admin"], ADMIN_PASSWORD + "x")
    assert brought_up["admin"] in load_reviewers({})
