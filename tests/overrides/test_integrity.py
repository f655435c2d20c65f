"""The override log is tamper-evident: each attack on the file is refused by the database or found by
`interview override verify`, and `override export` warns about (and marks) a log that fails verification.

The attacks are made the way someone with the file would make them: with sqlite3, around the log."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli.override_cmd import app
from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.overrides import COLUMNS, NewOverride, OverrideLog, OverrideLogError
from agent.overrides.chain import GENESIS, chain_hash

COLS = ", ".join(COLUMNS[1:])
FORGED = (
    "t-001",
    "capacity",
    "validation",
    2,
    5,
    "forged",
    "mallory",
    "2020-01-01T00:00:00+00:00",
    "rubric-abc",
    "embedded-cues-v1",
    "embedded",
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


class Clock:
    """The log's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def log(tmp_path: Path, clock: Clock) -> OverrideLog:
    log = OverrideLog(tmp_path / "overrides.sqlite", timeout_s=0.2, clock=clock)
    for i, who in enumerate(["alice", "bob", "carol", "dave"]):
        clock.now += timedelta(minutes=1)
        log.append(_new(human_score=1 + i, reviewer=who))
    return log


def sql(log: OverrideLog, *statements: str, args: tuple[object, ...] = ()) -> None:
    conn = sqlite3.connect(log.path, isolation_level=None)
    try:
        for s in statements:
            conn.execute(s, args if "?" in s else ())
    finally:
        conn.close()


def verify(log: OverrideLog, *extra: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["verify", "--log", str(log.path), *extra])
    return res.exit_code, res.output


# ------------------------------------------------------------------ refused by the database


@pytest.mark.parametrize(
    "statement",
    [
        f"INSERT OR REPLACE INTO overrides (id, {COLS}, prev_hash, row_hash) VALUES ({', '.join('?' * 14)})",
        f"REPLACE INTO overrides (id, {COLS}, prev_hash, row_hash) VALUES ({', '.join('?' * 14)})",
        f"INSERT INTO overrides (id, {COLS}, prev_hash, row_hash) VALUES ({', '.join('?' * 14)}) "
        "ON CONFLICT(id) DO NOTHING",
    ],
)
def test_replace_of_an_existing_row_is_refused(log: OverrideLog, statement: str) -> None:
    """REPLACE deletes the old row without firing the DELETE trigger: the INSERT itself is refused, even
    dated now and carrying a well-formed chain."""
    before = log.rows()
    row = dict(zip(COLUMNS, [2, *FORGED], strict=True))
    row["created_at"] = "2099-01-01T00:00:00+00:00"
    prev = str(_raw(log)[-1]["row_hash"])
    with pytest.raises(sqlite3.IntegrityError, match="a row with this id exists"):
        sql(log, statement, args=(*row.values(), prev, chain_hash(row, prev)))
    assert log.rows() == before
    assert verify(log)[0] == 0


def test_a_row_written_around_the_log_is_refused(log: OverrideLog) -> None:
    """A plain INSERT (no hash chain, dated 2020) does not get in while the triggers are there."""
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        sql(log, f"INSERT INTO overrides ({COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", args=FORGED)
    assert len(log.rows()) == 4


def test_a_chained_row_dated_before_the_last_one_is_refused(log: OverrideLog) -> None:
    last = log.rows()[-1]
    prev = _raw(log)[-1]["row_hash"]
    row = dict(zip(COLUMNS, [5, *FORGED], strict=True))
    with pytest.raises(sqlite3.IntegrityError, match="backwards"):
        sql(
            log,
            f"INSERT INTO overrides (id, {COLS}, prev_hash, row_hash) VALUES ({', '.join('?' * 14)})",
            args=(5, *FORGED, prev, chain_hash(row, prev)),
        )
    assert log.rows()[-1] == last


# ------------------------------------------------------------------ found by verify


