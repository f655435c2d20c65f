"""A human override counts in what Reports exports and lists (issue 12, a blind tester: the downloaded Markdown's
totals and pass line were the judge's, the override only in an "effective scores" section at the end, and the
history listed the judge's totals). The Markdown's totals and pass line are those after overrides, an
overridden score marked with who changed it from what; the JSON keeps the judge's scores beside each round's
`effective`; the history shows the total after overrides, marked."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import gradio as gr
import pytest

from agent import graph
from agent.overrides import NewOverride
from agent.rubric.model import Lang
from agent.ui.context import AppContext
from agent.ui.tabs import reports
from agent.util.messages import t

OWNER = "tab:me"
REQUEST = cast(gr.Request, SimpleNamespace(username=None, session_hash="page-1"))


def _finished(lang: Lang) -> graph.SessionView:
    """A source-trace round (its pass line: evidence at least 3) answered with no evidence, closed."""
    v = graph.start_session("source-trace", lang, session_id=f"overridden-{lang}", owner=OWNER)
    graph.answer(v.session_id, "It goes through the engine somewhere, I think.", at_s=40, owner=OWNER)
    v = graph.close_round(v.session_id, owner=OWNER)
    assert v.status == "done" and v.report is not None
    return v


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_export_and_the_history_count_the_override(ctx: AppContext, lang: Lang) -> None:
    v = _finished(lang)
    report = v.report
    assert report is not None
    [ra] = report.rounds
    judge = ra.scores["evidence"]
    assert ra.passed is False and judge < 3, ra.scores  # the judge's round fails on evidence
    ctx.services.overrides.append(
        NewOverride.judged_by(
            ra.judge or report.judge,
            transcript_id=report.id,
            round_id=ra.round,
            dimension="evidence",
            judge_score=judge,
            human_score=4,
            reason="Named the step loop | the cues missed it",
            reviewer="Rui Chen",
        )
    )
    total = ra.total - judge + 4

    out = reports.show_report(ctx, report, lang, package=None, transcript=v.transcript)
    assert out[4]["interactive"] and out[5]["interactive"]  # the downloads on once a report is open
    md = Path(out[5]["value"]).read_text(encoding="utf-8")
    title = ctx.rubric.round("source-trace").title.get(lang)
    judge_total = t("report.judge_total", lang, total=ra.total)
    bracket = (lambda x: f"（{x}）") if lang == "zh" else (lambda x: f" ({x})")
    # the round's heading, the summary table: the total after the override, the judge's beside it
    assert f"## {title} — {total}/25{bracket(judge_total)}" in md, md
    assert f"| {judge} → 4 |" in md and f"| {total}/25{bracket(judge_total)} |" in md, md
    assert t("report.overrides_applied", lang) in md
    # the pass line after the override, the judge's beside it
    passed = t("report.passed_after", lang, mark="✓", judge="✗")
    assert passed in md and f"{t('report.passed', lang)}" in md, md
    # the overridden dimension, marked: who, from what
    said = t("report.overridden_by", lang, reviewer="Rui Chen", judge=judge, human=4)
    assert f"**4**{bracket(said)}" in md, md
    assert "Named the step loop / the cues missed it" in md  # the reason, in the row (its '|' made safe)

    doc = json.loads(Path(out[4]["value"]).read_text(encoding="utf-8"))
    [shown] = doc["rounds"]
    assert (shown["scores"]["evidence"], shown["total"], shown["passed"]) == (judge, ra.total, False)
    after = shown["effective"]
    assert (after["scores"]["evidence"], after["total"], after["passed"]) == (4, total, True), after
    [o] = after["overridden"]
    assert (o["dimension"], o["judge"], o["effective"], o["reviewer"]) == ("evidence", judge, 4, "Rui Chen")

    # Reports' history, in either interface language: the total after the override, marked
    for ui in ("en", "zh"):
        rows = reports.refresh_reports(ctx, ui, OWNER, REQUEST)[1]
        [row] = [r for r in rows if r[0] == report.id]
        mark = t("ui.history_overridden", ui, judge=ra.total)  # type: ignore[arg-type]
        name = ctx.rubric.round("source-trace").title.get(ui)  # type: ignore[arg-type]
        marked = f"（{mark}）" if ui == "zh" else f" ({mark})"
        assert row[3] == f"{name} {total}/25{marked}", row


def test_without_an_override_the_export_is_the_judge_s(ctx: AppContext) -> None:
    v = _finished("en")
    assert v.report is not None
    out = reports.show_report(ctx, v.report, "en", package=None, transcript=v.transcript)
    md = Path(out[5]["value"]).read_text(encoding="utf-8")
    [ra] = v.report.rounds
    assert f"— {ra.total}/25\n" in md and "after overrides" not in md and "judge:" not in md
    assert "**Passed:** ✗" in md
    doc = json.loads(Path(out[4]["value"]).read_text(encoding="utf-8"))
    assert doc["rounds"][0]["effective"]["overridden"] == [] and doc["rounds"][0]["effective"]["total"] == ra.total
    rows = reports.refresh_reports(ctx, "en", OWNER, REQUEST)[1]
    assert rows[0][3] == f"Source-code trace {ra.total}/25"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_unreadable_override_log_shows_the_judge_s_scores_and_says_so(
    ctx: AppContext, lang: Lang, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reports and Co-pilot's finished report read the log without a fallback: a log that cannot be read
    raised out of the handler (a Gradio error). They show the judge's scores and say the log's problem."""
    from agent.overrides import OverrideLogError
    from agent.ui.tabs.copilot import screen

    v = _finished(lang)
    assert v.report is not None

    def broken(key: str) -> list[object]:
        raise OverrideLogError("overrides.sqlite: database disk image is malformed")

    monkeypatch.setattr(ctx.services.overrides, "rows", broken)
    out = reports.show_report(ctx, v.report, lang, package=None, transcript=v.transcript)
    assert t("ui.log_unreadable", lang, why="overrides.sqlite: database disk image is malformed") in out[1]
    md = Path(out[5]["value"]).read_text(encoding="utf-8")
    assert f"{v.report.rounds[0].total}/25" in md  # the judge's totals
    again = reports.rerender_reports(ctx, out[0], "zh" if lang == "en" else "en", OWNER, REQUEST)
    assert again[-1]  # the summary, rendered again
    assert "malformed" in screen.finished_md(ctx, v.report, lang, key=v.session_id)
