"""The runtime's errors, and its progress messages on stderr."""

from __future__ import annotations

import datetime as _dt
import sys
from pathlib import Path


class RuntimeSetupError(RuntimeError):
    """The venv, the model or the server could not be prepared."""


class ChecksumError(RuntimeSetupError):
    """A file's sha256 is not the pinned one."""


def log(message: str) -> None:
    print(f"[judge-runtime] {message}", file=sys.stderr, flush=True)


def tail(path: Path, lines: int = 40) -> str:
    """The last `lines` lines of a log file, for an error message."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


def now() -> str:
    """UTC time for logs, venv markers and model manifests."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
