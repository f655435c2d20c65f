"""Practice: a mock interview. The question shown, then spoken; the answer typed or recorded (transcribed
offline, editable before sending); the round's progress and clock; scores with quotes and vLLM sources."""

from __future__ import annotations

import json
import re
import secrets
import wave
from collections import Counter
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np

from agent import graph
from agent.graph import SessionView
from agent.graph.plan import ADD_SELF_CHECK, with_self_check
from agent.graph.report import session_markdown
from agent.rubric.model import SELF_CHECK, Lang
from agent.ui import views
from agent.ui.auth import browser_secret
from agent.ui.context import LANG_CHOICES, AppContext, lang_of
from agent.ui.tabs.shared import (
    SessionPane,
    progress,
    question_md,
    round_text,
    session_errors_noted,
    snippets_for,
    transcribe,
    view_state,
)
from agent.util.messages import t
from agent.voice import VoiceUnavailable
from agent.voice.delivery import Delivery, combine, delivery_of


def build(ctx: AppContext) -> SessionPane:
    """The tab and its events; returns what the language switch re-renders."""
    T = ctx.texts
    ui_lang = ctx.ui_lang
    with gr.Tab(t("ui.tab_practice", ui_lang), id="practice") as tab_practice:
        T.register(tab_practice, {"label": "ui.tab_practice"})
        p_state = gr.State({})
        # the session this browser practises now, kept in its local storage: a reload resumes it
        p_saved = gr.BrowserState(None, storage_key="interview-coach-practice", secret=browser_secret())
        # the round-finished moment: at the top, until the candidate continues
        with gr.Column(visible=False, elem_id="round-scores", elem_classes=["coach-banner"]) as p_banner:
            p_banner_md = gr.Markdown("", elem_classes=["coach-md"])
            p_continue = T(gr.Button, {"value": "ui.continue"}, variant="primary", elem_id="continue")
        with gr.Row():
            p_plan = T(
                gr.Dropdown,
                {"label": "ui.plan", "choices": ctx.plan_choices},
                value="concepts",
                scale=2,
                elem_id="plan",
            )
            p_lang = T(
                gr.Radio,
                {"label": "ui.session_language"},
                choices=LANG_CHOICES,
                value=ui_lang,
                scale=1,
                elem_id="session-lang",
            )
            p_self_check = T(
                gr.Checkbox,
                {"label": "ui.add_self_check", "info": lambda lang: self_check_info(ctx, lang)},
                value=False,
                scale=1,
                elem_id="self-check",
            )
            p_prev = T(gr.Textbox, {"label": "ui.previous_session"}, scale=1)
            p_start = T(gr.Button, {"value": "ui.start"}, variant="primary", scale=1, elem_id="start")
        with gr.Row():
            p_sid = T(
                gr.Textbox, {"label": "ui.session_id"}, interactive=False, scale=2, elem_id="practice-sid"
            )
            p_unfinished = T(
                gr.Dropdown,
                {"label": "ui.unfinished"},
                choices=[],
                value=None,
                allow_custom_value=True,
                scale=3,
                elem_id="practice-unfinished",
            )
            p_resume_id = T(gr.Textbox, {"label": "ui.resume_id"}, scale=2, elem_id="practice-resume-id")
            p_resume = T(gr.Button, {"value": "ui.resume"}, scale=1, elem_id="resume")
        p_progress = gr.HTML("", elem_id="practice-progress")
        with gr.Row():
            with gr.Column(scale=3):
                p_question = gr.Markdown("", elem_id="practice-question")
            with gr.Column(scale=1, min_width=220):
                p_audio_q = T(
                    gr.Audio,
                    {"label": "ui.question_audio"},
                    type="numpy",
                    autoplay=True,
                    interactive=False,
                    elem_id="practice-question-audio",
                )
                p_voice = gr.Markdown("")
        p_spoken = gr.State(None)
        # the recordings transcribed into the answer box: what each said and its delivery figures
        p_heard = gr.State([])
        p_answer = T(
            gr.Textbox,
            {"label": "ui.answer", "placeholder": "ui.answer_placeholder"},
            lines=6,
            max_lines=20,
            elem_id="answer",
        )
        with gr.Row():
            p_mic = T(
                gr.Audio,
                {"label": "ui.record"},
                sources=["microphone", "upload"],
                type="filepath",
                elem_id="practice-mic",
                scale=2,
            )
            with gr.Column(scale=1):
                p_transcribe = T(gr.Button, {"value": "ui.transcribe"})
                p_send = T(gr.Button, {"value": "ui.send"}, variant="primary", elem_id="send")
                p_retry = T(gr.Button, {"value": "ui.retry"}, interactive=False, elem_id="retry")
                p_retry_cancel = T(
                    gr.Button, {"value": "ui.retry_cancel"}, visible=False, elem_id="retry-cancel"
                )
                p_finish = T(gr.Button, {"value": "ui.finish_round"}, variant="secondary")
        p_status = gr.Markdown("", elem_id="practice-status")
        with gr.Row(equal_height=False):
            p_insight = gr.Markdown(
                "", elem_id="answer-insight", elem_classes=["coach-md"], scale=3, min_width=320
            )
            # a spoken answer's pace, fillers and pauses, beside its insight (not part of the scores)
            p_delivery = gr.Markdown(
                "",
                elem_id="answer-delivery",
                elem_classes=["coach-md"],
                scale=2,
                min_width=280,
                visible=False,
            )
        p_result = gr.Markdown("", elem_id="practice-result", elem_classes=["coach-md"])
        p_sources = gr.Markdown("")
        p_conversation = gr.Markdown(
            "", elem_id="conversation", elem_classes=["coach-md", "coach-conversation"]
        )
        p_report = gr.Markdown("", elem_id="practice-report", elem_classes=["coach-md"])
        with T(gr.Accordion, {"label": "ui.raw_json"}, open=False):
            p_view = gr.JSON(None)

    outputs = [
        p_state,
        p_sid,
        p_progress,
        p_question,
        p_audio_q,
        p_answer,
        p_status,
        p_result,
        p_sources,
        p_report,
        p_view,
        p_banner,
        p_banner_md,
        p_insight,
        p_conversation,
        p_send,
        p_continue,
        p_finish,
        p_retry,
        p_retry_cancel,
        p_plan,
        p_lang,
        p_prev,
        p_delivery,
        p_self_check,
    ]
    common = ctx.common
    bind = ctx.bind
    # the question is spoken after its text shows; a newer event cancels speech still being made
    speaking = p_state.change(
        bind(speak_question),
        [p_state, p_spoken, ctx.ui],
        [p_audio_q, p_spoken, p_voice],
        api_name="speak_question",
    )
    listed = {"fn": bind(list_unfinished), "inputs": common, "outputs": [p_unfinished]}
    # Start and Resume replace the session on screen: the browser asks first when one is under way
    for trigger, fn, inputs, name, js in [
        (
            p_start,
            bind(start_practice),
            [p_plan, p_lang, p_prev, p_state, *common, p_self_check],
            "start_practice",
            confirm_js(2),
        ),
        (p_continue, bind(continue_round), [p_state, *common], "continue_round", None),
        (p_resume, bind(resume_practice), [p_resume_id, p_state, *common], "resume_practice", confirm_js(0)),
        (p_send, bind(send_answer), [p_answer, p_state, p_heard, *common], "send_answer", None),
        (p_finish, bind(finish_round), [p_state, *common], "finish_round", None),
    ]:
        event = trigger.click(fn, inputs, outputs, api_name=name, cancels=[speaking], js=js)
        if trigger in (p_start, p_resume, p_finish, p_send):
            event.then(**listed, api_name="list_unfinished", show_progress="hidden")
    p_unfinished.select(
        bind(resume_practice),
        [p_unfinished, p_state, *common],
        outputs,
        api_name="resume_listed",
        js=confirm_js(0),
    ).then(**listed, api_name="list_unfinished", show_progress="hidden")
    p_state.change(remember, p_state, p_saved, api_name="remember_session", show_progress="hidden")
    tab_practice.select(**listed, api_name="list_unfinished")
    retry_outputs = [p_state, p_question, p_answer, p_status, p_retry, p_retry_cancel]
    p_retry.click(bind(start_retry), [p_state, *common], retry_outputs, api_name="retry_answer")
    p_retry_cancel.click(bind(cancel_retry), [p_state, ctx.ui], retry_outputs, api_name="cancel_retry")
    gr.on(
        [p_transcribe.click, p_mic.stop_recording, p_mic.upload],
        bind(transcribe_answer),
        [p_mic, p_answer, p_state, p_lang, ctx.ui, p_heard],
        [p_answer, p_status, p_heard],
        api_name="transcribe_practice",
    )

    def on_load(loaded: Any) -> None:
        """After the page's owner is known: the session this browser was practising, then the list."""
        loaded.then(
            bind(restore_practice), [p_saved, p_state, *common], outputs, api_name="restore_practice"
        ).then(**listed, api_name="list_unfinished", show_progress="hidden")

    return SessionPane(
        state=p_state,
        question=p_question,
        progress=p_progress,
        on_load=on_load,
        rerendered=[p_insight, p_banner_md, p_result, p_sources, p_conversation, p_delivery],
        rerender=rerender,
    )


