"""File helpers: the sha256 of a file, an atomic replace, and a lock between processes.

Standard library only: the judge runtime's `python -m agent.judge.runtime.convert` imports the
package chain in the vLLM venv, which has none of the product's dependencies.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def sha256_file(path: Path, chunk_size: int = 1 << 20) -> str:
    """Hex sha256 of the file at `path`, read `chunk_size` bytes at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def atomic_replace(dest: Path) -> Iterator[Path]:
    """Yield a new empty file beside `dest` to write; when the block ends without an error it
    replaces `dest` in one step (`os.replace`), else it is removed and `dest` is left as it was.
    A reader sees the old file or the new one, never a part. The new file is owner-only (0600)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomically(dest: Path, text: str, encoding: str = "utf-8") -> None:
    """`dest.write_text(text)` through `atomic_replace`."""
    with atomic_replace(dest) as tmp:
        tmp.write_text(text, encoding=encoding)


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Exclusive `flock` on `path` (created, with its folder, when missing) for the block: one process
    at a time, e.g. pytest sessions and serve.sh that build the same cache entry. It blocks until free;
    the lock goes with the process, so a killed holder never leaves it taken."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
