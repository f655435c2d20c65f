"""Where `interview` writes and what it reads, broken (issue 16, "Batches and files"): an output folder
that cannot be written, an export path that is not a file, a corrupt session store, two inputs with
the same name, and an internal error. Each is one clear line and a documented exit code: 0 all
graded, 1 some inputs failed, 2 usage error (an --out that cannot be written included), 3 internal
error (a traceback only with INTERVIEW_DEBUG=1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
ANSWER = "Paged KV maps logical token positions to fixed-size blocks allocated on demand."


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(d))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("INTERVIEW_DEBUG", raising=False)
    return d


def _transcript(folder: Path, name: str, tid: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(
        json.dumps(
            {"id": tid, "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": ANSWER}]}]}
        ),
        encoding="utf-8",
    )
    return p


def _invoke(*args: str) -> tuple[int, str, BaseException | None]:
    from agent.cli.main import app

    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output, res.exception


def _clean_exit(exc: BaseException | None) -> None:
    assert exc is None or isinstance(exc, SystemExit), repr(exc)  # no uncaught exception: no traceback


def _chattr(flag: str, path: Path) -> bool:
    try:
        return subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0
    except FileNotFoundError:
        return False


@contextmanager
def _broken_out(how: str, tmp_path: Path) -> Iterator[Path]:
    """An --out that cannot hold reports; restored afterwards so tmp_path can be removed."""
    if how == "a file":
        out = tmp_path / "out"
        out.write_text("not a folder")
        yield out
    elif how == "under a file":
        (tmp_path / "plain").write_text("a file")
        yield tmp_path / "plain" / "reports"
    elif how == "a dangling symlink":
        out = tmp_path / "out"
        out.symlink_to(tmp_path / "gone")
        yield out
    elif how == "read-only":
        if os.geteuid() == 0:
            pytest.skip("running as root: mode bits do not stop root writing (the immutable case covers it)")
        out = tmp_path / "out"
        out.mkdir()
        out.chmod(0o555)
        try:
            yield out
        finally:
            out.chmod(0o755)
    elif how == "immutable":
        out = tmp_path / "out"
        out.mkdir()
        if not _chattr("+i", out):
            pytest.skip("chattr +i is unavailable here (not root, no chattr, or the filesystem refuses it)")
        try:
            yield out
        finally:
            _chattr("-i", out)
    else:
        raise AssertionError(how)


@pytest.mark.parametrize("how", ["a file", "under a file", "a dangling symlink", "read-only", "immutable"])
def test_an_output_folder_that_cannot_be_written(how: str, tmp_path: Path) -> None:
    src = _transcript(tmp_path / "in", "t.json", "t")
    with _broken_out(how, tmp_path) as out:
        code, output, exc = _invoke("grade", str(src), "--judge", "embedded", "--out", str(out))
        _clean_exit(exc)
        assert code == 2, (code, output)
        said = " ".join(output.split())
        assert f"cannot write reports to {out}" in said, said


def test_override_export_into_a_non_file(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("a file")
    for target in (tmp_path / "plain" / "x.csv", tmp_path):  # under a file; a folder
        code, output, exc = _invoke("override", "export", "--out", str(target))
        _clean_exit(exc)
        assert code == 2, (code, output)
        said = " ".join(output.split())
        assert f"cannot write the export to {target}" in said, said


@pytest.mark.parametrize("flag", [[], ["--json"]])
def test_sessions_on_a_corrupt_store_names_the_file(flag: list[str], data_dir: Path) -> None:
    """Before: a traceback (exit 1). Now one line naming the file, exit 1."""
    db = data_dir / "sessions.sqlite"
    db.write_bytes(b"definitely not a database\x00" * 500)
    r = _run(_MAIN, "sessions", *flag, data_dir=data_dir)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "╭" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(db) in lines[0] and "not a readable SQLite database" in lines[0], lines
    assert r.stdout == ""


def test_two_inputs_with_the_same_name_get_distinct_reports(tmp_path: Path) -> None:
    """Before: b/t.json's report overwrote a/t.json's, silently."""
    a = _transcript(tmp_path / "in" / "a", "t.json", "from-a")
    b = _transcript(tmp_path / "in" / "b", "t.json", "from-b")
    u = _transcript(tmp_path / "in" / "c", "u.json", "unique")
    out = tmp_path / "out"
    code, output, exc = _invoke("grade", str(tmp_path / "in"), "--judge", "embedded", "--out", str(out))
    _clean_exit(exc)
    assert code == 0, output
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 3 and "u.json" in names and "t.json" not in names, names
    ids = {json.loads((out / n).read_text())["id"]: n for n in names}
    assert set(ids) == {"from-a", "from-b", "unique"}
    assert ids["from-a"] != ids["from-b"] and all(ids[k].startswith("t-") for k in ("from-a", "from-b"))
    line = next((ln for ln in output.splitlines() if "share" in ln), "")
    assert str(a) in line and str(b) in line and ids["from-a"] in line and ids["from-b"] in line, output
    assert str(u) not in line


# ------------------------------------------------------------------ exit codes, in a real process


def _run(code: str, *args: str, debug: bool = False, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "INTERVIEW_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    env.pop("INTERVIEW_DEBUG", None)
    if debug:
        env["INTERVIEW_DEBUG"] = "1"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120, cwd=REPO
    )


_MAIN = "from agent.cli.main import main\nmain()\n"

_CRASH = """
import agent.cli.grade_cmd as g
def boom():
    raise RuntimeError("injected fault")
