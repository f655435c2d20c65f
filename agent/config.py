"""Where the product keeps its state, and the settings read from the environment.

Everything the product writes lives under the data dir (never inside the repo):
sessions, the override log, the Chroma index, and caches (models, wheels, venvs).
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "vllm-interview-coach"


def data_dir() -> Path:
    """`INTERVIEW_DATA_DIR`, else `$XDG_DATA_HOME/vllm-interview-coach` (~/.local/share/...)."""
    env = os.environ.get("INTERVIEW_DATA_DIR")
    if env:
        path = Path(env).expanduser()
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / APP_NAME
    path.mkdir(parents=True, exist_ok=True)
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
