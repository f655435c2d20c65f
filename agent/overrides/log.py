"""The override log: every human correction of a judge's score, in SQLite, append-only.

Triggers in the database refuse UPDATE and DELETE, so a correction is corrected only by a later
row (the latest row for a round and dimension wins, see `effective_scores`). A log that cannot
be written (locked by another process, read-only file or folder) raises `OverrideLogError` with
a message that says so and carries the row that was not written; nothing already in the log is
touched.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from agent import config
from agent.config import private_sqlite
from agent.rubric.model import Dimension, RoundId

LOG_FILE = "overrides.sqlite"
BUSY_TIMEOUT_S = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS overrides (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    transcript_id   TEXT    NOT NULL CHECK (length(transcript_id) BETWEEN 1 AND 200),
    round           TEXT    NOT NULL,
    dimension       TEXT    NOT NULL
                    CHECK (dimension IN ('accuracy','evidence','tradeoffs','validation','communication')),
    judge_score     INTEGER NOT NULL CHECK (judge_score BETWEEN 1 AND 5),
    human_score     INTEGER NOT NULL CHECK (human_score BETWEEN 1 AND 5),
    reason          TEXT    NOT NULL CHECK (length(trim(reason)) > 0),
    reviewer        TEXT    NOT NULL CHECK (length(trim(reviewer)) > 0),
    created_at      TEXT    NOT NULL,
    rubric_version  TEXT    NOT NULL,
    judge_model     TEXT    NOT NULL,
    judge_kind      TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS overrides_target ON overrides (transcript_id, round, dimension, id);
CREATE TRIGGER IF NOT EXISTS overrides_no_update BEFORE UPDATE ON overrides
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: UPDATE is refused'); END;
CREATE TRIGGER IF NOT EXISTS overrides_no_delete BEFORE DELETE ON overrides
BEGIN SELECT RAISE(ABORT, 'the override log is append-only: DELETE is refused'); END;
"""

COLUMNS: tuple[str, ...] = (
    "id",
    "transcript_id",
    "round",
    "dimension",
    "judge_score",
    "human_score",
    "reason",
    "reviewer",
    "created_at",
    "rubric_version",
    "judge_model",
    "judge_kind",
)


class OverrideLogError(RuntimeError):
    """The log could not be read or written; the message says why and what was not saved."""


class NewOverride(BaseModel):
    """What a reviewer submits: one dimension of one round of one report."""

    transcript_id: str = Field(
        min_length=1, max_length=200, description="the report's id: transcript or session"
    )
    round: RoundId
    dimension: Dimension
    judge_score: int = Field(ge=1, le=5)
    human_score: int = Field(ge=1, le=5)
    reason: str = Field(min_length=1, max_length=4000)
    reviewer: str = Field(min_length=1, max_length=200)
    rubric_version: str = Field(min_length=1, max_length=200)
    judge_model: str = Field(min_length=1, max_length=500)
    judge_kind: Literal["embedded", "vllm"]

    @field_validator("reason", "reviewer")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("must not be blank")
        return v


class Override(NewOverride):
    """A row of the log."""

    id: int
    created_at: str = Field(description="UTC, ISO 8601")


def default_path() -> Path:
    return config.data_dir() / LOG_FILE


def _explain(e: sqlite3.Error, path: Path, waited_s: float) -> str:
    msg = str(e).lower()
    if "locked" in msg or "busy" in msg:
        return (
            f"the override log {path} is locked by another process "
            f"(waited {waited_s:g} s); try again when it is free"
        )
    if "readonly" in msg or "read-only" in msg:
        return f"the override log {path} is read-only (file or folder permissions); it cannot be written"
    if "unable to open" in msg:
        return f"the override log {path} cannot be opened (missing folder or no permission)"
    if "not a database" in msg or "malformed" in msg:
        return f"the override log {path} is not a readable SQLite database: {e}"
    return f"the override log {path}: {e}"


class OverrideLog:
    """The append-only log at `path` (default `<data dir>/overrides.sqlite`), created on first write."""

    def __init__(self, path: Path | None = None, *, timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = path or default_path()
        self.timeout_s = timeout_s

    @contextmanager
    def _connect(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        private_sqlite(self.path, create=write)
        uri = f"{self.path.resolve().as_uri()}?mode={'rwc' if write else 'ro'}"
        try:
            with closing(sqlite3.connect(uri, uri=True, timeout=self.timeout_s)) as conn:
                conn.row_factory = sqlite3.Row
                if write:
                    conn.executescript(_SCHEMA)
                yield conn
        except sqlite3.Error as e:
            raise OverrideLogError(_explain(e, self.path, self.timeout_s)) from e

    def append(self, new: NewOverride, *, now: datetime | None = None) -> Override:
        """Write one row; on failure nothing is written and the error carries the row as JSON."""
        created = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
        values = new.model_dump()
        row = {**values, "created_at": created}
        try:
            with self._connect(write=True) as conn, conn:
                cur = conn.execute(
                    f"INSERT INTO overrides ({', '.join(COLUMNS[1:])}) "
                    f"VALUES ({', '.join('?' for _ in COLUMNS[1:])})",
                    [row[c] for c in COLUMNS[1:]],
                )
                row_id = cur.lastrowid
        except (OverrideLogError, sqlite3.Error) as e:
            text = str(e) if isinstance(e, OverrideLogError) else _explain(e, self.path, self.timeout_s)
            raise OverrideLogError(
                f"{text}. The override was NOT saved: {json.dumps(values, ensure_ascii=False)}"
            ) from e
        assert row_id is not None
        return Override(id=row_id, created_at=created, **values)

    def rows(self, transcript_id: str | None = None, *, limit: int | None = None) -> list[Override]:
        """Rows in the order they were written (oldest first); an absent log has none."""
        if not self.path.exists():
            return []
        sql = f"SELECT {', '.join(COLUMNS)} FROM overrides"
        args: list[object] = []
        if transcript_id is not None:
            sql += " WHERE transcript_id = ?"
            args.append(transcript_id)
        sql += " ORDER BY id"
        if limit is not None:
            sql = f"SELECT * FROM ({sql.replace('ORDER BY id', 'ORDER BY id DESC')} LIMIT ?) ORDER BY id"
            args.append(limit)
        with self._connect(write=False) as conn:
            try:
                cur = conn.execute(sql, args)
            except sqlite3.OperationalError as e:
                if "no such table" in str(e):
                    return []
                raise
            return [Override.model_validate(dict(r)) for r in cur.fetchall()]
