"""Users, the reviewer role and the browser-id secret in the shared database: written by
`python -m agent.ui --add-user`, known to every replica (each with its own data dir) at its next
sign-in, without a restart."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config import repo_root
from agent.ui.auth import (
    AuthError,
    add_reviewer,
    add_user,
    browser_secret,
    load_reviewers,
    load_users,
    make_auth,
    users_path,
)


def test_add_user_writes_to_the_database_and_every_replica_reads_it(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERVIEW_USERS", "local:local-password")
    auth = make_auth(load_users())  # built before the user exists, as a running replica's is
    where = add_user("alice", "alice-password")
    assert "coach@127.0.0.1" in str(where) and not users_path().exists()
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "replica-b"))  # another replica
    assert set(load_users()) == {"alice", "local"}
    assert auth("alice", "alice-password") and not auth("alice", "wrong-password")
    assert auth("local", "local-password")
    add_user("alice", "a-new-password")  # a password changed on one replica counts on all
    assert auth("alice", "a-new-password") and not auth("alice", "alice-password")


def test_the_reviewer_role_is_shared_and_needs_a_user(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEW_REVIEWERS", "sam")
    reviewers = load_reviewers()  # a running replica's
    add_user("rita", "rita-password")
    assert "rita" not in reviewers and "sam" in reviewers
    add_reviewer("rita")
    assert "rita" in reviewers and "alice" not in reviewers
    with pytest.raises(AuthError, match="not a user"):
        add_reviewer("nobody")


def test_add_user_from_the_command_line(pg_url: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "agent.ui", "--add-user", "rita", "--reviewer"],
        input="rita-password\n",
        capture_output=True,
        text=True,
        cwd=repo_root(),
        env=dict(os.environ),
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "rita is a reviewer" in r.stdout and "added rita to postgresql://coach@" in r.stdout
    assert "rita" in load_reviewers() and make_auth(load_users())("rita", "rita-password")


def test_every_replica_signs_browser_ids_with_the_same_secret(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = browser_secret()
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "replica-b"))
    assert browser_secret() == first and len(first) == 64
