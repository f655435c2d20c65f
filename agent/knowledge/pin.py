"""The pinned vLLM source: repository, commit, source trail and nearest release (knowledge/pin.yaml)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from agent import config

_BRACES = re.compile(r"\{([^{}]*)\}")


class Release(BaseModel):
    """The release wheel nearest the pin, and how its text relates to the pin."""

    package: str = "vllm"
    version: str
    wheel: str
    wheel_sha256: str | None = None
    commit: str
    relation_to_pin: str
    drift_prone: list[str] = Field(default_factory=list)


class PathsInfo(BaseModel):
    file: str
    generated_from: str
    caveats: str = ""


class Pin(BaseModel):
    repo: str
    repo_url: str
    commit: str
    source_trail: list[str]
    release: Release
    paths: PathsInfo
    location: Path | None = Field(default=None, exclude=True)

    def trail_patterns(self) -> list[str]:
        """The source trail with braces expanded: files, and directories ending in '/'."""
        out: list[str] = []
        for entry in self.source_trail:
            out.extend(expand_braces(entry))
        return out

    def in_trail(self, path: str) -> bool:
        """Whether a vllm/ file path belongs to the source trail."""
        for pattern in self.trail_patterns():
            if pattern.endswith("/"):
                if path.startswith(pattern):
                    return True
            elif path == pattern:
                return True
        return False

    def permalink(
        self, path: str, start: int | None = None, end: int | None = None, commit: str | None = None
    ) -> str:
        """GitHub permalink to a file (and line range) at `commit` (default: the pin)."""
        url = f"{self.repo_url}/blob/{commit or self.commit}/{path}"
        if start is not None:
            url += f"#L{start}" + (f"-L{end}" if end is not None and end != start else "")
        return url

    def same_commit(self, other: str | None) -> bool:
        """True when `other` (full or abbreviated hash) names the pinned commit."""
        return commit_matches(self.commit, other)

    def paths_file(self) -> Path:
        base = self.location.parent if self.location else knowledge_dir()
        return base / self.paths.file


def commit_matches(a: str | None, b: str | None) -> bool:
    """Full or abbreviated git hashes naming the same commit (prefix match, at least 7 hex digits)."""
    if not a or not b:
        return False
    a, b = a.lower().strip(), b.lower().strip()
    short = min(len(a), len(b))
    return short >= 7 and a[:short] == b[:short]


def expand_braces(text: str) -> list[str]:
    """`vllm/v1/core/{block_pool,kv_cache_manager}.py` -> both paths (nested and repeated groups too)."""
    match = _BRACES.search(text)
    if not match:
        return [text]
    head, tail = text[: match.start()], text[match.end() :]
    out: list[str] = []
    for option in match.group(1).split(","):
        out.extend(expand_braces(head + option.strip() + tail))
    return out


def knowledge_dir() -> Path:
    """The folder holding pin.yaml, vllm_paths.txt and terms_zh_en.yaml."""
    return config.repo_root() / "knowledge"


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> Pin:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    pin = Pin.model_validate(data)
    pin.location = path
    return pin


def load_pin(path: Path | None = None) -> Pin:
    """Load knowledge/pin.yaml (cached)."""
    return _load((path or knowledge_dir() / "pin.yaml").resolve())
