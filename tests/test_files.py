"""agent.util.files: the sha256 of a file, the atomic replace and the lock between processes."""

from __future__ import annotations

import hashlib
import multiprocessing
import time
from pathlib import Path

import pytest

from agent.util.files import atomic_replace, file_lock, sha256_file, write_text_atomically


def test_sha256_file_reads_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "blob"
    data = bytes(range(256)) * 5000  # 1.28 MB: more than one default chunk (1 MiB)
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()
    assert sha256_file(path, chunk_size=7) == hashlib.sha256(data).hexdigest()
    (tmp_path / "empty").write_bytes(b"")
    assert sha256_file(tmp_path / "empty") == hashlib.sha256(b"").hexdigest()


def test_atomic_replace_swaps_the_file_only_on_success(tmp_path: Path) -> None:
    dest = tmp_path / "sub" / "marker.json"
    write_text_atomically(dest, "first")
    assert dest.read_text() == "first"
    with pytest.raises(RuntimeError), atomic_replace(dest) as tmp:
        tmp.write_text("half written")
        raise RuntimeError("interrupted")
    assert dest.read_text() == "first"
    with atomic_replace(dest) as tmp:
        assert tmp.parent == dest.parent and tmp != dest
        tmp.write_text("second")
        assert dest.read_text() == "first"  # nothing visible before the block ends
    assert dest.read_text() == "second"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["marker.json"]  # no temporary left


def _hold(lock: str, flag: str, seconds: float) -> None:
    with file_lock(Path(lock)):
        Path(flag).write_text("held")
        time.sleep(seconds)


def test_file_lock_excludes_another_process(tmp_path: Path) -> None:
    lock, flag = tmp_path / "locks" / ".x.lock", tmp_path / "held"
    child = multiprocessing.get_context("spawn").Process(target=_hold, args=(str(lock), str(flag), 1.5))
    child.start()
    try:
        deadline = time.monotonic() + 60
        while not flag.exists():
            assert time.monotonic() < deadline, "the child never took the lock"
            time.sleep(0.02)
        started = time.monotonic()
        with file_lock(lock):
            waited = time.monotonic() - started
        assert waited > 0.5, f"took the lock after {waited:.2f} s while the child held it"
    finally:
        child.join(30)
