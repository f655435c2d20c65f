"""Reports: the owner's finished sessions, a radar chart per round, two attempts compared, downloads
(the report as JSON and Markdown; a session's evidence package as one page and as a zip, `agent.package`)."""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from agent import graph
from agent.contracts.report import Report
from agent.contracts.transcript import Transcript
from agent.grading.effective import EffectiveRound, effective_rounds
from agent.grading.render import report_json
from agent.graph import SessionError, SessionNotFound, SessionReport, SessionSummary, SessionView
from agent.graph.report import session_markdown
from agent.overrides import EffectiveScore
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang
from agent.ui import views
from agent.ui.charts import radar
from agent.ui.context import AppContext, lang_of
from agent.ui.files import download_dir
from agent.ui.tabs.shared import session_choice
from agent.ui.texts import Texts
from agent.util.messages import bracketed, enumerated, t

HISTORY_LIMIT = 50


def build(ctx: AppContext) -> None:
    """The tab and its events (it shows the report open in Review on request)."""
    T = ctx.texts
    with gr.Tab(t("ui.tab_reports", ctx.ui_lang), id="reports") as tab_reports:
        T.register(tab_reports, {"label": "ui.tab_reports"})
        rep_state = gr.State(None)
        with gr.Row():
            rep_sessions = T(
                gr.Dropdown,
                {"label": "ui.my_sessions"},
                choices=[],
                scale=3,
                allow_custom_value=True,
                elem_id="reports-sessions",
            )
            rep_refresh = T(gr.Button, {"value": "ui.refresh"}, scale=1)
            rep_open = T(gr.Button, {"value": "ui.open"}, variant="primary", scale=1, elem_id="reports-open")
            rep_use_review = T(gr.Button, {"value": "ui.use_review"}, scale=1)
        rep_status = gr.Markdown("", elem_id="reports-status")
        with gr.Row():
            with gr.Column(scale=3):
                rep_chart = T(gr.Plot, {"label": "ui.radar"}, elem_id="reports-radar")
            with gr.Column(scale=2):
                rep_summary = gr.Markdown("", elem_id="reports-summary")
                # each off until a report is open (issue 12: a click before did nothing)
                with gr.Row():
                    rep_json = _download(T, "ui.download_json", "download-json")
                    rep_md = _download(T, "ui.download_md", "download-md")
                with gr.Row():
                    rep_pkg_zip = _download(T, "ui.download_package", "download-package", variant="primary")
                    rep_pkg_html = _download(T, "ui.download_package_page", "download-package-page")
                T(gr.Markdown, {"value": "ui.package_hint"}, elem_id="package-hint")
        rep_history = T(
            gr.Dataframe,
            {"label": "ui.history", "headers": history_headers},
            interactive=False,
            wrap=True,
            elem_id="reports-history",
        )
        with gr.Row():
            rep_a = T(
                gr.Dropdown,
                {"label": "ui.attempt_a"},
                choices=[],
                allow_custom_value=True,
                elem_id="reports-a",
            )
            rep_b = T(
                gr.Dropdown,
                {"label": "ui.attempt_b"},
                choices=[],
                allow_custom_value=True,
                elem_id="reports-b",
            )
            rep_compare = T(gr.Button, {"value": "ui.compare"})
        # why two attempts cannot be compared, in place of the table (not a Gradio error)
        rep_cmp_status = gr.Markdown("", elem_id="reports-compare-status")
        # its label follows the switch here; its rows and headers, `rerender_compare` (which compares the two
        # attempts compared last again: an empty table's value from here wiped a filled one, issue 12)
        rep_cmp = T(
            gr.Dataframe,
            {"label": "ui.compare"},
            headers=compare_headers(ctx.ui_lang),
            value=empty_compare(ctx.ui_lang),
            interactive=False,
            elem_id="reports-compare",
        )
        rep_compared = gr.State(None)  # the two attempts compared last ({"a": …, "b": …})

    common = ctx.common
    listed = [rep_sessions, rep_history, rep_a, rep_b]
    rep_outputs = [rep_state, rep_status, rep_chart, rep_summary, rep_json, rep_md, rep_pkg_zip, rep_pkg_html]
    rep_refresh.click(ctx.bind(refresh_reports), common, listed, api_name="list_reports")
    tab_reports.select(ctx.bind(refresh_reports), common, listed, api_name="reports_tab")
    rep_open.click(ctx.bind(open_report), [rep_sessions, *common], rep_outputs, api_name="open_report")
    rep_sessions.select(ctx.bind(open_report), [rep_sessions, *common], rep_outputs, api_name="select_report")
    rep_use_review.click(
        ctx.bind(use_review_report), [ctx.report_state, ctx.ui], rep_outputs, api_name="use_review_report"
    )
    rep_compare.click(
        ctx.bind(compare_attempts),
        [rep_a, rep_b, *common],
        [rep_cmp, rep_cmp_status, rep_compared],
        api_name="compare_attempts",
    )
    # the language switch renders the lists, the history and the open report again (what is chosen stays)
    ctx.ui.change(
        ctx.bind(rerender_reports),
        [rep_state, *common],
        [rep_sessions, rep_history, rep_a, rep_b, rep_chart, rep_summary],
        api_name="reports_rerender",
        show_progress="hidden",
    )
    ctx.ui.change(
        ctx.bind(rerender_compare),
        [rep_compared, *common],
        [rep_cmp, rep_cmp_status],
        api_name="reports_compare_rerender",
        show_progress="hidden",
    )


