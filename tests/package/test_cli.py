"""`interview package SESSION [--out DIR] [--format html|md|zip]` and its exit codes."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from typer.testing import CliRunner

from agent.cli.main import app
from agent.graph import start_session
from agent.graph.state import GraphContext
from tests.package.conftest import Sessions


def test_cli_writes_the_folder_and_the_zip(done: Sessions, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "pkg"
    r = runner.invoke(app, ["package", "first", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "package.json", "package.schema.json"]
    r = runner.invoke(app, ["package", "first", "--out", str(tmp_path / "pkg-md"), "--format", "md"])
    assert r.exit_code == 0, r.output
    assert (
        (tmp_path / "pkg-md" / "index.md").read_text(encoding="utf-8").startswith("# Evidence package: first")
    )
    r = runner.invoke(app, ["package", "first", "--out", str(tmp_path / "pkg"), "--format", "zip"])
    assert r.exit_code == 0, r.output
    with zipfile.ZipFile(tmp_path / "pkg.zip") as z:
        assert z.namelist() == ["pkg/index.html", "pkg/package.json", "pkg/package.schema.json"]
        assert z.read("pkg/package.json") == (out / "package.json").read_bytes()
    assert runner.invoke(app, ["package", "nobody"]).exit_code == 1
    (tmp_path / "afile").write_text("x")
    assert runner.invoke(app, ["package", "first", "--out", str(tmp_path / "afile")]).exit_code == 2
    assert runner.invoke(app, ["package", "first", "--out", str(tmp_path / "afile" / "x")]).exit_code == 2
    assert runner.invoke(app, ["package", "first", "--format", "pdf"]).exit_code == 2


def test_cli_package_of_an_owned_session_needs_its_owner(flaky: GraphContext, tmp_path: Path) -> None:
    start_session("concepts", "en", session_id="alices", owner="alice")
    runner = CliRunner()
    r = runner.invoke(app, ["package", "alices", "--out", str(tmp_path / "p")])
    assert r.exit_code == 1 and "--owner" in r.output
    r = runner.invoke(app, ["package", "alices", "--out", str(tmp_path / "p"), "--owner", "alice"])
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "p" / "package.json").read_text(encoding="utf-8"))
    assert data["session"]["owner"] == "alice" and data["score_sheet"] is None
