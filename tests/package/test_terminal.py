"""Issue 13's "done when", in the terminal: a full mock with `interview practice`, the redo of its two
weakest rounds, then `interview package` on the redo, each a real process on the default judge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ANSWER = (
    "Weights are 40e9 x 2 bytes = 80 GB, so 20 GiB per rank. "
    "I would look at the scheduler and the KV cache manager first."
)


def _interview(args: list[str], data_dir: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "INTERVIEW_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    env.pop("JUDGE_BASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "agent", *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_full_mock_redo_and_package_from_the_terminal(tmp_path: Path) -> None:
    data = tmp_path / "data"
    answers = f"{ANSWER}\n.\n" * 40
    r = _interview(["practice", "--plan", "full", "--session", "mock1"], data, answers)
    assert r.returncode == 0, r.stderr
    r = _interview(["practice", "--plan", "redo mock1", "--session", "mock2"], data, answers)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "pkg"
    r = _interview(["package", "mock2", "--out", str(out)], data)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(out / n) for n in ("index.html", "package.json", "package.schema.json")]
    pkg = json.loads((out / "package.json").read_text(encoding="utf-8"))
    assert pkg["session"]["plan"] == "redo mock1" and pkg["retry"]["previous_session"] == "mock1"
    assert len(pkg["retry"]["rounds"]) == 2
    assert all(len(r["dimensions"]) == 5 for r in pkg["retry"]["rounds"])
    assert pkg["score_sheet"]["judge"]["kind"] == "embedded"
    assert "Second attempt compared with mock1" in (out / "index.html").read_text(encoding="utf-8")
    again = tmp_path / "pkg-again"  # another process, later: the same bytes
    assert _interview(["package", "mock2", "--out", str(again)], data).returncode == 0
    for name in ("index.html", "package.json", "package.schema.json"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name
