"""The override log's hash chain, and what `verify` finds: each row stores `prev_hash` (the previous
row's `row_hash`; `GENESIS` for the first) and `row_hash` = SHA-256 of the canonical JSON of its columns
and `prev_hash` (`chain_hash`), and of its `original_created_at` when it has one (a row imported into the
Postgres log after rows already there; NULL, so not hashed, on every other row). `walk` names the first row where the chain breaks, and how; the same for
either backend (agent/overrides/log.py has the whole picture)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent.overrides.model import COLUMNS, ORIGINAL

GENESIS = "0" * 64
"""The `prev_hash` of the first row."""


def chain_hash(row: Mapping[str, Any] | sqlite3.Row, prev_hash: str) -> str:
    """SHA-256 (hex) of the canonical JSON (sorted keys, no spaces, UTF-8) of the row's `COLUMNS` (and its
    `ORIGINAL` when the row has one that is not None) and `prev_hash`: the `row_hash` of a row whose
    predecessor's `row_hash` is `prev_hash`."""
    doc = {c: row[c] for c in COLUMNS}
    names = row.keys()  # a sqlite3.Row's `in` looks at its values, not its column names
    if ORIGINAL in names and row[ORIGINAL] is not None:
        doc[ORIGINAL] = row[ORIGINAL]
    doc["prev_hash"] = prev_hash
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


ProblemKind = Literal[
    "changed",
    "missing",
    "inserted",
    "backdated",
    "triggers",
    "anchor",
    "unchained",
    "lost",
    "replaced",
    "record",
]
"""`lost`, `replaced` and `record` compare the log with what is kept beside it (SQLite: its `.count` file):
rows lost (truncated, deleted), the recorded head gone or re-hashed, that file unreadable."""


@dataclass(frozen=True)
class Problem:
    """What `verify` found wrong, and the row it concerns (None: the log as a whole)."""

    kind: ProblemKind
    detail: str
    row: int | None = None

    def __str__(self) -> str:
        return f"{f'row {self.row}: ' if self.row is not None else ''}{self.kind}: {self.detail}"


@dataclass
class Verification:
    """The result of `OverrideLog.verify`: intact when there is no problem."""

    path: Path | str
    """the SQLite file, or the database URL without its password"""
    rows: int = 0
    head: tuple[int, str] | None = None
    """the last row's id and `row_hash`: keep it elsewhere and pass it back as an anchor."""
    migrated: dict[str, Any] | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = [f"override log {self.path}"]
        if self.ok:
            out.append(f"intact: {self.rows} rows, hash chain and triggers as written by the log")
        else:
            out.append(f"FAILED: {len(self.problems)} problem(s); the first is where the chain breaks")
            out += [f"  {p}" for p in self.problems]
        if self.head:
            out.append(f"head: row {self.head[0]} {self.head[1]}")
        if self.migrated and self.migrated.get("rows"):
            m = self.migrated
            out.append(
                f"note: rows {m['first_id']}-{m['last_id']} were hashed when the log was migrated on {m['at']}; "
                "before then they were protected by the triggers only"
            )
        return out


def missing_span(first: int, last: int) -> str:
    return f"row {first} is missing" if first == last else f"rows {first}-{last} are missing"


def walk(rows: list[Any], migrated_last_id: int) -> Problem | None:
    """The first row where the chain breaks, and how."""
    prev_id, prev_hash, prev_at = 0, GENESIS, ""
    for r in rows:
        rid = int(r["id"])
        gone = missing_span(prev_id + 1, rid - 1)
        if r["row_hash"] is None or r["prev_hash"] is None:
            return Problem("inserted", "this row has no hash: it was written around the log, not by it", rid)
        if chain_hash(r, r["prev_hash"]) != r["row_hash"]:
            return Problem(
                "changed", "its contents no longer match its hash: it was changed after it was written", rid
            )
        if r["prev_hash"] != prev_hash:
            if rid != prev_id + 1:
                return Problem(
                    "missing",
                    f"{gone} (deleted): row {rid} was chained to a row that is not there",
                    prev_id + 1,
                )
            after = f"row {prev_id}" if prev_id else "the start of the log"
            return Problem(
                "inserted",
                f"this row does not continue the chain after {after}: it was inserted, replaced or moved",
                rid,
            )
        if rid != prev_id + 1:
            return Problem("missing", f"{gone} (deleted) and the chain was re-made over the gap", prev_id + 1)
        if rid > migrated_last_id and str(r["created_at"]) < prev_at:
            return Problem(
                "backdated",
                f"dated {r['created_at']}, before row {prev_id} ({prev_at}): rows were backdated or reordered",
                rid,
            )
        prev_id, prev_hash, prev_at = rid, str(r["row_hash"]), str(r["created_at"])
    return None


def trigger_problems(
    missing: list[str], altered: list[str], extra: list[str], disabled: list[str]
) -> list[Problem]:
    """What `verify` says about the log's triggers, whatever the backend."""
    out = []
    for names, what in (
        (missing, "missing (dropped): the log could be rewritten while they were gone"),
        (altered, "altered: they no longer refuse what they should"),
        (disabled, "disabled: the log can be rewritten while they are"),
        (extra, "not the log's own: they may swallow or change rows"),
    ):
        if names:
            out.append(Problem("triggers", f"trigger(s) {', '.join(names)} {what}"))
    return out