def practice_out(
    ctx: AppContext,
    view: SessionView | None,
    prev: dict[str, Any],
    ui: Lang,
    page: str | None = None,
    *,
    note: str | None = None,
    keep: str = "",
    sent: str | None = None,
    continued: bool = False,
    earlier: list[str] | None = None,
    delivery: Delivery | None = None,
) -> list[Any]:
    """The tab's outputs for `view`; without a view the tab stays as it was, with `note` as its status.

    `page`: the Gradio session showing it (see `speak_question`); `keep`: the answer being written,
    kept in the answer box unless the session took it; `sent`: the answer the session just took (its
    insight is shown); `continued`: the candidate closed the round-finished banner; `earlier`: a retried
    answer's earlier attempt covered these items (the insight compares them); `delivery`: the sent
    answer was spoken, with these figures (shown beside its insight)."""
    if view is None:
        return [
            prev,
            gr.update(),
            gr.update(),
            gr.update(),
            gr.update(),
            keep,
            note or "",
            *[gr.update()] * 4,
            *[gr.update()] * 7,
            *[gr.update()] * 2,
            *[gr.update()] * 3,
            gr.update(),
            gr.update(),
        ]
    rubric = ctx.rubric
    state = view_state(view)
    same_session = prev.get("sid") == view.session_id
    # a rubric round closed (not the candidate's own questions at the end of the full mock)
    round_ended = (
        same_session
        and prev.get("round") is not None
        and (
            prev.get("round_index") != view.round_index
            or (view.status == "done" and prev.get("status") != "done")
        )
    )
    scored = view.last_assessment
    if view.status == "done" and view.report and view.report.rounds:
        scored = view.report.rounds[-1]
    # the round-finished moment: the next round's question waits until the candidate continues
    held = (
        view.status != "done" and not continued and (round_ended or (same_session and bool(prev.get("held"))))
    )
    if held:
        state["question"] = None
        state["held"] = True
    notes = [n for n in (note, view.notice, view.message) if n]
    new_question = bool(state["question"]) and (not same_session or prev.get("question") != state["question"])
    # the question is spoken by `speak_question`, which runs when this state changes: text first
    state["say"] = secrets.token_hex(4) if new_question else prev.get("say")
    if page:
        ctx.shown.show(page, state["say"])
    audio: Any = None if new_question or not state["question"] else gr.update()
    result: Any = gr.update() if same_session else ""
    sources: Any = gr.update() if same_session else ""
    banner_visible: Any = gr.update(visible=False) if not same_session else gr.update()
    banner: Any = "" if not same_session else gr.update()
    if (round_ended or (not same_session and view.status == "done")) and scored is not None:
        # at the end of the session the report below holds the scores; the sources stay useful
        result = (
            ""
            if view.status == "done"
            else views.assessment_md(scored, rubric, ui, heading="ui.round_scores")
        )
        sources = snippets_for(ctx, round_text(view, scored.round), ui)
        banner = views.round_banner_md(rubric, scored, view.language, ui, last=view.status == "done")
        banner_visible = gr.update(visible=True)
    # the insight on the answer just taken: the current round's draft, or the round it closed
    insight: Any = gr.update() if same_session and not continued and not round_ended else ""
    delivery_out: Any = gr.update() if same_session and not continued and not round_ended else _no_delivery()
    if continued:
        banner_visible = gr.update(visible=False)
    # what is on screen, for the language switch to render again (`rerender`)
    state["banner"] = bool(prev.get("banner")) and same_session and not continued
    state["shown_round"] = prev.get("shown_round") if same_session else None
    state["insight"] = prev.get("insight") if same_session and not continued and not round_ended else None
    state["delivery"] = prev.get("delivery") if state["insight"] else None
    if banner_visible == gr.update(visible=True) and scored is not None:
        state["banner"], state["shown_round"] = True, scored.round
    current = view.last_assessment if not round_ended else scored
    drafted = (
        view.last_assessment if view.last_assessment and view.last_assessment.round == view.round else None
    )
    state["covered"] = views.covered_ids(drafted) if not round_ended and not held else []
    # what retrying the last answer compares with: the round before it, and what it covered
    for key in ("covered_before", "mine"):
        state[key] = prev.get(key, []) if same_session else []
    if view.message and prev.get("retrying"):  # a retry that was not taken: still retrying
        state["retrying"] = prev["retrying"]
    if sent is not None and not view.message and current is not None and prev.get("round") is not None:
        mine = views.answer_covered(current, sent, prev.get("covered", []))
        state["covered_before"], state["mine"] = list(prev.get("covered", [])), mine
        insight = views.insight_md(
            rubric,
            current,
            mine,
            view.language,
            ui,
            round_over=round_ended,
            next_label="" if round_ended else views.question_label(state.get("kind"), ui),
            earlier=earlier,
        )
        state["insight"] = {"round_over": round_ended, "earlier": earlier}
        state["delivery"] = delivery.model_dump(mode="json") if delivery else None
        delivery_out = _delivery_shown(delivery, ui)
    answered = next((r for r in view.transcript.rounds if r.round == view.round), None)
    state["can_retry"] = (
        view.mode == "practice"
        and view.status != "done"
        and not held
        and not round_ended
        and answered is not None
        and any(x.role == "candidate" for x in answered.turns)
    )
    retrying = bool(state.get("retrying"))
    report = session_markdown(view.report, rubric) if view.report else ""
    controls = plan_controls(view) if not same_session else [gr.update()] * 4
    return [
        state,
        view.session_id,
        progress(ctx, state, ui),
        question_md(state, ui),
        audio,
        keep if view.message else "",
        "\n\n".join(notes),
        result,
        sources,
        report,
        json.loads(view.model_dump_json(exclude={"report"})),
        banner_visible,
        banner,
        insight,
        views.conversation_md(rubric, view.transcript, ui),
        gr.update(interactive=not held and view.status != "done"),
        gr.update(visible=view.status != "done"),
        gr.update(interactive=not held and view.status != "done" and not retrying),
        gr.update(interactive=state["can_retry"], visible=not retrying),
        gr.update(visible=retrying),
        *controls[:3],
        delivery_out,
        controls[3],
    ]


