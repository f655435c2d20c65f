"""Who may use the app, and whose sessions a request may see.

On a loopback address the app needs no login, and each browser is its own owner (a random id kept
in the browser's local storage, signed with a secret kept in the data dir). Bound to any other
address it requires a login: users come from `INTERVIEW_USERS` ("name:password,name2:password2")
and/or `<data dir>/users.txt` (one `name:secret` a line, the secret a password or a
`pbkdf2_sha256$ITERATIONS$SALT$HEX` hash as written by `python -m agent.ui --add-user NAME`);
the signed-in name is then the owner of sessions and the reviewer of overrides.

Overrides belong to a session's owner. A reviewer may also open anyone's session in the Review tab
and override its scores: reviewers are named in `INTERVIEW_REVIEWERS` ("name,name2") and/or
`<data dir>/reviewers.txt` (one name a line, as written by `--add-user NAME --reviewer`); a
reviewer must also be a user, and without a login (loopback) there are none.

With the shared database (`INTERVIEW_DATABASE_URL`), `--add-user` and `--reviewer` write the user and
the role to it instead (agent/db/users.py), every replica looks a user and the role up there at each
sign-in and check (so one added on one replica is known to all, without a restart), and the secret
that signs browser owner ids is kept there, so an id signed by one replica is valid on the others.
The variables and files above still count beside it.

Logins are throttled (`LoginThrottle`): after 5 failures for a user name, or from an address, each
further failure locks that name or address for twice as long as the last (1 s, 2 s, 4 s, ... at most
5 minutes); while locked a login is refused unchecked with HTTP 429 and "try again in N s". A lock
always ends, the right password then works, and a success clears the name's count. The address is
the TCP peer's (behind a reverse proxy: the proxy's; X-Forwarded-For is not trusted).
"""

from __future__ import annotations

import ipaddress
import math
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import HTTPException

from agent import config
from agent.db import database_url, redact
from agent.util.passwords import check_password, hash_password

USERS_FILE = "users.txt"
REVIEWERS_FILE = "reviewers.txt"
SECRET_FILE = "ui-secret"


class AuthError(ValueError):
    """A users file or variable that cannot be read; the message names it and the line."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _parse(line: str, where: str) -> tuple[str, str]:
    name, sep, secret = line.partition(":")
    name, secret = name.strip(), secret.strip()
    if not sep or not name or not secret:
        raise AuthError(f"{where}: expected name:password")
    return name, secret


def users_path() -> Path:
    return config.data_dir() / USERS_FILE


class SharedUsers(Mapping[str, str]):
    """name -> stored secret: the shared database's users, looked up at each sign-in, over `static`
    (the variable and the file; the database wins on a clash)."""

    def __init__(self, url: str, static: Mapping[str, str]) -> None:
        self.url = url
        self.static = dict(static)

    def __getitem__(self, name: str) -> str:
        from agent.db import users

        secret = users.secret_of(self.url, name)
        if secret is not None:
            return secret
        return self.static[name]

    def __iter__(self) -> Iterator[str]:
        from agent.db import users

        return iter(sorted({*self.static, *users.names(self.url)}))

    def __len__(self) -> int:
        return len(list(iter(self)))


class SharedReviewers(Container[str]):
    """Who has the reviewer role: `static` (the variable and the file), or the shared database, asked at
    each check."""

    def __init__(self, url: str, static: frozenset[str]) -> None:
        self.url = url
        self.static = static

    def __contains__(self, name: object) -> bool:
        from agent.db import users

        return isinstance(name, str) and (name in self.static or users.is_reviewer(self.url, name))


def load_users(env: Mapping[str, str] | None = None, path: Path | None = None) -> Mapping[str, str]:
    """name -> stored secret, from `INTERVIEW_USERS` and the users file (the file wins on a clash), and
    with the shared database (`path` not given), from it (`SharedUsers`)."""
    static = _static_users(env, path)
    url = database_url() if path is None else None
    return SharedUsers(url, static) if url else static


def _static_users(env: Mapping[str, str] | None, path: Path | None) -> dict[str, str]:
    env = os.environ if env is None else env
    users: dict[str, str] = {}
    for i, item in enumerate(env.get("INTERVIEW_USERS", "").split(",")):
        if item.strip():
            name, secret = _parse(item, f"INTERVIEW_USERS entry {i + 1}")
            users[name] = secret
    path = path or users_path()
    if path.is_file():
        config.owner_only(path)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() and not line.lstrip().startswith("#"):
                name, secret = _parse(line, f"{path}:{n}")
                users[name] = secret
    return users


def add_user(name: str, password: str, path: Path | None = None) -> Path | str:
    """Append `name` with a pbkdf2 hash of `password` to the users file (created 0600), or with the
    shared database (`path` not given) write it there. Where it went."""
    if not name or ":" in name or name != name.strip():
        raise AuthError(f"bad user name {name!r}: no colon, no surrounding spaces")
    if len(password) < 8:
        raise AuthError("the password must have at least 8 characters")
    url = database_url() if path is None else None
    if url:
        from agent.db import users

        users.put_user(url, name, hash_password(password))
        return redact(url)
    path = path or users_path()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(f"{name}:{hash_password(password)}\n")
    return path


client_address: ContextVar[str] = ContextVar("client_address", default="unknown")
"""The peer address of the HTTP request being served (set by `ClientAddressMiddleware`)."""


class ClientAddressMiddleware:
    """ASGI middleware: keeps each HTTP request's peer address in `client_address` for the login check
    (Gradio calls the auth function with the name and password only)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        peer = scope.get("client")
        token = client_address.set(str(peer[0]) if peer else "unknown")
        try:
            await self.app(scope, receive, send)
        finally:
            client_address.reset(token)


