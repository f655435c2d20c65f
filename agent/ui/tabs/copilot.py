"""Co-pilot, for a human interviewer: a plan (with the self-check round added after it when its box is
ticked, as in Practice), the candidate's answers recorded, suggested follow-ups with the evidence they
target, draft scores to accept or override."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import gradio as gr

from agent import graph
from agent.contracts.report import JudgeInfo, RoundAssessment
from agent.graph import SessionError, SessionView
from agent.graph.report import session_markdown
from agent.overrides import Override, OverrideLogError
from agent.rubric.model import Lang
from agent.ui import views
from agent.ui.context import LANG_CHOICES, AppContext, lang_of
from agent.ui.tabs.shared import (
    SessionPane,
    follow_ui_language,
    log_override,
    plan_controls,
    plan_with_self_check,
    progress,
    question_md,
    round_text,
    self_check_box,
    self_check_info,
    session_errors_noted,
    snippets_for,
    transcribe_into,
    view_state,
)
from agent.util.messages import t


def build(ctx: AppContext) -> SessionPane:
    """The tab and its events; returns what the language switch re-renders."""
    T = ctx.texts
    ui_lang = ctx.ui_lang
    with gr.Tab(t("ui.tab_copilot", ui_lang), id="copilot") as tab_copilot:
        T.register(tab_copilot, {"label": "ui.tab_copilot"})
        c_state = gr.State({})
        T(gr.Markdown, {"value": "ui.copilot_intro"})
        with gr.Row():
            c_plan = T(
                gr.Dropdown,
                {"label": "ui.plan", "choices": ctx.plan_choices},
                value="capacity",
                scale=2,
                elem_id="copilot-plan",
            )
            # a redo asks the two weakest rounds of a session of the interviewer's again: which one
            c_prev = T(
                gr.Dropdown,
                {"label": "ui.redo_of", "info": "ui.redo_of_info"},
                choices=[],
                value="",  # (the API's default: no redo)
                allow_custom_value=True,
                visible=False,
                scale=2,
                elem_id="copilot-previous",
            )
            c_lang = T(
                gr.Radio,
                {"label": "ui.session_language"},
                choices=LANG_CHOICES,
                value=ui_lang,
                scale=1,
                elem_id="copilot-lang",
            )
            c_self_check = T(
                gr.Checkbox,
                {"label": "ui.add_self_check", "info": lambda lang: self_check_info(ctx, lang)},
                value=False,
                scale=1,
                elem_id="copilot-self-check",
            )
            c_start = T(gr.Button, {"value": "ui.start"}, variant="primary", scale=1, elem_id="copilot-start")
        with gr.Row():
            c_sid = T(
                gr.Textbox, {"label": "ui.session_id"}, interactive=False, scale=2, elem_id="copilot-sid"
            )
            c_resume_id = T(gr.Textbox, {"label": "ui.resume_id"}, scale=2)
            c_resume = T(gr.Button, {"value": "ui.resume"}, scale=1)
        c_progress = gr.HTML("", elem_id="copilot-progress")
        c_question = gr.Markdown("", elem_id="copilot-question")
        c_waiting = gr.Markdown("")
        with gr.Row():
            with gr.Column(scale=3):
                c_answer = T(gr.Textbox, {"label": "ui.candidate_answer"}, lines=5, elem_id="copilot-answer")
                c_mic = T(
                    gr.Audio,
                    {"label": "ui.record"},
                    sources=["microphone", "upload"],
                    type="filepath",
                    elem_id="copilot-mic",
                )
                with gr.Row():
                    c_transcribe = T(gr.Button, {"value": "ui.transcribe"}, elem_id="copilot-transcribe")
                    c_record = T(
                        gr.Button, {"value": "ui.save_answer"}, variant="primary", elem_id="copilot-record"
                    )
            with gr.Column(scale=3):
                c_suggestions = gr.Markdown("", elem_id="copilot-suggestions")
                c_pick = T(gr.Radio, {"label": "ui.pick_followup"}, choices=[], elem_id="copilot-pick")
                c_next = T(gr.Textbox, {"label": "ui.next_question"}, lines=2, elem_id="copilot-next")
                with gr.Row():
                    c_ask = T(gr.Button, {"value": "ui.ask"}, variant="primary", elem_id="copilot-ask")
                    c_close = T(gr.Button, {"value": "ui.close_round"}, elem_id="copilot-close")
        c_status = gr.Markdown("", elem_id="copilot-status")
        with gr.Row():
            with gr.Column(scale=3):
                c_draft = gr.Markdown("", elem_id="copilot-draft", elem_classes=["coach-md"])
            with gr.Column(scale=2):
                c_sources = gr.Markdown("")
        with gr.Group():
            with gr.Row():
                c_dim = T(
                    gr.Dropdown,
                    {"label": "ui.dimension", "choices": ctx.dim_choices},
                    value="accuracy",
                    elem_id="copilot-dim",
                )
                c_score = T(
                    gr.Slider,
                    {"label": "ui.new_score"},
                    minimum=1,
                    maximum=5,
                    step=1,
                    value=3,
                    elem_id="copilot-score",
                )
                c_reviewer = T(gr.Textbox, {"label": "ui.reviewer"}, elem_id="copilot-reviewer")
            c_reason = T(gr.Textbox, {"label": "ui.reason"}, elem_id="copilot-reason")
            with gr.Row():
                # their labels name the round and dimension they act on (decision_labels), in the language
                # off until there is a draft of the round under way (decision_labels)
                c_accept = gr.Button(
                    t("ui.accept_draft", ui_lang), interactive=False, elem_id="copilot-accept"
                )
                c_override = gr.Button(
                    t("ui.save_override", ui_lang),
                    variant="primary",
                    interactive=False,
                    elem_id="copilot-override",
                )
            c_log_status = gr.Markdown("", elem_id="copilot-log-status")
        with T(gr.Accordion, {"label": "ui.raw_json"}, open=False):
            c_view = gr.JSON(None)

    outputs = [
        c_state,
        c_sid,
        c_progress,
        c_question,
        c_waiting,
        c_answer,
        c_suggestions,
        c_pick,
        c_next,
        c_draft,
        c_sources,
        c_status,
        c_view,
        *(controls := [c_mic, c_transcribe, c_record, c_ask, c_close]),
        # last, so the API's earlier outputs keep their places: the set-up as the session has it
        c_plan,
        c_lang,
        c_self_check,
        c_prev,
    ]
    assert len(controls) == len(CONTROLS)
    common = ctx.common
    bind = ctx.bind
    c_start.click(
        bind(start_copilot),
        [c_plan, c_lang, c_state, *common, c_self_check, c_prev],
        outputs,
        api_name="start_copilot",
    )
    gr.on(
        [c_plan.change, ctx.ui.change],
        bind(redo_choices),
        [c_plan, *common],
        c_prev,
        api_name="copilot_redo_choices",
        show_progress="hidden",
    )
    follow_ui_language(ctx, c_lang, c_state, "copilot")
    c_resume.click(bind(resume_copilot), [c_resume_id, c_state, *common], outputs, api_name="resume_copilot")
    c_record.click(bind(record_answer), [c_answer, c_state, *common], outputs, api_name="record_answer")
    c_ask.click(bind(ask_question), [c_next, c_state, *common], outputs, api_name="ask_question")
    c_close.click(bind(close_copilot_round), [c_state, *common], outputs, api_name="close_copilot_round")
    c_pick.input(use_followup, [c_pick, c_next], c_next, api_name="use_followup")
    gr.on(
        [c_transcribe.click, c_mic.stop_recording, c_mic.upload],
        bind(transcribe_into),
        [c_mic, c_answer, c_state, c_lang, ctx.ui],
        [c_answer, c_status],
        api_name="transcribe_copilot",
    )
    decide_inputs = [c_state, c_dim, c_score, c_reason, c_reviewer, ctx.ui]
    c_accept.click(bind(decide, True), decide_inputs, c_log_status, api_name="copilot_accept")
    c_override.click(bind(decide, False), decide_inputs, c_log_status, api_name="copilot_override")
    gr.on(
        [c_state.change, c_dim.change, ctx.ui.change],
        bind(decision_labels),
        [c_state, c_dim, ctx.ui],
        [c_accept, c_override],
        api_name="copilot_decision_labels",
        show_progress="hidden",
    )
    return SessionPane(
        state=c_state,
        question=c_question,
        progress=c_progress,
        rerendered=[c_waiting, c_suggestions, c_draft, c_sources],
        rerender=rerender,
    )


CONTROLS = ("mic", "transcribe", "save_answer", "ask", "close_round")
"""Outputs of `copilot_out` after the raw session: with the answer box, the follow-up pick and the next
question, what moves a co-pilot session on; off once the session is finished."""
SET_UP = ("plan", "session_language", "self_check", "previous_session")
"""The last outputs of `copilot_out`: the set-up controls, as the session on screen has them."""


def copilot_out(
    ctx: AppContext,
    view: SessionView | None,
    prev: dict[str, Any],
    ui: Lang,
    *,
    note: str | None = None,
    keep: str = "",
) -> list[Any]:
    """The tab's outputs for `view`; without a view the tab stays as it was, with `note` as its status.
    A session newly on screen (started or resumed) sets the plan, the interview language and the
    self-check box as it has them."""
    if view is None:
        return [prev, *[gr.update()] * 4, keep, *[gr.update()] * 5, note or "", gr.update()] + [
            gr.update()
        ] * (len(CONTROLS) + len(SET_UP))
    ra = view.last_assessment
    state = view_state(view)
    # the draft Accept and Override act on: the last answer's, while its round is under way (a closed
    # round's scores are changed in Review)
    state["draft"] = ra.model_dump(mode="json", exclude={"checklist"}) if ra and draft_open(view) else None
    answered = prev.get("sid") == view.session_id and view.awaiting == "interviewer"
    if view.question is None and view.awaiting == "interviewer":
        # the answer is saved and the next question not asked yet: the question answered stays on screen
        state.update(answered_question(view))
    choices = [sg.text for sg in view.suggestions]
    done = view.status == "done"
    notes = [
        n for n in (note, view.notice, view.message, t("ui.copilot_finished", ui) if done else None) if n
    ]
    on = gr.update(interactive=not done)
    plan, lang, previous, self_check = (
        plan_controls(view) if prev.get("sid") != view.session_id else [gr.update()] * 4
    )
    return [
        state,
        view.session_id,
        progress(ctx, state, ui),
        question_md(state, ui),
        waiting_md(view, ui),
        gr.update(interactive=not done, **answer_box(view, answered, keep)),
        views.suggestions_md(view.suggestions, ui) if not done else "",
        gr.update(choices=choices, value=None, interactive=not done),
        gr.update(value=choices[0] if choices and answered else "", interactive=not done),
        draft_md(ctx, view, ui),
        snippets_for(ctx, round_text(view, ra.round), ui) if (ra and answered) else gr.update(),
        "\n\n".join(notes),
        json.loads(view.model_dump_json(exclude={"report"})),
        *[on] * len(CONTROLS),
        plan,
        lang,
        self_check_box(self_check, view),
        previous,
    ]


def waiting_md(view: SessionView, ui: Lang) -> str:
    """Whose turn it is: the candidate's answer or the interviewer's next question."""
    who = {"candidate": "ui.who_candidate", "interviewer": "ui.who_interviewer"}.get(view.awaiting or "")
    return t("ui.waiting_for", ui, who=t(who, ui)) if who and view.status != "done" else ""


def draft_open(view: SessionView) -> bool:
    """Whether the last answer's draft belongs to the round under way (Accept and Override act on it): not
    once its round is closed (the next round's first answer brings the next draft), nor once the session is
    finished."""
    ra = view.last_assessment
    return ra is not None and view.status != "done" and ra.round == view.round


def draft_md(ctx: AppContext, view: SessionView, ui: Lang) -> str:
    """The last answer's draft scores (a closed round's scores, said to be closed), or the session's report
    once it is finished."""
    if view.report:
        return session_markdown(view.report, ctx.rubric)
    ra = view.last_assessment
    if ra is None:
        return ""
    if draft_open(view):
        return views.assessment_md(ra, ctx.rubric, ui, heading="ui.draft_scores")
    closed = views.assessment_md(ra, ctx.rubric, ui, heading="ui.closed_scores")
    return f"{closed}\n\n{t('ui.closed_scores_note', ui)}"


def redo_choices(
    ctx: AppContext, plan: str | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> Any:
    """The session to redo: shown for the redo plan, listing the interviewer's finished sessions by plan and
    date (the id last; an id may be typed too)."""
    if plan != "redo":
        return gr.update(visible=False)
    ui = lang_of(ui_v)
    choices = []
    for s in graph.list_sessions(owner=ctx.owner_of(owner_v, request)):
        if s.status != "done":
            continue
        when = s.updated_at[:16].replace("T", " ")
        name = t(
            "ui.redo_item", ui, plan=ctx.plan_name(s.plan, ui), mode=t(f"ui.mode_{s.mode}", ui), when=when
        )
        choices.append((f"{name} · {s.session_id}", s.session_id))
    return gr.update(visible=True, choices=choices[:REDO_SHOWN])


REDO_SHOWN = 30


def rerender(ctx: AppContext, state: dict[str, Any], ui: Lang, owner: str) -> list[Any]:
    """What the tab shows of its session, in the interface language `ui` (the language switch): whose turn
    it is, the suggestions' heading, the draft scores and the vLLM sources."""
    if not state.get("sid"):
        return [gr.update()] * 4
    try:
        view = graph.get_session(state["sid"], owner=owner)
    except SessionError:
        return [gr.update()] * 4
    ra = view.last_assessment
    text = round_text(view, ra.round) if ra else ""
    return [
        waiting_md(view, ui),
        views.suggestions_md(view.suggestions, ui) if view.status != "done" else "",
        draft_md(ctx, view, ui),
        snippets_for(ctx, text, ui) if text.strip() else gr.update(),
    ]