def _raw(log: OverrideLog) -> list[dict[str, object]]:
    conn = sqlite3.connect(log.path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM overrides ORDER BY id")]
    finally:
        conn.close()


DROP = ("DROP TRIGGER overrides_no_update", "DROP TRIGGER overrides_no_delete")


def test_an_intact_log_verifies(log: OverrideLog) -> None:
    code, out = verify(log)
    assert code == 0, out
    assert "intact" in out and "4 rows" in out
    head = _raw(log)[-1]
    assert f"row 4 {head['row_hash']}" in out  # the head, to keep elsewhere as an anchor
    assert verify(log, "--anchor", f"4:{head['row_hash']}")[0] == 0


def test_drop_trigger_then_update_is_found(log: OverrideLog) -> None:
    sql(log, *DROP, "UPDATE overrides SET human_score = 5 WHERE id = 2")
    code, out = verify(log)
    assert code != 0
    assert "row 2" in out and "changed" in out
    assert "trigger" in out and "overrides_no_update" in out


def test_a_backdated_row_is_found_even_with_a_recomputed_chain(log: OverrideLog) -> None:
    """The forger knows the hash: rewrites row 3's date and re-chains rows 3 and 4."""
    rows = _raw(log)
    sql(log, *DROP)
    prev = rows[1]["row_hash"]
    for r in rows[2:]:
        if r["id"] == 3:
            r["created_at"] = "2020-01-01T00:00:00+00:00"
        h = chain_hash(r, str(prev))
        sql(
            log,
            "UPDATE overrides SET created_at = ?, prev_hash = ?, row_hash = ? WHERE id = ?",
            args=(r["created_at"], prev, h, r["id"]),
        )
        prev = h
    code, out = verify(log)
    assert code != 0 and "row 3" in out and "backdated" in out, out


@pytest.mark.parametrize(("victim", "named"), [(2, "row 2"), (4, "row 4")])
def test_drop_trigger_then_delete_is_found(log: OverrideLog, victim: int, named: str) -> None:
    sql(log, *DROP, f"DELETE FROM overrides WHERE id = {victim}")
    code, out = verify(log)
    assert code != 0 and named in out and "missing" in out, out


def test_a_forged_row_with_its_own_hash_is_found(log: OverrideLog) -> None:
    """Inserted with triggers dropped, after row 2, hashed over itself but not chained to row 2."""
    sql(log, "DROP TRIGGER overrides_chain", "DROP TRIGGER overrides_time")
    sql(log, *DROP, "DELETE FROM overrides WHERE id = 4")
    row = dict(zip(COLUMNS, [4, *FORGED], strict=True))
    sql(
        log,
        f"INSERT INTO overrides (id, {COLS}, prev_hash, row_hash) VALUES ({', '.join('?' * 14)})",
        args=(4, *FORGED, GENESIS, chain_hash(row, GENESIS)),
    )
    code, out = verify(log)
    assert code != 0 and "row 4" in out and "inserted" in out, out


def test_a_wrong_anchor_is_found(log: OverrideLog) -> None:
    code, out = verify(log, "--anchor", "3:" + "0" * 64)
    assert code != 0 and "row 3" in out and "anchor" in out


# ------------------------------------------------------------------ the log lost rows


def _lose(log: OverrideLog, how: str) -> None:
    assert log.path is not None
    if how == "truncated":
        log.path.write_bytes(b"")  # `: > overrides.sqlite`
    else:
        log.path.unlink()


@pytest.mark.parametrize("how", ["truncated", "deleted"])
def test_a_log_that_lost_its_rows_fails_verify_and_list_and_export_warn(log: OverrideLog, how: str) -> None:
    assert log.path is not None
    _lose(log, how)
    state = "is empty (0 bytes)" if how == "truncated" else "is missing"
    code, out = verify(log)
    said = " ".join(out.split())
    assert code == 1, out
    assert f"{state} but held 4 row(s)" in said and "lost" in said and "intact" not in said, out
    runner = CliRunner()
    listed = runner.invoke(app, ["list", "--log", str(log.path)])
    assert "WARNING" in listed.stderr and "held 4 row(s)" in listed.stderr, listed.stderr
    for fmt in ("csv", "jsonl"):
        res = runner.invoke(app, ["export", "--format", fmt, "--log", str(log.path)])
        assert "WARNING" in res.stderr and "held 4 row(s)" in res.stderr, res.stderr
    # nothing is written onto it: a new row 1 would start the chain over under an old row's id
    with pytest.raises(OverrideLogError, match="held 4 row") as e:
        log.append(_new(human_score=5))
    assert "NOT saved" in str(e.value)
    assert (log.path.read_bytes() == b"") if how == "truncated" else not log.path.exists()
    assert verify(log)[0] == 1
    code, out = verify(log, "--migrate")  # nothing to migrate onto: what verify finds, exit 1
    assert code == 1 and "held 4 row(s)" in " ".join(out.split()), out


def test_a_new_log_is_fine_and_its_row_count_is_kept_beside_it(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "new.sqlite"
    log = OverrideLog(path, clock=clock)
    assert verify(log)[0] == 0  # no log yet, and none ever held: nothing lost
    counted = tmp_path / "new.sqlite.count"
    for n in (1, 2, 3):
        clock.now += timedelta(minutes=1)
        row = log.append(_new(human_score=n))
        recorded = json.loads(counted.read_text())
        assert recorded["rows"] == n and recorded["head"] == [row.id, _raw(log)[-1]["row_hash"]]
    assert counted.stat().st_mode & 0o777 == 0o600
    code, out = verify(log)
    assert code == 0 and "intact: 3 rows" in out, out


def test_a_log_replaced_by_another_one_fails_verify(tmp_path: Path, log: OverrideLog, clock: Clock) -> None:
    """A whole other log (its own valid chain, more rows) copied over this one: the row recorded as the
    head beside the log no longer has its hash."""
    assert log.path is not None
    other = OverrideLog(tmp_path / "other.sqlite", clock=clock)
    for i in range(6):
        other.append(_new(human_score=1 + i % 5, reviewer="mallory"))
    assert other.path is not None
    log.path.write_bytes(other.path.read_bytes())
    code, out = verify(log)
    assert code == 1 and "row 4" in out and "replaced" in out, out
    with pytest.raises(OverrideLogError, match="replaced"):
        log.append(_new())


@pytest.mark.parametrize("how", ["truncated", "intact"])
def test_an_unreadable_row_count_file_is_named(log: OverrideLog, how: str) -> None:
    assert log.path is not None
    counted = log.path.with_name(log.path.name + ".count")
    counted.write_bytes(b"\x00\xffnot json")
    if how == "truncated":
        _lose(log, how)
    code, out = verify(log)
    said = " ".join(out.split())
    assert code == 1 and f"{counted} is unreadable" in said and "held 1" not in said, out
    if how == "truncated":
        assert "lost" in said
        with pytest.raises(OverrideLogError, match="unreadable"):
            log.append(_new())
    else:  # the rows are there: the next write records the count again
        log.append(_new())
        assert json.loads(counted.read_text())["rows"] == 5 and verify(log)[0] == 0


def test_moving_both_files_away_starts_a_new_log(log: OverrideLog) -> None:
    assert log.path is not None
    for p in (log.path, log.path.with_name(log.path.name + ".count")):
        p.rename(p.with_name(p.name + ".bak"))
    assert verify(log)[0] == 0
    log.append(_new())
    assert verify(log)[0] == 0 and len(log.rows()) == 1


# ------------------------------------------------------------------ time is the log's


def test_created_at_is_set_by_the_log_and_never_goes_backwards(log: OverrideLog, clock: Clock) -> None:
    last = log.rows()[-1].created_at
    clock.now -= timedelta(days=400)  # the machine's clock jumps back
    row = log.append(_new(human_score=4))
    assert row.created_at == last
    with pytest.raises(TypeError):
        log.append(_new(), now=datetime(2020, 1, 1, tzinfo=UTC))  # type: ignore[call-arg]
    assert verify(log)[0] == 0


# ------------------------------------------------------------------ an old log is hashed once

OLD_SCHEMA = """
CREATE TABLE overrides (
    id INTEGER PRIMARY KEY AUTOINCREMENT, transcript_id TEXT NOT NULL, round TEXT NOT NULL,
    dimension TEXT NOT NULL, judge_score INTEGER NOT NULL, human_score INTEGER NOT NULL,
    reason TEXT NOT NULL, reviewer TEXT NOT NULL, created_at TEXT NOT NULL,
    rubric_version TEXT NOT NULL, judge_model TEXT NOT NULL, judge_kind TEXT NOT NULL
);
CREATE TRIGGER overrides_no_update BEFORE UPDATE ON overrides
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: UPDATE is refused'); END;
CREATE TRIGGER overrides_no_delete BEFORE DELETE ON overrides
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: DELETE is refused'); END;
"""


def test_an_old_log_without_hashes_is_migrated_once(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "overrides.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SCHEMA)
    for _ in range(3):
        conn.execute(f"INSERT INTO overrides ({COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", FORGED)
    conn.commit()
    conn.close()
    log = OverrideLog(path, clock=clock)
    code, out = verify(log)
    assert code != 0 and "no hash" in out  # an old log is not yet evidence of anything
    assert len(log.rows()) == 3  # but it is read as before
    log.append(_new())
    code, out = verify(log)
    assert code == 0, out
    assert "rows 1-3 were hashed when the log was migrated" in out
    log.append(_new(human_score=5))
    assert verify(log)[0] == 0 and len(log.rows()) == 5
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM overrides_meta WHERE key = 'migrated'").fetchone() == (1,)
    conn.close()


def test_verify_migrate_hashes_an_old_log_without_writing_a_row(tmp_path: Path) -> None:
    path = tmp_path / "overrides.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SCHEMA)
    conn.execute(f"INSERT INTO overrides ({COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", FORGED)
    conn.commit()
    conn.close()
    code, out = verify(OverrideLog(path), "--migrate")
    assert code == 0 and "migrated" in out, out
    assert len(OverrideLog(path).rows()) == 1


# ------------------------------------------------------------------ export warns


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_of_a_tampered_log_warns_and_is_marked(log: OverrideLog, fmt: str) -> None:
    runner = CliRunner()
    clean = runner.invoke(app, ["export", "--format", fmt, "--log", str(log.path)])
    assert clean.exit_code == 0 and clean.stderr == "" and "integrity" not in clean.stdout
    sql(log, *DROP, "UPDATE overrides SET human_score = 5 WHERE id = 2")
    res = runner.invoke(app, ["export", "--format", fmt, "--log", str(log.path)])
    assert res.exit_code == 0
    assert "WARNING" in res.stderr and "row 2" in res.stderr
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(res.stdout, newline="")))
        assert list(rows[0]) == [*COLUMNS, "log_integrity"]
    else:
        rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(rows) == 4 and all(r["log_integrity"].startswith("FAILED") for r in rows)


# ------------------------------------------------------------------ override add, for scripts


def _report_file(tmp_path: Path) -> Path:
    scores = {"accuracy": 4, "evidence": 3, "tradeoffs": 3, "validation": 2, "communication": 4}
    rep = Report(
        id="t-script",
        judge=JudgeInfo(kind="embedded", model="embedded-cues-v1", rubric_version="rubric-xyz"),
        rounds=[RoundAssessment(round="capacity", scores=scores, total=16)],  # type: ignore[arg-type]
    )
    p = tmp_path / "report.json"
    p.write_text(rep.model_dump_json(), encoding="utf-8")
    return p


def test_override_add_reads_the_judge_score_from_the_report(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite"
    report = _report_file(tmp_path)
    run: Callable[..., object] = CliRunner().invoke
    base = ["add", "--log", str(path), "--report", str(report), "--round", "capacity"]
    res = run(
        app, [*base, "--dimension", "validation", "--score", "4", "--reason", "why", "--reviewer", "ci"]
    )
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    [row] = OverrideLog(path).rows()
    assert (row.transcript_id, row.judge_score, row.human_score, row.reviewer) == ("t-script", 2, 4, "ci")
    assert (row.rubric_version, row.judge_model, row.judge_kind) == (
        "rubric-xyz",
        "embedded-cues-v1",
        "embedded",
    )
    bad = run(app, [*base, "--dimension", "validation", "--score", "9", "--reason", "x", "--reviewer", "ci"])
    assert bad.exit_code != 0  # type: ignore[attr-defined]
    res = CliRunner().invoke(
        app,
        [
            *base[:-1],
            "concepts",
            "--dimension",
            "accuracy",
            "--score",
            "3",
            "--reason",
            "x",
            "--reviewer",
            "ci",
        ],
    )
    assert res.exit_code != 0 and "no round concepts" in res.output
    assert len(OverrideLog(path).rows()) == 1