def _no_delivery() -> Any:
    return gr.update(value="", visible=False)


def _delivery_shown(delivery: Delivery | None, ui: Lang) -> Any:
    """The delivery figures beside the insight: shown for a spoken answer, hidden for a typed one."""
    return gr.update(value=views.delivery_md(delivery, ui), visible=True) if delivery else _no_delivery()


def rerender(ctx: AppContext, state: dict[str, Any], ui: Lang, owner: str) -> list[Any]:
    """What the language switch renders again in Practice besides the labels, the question and the
    progress: the insight on the last answer, the round-finished banner, the round's scores, the
    conversation and a spoken answer's delivery figures, from the stored session (the outputs
    `RERENDERED`)."""
    keep: list[Any] = [gr.update()] * 6
    if not state.get("sid"):
        return keep
    try:
        view = graph.get_session(state["sid"], owner=owner)
    except graph.SessionError:
        return keep
    rubric = ctx.rubric
    shown = state.get("shown_round")
    scored = next((ra for ra in (view.report.rounds if view.report else []) if ra.round == shown), None)
    last = view.last_assessment
    scored = scored or (last if last is not None and last.round == shown else None)
    banner: Any = gr.update()
    result: Any = gr.update()
    sources: Any = gr.update()
    if scored is not None:
        sources = snippets_for(ctx, round_text(view, scored.round), ui)
        if state.get("banner"):
            banner = views.round_banner_md(rubric, scored, view.language, ui, last=view.status == "done")
        if view.status != "done":
            result = views.assessment_md(scored, rubric, ui, heading="ui.round_scores")
    insight: Any = gr.update()
    info = state.get("insight")
    current = scored if info and info.get("round_over") else last
    if info and current is not None:
        insight = views.insight_md(
            rubric,
            current,
            state.get("mine", []),
            view.language,
            ui,
            round_over=bool(info.get("round_over")),
            next_label="" if info.get("round_over") else views.question_label(state.get("kind"), ui),
            earlier=info.get("earlier"),
        )
    delivery: Any = gr.update()
    if info and state.get("delivery"):
        delivery = _delivery_shown(Delivery.model_validate(state["delivery"]), ui)
    return [insight, banner, result, sources, views.conversation_md(rubric, view.transcript, ui), delivery]


