"""Where the vLLM source comes from: a git checkout, an unpacked tree, or a wheel read in place.

`open_source(None)` downloads the release wheel nearest the pin (`pip download --no-deps vllm==0.26.0`)
into `<cache dir>/wheels` once and reads it with `zipfile`, without installing it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from agent import config
from agent.knowledge.pin import Pin, commit_matches, load_pin
from agent.util.files import sha256_file

_COMMIT_ID = re.compile(r"""^(?:__commit_id__\s*=\s*)?commit_id\s*=\s*['"]([^'"]*)['"]""", re.M)
_VERSION = re.compile(r"""^(?:__version__\s*=\s*)?version\s*=\s*['"]([^'"]*)['"]""", re.M)


class SourceError(Exception):
    """A source that cannot be indexed; the message says why in words a user can act on."""


class SourceKind(StrEnum):
    GIT = "git"
    TREE = "tree"
    WHEEL = "wheel"


class Scope(StrEnum):
    TRAIL = "trail"
    """The source-trail files named in knowledge/pin.yaml (default)."""
    ALL = "all"
    """Every .py file under vllm/."""


@dataclass
class Source:
    """An opened vLLM source. Paths are repository paths (`vllm/v1/request.py`)."""

    kind: SourceKind
    location: Path
    commit: str | None
    """Full hash for git; the abbreviated hash from vllm/_version.py for trees and wheels."""
    version: str | None
    dirty: bool = False
    pin_note: str | None = None
    """For a git checkout: HEAD's distance from the pin, or why it cannot be measured."""
    _root: Path | None = field(default=None, repr=False)
    _zip: zipfile.ZipFile | None = field(default=None, repr=False)
    _names: list[str] = field(default_factory=list, repr=False)

    def files(self, scope: Scope = Scope.TRAIL, pin: Pin | None = None) -> list[str]:
        """The .py files to index, sorted."""
        pin = pin or load_pin()
        py = [n for n in self._names if n.endswith(".py")]
        if scope is Scope.TRAIL:
            py = [n for n in py if pin.in_trail(n)]
        return sorted(py)

    def all_paths(self) -> list[str]:
        return list(self._names)

    def read(self, path: str) -> bytes:
        try:
            if self._zip is not None:
                return self._zip.read(path)
            assert self._root is not None
            return (self._root / path).read_bytes()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, KeyError) as exc:
            raise SourceError(f"cannot read {path} from {self.location}: {exc}") from exc
        except Exception as exc:  # zlib.error and friends from a damaged member
            raise SourceError(f"cannot read {path} from {self.location} (corrupt archive?): {exc}") from exc

    def iter_files(self, scope: Scope = Scope.TRAIL, pin: Pin | None = None) -> Iterator[tuple[str, bytes]]:
        for name in self.files(scope, pin):
            yield name, self.read(name)

    def describe(self) -> str:
        what = {SourceKind.GIT: "git checkout", SourceKind.TREE: "source tree", SourceKind.WHEEL: "wheel"}
        ver = f" vllm {self.version}" if self.version else ""
        return f"{what[self.kind]}{ver} at {self.location} (commit {self.commit or 'unknown'})"

    def relation_to_pin(self, pin: Pin | None = None) -> str:
        return relation_to_pin(
            self.kind, self.commit, self.version, pin, dirty=self.dirty, note=self.pin_note
        )

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
            self._zip = None

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def relation_to_pin(
    kind: str,
    commit: str | None,
    version: str | None,
    pin: Pin | None = None,
    *,
    dirty: bool = False,
    note: str | None = None,
) -> str:
    """One plain sentence: how the indexed source differs from the pinned commit."""
    text = _relation(commit, version, pin or load_pin(), dirty=dirty)
    return f"{text} ({note})" if note else text


def _relation(commit: str | None, version: str | None, pin: Pin, *, dirty: bool) -> str:
    if commit_matches(pin.commit, commit):
        note = " with uncommitted changes" if dirty else ""
        return f"exactly the pinned commit {pin.commit[:12]}{note}"
    if commit_matches(pin.release.commit, commit):
        return (
            f"release {pin.release.version} (commit {pin.release.commit}), not the pin {pin.commit[:12]}: "
            + pin.release.relation_to_pin
        )
    if commit:
        return (
            f"commit {commit[:12]}{' (vllm ' + version + ')' if version else ''}, not the pin "
            f"{pin.commit[:12]}: line numbers and details may differ from the pinned source"
        )
    return f"unknown commit{' (vllm ' + version + ')' if version else ''}; cannot be compared with the pin"


def _version_info(text: str) -> tuple[str | None, str | None]:
    """(commit, version) from vllm/_version.py; the commit loses git-describe's leading 'g'."""
    commit_m = _COMMIT_ID.search(text)
    version_m = _VERSION.search(text)
    commit = commit_m.group(1) if commit_m else None
    if commit and re.fullmatch(r"g[0-9a-f]{7,40}", commit):
        commit = commit[1:]
    return commit or None, version_m.group(1) if version_m else None


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SourceError(f"git {' '.join(args)} failed in {root}: {out.stderr.strip()}")
    return out.stdout.strip()


