"""Override rows imported from a one-machine install into the team's Postgres after the team's own rows are
dated at the import (the log's dates never go backwards) and keep the time they were written in
`original_created_at` (agent/db/migrations/postgres/0005_override_origin.sql). What people read shows that
original time, saying the row was imported: Review (its override log and the score's override line, each
interface language) and the evidence package (index.html, index.md and package.json, each session language).
The team's own row shows its own time. A real Postgres (tests/postgres/conftest.py) and the import of
tests/postgres/test_pg_import.py."""

from __future__ import annotations

import json
import re
import time

import gradio as gr
import pytest

from agent.graph import get_session
from agent.overrides import Override, OverrideLog
from agent.package import build_package
from agent.package.folder import files
from agent.rubric import Lang
from agent.ui.context import AppContext, Services
from agent.ui.tabs import review
from agent.ui.texts import Texts
from agent.util.messages import t
from tests.overrides.test_integrity import _new
from tests.postgres.test_pg_import import (  # noqa: F401 (fixtures)
    OneMachine,
    machine,
    owner_url,
    rubric,
    run,
)


def _minute(stamp: str) -> str:
    """A log time as Review shows it: to the minute."""
    return stamp.replace("T", " ")[:16]


@pytest.fixture
def imported(machine: OneMachine, pg_url: str, owner_url: str) -> tuple[Override, list[Override]]:  # noqa: F811
    """The team's row on Postgres, then the machine's two rows (June 2025) imported after it."""
    team = OverrideLog().append(
        _new(transcript_id="m-done", round="concepts", dimension="accuracy", reviewer="carol", human_score=2)
    )
    # the import's time must differ from the team's row's (times are to the second): the tests tell the two apart
    time.sleep(1.05)
    code, out = run("import", "--from-sqlite", str(machine.data), "--url", owner_url)
    assert code == 0, out
    rows = OverrideLog().rows("m-done")
    assert rows[1].created_at != team.created_at
    assert [r.original_created_at is not None for r in rows] == [False, True, True]
    for r in rows[1:]:  # dated at the import, written long before
        assert r.original_created_at and _minute(r.original_created_at) != _minute(r.created_at)
    return team, rows[1:]


def _ctx(lang: Lang) -> AppContext:
    with gr.Blocks():
        ui, owner, report = gr.Radio(), gr.State(), gr.State()
    return AppContext(Services(retriever=lambda: lambda text, k: []), Texts(lang), lang, ui, owner, report)


def _text(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_review_shows_an_imported_rows_original_time(
    imported: tuple[Override, list[Override]], lang: Lang
) -> None:
    team, machine_rows = imported
    view = get_session("m-done", owner="alice")
    assert view.report is not None
    _, table, _, log = review.shown(_ctx(lang), view.report, "m-done", lang)
    rows = {int(m[1]): m[2] for m in re.finditer(r"<tr data-id='(\d+)'[^>]*>(.*?)</tr>", log)}
    assert _minute(team.created_at) in rows[team.id]
    for r in machine_rows:
        assert r.original_created_at is not None
        assert _minute(r.original_created_at) in rows[r.id], rows[r.id]
        shown = _text(rows[r.id])  # what is read; the import's time is the title of the "imported" mark
        assert _minute(r.created_at) not in shown and t("ui.log_imported", lang) in shown, rows[r.id]
        assert t("ui.log_imported_at", lang, at=_minute(r.created_at)) in rows[r.id]
    # the score an imported row overrides: its line in the table says when it was written, and that it came in
    cell = re.search(r"<details[^>]*data-dimension='evidence'.*?</details>", table, re.S)
    assert cell is not None
    evidence = next(r for r in machine_rows if r.dimension == "evidence")
    assert evidence.original_created_at is not None
    assert _minute(evidence.original_created_at) in cell[0] and _minute(evidence.created_at) not in _text(
        cell[0]
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_evidence_package_shows_an_imported_rows_original_time(
    imported: tuple[Override, list[Override]], lang: Lang
) -> None:
    team, machine_rows = imported
    if lang == "zh":  # the same session, as a Chinese one would show it: its language is the package's
        pkg = build_package("m-done", owner="alice").model_copy(update={"language": "zh"})
    else:
        pkg = build_package("m-done", owner="alice")
    sheet = pkg.score_sheet
    assert sheet is not None
    shown = [d.override for r in sheet.rounds for d in r.dimensions if d.override]
    by_id = {r.id: r for r in machine_rows}
    assert {o.id for o in shown} == {team.id, *by_id}  # each the latest of its cell
    html = _text(files(pkg, "html")["index.html"].decode("utf-8"))
    md = files(pkg, "md")["index.md"].decode("utf-8")
    doc = json.loads(files(pkg, "html")["package.json"])
    records = {
        o["id"]: o for r in doc["score_sheet"]["rounds"] for d in r["dimensions"] if (o := d["override"])
    }
    for page in (html, md):  # the team's own row: its own time
        assert team.created_at in page
    assert records[team.id]["created_at"] == team.created_at and "original_created_at" not in records[team.id]
    for o in shown:
        if o.id == team.id:
            continue
        row = by_id[o.id]
        assert row.original_created_at is not None
        for page in (html, md):  # the time it was written; the import's time only as such
            assert row.original_created_at in page
            assert row.created_at not in page.replace(t("package.imported", lang, at=row.created_at), "")
            assert t("package.imported", lang, at=row.created_at) in page
        # the JSON keeps both: the time it was written and the time it came into this log
        assert records[o.id]["created_at"] == row.created_at
        assert records[o.id]["original_created_at"] == row.original_created_at
