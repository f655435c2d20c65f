"""A throwaway Postgres server for the tests: Debian's `postgresql` binaries (initdb, pg_ctl) run in a
temporary folder, on a free loopback port, trust authentication, no fsync.

initdb refuses to run as root: as root the cluster belongs to the `postgres` system user (or `nobody`)
and the binaries run through `runuser`. Without the binaries the tests that need the server skip and
say how to install them (`apt-get install postgresql`; scripts/system_deps.sh does it in CI)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

SUPERUSER = "postgres"
TEMPLATE = "migrated"
OWNER_ROLE = "coach_owner"
"""The role that owns each test database and its schema, and runs the migrations (no superuser, no
CREATEROLE: the group role exists before it migrates, as a deployment's admin creates it)."""
APP_ROLE = "coach"
"""The role the app connects as in the tests: a member of the group role, owner of nothing."""
GROUP_ROLE = "interview_app"
"""The group role agent/db/migrations/postgres/0004_app_role.sql grants the app's rights to."""


def bin_dir() -> Path | None:
    """The newest installed server's bin folder (`PG_BIN` wins), or None."""
    env = os.environ.get("PG_BIN")
    if env:
        return Path(env) if (Path(env) / "pg_ctl").exists() else None
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3].split(".")[0])
    )
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """initdb + pg_ctl start; `stop()` removes everything."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="interview-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user: str | None = None
        self._template = False
        if os.geteuid() == 0:
            self.user = next((u for u in ("postgres", "nobody") if _has_user(u)), None)
            if self.user is None:
                raise RuntimeError("running as root and there is no postgres or nobody user to run initdb as")
            pw = pwd.getpwnam(self.user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--no-sync")
        opts = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w", "start")

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bindir / tool), *args]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root, timeout=120)
        if r.returncode != 0:
            log = self.root / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{tool} failed ({r.returncode}): {r.stderr or r.stdout}\n{tail}")

    def superuser_url(self, db: str | None = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{db or 'postgres'}"

    def url(self, db: str, role: str = APP_ROLE) -> str:
        return f"postgresql://{role}@127.0.0.1:{self.port}/{db}"

    def owner_url(self, db: str) -> str:
        """The database as the role that owns it and runs its migrations."""
        return self.url(db, OWNER_ROLE)

    def create_database(self, name: str, *, migrated: bool = True) -> str:
        """A new database owned by the owner role; its URL as the app's role. `migrated`: a copy of a
        database `interview db migrate` (as the owner) brought up to date once (a migration takes
        seconds, a copy much less); the copy keeps the grants."""
        import psycopg

        with psycopg.connect(self.superuser_url(), autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone() is None:
                conn.execute(f"CREATE ROLE {GROUP_ROLE} NOLOGIN")
                conn.execute(f"CREATE ROLE {OWNER_ROLE} LOGIN")
                conn.execute(f"CREATE ROLE {APP_ROLE} LOGIN IN ROLE {GROUP_ROLE}")
            if migrated and not self._template:
                conn.execute(f"CREATE DATABASE {TEMPLATE} OWNER {OWNER_ROLE}")
                from agent.db.migrate import migrate

                migrate(self.owner_url(TEMPLATE))
                self._template = True
            template = f" TEMPLATE {TEMPLATE}" if migrated else ""
            conn.execute(f'CREATE DATABASE "{name}" OWNER {OWNER_ROLE}{template}')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


C = TypeVar("C", bound=Cluster)


@contextmanager
def running(kind: type[C]) -> Iterator[C]:
    """A server of `kind` for the length of a with-block, removed after; without the binaries the test
    skips, saying how to install them."""
    import pytest

    found = bin_dir()
    if found is None:
        pytest.skip("no Postgres server binaries (initdb, pg_ctl): apt-get install postgresql")
    server = kind(found)
    try:
        yield server
    finally:
        server.stop()