def practice_note(ctx: AppContext, state: dict[str, Any], ui: Lang, note: str, keep: str = "") -> list[Any]:
    """The tab as it was, with `note` as its status and `keep` in the answer box."""
    return practice_out(ctx, None, state, ui, note=note, keep=keep)


KEEP = "__keep__"
"""What Start or Resume sends when the candidate chose to keep the session under way (`confirm_js`)."""


def confirm_js(index: int) -> str:
    """Before Start or Resume replaces a session under way (a session id shown, the progress not 'done'):
    the browser's confirm, in the interface language; "keep" sends KEEP as the input at `index` (a free
    text input: Gradio checks a dropdown's value against its choices)."""
    ask = {lang: t("ui.confirm_replace", lang) for lang in ("en", "zh")}
    return (
        "(...args) => { const sid = document.querySelector('#practice-sid :is(input, textarea)')?.value;"
        " const done = document.querySelector('#practice-progress .coach-progress.done');"
        " const zh = document.querySelector('#ui-language input[value=zh]')?.checked;"
        f" const ask = zh ? {json.dumps(ask['zh'])} : {json.dumps(ask['en'])};"
        f" if (sid && !done && !window.confirm(ask)) {{ args[{index}] = {json.dumps(KEEP)}; }}"
        " return args; }"
    )


