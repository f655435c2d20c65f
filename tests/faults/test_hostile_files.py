"""Files a red team drops into a batch (issue 16, "Batches and files"): each is named on one line with
its problem, never a traceback, never a hang, never a read past the size limit, and the valid files
in the same batch are all graded."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from agent.contracts.transcript import MAX_ROUNDS, MAX_TURNS_PER_ROUND, TranscriptError, load_transcript
from agent.grading.batch import Outcome, find_inputs, grade_files
from agent.rubric import Rubric

REPO = Path(__file__).resolve().parents[2]
ANSWER = "Paged KV maps logical token positions to fixed-size blocks allocated on demand."


def _good(tid: str) -> dict[str, Any]:
    return {
        "id": tid,
        "language": "en",
        "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": ANSWER}]}],
    }


def _write_good(folder: Path, name: str) -> Path:
    p = folder / name
    p.write_text(json.dumps(_good(p.stem)), encoding="utf-8")
    return p


def _by_name(outcomes: list[Outcome]) -> dict[str, Outcome]:
    return {o.source.name: o for o in outcomes}


def _one_line_naming(o: Outcome, *needles: str) -> None:
    assert o.report is None and o.error, o
    assert o.error.startswith(str(o.source)), o.error
    assert "\n" not in o.error and len(o.error) < 500, o.error
    for n in needles:
        assert n in o.error, (n, o.error)


# ------------------------------------------------------------------ JSON that the parser chokes on


def test_deep_json_and_huge_numbers_do_not_stop_the_batch(rubric: Rubric, tmp_path: Path) -> None:
    """Before: RecursionError / ValueError escaped grade_files and the valid files were never graded."""
    (tmp_path / "a_deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (tmp_path / "b_digits.json").write_text(
        '{"id": "n", "rounds": [{"round": "capacity", "variant_seed": ' + "7" * 5001 + ', "turns": []}]}',
        encoding="utf-8",
    )
    (tmp_path / "c_float.json").write_text(  # a float of 5,002 digits: inf once read
        json.dumps(_good("f")).replace('"text"', '"at_s": ' + "1" * 5001 + '.5, "text"'), encoding="utf-8"
    )
    nested = _good("d")
    nested["note"] = json.loads("[" * 500 + "]" * 500)  # deep, but within what json.loads reads
    (tmp_path / "d_nested.json").write_text(json.dumps(nested), encoding="utf-8")
    for k in range(3):
        _write_good(tmp_path, f"good-{k}.json")
    outcomes = grade_files(rubric, find_inputs([tmp_path]).files)
    got = _by_name(outcomes)
    _one_line_naming(got["a_deep.json"], "nested")
    _one_line_naming(got["b_digits.json"], "5,001 digits")
    _one_line_naming(got["c_float.json"], "digits")
    _one_line_naming(got["d_nested.json"], "nested")
    for k in range(3):
        o = got[f"good-{k}.json"]
        assert o.error is None and o.report is not None, o.error


def test_a_transcript_over_the_round_or_turn_caps_is_refused(tmp_path: Path) -> None:
    many = {"id": "m", "rounds": [_good("x")["rounds"][0] for _ in range(MAX_ROUNDS + 1)]}
    (tmp_path / "rounds.json").write_text(json.dumps(many), encoding="utf-8")
    turns = [{"role": "candidate", "text": "KV."}] * (MAX_TURNS_PER_ROUND + 1)
    long = {"id": "l", "rounds": [_good("x")["rounds"][0], {"round": "concepts", "turns": turns}]}
    (tmp_path / "turns.json").write_text(json.dumps(long), encoding="utf-8")
    with pytest.raises(TranscriptError) as e:
        load_transcript(tmp_path / "rounds.json")
    assert f"{MAX_ROUNDS + 1} rounds" in str(e.value) and f"limit of {MAX_ROUNDS}" in str(e.value)
    assert "Value error" not in str(e.value)
    with pytest.raises(TranscriptError) as e:
        load_transcript(tmp_path / "turns.json")
    msg = str(e.value)
    assert "round 1" in msg and f"{MAX_TURNS_PER_ROUND + 1} turns" in msg and "limit" in msg
    # at the caps exactly: graded
    ok = {"id": "ok", "rounds": [_good("x")["rounds"][0]] * MAX_ROUNDS}
    ok["rounds"][-1] = {"round": "concepts", "turns": turns[:MAX_TURNS_PER_ROUND]}
    (tmp_path / "ok.json").write_text(json.dumps(ok), encoding="utf-8")
    assert len(load_transcript(tmp_path / "ok.json").rounds) == MAX_ROUNDS


# ------------------------------------------------------------------ files that are not files


def _release(fifo: Path) -> None:
    """Let a reader blocked on `fifo` go: open the write end (non-blocking) and close it."""
    with contextlib.suppress(OSError):  # no reader is waiting
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_a_fifo_is_refused_not_waited_on(rubric: Rubric, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    good = _write_good(tmp_path, "good.json")
    result: list[list[Outcome]] = []
    worker = threading.Thread(
        target=lambda: result.append(grade_files(rubric, [fifo, good])), daemon=True
    )
    worker.start()
    worker.join(timeout=20)
    hung = worker.is_alive()
    _release(fifo)
    worker.join(timeout=5)
    assert not hung, "grading a FIFO waited for a writer"
    got = _by_name(result[0])
    _one_line_naming(got["pipe.json"], "FIFO")
    assert got["good.json"].report is not None


_DEVICE_PROBE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from pathlib import Path
from agent.contracts.transcript import TranscriptError, load_transcript
try:
    load_transcript(Path(sys.argv[1]))
except TranscriptError as e:
    print(e)
    sys.exit(0)
print("read as a transcript")
sys.exit(1)
"""


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("how", ["direct", "symlink"])
def test_devices_are_refused_by_kind_not_read(device: str, how: str, tmp_path: Path) -> None:
    """Before: stat says 0 bytes, so the 5 MB check passed and read_bytes() filled memory (here a
    1 GiB address-space cap in a child process turns that into a MemoryError)."""
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist here")
    path = device
    if how == "symlink":
        link = tmp_path / "zero.json"
        link.symlink_to(device)
        path = str(link)
    r = subprocess.run(
        [sys.executable, "-c", _DEVICE_PROBE, path],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]
    assert path in r.stdout and "character device" in r.stdout, r.stdout


