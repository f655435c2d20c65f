"""Export the override log as CSV or JSON Lines (one row per override, the log's own columns)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

from agent.overrides.log import COLUMNS, Override


def to_csv(rows: Iterable[Override]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r.model_dump())
    return buf.getvalue()


def to_jsonl(rows: Iterable[Override]) -> str:
    return "".join(
        json.dumps({c: r.model_dump()[c] for c in COLUMNS}, ensure_ascii=False) + "\n" for r in rows
    )