def plan_controls(view: SessionView) -> list[Any]:
    """The plan, interview language, previous-session and self-check controls as the session has them."""
    plan, added = with_self_check(view.plan)
    words = plan.split()
    redo = len(words) > 1 and words[0] == "redo"
    return [
        gr.update(value="redo" if redo else plan),
        gr.update(value=view.language),
        gr.update(value=words[1] if redo else ""),
        gr.update(value=added),
    ]


def self_check_info(ctx: AppContext, lang: Lang) -> str:
    """The self-check box's hint: what the round is and its minutes."""
    return t("ui.add_self_check_info", lang, minutes=ctx.rubric.round(SELF_CHECK).minutes)


def remember(state: dict[str, Any]) -> str | None:
    """What this browser keeps to resume after a reload: the session under way (none once it is done)."""
    return state.get("sid") if state.get("sid") and state.get("status") != "done" else None


def list_unfinished(ctx: AppContext, ui_v: str, owner_v: str | None, request: gr.Request) -> Any:
    """The owner's unfinished practice sessions, by plan and date (the id last), most recent first."""
    ui = lang_of(ui_v)
    choices = []
    for s in graph.list_sessions(owner=ctx.owner_of(owner_v, request)):
        if s.status == "done" or s.mode != "practice":
            continue
        plan = ctx.plan_name(s.plan, ui)
        when = s.updated_at[:16].replace("T", " ")
        choices.append((t("ui.unfinished_item", ui, plan=plan, when=when, sid=s.session_id), s.session_id))
    return gr.update(choices=choices[:UNFINISHED_SHOWN], value=None)


UNFINISHED_SHOWN = 30


@session_errors_noted(practice_note)
def restore_practice(
    ctx: AppContext,
    saved: str | None,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
) -> list[Any]:
    """On page load: the session this browser was practising, as it stands (the page was reloaded)."""
    ui = lang_of(ui_v)
    unchanged = [gr.update() for _ in practice_note(ctx, state, ui, "")]
    if not saved or state.get("sid"):
        return unchanged
    try:
        view = graph.get_session(saved, owner=ctx.owner_of(owner_v, request))
    except graph.SessionError:
        return unchanged
    if view.status == "done":
        return unchanged
    return practice_out(
        ctx, view, {}, ui, request.session_hash, note=t("ui.restored", ui, sid=view.session_id)
    )


