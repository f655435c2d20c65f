"""Review: open a report, a transcript or a stored session (picked from the list of those the caller may
open, or by its id), override a score with a reason.

Overrides belong to the session they correct, so to its owner; a reviewer (`INTERVIEW_REVIEWERS`,
signed in) may also open anyone's session and override it. A report or transcript uploaded whose id
names a stored session is refused unless the caller owns that session or is a reviewer; when allowed,
the stored session's report is opened, so the judge score written to the log is the stored one, never
the file's. An upload whose id names no stored session is reviewed under the key
`upload:<uploader>:<id>`: its overrides are the uploader's alone and never touch a session.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import gradio as gr
from pydantic import ValidationError

from agent import graph
from agent.contracts.report import Report
from agent.contracts.transcript import TranscriptError, parse_transcript
from agent.graph import SessionError, SessionReport, SessionSummary
from agent.graph.bulk import grade_in_worker
from agent.overrides import OverrideLogError, effective_scores
from agent.rubric.model import Lang
from agent.ui import views
from agent.ui.context import AppContext, lang_of
from agent.ui.files import UploadRefused, safe_upload
from agent.ui.tabs.said import Said, follow_switch, in_ui, joined, says, verbatim
from agent.ui.tabs.shared import override_logged, override_score, session_choice
from agent.util.messages import t

BULK_QUEUE = "bulk-grading"
_BULK: dict[str, Any] = {"concurrency_id": BULK_QUEUE, "concurrency_limit": 1}
"""What every event that grades a whole upload or session is given: its own queue, one at a time."""
SESSIONS_SHOWN = 50
"""Sessions in Review's list, most recent first (an older one is opened by its id)."""


def build(ctx: AppContext, sessions: list[gr.State]) -> None:
    """The tab and its events; the report it opens goes to `ctx.report_state`. `sessions`: the session tabs'
    states, whose changes (a session started, answered, finished) bring the list of sessions up to date."""
    T = ctx.texts
    with gr.Tab(t("ui.tab_review", ctx.ui_lang), id="review") as tab_review:
        T.register(tab_review, {"label": "ui.tab_review"})
        T(gr.Markdown, {"value": "ui.review_intro"})
        # the sessions by name, the whole width: a name (plan, mode, language, date, id) is read whole (on a
        # phone it wraps under the box: static/app.js, app.css `coach-picked`)
        r_pick = T(
            gr.Dropdown,
            {"label": "ui.review_sessions", "info": "ui.review_sessions_info"},
            choices=[],
            value=None,
            elem_id="review-sessions",
        )
        with gr.Row():
            r_file = T(
                gr.File,
                {"label": "ui.report_file"},
                file_types=[".json"],
                type="filepath",
                scale=2,
                elem_id="review-file",
            )
            with gr.Column(scale=1):
                r_sid = T(gr.Textbox, {"label": "ui.open_session_id"}, elem_id="review-sid")
                r_open_sid = T(gr.Button, {"value": "ui.open_session"})
        r_status = gr.Markdown("", elem_id="review-status")
        r_summary = gr.Markdown("", elem_classes=["coach-md"])
        T(gr.Markdown, {"value": lambda lang: f"#### {t('ui.scores_table', lang)}"})
        r_table = gr.HTML("", elem_id="review-table")
        with gr.Group():
            with gr.Row():
                r_round = T(gr.Dropdown, {"label": "ui.round"}, choices=[], allow_custom_value=True)
                r_dim, r_score = override_score(ctx, "review")
            with gr.Row():
                r_reason = T(gr.Textbox, {"label": "ui.reason"}, scale=3, elem_id="review-reason")
                r_reviewer = T(gr.Textbox, {"label": "ui.reviewer"}, scale=1, elem_id="review-reviewer")
            # not the page's primary action until a report is open (`loaded` makes it so)
            r_save = T(gr.Button, {"value": "ui.save_override"}, variant="secondary", elem_id="review-save")
            r_save_status = gr.Markdown("", elem_id="review-save-status")
        T(gr.Markdown, {"value": lambda lang: f"#### {t('ui.override_log', lang)}"})
        r_log = gr.HTML("", elem_id="review-log")

    ui, owner_state, report_state = ctx.ui, ctx.owner_state, ctx.report_state
    r_save_said = gr.State(None)  # the save's line in both languages, shown again on each switch
    # a report opened clears the save's line (a warning from an earlier click, "open a report first") and
    # makes Save the primary action
    review_outputs = [report_state, r_status, r_summary, r_table, r_round, r_log, r_save_status, r_save_said, r_save]
    # grading a whole upload or session waits in its own queue, one at a time, so it never takes the
    # interactive events' slots (an answer, an override) from other users; it runs in a worker process
    # (agent.graph.bulk), so it does not hold this process's GIL while they are served either
    r_file.upload(
        ctx.bind(open_report_file),
        [r_file, ui, owner_state],
        review_outputs,
        api_name="open_report_file",
        **_BULK,
    )
    r_open_sid.click(
        ctx.bind(open_session_report),
        [r_sid, *ctx.common],
        review_outputs,
        api_name="open_session_report",
        **_BULK,
    )
    # a session picked from the list opens as its id typed does (the id goes into its box)
    r_pick.select(
        ctx.bind(open_listed),
        [r_pick, *ctx.common],
        [r_sid, *review_outputs],
        api_name="open_listed_session",
        **_BULK,
    )
    # the list: when the tab is opened, on the language switch and whenever a session tab's session moves
    gr.on(
        [tab_review.select, ui.change, *(state.change for state in sessions)],
        ctx.bind(list_reviewable),
        [r_pick, *ctx.common],
        r_pick,
        api_name="review_sessions",
        show_progress="hidden",
    )
    # the new score starts at the picked round and dimension's current score (issue 12: it started at 3)
    gr.on(
        [report_state.change, r_round.change, r_dim.change],
        ctx.bind(picked_score),
        [report_state, r_round, r_dim],
        r_score,
        api_name="review_picked_score",
        show_progress="hidden",
    )
    r_save.click(
        ctx.bind(save_override),
        [report_state, r_round, r_dim, r_score, r_reason, r_reviewer, ui, owner_state],
        [r_save_status, r_summary, r_table, r_log, r_save_said],
        api_name="save_override",
    )
    follow_switch(ctx, "review", [(r_save_said, r_save_status)])
    # the language switch renders the open report again, and the line that says what was opened
    ui.change(
        ctx.bind(rerender),
        [ui, report_state, r_status],
        [r_status, r_summary, r_table, r_round, r_log],
        api_name="review_rerender",
        show_progress="hidden",
    )