def answer_box(view: SessionView, answered: bool, keep: str) -> dict[str, Any]:
    """The answer box's new value: kept when the input was refused, emptied once an answer is saved or the
    candidate is to answer, else as it is (no value)."""
    if view.message:
        return {"value": keep}
    if answered or view.awaiting == "candidate" or view.status == "done":
        return {"value": ""}
    return {}


def answered_question(view: SessionView) -> dict[str, Any]:
    """The question the candidate just answered (the round's last interviewer turn) and its kind, for
    `view_state`, marked answered."""
    tr = next((r for r in view.transcript.rounds if r.round == view.round), None)
    at = [i for i, x in enumerate(tr.turns) if x.role == "interviewer"] if tr else []
    if tr is None or not at:
        return {}
    until = tr.model_copy(update={"turns": tr.turns[: at[-1] + 1]})  # as it stood when it was asked
    asked = tr.turns[at[-1]].text
    return {"question": asked, "kind": views.question_kind(until, asked, max_followups=0), "answered": True}


def copilot_note(ctx: AppContext, state: dict[str, Any], ui: Lang, note: str, keep: str = "") -> list[Any]:
    """The tab as it was, with `note` as its status and `keep` (or nothing) in the answer box."""
    return copilot_out(ctx, None, state, ui, note=note, keep=keep or "")


