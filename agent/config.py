"""Where the product keeps its state, and the settings read from the environment.

Everything the product writes lives under the data dir (never inside the repo):
sessions, the override log, the Chroma index, and caches (models, wheels, venvs). The data dir is
its user's only (0700), and so is every SQLite file in it (0600, see `private_sqlite`).
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "vllm-interview-coach"
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
COUNT_SIDECAR = ".count"
"""Beside the session store and the override log: how many rows each has held (a truncation check)."""


def owner_only(path: Path) -> None:
    """Take the group and other permission bits off `path` (never adds one: a 0444 file becomes 0400).

    A missing path, or one this process may not chmod, is left as it is."""
    try:
        mode = path.stat().st_mode
        if mode & 0o077:
            path.chmod(mode & 0o7700)
    except OSError:
        pass


def private_sqlite(path: Path, *, create: bool = True) -> None:
    """Before SQLite opens `path`: create it empty with mode 0600 when absent (`create`), and make it, its
    -wal/-shm/-journal and its .count sidecar owner-only. SQLite gives the files it adds the database file's
    mode, so they are 0600 too. A folder that is missing or read-only is left for SQLite to report."""
    if create:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            pass
        else:
            os.close(fd)
    for p in (path, *(path.with_name(path.name + s) for s in (*SQLITE_SIDE_FILES, COUNT_SIDECAR))):
        owner_only(p)


def data_dir() -> Path:
    """`INTERVIEW_DATA_DIR`, else `$XDG_DATA_HOME/vllm-interview-coach` (~/.local/share/...);
    created 0700, and an existing one made owner-only."""
    env = os.environ.get("INTERVIEW_DATA_DIR")
    if env:
        path = Path(env).expanduser()
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / APP_NAME
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    owner_only(path)
    return path


def cache_dir() -> Path:
    """Caches that are expensive to rebuild and safe to share between data dirs
    (converted judge model, vLLM venv, downloaded vLLM wheel, whisper model).

    `INTERVIEW_CACHE_DIR`, else `<data dir>/cache`.
    """
    env = os.environ.get("INTERVIEW_CACHE_DIR")
    path = Path(env).expanduser() if env else data_dir() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def repo_root() -> Path:
    """The checkout (or installed tree) that holds rubrics/, prompts/, knowledge/, eval/."""
    return Path(__file__).resolve().parent.parent


def judge_base_url() -> str | None:
    return os.environ.get("JUDGE_BASE_URL") or None


def judge_model() -> str | None:
    return os.environ.get("JUDGE_MODEL") or None
