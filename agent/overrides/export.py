"""Export the override log as CSV or JSON Lines (one row per override, the log's own columns; and
`original_created_at` when a row has one: a row of the Postgres log imported after its rows, see
agent/overrides/model.py's `ORIGINAL`: a CSV then has the column, empty on the other rows, and a JSON line
the key on that row).

CSV is opened in spreadsheets, which run a cell that begins with `=`, `+`, `-` or `@` (or a tab or
carriage return before one) as a formula: such text cells get a single quote in front (the usual
escape; the quote shows in a text editor). Lines end with CRLF (RFC 4180), so a carriage return inside a
cell is quoted like a line feed and never splits a row. JSON Lines is data, written as it is.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

from agent.overrides.model import COLUMNS, ORIGINAL, Override

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """`value` safe for a spreadsheet: a text starting like a formula gets a leading single quote."""
    if isinstance(value, str) and value.startswith(FORMULA_LEADS):
        return "'" + value
    return value


def to_csv(rows: Iterable[Override], *, extra: dict[str, str] | None = None) -> str:
    """`extra`: columns after the log's own, with the same value in every row (e.g. `log_integrity`)."""
    extra = extra or {}
    rows = list(rows)
    columns = [*COLUMNS, *([ORIGINAL] if any(r.original_created_at for r in rows) else [])]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=[*columns, *extra], lineterminator="\r\n")
    w.writeheader()
    for r in rows:
        values = r.model_dump(include=set(columns))
        w.writerow({k: csv_cell(v) for k, v in {**values, **extra}.items()})
    return buf.getvalue()


def to_jsonl(rows: Iterable[Override], *, extra: dict[str, str] | None = None) -> str:
    extra = extra or {}
    out = []
    for r in rows:
        values = r.model_dump()
        doc = {c: values[c] for c in COLUMNS}
        if r.original_created_at:
            doc[ORIGINAL] = r.original_created_at
        out.append(json.dumps({**doc, **extra}, ensure_ascii=False) + "\n")
    return "".join(out)