def _git_distance(root: Path, head: str) -> str | None:
    pin = load_pin().commit
    if commit_matches(pin, head):
        return None
    probe = subprocess.run(
        ["git", "-C", str(root), "cat-file", "-e", f"{pin}^{{commit}}"], capture_output=True, timeout=60
    )
    if probe.returncode != 0:
        return f"the pinned commit is not in this clone: `git fetch origin {pin}` to compare"
    behind, ahead = _git(root, "rev-list", "--left-right", "--count", f"{pin}...{head}").split()
    return f"HEAD is {ahead} commits ahead of and {behind} behind the pin"


def _open_wheel(path: Path) -> Source:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceError(f"{path} is not a readable wheel (corrupt or truncated zip: {exc})") from exc
    names = [n for n in zf.namelist() if not n.endswith("/")]
    if "vllm/__init__.py" not in names:
        zf.close()
        raise SourceError(f"{path} is a zip without vllm/__init__.py: not a vLLM wheel")
    commit = version = None
    if "vllm/_version.py" in names:
        try:
            commit, version = _version_info(zf.read("vllm/_version.py").decode("utf-8", "replace"))
        except Exception as exc:
            zf.close()
            raise SourceError(f"{path}: cannot read vllm/_version.py (corrupt wheel?): {exc}") from exc
    return Source(
        SourceKind.WHEEL,
        path,
        commit,
        version,
        _zip=zf,
        _names=sorted(n for n in names if n.startswith("vllm/")),
    )


def _open_dir(path: Path) -> Source:
    if not any(path.iterdir()):
        raise SourceError(f"{path} is an empty folder: nothing to index")
    root = path
    if not (root / "vllm" / "__init__.py").is_file():
        if path.name == "vllm" and (path / "__init__.py").is_file():
            root = path.parent
        else:
            raise SourceError(
                f"{path} is not a vLLM source tree: no vllm/__init__.py in it "
                "(give a vLLM git checkout, an unpacked tree or a wheel file)"
            )
    names = sorted(
        p.relative_to(root).as_posix()
        for p in (root / "vllm").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    commit = version = None
    dirty = False
    kind = SourceKind.TREE
    pin_note = None
    if (root / ".git").exists():
        kind = SourceKind.GIT
        commit = _git(root, "rev-parse", "HEAD")
        dirty = bool(_git(root, "status", "--porcelain", "--untracked-files=no", "--", "vllm"))
        pin_note = _git_distance(root, commit)
    version_file = root / "vllm" / "_version.py"
    if version_file.is_file():
        v_commit, version = _version_info(version_file.read_text(encoding="utf-8", errors="replace"))
        commit = commit or v_commit
    return Source(kind, root, commit, version, dirty=dirty, pin_note=pin_note, _root=root, _names=names)


def open_source(path: Path | None = None, *, download: bool = True) -> Source:
    """Open a vLLM source: a git checkout, an unpacked tree (or its vllm/ folder), or a wheel file.

    With no path: the release wheel nearest the pin, downloaded once into the cache.
    """
    if path is None:
        return _open_wheel(default_wheel(download=download))
    path = Path(path).expanduser()
    if not path.exists():
        raise SourceError(f"{path} does not exist")
    if path.is_dir():
        return _open_dir(path)
    if path.suffix not in (".whl", ".zip"):
        raise SourceError(f"{path} is a file but not a wheel (.whl): give a folder or a vLLM wheel")
    return _open_wheel(path)


def wheel_dir() -> Path:
    path = config.cache_dir() / "wheels"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cached_wheel(pin: Pin | None = None) -> Path | None:
    """The release wheel in the cache, if it is there."""
    pin = pin or load_pin()
    exact = wheel_dir() / pin.release.wheel
    if exact.is_file():
        return exact
    found = sorted(wheel_dir().glob(f"{pin.release.package}-{pin.release.version}-*.whl"))
    return found[0] if found else None


def default_wheel(*, download: bool = True, pin: Pin | None = None) -> Path:
    """`pip download --no-deps vllm==<release>` into `<cache dir>/wheels`, once."""
    pin = pin or load_pin()
    found = cached_wheel(pin)
    if found:
        return found
    if not download:
        raise SourceError(f"vllm {pin.release.version} wheel is not in {wheel_dir()} (and download is off)")
    spec = f"{pin.release.package}=={pin.release.version}"
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--dest",
        str(wheel_dir()),
        spec,
    ]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SourceError(f"pip download {spec} failed: {exc}") from exc
    if out.returncode != 0:
        tail = "\n".join(out.stderr.strip().splitlines()[-5:])
        hint = ""
        if "No module named pip" in out.stderr:
            hint = (
                f"\nthis Python has no pip: run `pip download --no-deps {spec} -d {wheel_dir()}` with any pip"
            )
        raise SourceError(f"pip download {spec} failed (exit {out.returncode}):\n{tail}{hint}")
    found = cached_wheel(pin)
    if not found:
        raise SourceError(f"pip download {spec} succeeded but no wheel is in {wheel_dir()}")
    expected = pin.release.wheel_sha256
    if expected and found.name == pin.release.wheel and sha256_file(found) != expected:
        found.unlink()
        raise SourceError(f"{found.name}: sha256 differs from knowledge/pin.yaml; the download was removed")
    return found
