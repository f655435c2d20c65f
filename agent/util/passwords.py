"""A password as the app keeps it: `pbkdf2_sha256$ITERATIONS$SALT$HEX`.

`hash_password` writes it (`python -m agent.ui --add-user`, agent/ui/auth.py; `interview db import` for a
password written plain in users.txt, agent/db/transfer.py) and `check_password` checks a password against
what is kept (the app's sign-in; the import's comparison with the database's user), so a user the import
hashed signs in as one the app added (tests/postgres/test_pg_import.py).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

PBKDF2 = "pbkdf2_sha256"
ITERATIONS = 200_000


def is_hashed(secret: str) -> bool:
    """`secret` is a hash as `hash_password` writes it (else a password written plain)."""
    return secret.startswith(PBKDF2 + "$")


def hash_password(password: str, *, iterations: int = ITERATIONS) -> str:
    salt = secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations).hex()
    return f"{PBKDF2}${iterations}${salt}${digest}"


def check_password(stored: str, given: str) -> bool:
    """`given` is the password `stored` keeps: its hash, or (a password written plain) the same text."""
    if is_hashed(stored):
        try:
            _, iterations, salt, digest = stored.split("$")
            got = hashlib.pbkdf2_hmac("sha256", given.encode(), salt.encode(), int(iterations)).hex()
        except ValueError:
            return False
        return hmac.compare_digest(got, digest)
    return hmac.compare_digest(stored.encode(), given.encode())
