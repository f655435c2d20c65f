"""The interface language switch renders Review's and Reports' words again, and the header's "Signed in as"
(issue 12: "a language switch re-renders what is on screen"; Review kept "Opened s-1 (session report)." and
Reports its summary, chart and history in the language they were opened in). Through the tabs' handlers, a finished English session opened
in each tab in the English interface, then the switch to 中文: Review's line saying what it opened, and
Reports' session lists, history (plan names, round titles, headers), chart and totals come in Chinese; the
session picked stays, and a warning shown in Review's line stays as it is."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import gradio as gr

from agent.graph import start_session
from agent.rubric.model import DIMENSIONS
from agent.ui import views
from agent.ui.app import signed_in
from agent.ui.context import AppContext
from agent.ui.tabs import reports, review
from agent.util.messages import t
from tests.graph.script import drive, strong

OWNER = "tab:page-1"
SID = "switch-1"


def _finished(ctx: AppContext) -> gr.Request:
    view = start_session("concepts", "en", session_id=SID, owner=OWNER)
    drive(view, lambda v: strong(ctx.rubric, "concepts"), owner=OWNER)
    return cast(gr.Request, SimpleNamespace(username=None, session_hash="page-1"))


def _untouched(x: Any) -> bool:
    return isinstance(x, dict) and x.get("__type__") == "update" and "value" not in x


def test_review_says_what_it_opened_in_the_new_language(ctx: AppContext) -> None:
    request = _finished(ctx)
    rep, status, *_ = review.open_session_report(ctx, SID, "en", OWNER, request)
    assert status == t("ui.opened", "en", id=SID, kind=t("ui.kind_session", "en"))
    said, summary, *_ = review.rerender(ctx, "zh", rep, status)
    assert said == t("ui.opened", "zh", id=SID, kind=t("ui.kind_session", "zh"))
    assert t("ui.col_effective", "zh") in summary and t("ui.col_effective", "en") not in summary
    # a warning in its place (a session that could not be opened) is left as it is
    warned, *_ = review.rerender(ctx, "zh", rep, "⚠️ no such session")
    assert _untouched(warned)


def test_reports_renders_its_lists_chart_and_totals_in_the_new_language(ctx: AppContext) -> None:
    request = _finished(ctx)
    rep, _, _, summary_en, *_ = reports.open_report(ctx, SID, "en", OWNER, request)
    assert t("ui.col_effective", "en") in summary_en
    sessions, history, a, b, chart, summary = reports.rerender_reports(ctx, rep, "zh", OWNER, request)
    assert t("ui.col_effective", "zh") in summary and t("ui.col_effective", "en") not in summary
    plan_zh = ctx.plan_name("concepts", "zh")
    for pick in (sessions, a, b):  # the same sessions, named in Chinese; the one picked stays
        assert [v for _, v in pick["choices"]] == [SID] and plan_zh in pick["choices"][0][0]
        assert t("ui.mode_practice", "zh") in pick["choices"][0][0]  # Practice or Co-pilot, said
        assert "value" not in pick
    assert history["headers"] == reports.history_headers("zh")
    (row,) = history["data"]
    assert row[0] == SID and row[1] == f"{plan_zh} · {t('ui.mode_practice', 'zh')}" and views.round_title(ctx.rubric, "concepts", "zh") in row[3]
    # the chart: the dimensions and the round by their Chinese names
    (ax,) = chart.axes
    assert [x.get_text() for x in ax.get_xticklabels()] == [
        views.dim_title(ctx.rubric, d, "zh") for d in DIMENSIONS
    ]
    legend = ax.get_legend()
    assert legend is not None and [x.get_text() for x in legend.get_texts()] == [
        views.round_title(ctx.rubric, "concepts", "zh")
    ]
    # nothing open: the lists only
    *_, chart_none, summary_none = reports.rerender_reports(ctx, None, "zh", OWNER, request)
    assert _untouched(chart_none) and _untouched(summary_none)


def test_the_header_says_who_is_signed_in_in_the_new_language(ctx: AppContext) -> None:
    request = cast(gr.Request, SimpleNamespace(username="alice", session_hash="page-1"))
    ctx.services.require_login = True
    assert signed_in(ctx, "zh", request) == t("ui.signed_in_as", "zh", user="alice")
    assert signed_in(ctx, "en", request) == t("ui.signed_in_as", "en", user="alice")
    ctx.services.require_login = False  # no login: no line to say it
    assert _untouched(signed_in(ctx, "zh", request))


def test_reports_compares_the_two_attempts_again_in_the_new_language(ctx: AppContext) -> None:
    """A tester's filled "Compare two attempts" table kept only its header rows after the switch (the switch set it
    to the empty table); now the two attempts compared last are compared again in the new language."""
    request = _finished(ctx)
    later = start_session("concepts", "en", session_id="switch-2", owner=OWNER)
    drive(later, lambda v: strong(ctx.rubric, "concepts"), owner=OWNER)
    table_en, said_en, pair = reports.compare_attempts(ctx, SID, "switch-2", "en", OWNER, request)
    assert said_en == "" and len(table_en["data"]) == len(DIMENSIONS) + 1
    table, said = reports.rerender_compare(ctx, pair, "zh", OWNER, request)
    assert table["headers"] == reports.compare_headers("zh") and said == ""
    rows_en = table_en["data"]
    assert len(table["data"]) == len(rows_en) and [r[2:] for r in table["data"]] == [r[2:] for r in rows_en]
    assert [r[1] for r in table["data"]] == [views.dim_title(ctx.rubric, d, "zh") for d in DIMENSIONS] + [
        t("ui.total", "zh")
    ]
    assert {r[0] for r in table["data"]} == {views.round_title(ctx.rubric, "concepts", "zh")}
    # a compare refused: its line in the new language, the table empty
    *_, refused = reports.compare_attempts(ctx, "nope", SID, "en", OWNER, request)
    table, said = reports.rerender_compare(ctx, refused, "zh", OWNER, request)
    assert said == f"⚠️ {t('ui.compare_not_found', 'zh', sid='nope')}" and table["data"] == []
    # nothing compared: the empty table, its headers in the new language, the line left as it is
    table, said = reports.rerender_compare(ctx, None, "zh", OWNER, request)
    assert table == reports.empty_compare("zh") and _untouched(said)