def test_reads_stop_at_the_limit_when_stat_reports_no_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A regular file whose stat size is 0 but which holds more (procfs): read at most limit+1 bytes."""
    import agent.contracts.transcript as tr

    proc = Path("/proc/self/status")
    if not proc.is_file() or proc.stat().st_size != 0:
        pytest.skip("no procfs file with a zero stat size here")
    monkeypatch.setattr(tr, "MAX_FILE_BYTES", 64)
    reads: list[int] = []
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        reads.append(len(data))
        return data

    monkeypatch.setattr(tr.os, "read", counting_read)
    with pytest.raises(TranscriptError, match="over the limit"):
        tr.load_transcript(proc)
    assert sum(reads) <= 65, reads


def test_a_socket_is_refused(rubric: Rubric, tmp_path: Path) -> None:
    import socket

    sock_path = tmp_path / "s.json"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(sock_path))
    except OSError as e:  # path too long for AF_UNIX on some systems
        pytest.skip(f"cannot bind a unix socket here: {e}")
    try:
        (o,) = grade_files(rubric, [sock_path])
    finally:
        s.close()
    _one_line_naming(o, "socket")


# ------------------------------------------------------------------ what a folder holds


def test_a_folder_names_every_entry_it_cannot_grade(rubric: Rubric, tmp_path: Path) -> None:
    """Before: dangling links, link loops, FIFOs and folders named *.json were dropped without a word."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "dangling.json").symlink_to(d / "nowhere.json")
    (d / "loop.json").symlink_to(d / "loop.json")
    os.mkfifo(d / "pipe.json")
    (d / "dir.json").mkdir()
    _write_good(d / "dir.json", "inside.json")  # a folder named *.json is still searched
    for k in range(3):
        _write_good(d, f"good-{k}.json")
    found = find_inputs([d])
    assert [p.name for p in found.files] == [
        "dangling.json",
        "inside.json",
        "good-0.json",
        "good-1.json",
        "good-2.json",
        "loop.json",
        "pipe.json",
    ]
    assert len(found.skipped) == 1 and str(d / "dir.json") in found.skipped[0]
    assert "folder" in found.skipped[0] and "\n" not in found.skipped[0]
    got = _by_name(grade_files(rubric, found.files))
    _one_line_naming(got["dangling.json"], "dangling symbolic link", "nowhere.json")
    _one_line_naming(got["loop.json"], "symbolic link loop")
    _one_line_naming(got["pipe.json"], "FIFO")
    for name in ("inside.json", "good-0.json", "good-1.json", "good-2.json"):
        assert got[name].report is not None, got[name].error


def test_an_internal_error_on_one_file_is_one_line_and_the_batch_goes_on(
    rubric: Rubric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent.grading.batch as grading

    real = grading.grade_transcript

    def flaky(rubric: Rubric, t: Any, **kw: Any) -> Any:
        if t.id == "boom":
            raise KeyError("a bug\nover two lines")
        return real(rubric, t, **kw)

    monkeypatch.setattr(grading, "grade_transcript", flaky)
    files = [_write_good(tmp_path, "boom.json"), _write_good(tmp_path, "fine.json")]
    boom, fine = grade_files(rubric, files)
    _one_line_naming(boom, "internal error", "KeyError")
    assert boom.internal and isinstance(boom.exc, KeyError)
    assert fine.report is not None