def _download(T: Texts, label: str, elem_id: str, **kw: Any) -> gr.DownloadButton:
    """A download of the open report, labelled `label` (a message key), off until a report is open."""
    return T(gr.DownloadButton, {"label": label}, value=None, interactive=False, elem_id=elem_id, **kw)


def history_headers(lang: Lang) -> list[str]:
    return [t(k, lang) for k in ("ui.col_session", "ui.col_plan", "ui.col_when", "ui.col_totals")]


def compare_headers(lang: Lang) -> list[str]:
    return [t(k, lang) for k in ("ui.col_round", "ui.col_dimension", "ui.col_a", "ui.col_b", "ui.col_change")]


def empty_compare(lang: Lang) -> dict[str, Any]:
    return {"headers": compare_headers(lang), "data": []}


def my_reports(owner: str) -> list[tuple[SessionSummary, SessionReport]]:
    """The owner's finished sessions with their reports, most recent first."""
    out: list[tuple[SessionSummary, SessionReport]] = []
    for summary in graph.list_sessions(owner=owner)[:HISTORY_LIMIT]:
        if summary.status != "done":
            continue
        try:
            view = graph.get_session(summary.session_id, owner=owner)
        except SessionError:
            continue
        if view.report is not None:
            out.append((summary, view.report))
    return out


def _listed(
    ctx: AppContext, reports: list[tuple[SessionSummary, SessionReport]], ui: Lang
) -> tuple[list[tuple[str, str]], list[list[Any]]]:
    """The owner's finished sessions as the pickers name them (as Review's list does: plan, Practice or
    Co-pilot, interview language, date), and as the history table's rows (the plan with its mode), in `ui`."""
    named = [session_choice(ctx, s, ui, language=True) for s, _ in reports]
    rows = [
        [
            summary.session_id,
            f"{ctx.plan_name(summary.plan, ui)} · {t(f'ui.mode_{summary.mode}', ui)}",
            summary.updated_at[:16].replace("T", " "),
            enumerated((history_total(ctx, er, ui) for er in after_overrides(ctx, r)), ui),
        ]
        for summary, r in reports
    ]
    return named, rows


def after_overrides(ctx: AppContext, report: Report) -> list[EffectiveRound]:
    """The report's rounds after the overrides Review logged on it (the judge's when the log cannot be read:
    Review names the log's problem)."""
    return effective_rounds(ctx.rubric, report, ctx.standing_scores(report))


def history_total(ctx: AppContext, er: EffectiveRound, ui: Lang) -> str:
    """A round in the history: its title and total after overrides, marked when a reviewer overrode a score
    ("Concept quick-fire 16/25 (overridden; judge: 14)")."""
    said = f"{views.round_title(ctx.rubric, er.round, ui)} {er.total}/25"
    return said + bracketed(t("ui.history_overridden", ui, judge=er.judge_total), ui) if er.changed else said


def refresh_reports(ctx: AppContext, ui_v: str, owner_v: str | None, request: gr.Request) -> list[Any]:
    ui = lang_of(ui_v)
    reports = my_reports(ctx.owner_of(owner_v, request))
    ids = [summary.session_id for summary, _ in reports]
    named, rows = _listed(ctx, reports, ui)
    latest = ids[0] if ids else None
    earlier, later = comparable_pair([(summary.session_id, {ra.round for ra in r.rounds}) for summary, r in reports])
    return [
        gr.update(choices=named, value=latest),
        rows,
        gr.update(choices=named, value=earlier),
        gr.update(choices=named, value=later),
    ]