@session_errors_noted(copilot_note)
def start_copilot(
    ctx: AppContext,
    plan: str,
    lang: str,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
    self_check: bool = False,
    prev_sid: str | None = "",
) -> list[Any]:
    """Start a co-pilot session with `plan`, the self-check round added after its last round when
    `self_check` is ticked (as in Practice); a redo of `prev_sid`, a session of the interviewer's (its two
    weakest rounds asked again)."""
    ui = lang_of(ui_v)
    spec = plan or "capacity"
    if spec == "redo":
        if not (prev_sid or "").strip():
            return copilot_note(ctx, state, ui, t("ui.need_previous_pick", ui))
        spec = f"redo {str(prev_sid).strip()}"
    view = graph.start_session(
        plan_with_self_check(spec, self_check),
        lang_of(lang),
        "copilot",
        owner=ctx.owner_of(owner_v, request),
    )
    return copilot_out(ctx, view, {}, ui, note=t("ui.started", ui, sid=view.session_id))


@session_errors_noted(copilot_note)
def resume_copilot(
    ctx: AppContext, sid: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    view = graph.get_session((sid or "").strip(), owner=ctx.owner_of(owner_v, request))
    return copilot_out(ctx, view, {}, ui, note=t("ui.resumed", ui, sid=view.session_id))


def copilot_call(
    ctx: AppContext, fn: Callable[[str, str], SessionView], text: str, state: dict[str, Any], ui: Lang
) -> list[Any]:
    """`fn(session id, text)` on the tab's session, shown; a note when the tab has no session."""
    if not state.get("sid"):
        return copilot_note(ctx, state, ui, t("ui.no_session", ui), keep=text)
    return copilot_out(ctx, fn(state["sid"], text), state, ui, keep=text)


@session_errors_noted(copilot_note)
def record_answer(
    ctx: AppContext, text: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    return copilot_call(
        ctx, lambda sid, x: graph.answer(sid, x, owner=owner), text or "", state, lang_of(ui_v)
    )


@session_errors_noted(copilot_note)
def ask_question(
    ctx: AppContext, text: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    return copilot_call(ctx, lambda sid, x: graph.ask(sid, x, owner=owner), text or "", state, lang_of(ui_v))


@session_errors_noted(copilot_note)
def close_copilot_round(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    return copilot_call(ctx, lambda sid, _x: graph.close_round(sid, owner=owner), "", state, lang_of(ui_v))


def use_followup(pick: str | None, current: str) -> str:
    return pick or current


def judge_info(ctx: AppContext, ra: RoundAssessment | None) -> JudgeInfo:
    if ra is not None and ra.judge is not None:
        return ra.judge
    from agent.graph.context import graph_context

    return graph_context(ctx.rubric).info


def decide(
    ctx: AppContext,
    accept: bool,
    state: dict[str, Any],
    dim: str,
    score: float,
    reason: str,
    reviewer: str,
    ui_v: str,
    request: gr.Request,
) -> str:
    ui = lang_of(ui_v)
    draft = state.get("draft")
    if not state.get("sid") or not draft:
        return f"⚠️ {t('ui.no_draft', ui)}"
    ra = RoundAssessment.model_validate(draft)
    judge_score = ra.scores.get(dim)  # type: ignore[call-overload]
    if judge_score is None:
        return f"⚠️ {t('ui.need_round_dim', ui)}"
    if accept:
        try:
            standing = latest_decision(ctx, state["sid"], ra.round, dim)
        except OverrideLogError as e:
            return f"⚠️ {t('ui.override_failed', ui, why=str(e))}"
        if standing is not None:
            named = {
                "round": views.round_title(ctx.rubric, ra.round, ui),
                "dimension": views.dim_title(ctx.rubric, dim, ui),
            }
            if standing.human_score == judge_score:  # it already stands at the draft's score
                return f"✓ {t('ui.accept_already', ui, score=judge_score, id=standing.id, **named)}"
            if standing.human_score != standing.judge_score:  # an override the accept would undo
                return "⚠️ " + t(
                    "ui.accept_refused",
                    ui,
                    human=standing.human_score,
                    reviewer=standing.reviewer,
                    id=standing.id,
                    judge=judge_score,
                    **named,
                )
    return log_override(
        ctx,
        report_id=state["sid"],
        round_id=ra.round,
        dim=dim,
        judge_score=judge_score,
        human=judge_score if accept else int(score),
        reason=(reason or t("ui.accepted_reason", ui)) if accept else reason,
        reviewer=reviewer,
        info=judge_info(ctx, ra),
        ui=ui,
        request=request,
    )


def latest_decision(ctx: AppContext, sid: str, round_id: str, dim: str) -> Override | None:
    """The log's latest row for the session's round and dimension (what stands now), or None."""
    rows = [r for r in ctx.services.overrides.rows(sid) if r.round == round_id and r.dimension == dim]
    return max(rows, key=lambda r: r.id) if rows else None


def decision_labels(ctx: AppContext, state: dict[str, Any], dim: str | None, ui_v: str) -> list[Any]:
    """Accept and Override name the round and dimension they act on, and the draft score Accept keeps."""
    ui = lang_of(ui_v)
    draft = state.get("draft") if state else None
    score = draft.get("scores", {}).get(dim) if draft and dim else None
    if not draft or score is None:  # nothing to act on: no answer in the round under way yet
        return [
            gr.update(value=t("ui.accept_draft", ui), interactive=False),
            gr.update(value=t("ui.save_override", ui), interactive=False),
        ]
    named = {
        "round": views.round_title(ctx.rubric, draft.get("round"), ui),
        "dimension": views.dim_title(ctx.rubric, str(dim), ui),
    }
    return [
        gr.update(value=t("ui.accept_on", ui, score=score, **named), interactive=True),
        gr.update(value=t("ui.override_on", ui, **named), interactive=True),
    ]
