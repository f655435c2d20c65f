"""Is a cited vLLM path real? Checks `path`, `path:Symbol`, `path::Symbol`, brace forms and directories
against the pinned file list (knowledge/vllm_paths.txt) and, when given, the index's symbol table.

Works without a built index: the scoring core calls `check_path` for the `nonexistent_path` flag.
"""

from __future__ import annotations

import functools
import re
import sys
import zipfile
from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field

from agent.knowledge.pin import expand_braces, knowledge_dir, load_pin

SymbolTable = Mapping[str, Iterable[str]]
"""path -> symbols defined in it (`Scheduler`, `Scheduler.schedule`, `Scheduler.running`, `logger`)."""

_URL = re.compile(r"^https?://github\.com/vllm-project/vllm/(?:blob|tree)/[^/]+/")
_LINES = re.compile(r"(?:#L?|:)(\d+)(?:-L?(\d+))?$")
_STRIP = "`'\"“”‘’()[]<>,.;，。；、：）（ \t"
# A citation inside free text: a vllm path (slashes or dots, braces allowed) or a bare *.py name,
# optionally followed by :Symbol, ::Symbol, :123 or #L1-L2. ASCII only: CJK punctuation ends it.
_CITATION = re.compile(
    r"(?<![A-Za-z0-9_./{])"
    r"((?:https?://github\.com/vllm-project/vllm/(?:blob|tree)/[0-9a-zA-Z._-]+/)?"
    r"(?:vllm(?:/[A-Za-z0-9_.{},-]*)+|vllm(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z0-9_{},/-]*[A-Za-z0-9_}]\.py)"
    r"(?:(?:::|:)[A-Za-z_][A-Za-z0-9_.]*|(?::|#L)\d+(?:-L?\d+)?)?)"
)


class PathStatus(StrEnum):
    EXISTS = "exists"
    MISSING = "missing"
    SYMBOL_MISSING = "symbol_missing"
    UNKNOWN = "unknown"
    """Outside vllm/ (tests/, csrc/, docs/ …): the pinned list does not cover it; never a flag."""
    MOVED = "moved"
    """A file of an earlier release, moved or split before the pin (knowledge/moved_paths.yaml): the
    report says where it lives now, and the judge charges it less than an invented (`missing`) path."""


class PathCheck(BaseModel):
    """The verdict on one citation. `status` is what the `nonexistent_path` flag reads."""

    cited: str
    paths: list[str] = Field(default_factory=list)
    """Normalised repository paths the citation names (brace forms expand to several)."""
    kind: Literal["file", "dir", "unknown"] = "unknown"
    status: PathStatus
    missing: list[str] = Field(default_factory=list)
    symbol: str | None = None
    line: int | None = None
    symbol_checked: bool = False
    """True when a symbol table covered the file, so a missing symbol could be detected."""
    matches: list[str] = Field(default_factory=list)
    """For a bare file name (`sampler.py`): the listed paths it could mean."""
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status in (PathStatus.EXISTS, PathStatus.UNKNOWN, PathStatus.MOVED)


def paths_file() -> Path:
    return load_pin().paths_file()


@functools.lru_cache(maxsize=4)
def _read_paths(path: Path) -> frozenset[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(ln.strip() for ln in lines if ln.strip() and not ln.startswith("#"))


def known_paths(path: Path | None = None) -> frozenset[str]:
    """Every file path under vllm/ at the pin (see pin.yaml `paths` for how the list was made)."""
    return _read_paths((path or paths_file()).resolve())


@functools.lru_cache(maxsize=4)
def _read_moved(path: Path) -> dict[str, tuple[str, ...]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {m["old"]: tuple(m["now"]) for m in data.get("moved", [])}


def moved_paths(path: Path | None = None) -> dict[str, tuple[str, ...]]:
    """Old path -> the pinned paths that hold it now (knowledge/moved_paths.yaml)."""
    return _read_moved((path or knowledge_dir() / "moved_paths.yaml").resolve())


@functools.lru_cache(maxsize=4)
def _dirs(paths: frozenset[str]) -> frozenset[str]:
    out: set[str] = set()
    for p in paths:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]) + "/")
    return frozenset(out)