class LoginThrottled(HTTPException):
    """A login refused unchecked: too many recent failures for the name or from the address (HTTP 429)."""

    def __init__(self, retry_after_s: float) -> None:
        self.retry_after_s = retry_after_s
        seconds = max(1, math.ceil(retry_after_s))
        super().__init__(
            status_code=429,
            detail=f"Too many failed sign-ins for this user or from this address: try again in {seconds} s.",
            headers={"Retry-After": str(seconds)},
        )


@dataclass
class _Failures:
    count: int = 0
    locked_until: float = 0.0
    last: float = 0.0


class LoginThrottle:
    """Backoff on failed logins, per key ("user:NAME", "addr:ADDRESS").

    The first `free_failures` failures of a key cost nothing; from then on each failure locks the key
    for `base_delay_s * 2**(failures - free_failures)`, at most `max_delay_s`. A locked key's logins
    are refused without checking the password (and do not count). A key with no failure for
    `forget_after_s` (and no lock) starts again from zero. `clock`: seconds, monotonic (tests pass
    their own, nothing sleeps). At most `max_keys` keys are kept (the least recently failed go)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        free_failures: int = 5,
        base_delay_s: float = 1.0,
        max_delay_s: float = 300.0,
        forget_after_s: float = 3600.0,
        max_keys: int = 10_000,
    ) -> None:
        self.clock = clock
        self.free_failures = free_failures
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.forget_after_s = forget_after_s
        self.max_keys = max_keys
        self._keys: OrderedDict[str, _Failures] = OrderedDict()
        self._lock = threading.Lock()

    def _get(self, key: str, now: float) -> _Failures | None:
        f = self._keys.get(key)
        if f is not None and now >= f.locked_until and now - f.last > self.forget_after_s:
            del self._keys[key]
            return None
        return f

    def wait_s(self, keys: Iterable[str]) -> float:
        """Seconds until any of `keys` may try again (0: now)."""
        with self._lock:
            now = self.clock()
            waits = [f.locked_until - now for k in keys if (f := self._get(k, now)) is not None]
        return max([0.0, *waits])

    def failed(self, keys: Iterable[str]) -> None:
        with self._lock:
            now = self.clock()
            for k in keys:
                f = self._get(k, now) or _Failures()
                f.count += 1
                f.last = now
                if f.count >= self.free_failures:
                    delay = self.base_delay_s * 2 ** min(f.count - self.free_failures, 32)
                    f.locked_until = now + min(self.max_delay_s, delay)
                self._keys[k] = f
                self._keys.move_to_end(k)
            while len(self._keys) > self.max_keys:
                self._keys.popitem(last=False)

    def succeeded(self, keys: Iterable[str]) -> None:
        with self._lock:
            for k in keys:
                self._keys.pop(k, None)


def reviewers_path() -> Path:
    return config.data_dir() / REVIEWERS_FILE


def load_reviewers(env: Mapping[str, str] | None = None, path: Path | None = None) -> Container[str]:
    """The names with the reviewer role, from `INTERVIEW_REVIEWERS` and the reviewers file, and with the
    shared database (`path` not given), from it (`SharedReviewers`)."""
    static = _static_reviewers(env, path)
    url = database_url() if path is None else None
    return SharedReviewers(url, static) if url else static


def _static_reviewers(env: Mapping[str, str] | None, path: Path | None) -> frozenset[str]:
    env = os.environ if env is None else env
    names = {n.strip() for n in env.get("INTERVIEW_REVIEWERS", "").split(",") if n.strip()}
    path = path or reviewers_path()
    if path.is_file():
        config.owner_only(path)
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                names.add(line.strip())
    return frozenset(names)


def add_reviewer(name: str, path: Path | None = None) -> Path | str:
    """Give `name` the reviewer role: append it to the reviewers file (created 0600), or with the shared
    database (`path` not given) mark the user there (who must be a user in it). Where it went."""
    if not name or ":" in name or "," in name or name != name.strip():
        raise AuthError(f"bad user name {name!r}: no colon or comma, no surrounding spaces")
    url = database_url() if path is None else None
    if url:
        from agent.db import users

        if not users.set_reviewer(url, name):
            raise AuthError(f"{name} is not a user in {redact(url)}: add the user first (--add-user {name})")
        return redact(url)
    path = path or reviewers_path()
    if name in _static_reviewers({}, path):
        return path
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(f"{name}\n")
    return path


def make_auth(users: Mapping[str, str], throttle: LoginThrottle | None = None) -> Callable[[str, str], bool]:
    """Gradio's auth function: True for a known name and its password. Throttled per name and per
    address (`throttle`, a fresh `LoginThrottle` by default): a locked login raises `LoginThrottled`."""
    guard = throttle or LoginThrottle()

    def auth(name: str, password: str) -> bool:
        keys = [f"user:{name}", f"addr:{client_address.get()}"]
        wait = guard.wait_s(keys)
        if wait > 0:
            raise LoginThrottled(wait)
        stored = users.get(name)
        if stored is None:
            check_password(hash_password("x", iterations=1), password)  # similar work either way
            ok = False
        else:
            ok = check_password(stored, password)
        if ok:
            guard.succeeded(keys[:1])  # the address keeps its count: a valid account does not clear it
        else:
            guard.failed(keys)
        return ok

    return auth


def browser_secret() -> str:
    """The key that signs each browser's owner id; kept in the data dir so ids survive a restart, or in
    the shared database, so every replica signs and accepts the same ids."""
    url = database_url()
    if url:
        from agent.db import users

        return users.shared_secret(url, SECRET_FILE, secrets.token_hex(32))
    p = config.data_dir() / SECRET_FILE
    try:
        return p.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        value = secrets.token_hex(32)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return p.read_text(encoding="utf-8").strip()
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(value)
        return value
