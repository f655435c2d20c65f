"""deploy/compose.yaml read as data (no Docker daemon here): the order of its one-shot steps and what its
`migrate` step runs, executed with `sh` against a recording `interview` on PATH."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose.yaml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _after(service: dict[str, Any], other: str) -> str | None:
    depends = service.get("depends_on") or {}
    return (depends.get(other) or {}).get("condition") if isinstance(depends, dict) else None


def test_apps_and_init_start_after_the_migration_and_import_completed(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("init", "app-1", "app-2"):
        assert _after(services[name], "migrate") == "service_completed_successfully", name


def test_named_volumes_used_are_declared(compose: dict[str, Any]) -> None:
    declared = set(compose["volumes"])
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            default = re.match(r"\$\{\w+:-([^}]*)\}:", volume)
            source = default.group(1) if default else volume.split(":")[0]
            if not source.startswith((".", "/")):
                assert source in declared, f"{name}: volume {source} not declared"


def _run_migrate(compose: dict[str, Any], import_dir: Path, tmp_path: Path) -> tuple[int, list[str]]:
    command = compose["services"]["migrate"]["command"]
    assert command[:2] == ["sh", "-c"]
    script = command[2].replace("$$", "$").replace("/import", str(import_dir))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    calls = tmp_path / "calls"
    fake = bin_dir / "interview"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n[ "$2" != import ] || exit "${{IMPORT_EXIT:-0}}"\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    if (tmp_path / "refuse").exists():
        env["IMPORT_EXIT"] = "1"
    done = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True, check=False)
    return done.returncode, calls.read_text().splitlines() if calls.exists() else []


def test_migrate_alone_when_nothing_is_mounted_for_import(compose: dict[str, Any], tmp_path: Path) -> None:
    empty = tmp_path / "import"
    empty.mkdir()
    code, calls = _run_migrate(compose, empty, tmp_path)
    assert (code, calls) == (0, ["db migrate"])


def test_a_mounted_data_dir_is_imported_after_the_migration(compose: dict[str, Any], tmp_path: Path) -> None:
    data = tmp_path / "import"
    data.mkdir()
    (data / "sessions.db").write_bytes(b"")
    code, calls = _run_migrate(compose, data, tmp_path)
    assert code == 0
    assert calls == ["db migrate", f"db import --from-sqlite {data}"]


def test_a_refused_import_fails_the_step_so_no_app_starts(compose: dict[str, Any], tmp_path: Path) -> None:
    data = tmp_path / "import"
    data.mkdir()
    (data / "sessions.db").write_bytes(b"")
    (tmp_path / "refuse").write_text("")
    code, calls = _run_migrate(compose, data, tmp_path)
    assert code != 0
    assert calls[-1].startswith("db import")
