"""Safe defaults: loopback unless there are users, logins checked, uploads read only from known folders."""

from __future__ import annotations

import io
import os
import socket
import sys
from pathlib import Path

import httpx
import pytest

from agent.ui.auth import (
    AuthError,
    LoginThrottle,
    LoginThrottled,
    add_user,
    check_password,
    client_address,
    hash_password,
    is_loopback,
    load_reviewers,
    load_users,
    make_auth,
)
from agent.ui.files import UploadRefused, reports_dir, safe_upload, upload_roots
from agent.ui.main import main
from tests.ui.conftest import USERS, Served, app_process, first_answer, launch_app


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


def test_reviewers_come_from_add_user_and_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.StringIO("long-enough-password\n"))
    main(["--add-user", "rita", "--reviewer"])
    assert set(load_users({})) == {"rita"}
    assert load_reviewers({"INTERVIEW_REVIEWERS": "sam, tom,"}) == {"rita", "sam", "tom"}
    assert load_reviewers({}) == {"rita"} and (tmp_path / "reviewers.txt").stat().st_mode & 0o777 == 0o600
    with pytest.raises(SystemExit, match="--reviewer goes with --add-user"):
        main(["--reviewer"])


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
    with (
        app_process(tmp_path) as (proc, port),
        httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as http,
    ):
        r = first_answer(proc, http)
        assert r.status_code == 200 and "vLLM Interview Coach" in r.text
        with socket.socket() as s:  # bound to 127.0.0.1 only: another loopback address gets nothing
            assert s.connect_ex(("127.0.0.2", port)) != 0


# ------------------------------------------------------------------ login throttling


class Clock:
    """The throttle's clock, moved by hand: no test sleeps."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _attempt(auth: object, name: str, password: str, address: str = "203.0.113.7") -> bool | float:
    """True/False from the password check, or the seconds to wait when the throttle refused to check."""
    token = client_address.set(address)
    try:
        return bool(auth(name, password))  # type: ignore[operator]
    except LoginThrottled as e:
        return e.retry_after_s
    finally:
        client_address.reset(token)


def test_200_wrong_passwords_lock_the_user_and_the_right_one_waits_its_turn() -> None:
    clock = Clock()
    auth = make_auth({"alice": hash_password("alice-password", iterations=1)}, LoginThrottle(clock=clock))
    results = [_attempt(auth, "alice", f"guess-{i}") for i in range(200)]
    assert results[:5] == [False] * 5  # five free failures ...
    assert all(isinstance(r, float) and r > 0 for r in results[5:])  # ... then not even checked
    wait = _attempt(auth, "alice", "alice-password")
    assert isinstance(wait, float) and 0 < wait <= 1.0  # the right password too, until the lock ends
    with pytest.raises(LoginThrottled, match=r"Too many failed sign-ins.*try again in 1 s"):
        token = client_address.set("203.0.113.7")
        try:
            auth("alice", "alice-password")
        finally:
            client_address.reset(token)
    clock.t += 1.0
    assert _attempt(auth, "alice", "alice-password") is True  # never locked out for good
    assert _attempt(auth, "alice", "wrong") is False  # a success clears the user's count


def test_the_delay_doubles_with_each_failure_and_is_capped() -> None:
    clock = Clock()
    throttle = LoginThrottle(clock=clock, free_failures=5, base_delay_s=1.0, max_delay_s=60.0)
    auth = make_auth({"alice": hash_password("alice-password", iterations=1)}, throttle)
    waits = []
    for _ in range(12):
        r = _attempt(auth, "alice", "wrong")
        while isinstance(r, float):  # wait out the lock, then try again
            clock.t += r
            r = _attempt(auth, "alice", "wrong")
        waits.append(throttle.wait_s(["user:alice"]))
    assert waits == [0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60]
    clock.t += 60
    assert _attempt(auth, "alice", "alice-password") is True


def test_one_address_guessing_many_names_is_locked_but_other_addresses_are_not() -> None:
    clock = Clock()
    auth = make_auth({"alice": hash_password("alice-password", iterations=1)}, LoginThrottle(clock=clock))
    assert [_attempt(auth, f"user{i}", "pw", "198.51.100.9") for i in range(5)] == [False] * 5
    assert isinstance(_attempt(auth, "alice", "alice-password", "198.51.100.9"), float)  # that address waits
    assert _attempt(auth, "alice", "alice-password", "192.0.2.1") is True  # alice from elsewhere does not


def test_failures_are_forgotten_after_a_quiet_hour() -> None:
    clock = Clock()
    auth = make_auth({"alice": hash_password("alice-password", iterations=1)}, LoginThrottle(clock=clock))
    for _ in range(4):
        _attempt(auth, "alice", "wrong")
    clock.t += 3601
    assert [_attempt(auth, "alice", "wrong") for _ in range(5)] == [False] * 5


@pytest.fixture
def throttled_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    clock = Clock()
    gen = launch_app(tmp_path, users=USERS, throttle=LoginThrottle(clock=clock))
    served = next(gen)
    yield served, clock
    gen.close()


def test_the_served_login_is_throttled_with_a_clear_message(throttled_app: tuple[Served, Clock]) -> None:
    served, clock = throttled_app
    url = f"{served.url}login"
    with httpx.Client(timeout=30) as c:
        codes = [
            c.post(url, data={"username": "alice", "password": f"guess-{i}"}).status_code for i in range(20)
        ]
        assert codes == [400] * 5 + [429] * 15
        right = c.post(url, data={"username": "alice", "password": USERS["alice"]})
        assert right.status_code == 429 and "try again in" in right.json()["detail"]
        assert int(right.headers["retry-after"]) >= 1
        assert "5 failed sign-ins" in c.get(f"{served.url}config").text  # the login page says so too
        clock.t += 1
        assert c.post(url, data={"username": "alice", "password": USERS["alice"]}).status_code == 200