g.load_rubric = boom
from agent.cli.main import main
main()
"""

_CRASH_ONE = """
import agent.cli.grade_cmd as c
import agent.grading.batch as g
real = g.grade_transcript
def flaky(rubric, t, **kw):
    if t.id == "boom":
        raise ZeroDivisionError("injected fault")
    return real(rubric, t, **kw)
g.grade_transcript = flaky
c._graph_replay = lambda: None
from agent.cli.main import main
main()
"""


def test_an_internal_error_exits_3_in_one_line(tmp_path: Path, data_dir: Path) -> None:
    """Before: a traceback and exit 1, the same code as "some files failed"."""
    src = _transcript(tmp_path / "in", "t.json", "t")
    r = _run(_CRASH, "grade", str(src), "--judge", "embedded", data_dir=data_dir)
    assert r.returncode == 3, r.stderr
    assert "Traceback" not in r.stderr and "╭" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "internal error" in lines[0] and "injected fault" in lines[0], r.stderr
    assert "INTERVIEW_DEBUG=1" in lines[0]
    r = _run(_CRASH, "grade", str(src), "--judge", "embedded", debug=True, data_dir=data_dir)
    assert r.returncode == 3 and "Traceback" in r.stderr and "injected fault" in r.stderr, r.stderr


def test_an_internal_error_on_one_file_goes_on_and_exits_3(tmp_path: Path, data_dir: Path) -> None:
    boom = _transcript(tmp_path / "in", "boom.json", "boom")
    _transcript(tmp_path / "in", "fine.json", "fine")
    out = tmp_path / "out"
    r = _run(
        _CRASH_ONE, "grade", str(tmp_path / "in"), "--judge", "embedded", "--out", str(out), data_dir=data_dir
    )
    assert r.returncode == 3, r.stderr
    assert "Traceback" not in r.stderr
    assert [p.name for p in out.iterdir()] == ["fine.json"]
    line = next(ln for ln in r.stderr.splitlines() if f"{boom}:" in ln)
    assert "internal error" in line and "ZeroDivisionError" in line


def test_usage_errors_still_exit_2(tmp_path: Path, data_dir: Path) -> None:
    assert _run(_MAIN, "grade", str(tmp_path / "nope"), data_dir=data_dir).returncode == 2
    assert _run(_MAIN, "grade", "--concurrency", "-1", str(tmp_path), data_dir=data_dir).returncode == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _run(_MAIN, "grade", str(empty), data_dir=data_dir).returncode == 2