@functools.lru_cache(maxsize=4)
def _by_name(paths: frozenset[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in sorted(paths):
        out.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    return out


def _split_citation(text: str) -> tuple[str, str | None, int | None]:
    """'a/b.py::C.m' -> ('a/b.py', 'C.m', None); 'a/b.py:120' / 'a/b.py#L3-L9' -> (path, None, line)."""
    s = text.strip().strip(_STRIP)
    s = _URL.sub("", s)
    line: int | None = None
    m = _LINES.search(s)
    if m and (".py" in s[: m.start()] or "/" in s[: m.start()]):
        line = int(m.group(1))
        s = s[: m.start()]
    symbol: str | None = None
    if "::" in s:
        s, symbol = s.split("::", 1)
    elif ":" in s:
        s, symbol = s.split(":", 1)
    symbol = symbol.strip().strip(_STRIP).removesuffix("()") if symbol else None
    return s.strip().strip(_STRIP.replace("/", "")), symbol or None, line


def _dotted_to_path(s: str, files: frozenset[str]) -> tuple[str, str | None]:
    """`vllm.v1.core.sched.scheduler.Scheduler` -> ('vllm/v1/core/sched/scheduler.py', 'Scheduler')."""
    parts = s.split(".")
    for i in range(len(parts), 0, -1):
        base = "/".join(parts[:i])
        rest = ".".join(parts[i:]) or None
        if base + ".py" in files:
            return base + ".py", rest
        if base + "/__init__.py" in files:
            return (base + "/", None) if rest is None else (base + "/__init__.py", rest)
    return "/".join(parts) + ".py", None


def _symbol_found(symbol: str, defined: Iterable[str]) -> bool:
    names = set(defined)
    if symbol in names:
        return True
    # `schedule` may cite `Scheduler.schedule`, and `KVCacheManager.free` a nested `Outer.KVCacheManager.free`.
    tail = "." + symbol
    return any(n.endswith(tail) for n in names)


def check_path(
    p: str, *, symbols: SymbolTable | None = None, known: frozenset[str] | None = None
) -> PathCheck:
    """Check one citation against the pinned file list (and the index's symbols when given).

    Accepts `vllm/v1/core/{block_pool,kv_cache_manager}.py`, directories (`vllm/entrypoints/openai/`),
    `file.py:Symbol`, `file.py::Symbol`, `file.py:120`, `file.py#L1-L9`, GitHub blob URLs, dotted
    modules (`vllm.v1.request`), paths without the leading `vllm/` and bare file names.
    """
    files = known if known is not None else known_paths()
    dirs = _dirs(files)
    raw_path, symbol, line = _split_citation(p)
    if not raw_path:
        return PathCheck(cited=p, status=PathStatus.UNKNOWN, reason="no path in the citation")
    if "/" not in raw_path and raw_path.startswith("vllm.") and not raw_path.endswith(".py"):
        raw_path, dotted_symbol = _dotted_to_path(raw_path, files)
        symbol = symbol or dotted_symbol
    raw_path = raw_path.removeprefix("./").lstrip("/")

    resolved: list[str] = []
    missing: list[str] = []
    kinds: set[str] = set()
    matches: list[str] = []
    for cand in expand_braces(raw_path):
        if "/" not in cand and cand.endswith(".py"):  # bare file name
            found = _by_name(files).get(cand, [])
            if found:
                matches.extend(found)
                resolved.append(cand)
                kinds.add("file")
            else:
                missing.append(cand)
            continue
        if not cand.startswith("vllm/") and cand != "vllm":
            top = cand.split("/", 1)[0]
            if "vllm/" + top + "/" in dirs or "vllm/" + cand in files:
                cand = "vllm/" + cand
            else:
                return PathCheck(
                    cited=p,
                    paths=[cand],
                    status=PathStatus.UNKNOWN,
                    symbol=symbol,
                    line=line,
                    reason=f"{cand}: outside vllm/, which is all the pinned list covers",
                )
        if cand in files:
            resolved.append(cand)
            kinds.add("file")
        elif cand.rstrip("/") + "/" in dirs:
            resolved.append(cand.rstrip("/") + "/")
            kinds.add("dir")
        elif not cand.endswith((".py", "/")) and cand + ".py" in files:
            resolved.append(cand + ".py")
            kinds.add("file")
        else:
            missing.append(cand)

    kind: Literal["file", "dir", "unknown"] = "dir" if kinds == {"dir"} else "file" if kinds else "unknown"

    def result(status: PathStatus, reason: str, **extra: Any) -> PathCheck:
        return PathCheck(
            cited=p,
            paths=resolved + missing,
            kind=kind,
            status=status,
            symbol=symbol,
            line=line,
            matches=matches,
            reason=reason,
            **extra,
        )

    moved = moved_paths() if known is None else {}
    if missing and all(m in moved for m in missing):
        now = [n for m in missing for n in moved[m]]
        matches.extend(now)
        return result(PathStatus.MOVED, "moved before the pin; now " + ", ".join(now))
    if missing:
        return result(
            PathStatus.MISSING, "not in the pinned vLLM tree: " + ", ".join(missing), missing=missing
        )
    if symbol and symbols is not None:
        targets = matches or [r for r in resolved if not r.endswith("/")]
        covered = [t for t in targets if t in symbols]
        if covered:
            if not any(_symbol_found(symbol, symbols[t]) for t in covered):
                return result(
                    PathStatus.SYMBOL_MISSING,
                    f"{symbol} is not defined in " + ", ".join(covered),
                    symbol_checked=True,
                )
            return result(PathStatus.EXISTS, "path and symbol found", symbol_checked=True)
    return result(
        PathStatus.EXISTS, "path found" + ("; symbol not checked (file not in the index)" if symbol else "")
    )


def extract_citations(text: str) -> list[str]:
    """Path-like citations in free text (answers in English or Chinese), in order, without repeats."""
    seen: dict[str, None] = {}
    for m in _CITATION.finditer(text):
        cite = m.group(1).rstrip(".,")
        if cite.startswith("vllm.") and cite.count(".") < 2:
            continue  # "vllm.ai", "vllm.LLM": not a module path we can judge
        seen.setdefault(cite, None)
    return list(seen)


def check_citations(text: str, *, symbols: SymbolTable | None = None) -> list[PathCheck]:
    """`check_path` for every citation found in `text`."""
    return [check_path(c, symbols=symbols) for c in extract_citations(text)]


def paths_from_wheel(wheel: Path) -> list[str]:
    """The path list as knowledge/vllm_paths.txt holds it: every vllm/ entry except compiled binaries."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    return sorted(
        n
        for n in names
        if n.startswith("vllm/") and not n.endswith("/") and not n.endswith(".so") and n != "vllm/vllm-rs"
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m agent.knowledge.paths WHEEL > knowledge/vllm_paths.txt", file=sys.stderr)
        return 2
    for name in paths_from_wheel(Path(args[0])):
        print(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