def reviewable(ctx: AppContext, owner: str, request: gr.Request) -> list[SessionSummary]:
    """The stored sessions the caller may open here, most recently updated first: their own; a reviewer's,
    every user's (the app's users, `Services.users`)."""
    owners = [owner]
    if ctx.is_reviewer(request):
        owners += [name for name in ctx.services.users if name != owner]
    found = [s for who in owners for s in graph.list_sessions(owner=who)]
    return sorted(found, key=lambda s: (s.updated_at, s.session_id), reverse=True)


def list_reviewable(
    ctx: AppContext, picked: str | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> Any:
    """Review's list of sessions (`reviewable`), each by plan, mode, interview language and date, whose when
    not the caller's, the id last (`shared.session_choice`); the one picked stays picked while listed."""
    ui = lang_of(ui_v)
    owner = ctx.owner_of(owner_v, request)
    try:
        listed = reviewable(ctx, owner, request)[:SESSIONS_SHOWN]
    except SessionError:  # the store is unreachable: the list stays as it is, the id box still works
        return gr.update()
    choices = [session_choice(ctx, s, ui, language=True, mine=owner) for s in listed]
    return gr.update(choices=choices, value=picked if picked in {sid for _, sid in choices} else None)


def open_listed(
    ctx: AppContext, sid: str | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """The session picked from Review's list, opened as `open_session_report` opens an id typed, the id put
    in the id box."""
    return [sid or gr.update(), *open_session_report(ctx, sid or "", ui_v, owner_v, request)]


def loaded(
    ctx: AppContext,
    report: Report,
    kind: str,
    ui: Lang,
    *,
    key: str | None = None,
    stored: bool = False,
    note: str = "",
) -> list[Any]:
    """The report in the Review tab, the save's line cleared (with its state) and Save made the primary action;
    `key`: the id its overrides are kept under (default its own); `stored`: it is a stored session's (access
    is checked again when an override is saved)."""
    key = key or report.id
    rep = {
        "report": report.model_dump(mode="json"),
        "session": isinstance(report, SessionReport),
        "key": key,
        "stored": stored,
        "kind": kind,
        "note": bool(note),
    }
    summary, table, rounds, log = shown(ctx, report, key, ui)
    return [rep, opened_line(rep, ui), summary, table, rounds, log, "", None, gr.update(variant="primary")]


def opened_line(rep: dict[str, Any], ui: Lang) -> str:
    """What Review says it opened ("Opened s-1 (session report)."), with where an upload's overrides are
    kept, in the interface language `ui`."""
    report_id = str(rep["report"]["id"])
    opened = t("ui.opened", ui, id=report_id, kind=t(str(rep.get("kind") or "ui.kind_report"), ui))
    if not rep.get("note"):
        return opened
    return f"{opened} {t('ui.upload_key', ui, where=str(rep.get('key') or report_id))}"


def shown(ctx: AppContext, report: Report, key: str, ui: Lang, *, keep_round: bool = False) -> list[Any]:
    """The report's totals, its scores (judge and effective, a row per round and dimension), the round
    picker and its override log, in the interface language `ui`."""
    rubric = ctx.rubric
    rows = ctx.services.overrides.rows(key)
    eff = effective_scores(report, rows, key=key)
    rounds = [(views.round_title(rubric, ra.round, ui), ra.round) for ra in report.rounds]
    return [
        views.report_summary_md(report, rubric, ui, eff),
        views.review_html(report, eff, rubric, ui),
        gr.update(choices=rounds)
        if keep_round
        else gr.update(choices=rounds, value=rounds[0][1] if rounds else None),
        views.log_html(rows, rubric, ui, problem=log_problem(ctx)),
    ]


def log_problem(ctx: AppContext) -> str | None:
    """The first thing `interview override verify` would report about the log (a lost file, a rewritten
    or missing row), or None when it verifies: a lost log must not read as "No override yet"."""
    try:
        v = ctx.services.overrides.verify()
    except OverrideLogError as e:
        return str(e)
    return str(v.problems[0]) if v.problems else None


def rerender(ctx: AppContext, ui_v: str, rep: dict[str, Any] | None, status: str | None = None) -> list[Any]:
    """The open report in the new interface language (the round picked stays), and the line saying what was
    opened (a warning shown in its place stays as it is)."""
    if not rep:
        return [gr.update()] * 5
    lang = lang_of(ui_v)
    said = gr.update() if (status or "").startswith("⚠️") else opened_line(rep, lang)
    report = SessionReport.model_validate(rep["report"])
    try:
        return [said, *shown(ctx, report, str(rep.get("key") or report.id), lang, keep_round=True)]
    except OverrideLogError:
        return [said, *[gr.update()] * 4]


def failed(msg: str) -> list[Any]:
    """The Review tab as it was, with `msg` as the status."""
    return [gr.update(), f"⚠️ {msg}", *[gr.update()] * 7]


def open_stored(ctx: AppContext, sid: str, session_owner: str | None, ui: Lang, kind: str) -> list[Any]:
    """A stored session's own report (or its answers so far, graded now); access already checked."""
    try:
        view = graph.get_session(sid, owner=session_owner)
    except SessionError as e:
        return failed(str(e))
    if view.report is not None:
        return loaded(ctx, view.report, kind, ui, stored=True)
    if not view.transcript.rounds:
        return failed(t("ui.nothing_to_grade", ui))
    try:
        return loaded(ctx, grade_in_worker(view.transcript), "ui.kind_session_partial", ui, stored=True)
    except (SessionError, TranscriptError, ValueError) as e:
        return failed(str(e))


def open_report_file(
    ctx: AppContext, path: str | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    if not path:
        return failed(t("ui.no_report", ui))
    try:
        data = safe_upload(path).read_bytes()
        obj = json.loads(data.decode("utf-8-sig"))
    except UploadRefused as e:
        return failed(t("ui.bad_file", ui, why=e.text(ui)))
    except UnicodeDecodeError as e:
        return failed(t("ui.bad_file", ui, why=t("ui.upload_refused.not_utf8", ui, at=e.start)))
    except json.JSONDecodeError as e:
        why = t("ui.upload_refused.not_json", ui, line=e.lineno, col=e.colno)
        return failed(t("ui.bad_file", ui, why=why))
    report: SessionReport | None = None
    if isinstance(obj, dict) and "judge" in obj and isinstance(obj.get("rounds"), list):
        try:
            report = SessionReport.model_validate(obj)
        except ValidationError as e:
            return failed(t("ui.bad_file", ui, why=views.problems_text(e.errors(include_url=False), ui)))
        file_id = report.id
    else:
        try:
            transcript = parse_transcript(data, Path(path).name)
        except TranscriptError as e:  # its structure said in the interface's language; else its message
            return failed(t("ui.bad_file", ui, why=views.problems_text(e.problems, ui) if e.problems else str(e)))
        file_id = transcript.id
    owner = ctx.owner_of(owner_v, request)
    try:
        found = graph.find_session(file_id)
    except SessionError as e:
        return failed(str(e))
    if found is not None:  # the file names a stored session: its owner's, or a reviewer's to open
        if not ctx.may_review(found, owner, request):
            return failed(t("ui.upload_not_yours", ui, id=file_id))
        return open_stored(ctx, found.session_id, found.owner, ui, "ui.kind_upload_stored")
    key = upload_key(owner, file_id)
    note = t("ui.upload_key", ui, where=key)
    if report is not None:
        return loaded(ctx, report, "ui.kind_report", ui, key=key, note=note)
    try:
        graded = grade_in_worker(transcript)
    except (SessionError, TranscriptError, ValueError) as e:
        return failed(str(e))
    return loaded(ctx, graded, "ui.kind_transcript", ui, key=key, note=note)


def open_session_report(
    ctx: AppContext, sid: str, ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    if not (sid or "").strip():
        return failed(t("ui.need_session_id", ui))
    sid = sid.strip()
    session_owner: str | None = ctx.owner_of(owner_v, request)
    if ctx.is_reviewer(request):  # a reviewer opens anyone's session
        try:
            found = graph.find_session(sid)
        except SessionError as e:
            return failed(str(e))
        if found is not None:
            session_owner = found.owner
    return open_stored(ctx, sid, session_owner, ui, "ui.kind_session")


def save_override(
    ctx: AppContext,
    rep: dict[str, Any] | None,
    round_id: str,
    dim: str,
    score: float,
    reason: str,
    reviewer: str,
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
) -> list[Any]:
    """The line that says what was saved (or why not), the summary, the table and the log; last, that line in
    both languages, so the language switch shows it again (`said.follow_switch`)."""
    ui = lang_of(ui_v)

    def told(note: Said, *shown: Any) -> list[Any]:
        return [in_ui(note, ui), *(shown or [gr.update()] * 3), note]

    if not rep:
        return told(says("ui.no_report", "⚠️ "))
    report = SessionReport.model_validate(rep["report"])
    key = str(rep.get("key") or report.id)
    if rep.get("stored"):  # still the caller's to review (a reviewer role may have been taken away)
        try:
            found = graph.find_session(report.id)
        except SessionError as e:
            return told(verbatim(f"⚠️ {e}"))
        if found is None or not ctx.may_review(found, ctx.owner_of(owner_v, request), request):
            return told(says("ui.not_yours_now", "⚠️ ", id=report.id))
    ra = next((r for r in report.rounds if r.round == round_id), None)
    if ra is None or dim not in ra.scores:
        return told(says("ui.need_round_dim", "⚠️ "))
    note = override_logged(
        ctx,
        report_id=key,
        round_id=ra.round,
        dim=dim,
        judge_score=ra.scores[dim],
        human=int(score),
        reason=reason,
        reviewer=reviewer,
        info=ra.judge or report.judge,
        request=request,
    )
    if not in_ui(note, ui).startswith("✓"):  # nothing was written: the form and the tables stay as they are
        return told(note)
    try:
        rows = ctx.services.overrides.rows(key)
    except OverrideLogError as e:
        return told(joined(note, verbatim(f"⚠️ {e}")))
    eff = effective_scores(report, rows, key=key)
    return told(
        note,
        views.report_summary_md(report, ctx.rubric, ui, eff),
        views.review_html(report, eff, ctx.rubric, ui),
        views.log_html(rows, ctx.rubric, ui, problem=log_problem(ctx)),
    )


def picked_score(ctx: AppContext, rep: dict[str, Any] | None, round_id: str | None, dim: str | None) -> Any:
    """The override's new score set to the picked round and dimension's current score (the last override's,
    else the judge's), as the scores table shows it; left as it is when nothing is picked."""
    if not rep or not round_id or not dim:
        return gr.update()
    report = SessionReport.model_validate(rep["report"])
    key = str(rep.get("key") or report.id)
    found = (e for e in ctx.standing_scores(report, key) if e.round == round_id and e.dimension == dim)
    score = next(found, None)
    return gr.update() if score is None else gr.update(value=score.effective)


def upload_key(owner: str, report_id: str) -> str:
    """Where the overrides of an upload that names no stored session are kept: its uploader's own key
    (never a session id: those have no colon). A key over the log's 200 characters is hashed."""
    key = f"upload:{owner}:{report_id}"
    if len(key) <= 200:
        return key
    return "upload:sha256:" + hashlib.sha256(f"{owner}\n{report_id}".encode()).hexdigest()
