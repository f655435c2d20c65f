"""`interview eval calibrate` and `interview eval probes`, and plain `interview eval` still working."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.calibration import evaluation
from agent.cli.main import app

runner = CliRunner()


@pytest.fixture
def small_splits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dev and test each one dev author's file (the side-by-side logic, not the figures, is under test)."""
    for split, name in (("dev", "a1.yaml"), ("test", "a2.yaml")):
        (tmp_path / "graded" / split).mkdir(parents=True)
        shutil.copy(evaluation.graded_dir("dev") / name, tmp_path / "graded" / split / name)
    monkeypatch.setattr(evaluation, "graded_dir", lambda split: tmp_path / "graded" / split)


def test_calibrate_writes_the_report(small_set_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "cal"
    res = runner.invoke(
        app, ["eval", "calibrate", "--set", str(small_set_file), "--out", str(out), "--repeat", "2"]
    )
    assert res.exit_code == 0, res.output
    assert "pair order" in res.output and "spread over 2 runs" in res.output
    assert {p.name for p in out.iterdir()} == {"calibration.json", "calibration.md", "calibration.png"}
    data = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert data["graded"]["n_items"] == 7
    assert all(d["max_range"] == 0 for d in data["spread"]["dimensions"])


def test_calibrate_default_folder_is_in_the_data_dir(small_set_file: Path, data_dir: Path) -> None:
    res = runner.invoke(app, ["eval", "calibrate", "--set", str(small_set_file)])
    assert res.exit_code == 0, res.output
    assert (data_dir / "calibration" / "calibration.md").is_file()


def test_calibrate_vllm_without_a_server_says_so_and_falls_back(small_set_file: Path, tmp_path: Path) -> None:
    res = runner.invoke(
        app,
        ["eval", "calibrate", "--set", str(small_set_file), "--judge", "vllm", "--out", str(tmp_path / "c")],
    )
    assert res.exit_code == 0, res.output
    assert "JUDGE_BASE_URL is not set" in res.output
    data = json.loads((tmp_path / "c" / "calibration.json").read_text(encoding="utf-8"))
    assert data["judge"]["fallback"] is True


def test_bad_set_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("answers: 3\n", encoding="utf-8")
    res = runner.invoke(app, ["eval", "calibrate", "--set", str(bad), "--out", str(tmp_path / "c")])
    assert res.exit_code == 2 and "bad.yaml" in res.output


def test_probes_prints_each_pass_rate(small_set_file: Path, tmp_path: Path) -> None:
    js = tmp_path / "probes.json"
    res = runner.invoke(app, ["eval", "probes", "--set", str(small_set_file), "--json", str(js), "-v"])
    assert res.exit_code == 0, res.output
    for name in (
        "padding: fluff",
        "padding: repetition",
        "translation zh↔en",
        "grader-addressed instruction",
        "numbers restated as measured",
        "rubric evidence order",
    ):
        assert name in res.output
    assert "(n=7)" in res.output and "(n=21)" in res.output
    data = json.loads(js.read_text(encoding="utf-8"))
    assert len(data["probes"]) == 6


def test_plain_eval_still_runs(small_set_file: Path) -> None:
    res = runner.invoke(app, ["eval", "--set", str(small_set_file)])
    assert res.exit_code == 0, res.output
    assert "pair order" in res.output
    assert re.search(r"│ answers\s+│\s+7 │", res.output), res.output


@pytest.mark.usefixtures("small_splits")
def test_eval_reports_dev_and_test_side_by_side() -> None:
    res = runner.invoke(app, ["eval", "--split", "both"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    header = next(line for line in res.output.splitlines() if "measure" in line)
    assert "dev" in header and "test" in header
    for row in ("balanced over strong / medium / weak", "copies below their original", "flag precision"):
        assert row in res.output


def test_eval_refuses_an_unknown_split() -> None:
    res = runner.invoke(app, ["eval", "--split", "train"])
    assert res.exit_code == 2
    assert "--split must be dev, test or both" in res.output


@pytest.mark.usefixtures("small_splits")
def test_calibrate_reports_dev_and_test_side_by_side(tmp_path: Path) -> None:
    out = tmp_path / "cal"
    res = runner.invoke(app, ["eval", "calibrate", "--out", str(out)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "graded set: dev" in res.output and "graded set: test" in res.output
    for split in ("dev", "test"):
        assert (out / split / "calibration.json").is_file()
        data = json.loads((out / split / "calibration.json").read_text(encoding="utf-8"))
        assert data["graded"]["source"] == f"eval/graded/{split}"