@session_errors_noted(practice_note)
def start_practice(
    ctx: AppContext,
    plan: str,
    lang: str,
    prev_sid: str,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
    self_check: bool = False,
) -> list[Any]:
    """Start a practice session with `plan` (a plan of the list; "redo" with `prev_sid`), the self-check
    round added after its last round when `self_check` is ticked."""
    ui = lang_of(ui_v)
    if prev_sid == KEEP:
        return practice_note(ctx, state, ui, "")
    owner = ctx.owner_of(owner_v, request)
    spec = plan or "concepts"
    if spec == "redo":
        if not (prev_sid or "").strip():
            return practice_note(ctx, state, ui, t("ui.need_previous", ui))
        spec = f"redo {prev_sid.strip()}"
    if self_check and spec != SELF_CHECK:
        spec = f"{spec} {ADD_SELF_CHECK}"
    view = graph.start_session(spec, lang_of(lang), "practice", owner=owner)
    return practice_out(
        ctx, view, {}, ui, request.session_hash, note=t("ui.started", ui, sid=view.session_id)
    )


@session_errors_noted(practice_note)
def resume_practice(
    ctx: AppContext, sid: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    if sid == KEEP:
        return practice_note(ctx, state, ui, "")
    if not (sid or "").strip():
        return practice_note(ctx, state, ui, t("ui.need_session_id", ui))
    view = graph.get_session(sid.strip(), owner=ctx.owner_of(owner_v, request))
    return practice_out(
        ctx, view, {}, ui, request.session_hash, note=t("ui.resumed", ui, sid=view.session_id)
    )


@session_errors_noted(practice_note)
def send_answer(
    ctx: AppContext,
    text: str,
    state: dict[str, Any],
    heard: list[dict[str, Any]] | None,
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
) -> list[Any]:
    ui = lang_of(ui_v)
    if not state.get("sid"):
        return practice_note(ctx, state, ui, t("ui.no_session", ui), keep=text)
    owner = ctx.owner_of(owner_v, request)
    spoken = spoken_delivery(heard, text or "")
    if state.get("retrying"):  # the last answer, answered again: compared with the earlier attempt
        view = graph.retry_answer(state["sid"], text or "", owner=owner)
        before = {**state, "covered": state.get("covered_before", [])}
        return practice_out(
            ctx,
            view,
            before,
            ui,
            request.session_hash,
            keep=text,
            sent=text,
            earlier=state.get("mine", []),
            delivery=spoken,
        )
    view = graph.answer(state["sid"], text or "", owner=owner)
    return practice_out(ctx, view, state, ui, request.session_hash, keep=text, sent=text, delivery=spoken)


def transcribe_answer(
    ctx: AppContext,
    audio: str | None,
    current: str | None,
    state: dict[str, Any],
    lang: str,
    ui_v: str,
    heard: list[dict[str, Any]] | None,
) -> tuple[str, str, list[dict[str, Any]]]:
    """The recording transcribed into the answer box (the session's language forced), and kept with its
    delivery figures beside the recordings still in the box (those a new answer replaced are dropped),
    for Send to show beside the insight."""
    text, status, got = transcribe(ctx, audio, current, state, lang, ui_v)
    kept = [h for h in heard or [] if still_in(h.get("text", ""), current or "")]
    if got is None:
        return text, status, kept
    try:
        figures = delivery_of(got)
    except (OSError, ValueError):  # the figures are an aid: the transcript goes into the box regardless
        return text, status, kept
    return text, status, [*kept, {"text": got.text, "delivery": figures.model_dump(mode="json")}]


_TOKENS = re.compile(r"[\u3400-\u9fff]|[a-z0-9]+")
KEPT_SHARE = 0.5
"""A recording belongs to the answer sent while at least this share of its words (characters) is in it:
edited, it still does; replaced by typing, it no longer does."""


def still_in(heard: str, answer: str) -> bool:
    """Whether most of a recording's words (Chinese: characters) are still in `answer`."""
    said = _TOKENS.findall(heard.lower())
    if not said:
        return False
    pool = Counter(_TOKENS.findall(answer.lower()))
    found = 0
    for w in said:
        if pool[w]:
            pool[w] -= 1
            found += 1
    return found / len(said) >= KEPT_SHARE


def spoken_delivery(heard: list[dict[str, Any]] | None, answer: str) -> Delivery | None:
    """The delivery figures of the recordings still in `answer`, together; None for a typed answer."""
    parts = [Delivery.model_validate(h["delivery"]) for h in heard or [] if still_in(h["text"], answer)]
    return combine(parts)


@session_errors_noted(practice_note)
def finish_round(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    if not state.get("sid"):
        return practice_note(ctx, state, ui, t("ui.no_session", ui))
    view = graph.close_round(state["sid"], owner=ctx.owner_of(owner_v, request))
    return practice_out(ctx, view, state, ui, request.session_hash)


@session_errors_noted(practice_note)
def continue_round(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """After the round-finished banner: the next round's question, shown and spoken; its clock starts now."""
    ui = lang_of(ui_v)
    if not state.get("sid"):
        return practice_note(ctx, state, ui, t("ui.no_session", ui))
    view = graph.start_round_clock(state["sid"], owner=ctx.owner_of(owner_v, request))
    return practice_out(ctx, view, state, ui, request.session_hash, continued=True)


def retry_out(state: dict[str, Any], ui: Lang, answer: Any, note: str) -> list[Any]:
    retrying = bool(state.get("retrying"))
    return [
        state,
        question_md(state, ui),
        answer,
        note,
        gr.update(visible=not retrying, interactive=bool(state.get("can_retry"))),
        gr.update(visible=retrying),
    ]


def start_retry(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """Retry this answer: the question the last answer replied to, shown again with that answer in the
    box to rework; Send then replaces it (the earlier attempt is kept and compared)."""
    ui = lang_of(ui_v)
    if not state.get("sid") or not state.get("can_retry"):
        return retry_out(state, ui, gr.update(), t("ui.nothing_to_retry", ui))
    try:
        view = graph.get_session(state["sid"], owner=ctx.owner_of(owner_v, request))
    except graph.SessionError as e:
        return retry_out(state, ui, gr.update(), f"⚠️ {e}")
    tr = next((r for r in view.transcript.rounds if r.round == view.round), None)
    turns = tr.turns if tr else []
    k = next((i for i in range(len(turns) - 1, -1, -1) if turns[i].role == "candidate"), None)
    asked = (
        next((x.text for x in reversed(turns[:k]) if x.role == "interviewer"), None)
        if k is not None
        else None
    )
    if k is None or asked is None:
        return retry_out(state, ui, gr.update(), t("ui.nothing_to_retry", ui))
    state = {**state, "retrying": {"question": asked}}
    return retry_out(state, ui, turns[k].text, t("ui.retry_hint", ui))


def cancel_retry(ctx: AppContext, state: dict[str, Any], ui_v: str) -> list[Any]:
    """Keep the answer as it was: back to the question asked now."""
    state = {**state, "retrying": None}
    return retry_out(state, lang_of(ui_v), "", "")


def speak_question(
    ctx: AppContext, state: dict[str, Any], spoken: str | None, ui_v: str, request: gr.Request
) -> tuple[Any, str | None, str]:
    """The question as speech, once per question shown (the text never waits for it).

    Speech that is ready only after the page moved on to another question is dropped."""
    if not state.get("question") or state.get("say") == spoken:
        return gr.update(), spoken, ""
    audio, warn = speak(ctx, state["question"], lang_of(state["lang"]), lang_of(ui_v))
    current = ctx.shown.showing(request.session_hash or "", state.get("say"))
    if current != state.get("say"):
        return gr.update(), spoken, ""
    return audio, state.get("say"), warn or ""


def speak(ctx: AppContext, text: str | None, lang: Lang, ui: Lang) -> tuple[Any, str | None]:
    """(audio for gr.Audio, a warning) for a question; a failure never blocks the typed path."""
    if not text:
        return None, None
    try:
        return wav_array(ctx.services.tts().synthesize(text, lang)), None
    except (VoiceUnavailable, OSError, ValueError) as e:
        return None, t("ui.tts_unavailable", ui, why=str(e))


def wav_array(path: Path) -> tuple[int, np.ndarray[Any, Any]]:
    """A WAV file as Gradio's numpy audio: (rate, int16 samples, one column per channel)."""
    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        rate = w.getframerate()
        channels = w.getnchannels()
    data = np.frombuffer(frames, dtype=np.int16)
    return rate, data.reshape(-1, channels) if channels > 1 else data