def comparable_pair(sessions: list[tuple[str, set[str]]]) -> tuple[str | None, str | None]:
    """(earlier, later): the most recent two of `sessions` (most recent first, each with its rounds) that
    share a round, for Compare to preselect; (None, None) when no two do (the first click would be refused)."""
    for k, (later, rounds) in enumerate(sessions):
        for earlier, theirs in sessions[k + 1 :]:
            if rounds & theirs:
                return earlier, later
    return None, None


def rerender_reports(
    ctx: AppContext, rep: dict[str, Any] | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """The session pickers and the history in the new interface language (the sessions picked stay), and the
    open report's chart and summary (its downloads are in the session's language: they stay)."""
    ui = lang_of(ui_v)
    named, rows = _listed(ctx, my_reports(ctx.owner_of(owner_v, request)), ui)
    pick = gr.update(choices=named)
    history = {"headers": history_headers(ui), "data": rows}
    if not rep:
        return [pick, history, pick, pick, gr.update(), gr.update()]
    report = SessionReport.model_validate(rep["report"])
    key = str(rep.get("key") or report.id)
    eff = ctx.standing_scores(report, key)  # (the status line, as Open wrote it, says when the log is unreadable)
    return [pick, history, pick, pick, *_chart_and_summary(ctx, report, eff, ui)]


def _chart_and_summary(ctx: AppContext, report: Report, eff: list[EffectiveScore], ui: Lang) -> list[Any]:
    """The report's radar chart (a line per round, its effective scores) and its totals, in `ui`."""
    by_round: dict[str, list[int]] = {}
    for e in eff:
        by_round.setdefault(e.round, []).append(e.effective)
    fig = radar(
        [views.dim_title(ctx.rubric, d, ui) for d in DIMENSIONS],
        [(views.round_title(ctx.rubric, rid, ui), vals) for rid, vals in by_round.items()],
    )
    return [fig, views.report_summary_md(report, ctx.rubric, ui, eff)]


def package_files(ctx: AppContext, session_id: str, owner: str) -> tuple[str, str]:
    """(the zip, the page) of the owner's session's evidence package, written for download; as the
    CLI's `interview package SESSION --owner OWNER`: SessionNotFound when it is not the owner's."""
    from agent.package import build_package
    from agent.package.folder import files, write

    pkg = build_package(session_id, owner=owner, rubric=ctx.rubric)
    folder = download_dir()
    name = f"evidence-{safe_name(session_id)}"
    (zipped,) = write(pkg, folder / name, "zip")
    page = folder / f"{name}.html"
    page.write_bytes(files(pkg, "html")["index.html"])
    return str(zipped), str(page)


def no_package() -> list[Any]:
    return [gr.update(value=None, interactive=False)] * 2


def show_report(
    ctx: AppContext,
    report: Report,
    ui: Lang,
    key: str | None = None,
    package: tuple[str, str] | None = None,
    transcript: Transcript | None = None,
) -> list[Any]:
    """The report's chart, summary and downloads; `key`: the id its overrides are kept under;
    `package`: the session's evidence package (zip, page), when the report is of the owner's session;
    `transcript`: the session's, added to both downloads (with every retried answer's earlier attempts)."""
    rubric = ctx.rubric
    key = key or report.id
    eff, problem = ctx.scores_and_log_problem(report, key)
    fig, summary = _chart_and_summary(ctx, report, eff, ui)
    folder = download_dir()
    jpath = folder / f"{safe_name(report.id)}.json"
    mpath = folder / f"{safe_name(report.id)}.md"
    # the judge's scores and those after overrides, both (each round's `effective`); totals and pass lines
    # of the Markdown after overrides
    doc = json.loads(report_json(report, rubric, eff))
    doc["effective_scores"] = [e.model_dump(mode="json", exclude={"override"}) for e in eff]
    if transcript is not None:
        doc["transcript"] = transcript.model_dump(mode="json")
    jpath.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    md = session_markdown(report, rubric, eff) + views.effective_md(report, eff, rubric)
    if transcript is not None:
        md += views.transcript_md(rubric, transcript)
    mpath.write_text(md, encoding="utf-8")
    return [
        {"report": report.model_dump(mode="json"), "key": key},
        t("ui.log_unreadable", ui, why=problem) if problem else "",
        fig,
        summary,
        gr.update(value=str(jpath), interactive=True),
        gr.update(value=str(mpath), interactive=True),
        *([gr.update(value=f, interactive=True) for f in package] if package else no_package()),
    ]


def open_report(
    ctx: AppContext, sid: str | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    if not sid:
        return [gr.update(), f"⚠️ {t('ui.need_session_id', ui)}", *[gr.update()] * 4, *no_package()]
    owner = ctx.owner_of(owner_v, request)
    try:
        view = graph.get_session(sid, owner=owner)
        package = package_files(ctx, view.session_id, owner)
    except SessionError as e:
        return [gr.update(), f"⚠️ {e}", *[gr.update()] * 4, *no_package()]
    if view.report is None:
        return [gr.update(), f"⚠️ {t('ui.nothing_to_grade', ui)}", *[gr.update()] * 4, *no_package()]
    return show_report(ctx, view.report, ui, package=package, transcript=view.transcript)


def use_review_report(ctx: AppContext, rep: dict[str, Any] | None, ui_v: str) -> list[Any]:
    ui = lang_of(ui_v)
    if not rep:
        return [gr.update(), f"⚠️ {t('ui.no_report', ui)}", *[gr.update()] * 4, *no_package()]
    # an uploaded report, or someone else's session under review: no evidence package from here
    return show_report(ctx, SessionReport.model_validate(rep["report"]), ui, rep.get("key"))


def compare_attempts(
    ctx: AppContext, a: str | None, b: str | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """The table of `compare_rows` and, when the two cannot be compared, why (in place of the table); last, the
    two compared, for the language switch to compare again (`rerender_compare`)."""
    if not a or not b:
        return [empty_compare(lang_of(ui_v)), "", None]
    return [*compared_table(ctx, a, b, ui_v, owner_v, request), {"a": a, "b": b}]


def rerender_compare(
    ctx: AppContext, pair: dict[str, str] | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """Compare's table and its line in the new interface language: the two attempts compared last, compared
    again (what the table showed, not what the pickers hold now); the empty table when none were."""
    if not pair:
        return [empty_compare(lang_of(ui_v)), gr.update()]
    return compared_table(ctx, pair["a"], pair["b"], ui_v, owner_v, request)


def compared_table(
    ctx: AppContext, a: str, b: str, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """The table of `compare_rows` of the attempts `a` and `b`, and why not in its place."""
    ui = lang_of(ui_v)
    owner = ctx.owner_of(owner_v, request)
    try:
        rows = compare_rows(
            ctx.rubric,
            after_overrides_of(ctx, graph.get_session(a, owner=owner)),
            after_overrides_of(ctx, graph.get_session(b, owner=owner)),
            ui,
        )
    except SessionNotFound as e:
        return [empty_compare(ui), f"⚠️ {t('ui.compare_not_found', ui, sid=e.session_id)}"]
    except SessionError as e:
        return [empty_compare(ui), f"⚠️ {e}"]
    if not rows:
        return [empty_compare(ui), f"⚠️ {t('ui.no_common_rounds', ui)}"]
    return [{"headers": compare_headers(ui), "data": rows}, ""]


def compare_rows(rubric: Rubric, a: list[EffectiveRound], b: list[EffectiveRound], ui: Lang) -> list[list[Any]]:
    """Per round both attempts answered: each dimension's score in A and B after overrides and the change,
    then the total; a score or total a reviewer overrode reads "4 (overridden; judge: 3)"."""
    by_a = {er.round: er for er in a}
    rows: list[list[Any]] = []
    for er_b in b:
        er_a = by_a.get(er_b.round)
        if er_a is None:
            continue
        title = views.round_title(rubric, er_b.round, ui)
        for d in DIMENSIONS:
            before, after = er_a.scores[d], er_b.scores[d]
            cells = [_cell(before, o_a.judge if (o_a := er_a.override_of(d)) else None, ui),
                     _cell(after, o_b.judge if (o_b := er_b.override_of(d)) else None, ui)]  # fmt: skip
            rows.append([title, views.dim_title(rubric, d, ui), *cells, f"{after - before:+d}"])
        cells = [_cell(er.total, er.judge_total if er.changed else None, ui) for er in (er_a, er_b)]
        rows.append([title, t("ui.total", ui), *cells, f"{er_b.total - er_a.total:+d}"])
    return rows


def _cell(score: int, judge: int | None, ui: Lang) -> int | str:
    """A score as Compare shows it: the number, or marked when a reviewer overrode it (`judge`: the judge's)."""
    return score if judge is None else f"{score}" + bracketed(t("ui.history_overridden", ui, judge=judge), ui)


def after_overrides_of(ctx: AppContext, view: SessionView) -> list[EffectiveRound]:
    return after_overrides(ctx, view.report) if view.report else []


def safe_name(report_id: str) -> str:
    """A file name for downloads of the report."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in report_id)[:100] or "report"
