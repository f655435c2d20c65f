"""Who may use the app, and whose sessions a request may see.

On a loopback address the app needs no login, and each browser is its own owner (a random id kept
in the browser's local storage, signed with a secret kept in the data dir). Bound to any other
address it requires a login: users come from `INTERVIEW_USERS` ("name:password,name2:password2")
and/or `<data dir>/users.txt` (one `name:secret` a line, the secret a password or a
`pbkdf2_sha256$ITERATIONS$SALT$HEX` hash as written by `python -m agent.ui --add-user NAME`);
the signed-in name is then the owner of sessions and the reviewer of overrides.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path

from agent import config

USERS_FILE = "users.txt"
SECRET_FILE = "ui-secret"
_PBKDF2 = "pbkdf2_sha256"
_ITERATIONS = 200_000


class AuthError(ValueError):
    """A users file or variable that cannot be read; the message names it and the line."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def hash_password(password: str, *, iterations: int = _ITERATIONS) -> str:
    salt = secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations).hex()
    return f"{_PBKDF2}${iterations}${salt}${digest}"


def check_password(stored: str, given: str) -> bool:
    if stored.startswith(_PBKDF2 + "$"):
        try:
            _, iterations, salt, digest = stored.split("$")
            got = hashlib.pbkdf2_hmac("sha256", given.encode(), salt.encode(), int(iterations)).hex()
        except ValueError:
            return False
        return hmac.compare_digest(got, digest)
    return hmac.compare_digest(stored.encode(), given.encode())


def _parse(line: str, where: str) -> tuple[str, str]:
    name, sep, secret = line.partition(":")
    name, secret = name.strip(), secret.strip()
    if not sep or not name or not secret:
        raise AuthError(f"{where}: expected name:password")
    return name, secret


def users_path() -> Path:
    return config.data_dir() / USERS_FILE


def load_users(env: Mapping[str, str] | None = None, path: Path | None = None) -> dict[str, str]:
    """name -> stored secret, from `INTERVIEW_USERS` and the users file (the file wins on a clash)."""
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


def add_user(name: str, password: str, path: Path | None = None) -> Path:
    """Append `name` with a pbkdf2 hash of `password` to the users file (created 0600)."""
    if not name or ":" in name or name != name.strip():
        raise AuthError(f"bad user name {name!r}: no colon, no surrounding spaces")
    if len(password) < 8:
        raise AuthError("the password must have at least 8 characters")
    path = path or users_path()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(f"{name}:{hash_password(password)}\n")
    return path


def make_auth(users: Mapping[str, str]) -> Callable[[str, str], bool]:
    def auth(name: str, password: str) -> bool:
        stored = users.get(name)
        if stored is None:
            check_password(hash_password("x", iterations=1), password)  # similar work either way
            return False
        return check_password(stored, password)

    return auth


def browser_secret() -> str:
    """The key that signs each browser's owner id; kept in the data dir so ids survive a restart."""
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
