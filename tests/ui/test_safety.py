"""Safe defaults: loopback unless there are users, logins checked, uploads read only from known folders."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from agent.ui.auth import AuthError, add_user, check_password, is_loopback, load_users, make_auth
from agent.ui.files import UploadRefused, reports_dir, safe_upload, upload_roots
from agent.ui.main import main
from tests.ui.conftest import free_port


@pytest.mark.parametrize(
    ("host", "loop"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("127.0.0.2", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("::", False),
        ("example.com", False),
    ],
)
def test_which_hosts_are_loopback(host: str, loop: bool) -> None:
    assert is_loopback(host) is loop


def test_the_app_refuses_to_listen_exposed_without_users(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("INTERVIEW_USERS", raising=False)
    with pytest.raises(SystemExit) as e:
        main(["--host", "0.0.0.0", "--port", "1"])
    assert "refusing to listen on 0.0.0.0 without a login" in str(e.value)


def test_users_come_from_the_variable_and_the_file(tmp_path: Path) -> None:
    f = tmp_path / "users.txt"
    add_user("carol", "long-enough-password", f)
    f.write_text(f.read_text() + "# a comment\n\ndave:plain-secret\n")
    assert oct(f.stat().st_mode & 0o777) == "0o600"
    users = load_users({"INTERVIEW_USERS": "alice:pw1, bob:pw2"}, f)
    assert set(users) == {"alice", "bob", "carol", "dave"}
    assert users["carol"].startswith("pbkdf2_sha256$") and "long-enough" not in f.read_text()
    auth = make_auth(users)
    assert auth("carol", "long-enough-password") and auth("alice", "pw1") and auth("dave", "plain-secret")
    assert not auth("carol", "wrong") and not auth("nobody", "pw1") and not auth("alice", "pw2")
    assert not check_password("pbkdf2_sha256$broken", "x")


def test_a_malformed_users_entry_is_named(tmp_path: Path) -> None:
    with pytest.raises(AuthError, match="INTERVIEW_USERS entry 2"):
        load_users({"INTERVIEW_USERS": "alice:pw,bob"}, tmp_path / "none.txt")
    with pytest.raises(AuthError, match="at least 8"):
        add_user("eve", "short", tmp_path / "u.txt")


def test_uploads_are_read_only_from_the_upload_folder_or_the_reports_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))
    (tmp_path / "gradio" / "abc").mkdir(parents=True)
    ok = tmp_path / "gradio" / "abc" / "report.json"
    ok.write_text("{}")
    assert safe_upload(str(ok)) == ok.resolve()
    mine = reports_dir() / "r.json"
    mine.write_text("{}")
    assert safe_upload(mine) == mine.resolve()
    secret = tmp_path / "data" / "users.txt"
    secret.write_text("alice:pw")
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    link = tmp_path / "gradio" / "abc" / "link.json"
    os.symlink(secret, link)
    for bad in (
        secret,
        outside,
        link,
        tmp_path / "gradio" / "abc" / ".." / ".." / "elsewhere.json",
        "/etc/passwd",
    ):
        with pytest.raises(UploadRefused, match="only from uploads"):
            safe_upload(str(bad))
    with pytest.raises(UploadRefused, match="does not exist"):
        safe_upload(str(tmp_path / "gradio" / "missing.json"))
    big = tmp_path / "gradio" / "abc" / "big.json"
    big.write_bytes(b" " * 2000)
    with pytest.raises(UploadRefused, match="over the limit"):
        safe_upload(big, max_bytes=1000)
    assert all(r.is_absolute() for r in upload_roots())


def test_python_m_agent_ui_serves_on_loopback_by_default(tmp_path: Path) -> None:
    """The real entry point, as serve.sh starts it: answers on 127.0.0.1 and on no other address."""
    port = free_port()
    env = {**os.environ, "INTERVIEW_DATA_DIR": str(tmp_path), "GRADIO_ANALYTICS_ENABLED": "False"}
    env.pop("INTERVIEW_USERS", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.ui", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else "exited"
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/config", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the app did not answer within 120 s"
                time.sleep(0.5)
        assert r.status_code == 200 and "vLLM Interview Coach" in r.text
        with socket.socket() as s:  # bound to 127.0.0.1 only: another loopback address gets nothing
            assert s.connect_ex(("127.0.0.2", port)) != 0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
