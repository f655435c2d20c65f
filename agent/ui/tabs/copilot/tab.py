"""Co-pilot: the tab's components and events; what they call is in the modules beside this one."""

from __future__ import annotations

from typing import Any

import gradio as gr

from agent.ui.context import AppContext
from agent.ui.tabs.confirm import confirm_js
from agent.ui.tabs.copilot.decisions import decision_labels, labels_after_step, picked_score
from agent.ui.tabs.copilot.screen import CONTROLS, RERENDERED, decide_on_draft, rerender
from agent.ui.tabs.copilot.sessions import list_unfinished_copilot, resume_copilot, start_copilot
from agent.ui.tabs.copilot.turns import ask_question, close_copilot_round, record_answer, use_followup
from agent.ui.tabs.recording import recorder, transcribe_into
from agent.ui.tabs.shared import (
    PlanIds,
    SessionPane,
    override_score,
    plan_row,
    raw_session,
    resume_row,
    session_tab,
)
from agent.util.messages import t

COPILOT_IDS = PlanIds(
    plan="copilot-plan",
    previous="copilot-previous",
    lang="copilot-lang",
    self_check="copilot-self-check",
    start="copilot-start",
)


def build(ctx: AppContext) -> SessionPane:
    """The tab and its events; returns what the language switch re-renders."""
    T = ctx.texts
    with session_tab(ctx, "ui.tab_copilot", "copilot") as tab_copilot:
        c_state = gr.State({})
        T(gr.Markdown, {"value": "ui.copilot_intro"})
        row = plan_row(ctx, c_state, "copilot", plan="capacity", ids=COPILOT_IDS)
        # the interviewer's unfinished co-pilot sessions: one picked resumes (as Practice's list does)
        resuming = resume_row(ctx, "copilot", resume_button_id="copilot-resume")
        c_sid, c_unfinished, c_resume_id, c_resume = (
            resuming.sid, resuming.unfinished, resuming.resume_id, resuming.resume
        )
        c_progress = gr.HTML("", elem_id="copilot-progress")
        c_question = gr.Markdown("", elem_id="copilot-question")
        c_waiting = gr.Markdown("", elem_id="copilot-waiting")
        with gr.Row():
            with gr.Column(scale=3):
                c_answer = T(gr.Textbox, {"label": "ui.candidate_answer"}, lines=5, elem_id="copilot-answer")
                c_mic = recorder(ctx, "copilot-mic")
                with gr.Row():
                    c_transcribe = T(gr.Button, {"value": "ui.transcribe"}, elem_id="copilot-transcribe")
                    # Save answer, Ask and Close are off until a session is on screen (`copilot_out`)
                    c_record = T(
                        gr.Button,
                        {"value": "ui.save_answer"},
                        variant="primary",
                        interactive=False,
                        elem_id="copilot-record",
                    )
            with gr.Column(scale=3):
                c_suggestions = gr.Markdown("", elem_id="copilot-suggestions")
                c_pick = T(gr.Radio, {"label": "ui.pick_followup"}, choices=[], elem_id="copilot-pick")
                c_next = T(gr.Textbox, {"label": "ui.next_question"}, lines=2, elem_id="copilot-next")
                with gr.Row():
                    c_ask = T(
                        gr.Button, {"value": "ui.ask"}, variant="primary", interactive=False, elem_id="copilot-ask"
                    )
                    c_close = T(
                        gr.Button, {"value": "ui.close_round"}, interactive=False, elem_id="copilot-close"
                    )
        c_status = gr.Markdown("", elem_id="copilot-status")
        # the status line and the override log's answer in both languages: the language switch shows them again
        # (`rerender`)
        c_status_said, c_log_said = gr.State(None), gr.State(None)
        with gr.Row():
            with gr.Column(scale=3):
                c_draft = gr.Markdown("", elem_id="copilot-draft", elem_classes=["coach-md"])
            with gr.Column(scale=2):
                c_sources = gr.Markdown("")
        with gr.Group():
            with gr.Row():
                c_dim, c_score = override_score(ctx, "copilot")
                c_reviewer = T(gr.Textbox, {"label": "ui.reviewer"}, elem_id="copilot-reviewer")
            c_reason = T(gr.Textbox, {"label": "ui.reason"}, elem_id="copilot-reason")
            with gr.Row():
                # their labels name the round and dimension they act on (decision_labels), in the language;
                # off until there is a draft of the round under way (decision_labels)
                c_accept = gr.Button(
                    t("ui.accept_draft", ctx.ui_lang), interactive=False, elem_id="copilot-accept"
                )
                c_override = gr.Button(
                    t("ui.save_override", ctx.ui_lang),
                    variant="primary",
                    interactive=False,
                    elem_id="copilot-override",
                )
            c_log_status = gr.Markdown("", elem_id="copilot-log-status")
        c_view = raw_session(ctx)

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
        row.plan,
        row.lang,
        row.self_check,
        row.previous,
        c_status_said,
    ]
    assert len(controls) == len(CONTROLS)
    common = ctx.common
    bind = ctx.bind
    listed: dict[str, Any] = {
        "fn": bind(list_unfinished_copilot),
        "inputs": common,
        "outputs": [c_unfinished],
        "api_name": "copilot_list_unfinished",
        "show_progress": "hidden",
    }
    # Start and Resume replace the session on screen: the browser asks first when one is under way (as
    # Practice's do); the session to redo (the last input) or the id takes the answer "keep"
    start_inputs = [row.plan, row.lang, c_state, *common, row.self_check, row.previous]
    row.start.click(
        bind(start_copilot),
        start_inputs,
        outputs,
        api_name="start_copilot",
        js=confirm_js("copilot", len(start_inputs) - 1),
    ).then(**listed)
    c_resume.click(
        bind(resume_copilot),
        [c_resume_id, c_state, *common],
        outputs,
        api_name="resume_copilot",
        js=confirm_js("copilot", 0),
    ).then(**listed)
    c_unfinished.select(
        bind(resume_copilot),
        [c_unfinished, c_state, *common],
        outputs,
        api_name="copilot_resume_listed",
        js=confirm_js("copilot", 0),
    ).then(**listed)
    c_record.click(bind(record_answer), [c_answer, c_state, *common], outputs, api_name="record_answer")
    # last, the follow-up picked: the question started from it is that follow-up, edited or not
    c_ask.click(bind(ask_question), [c_next, c_state, *common, c_pick], outputs, api_name="ask_question")
    # closing the last round finishes the session: it leaves the list
    c_close.click(
        bind(close_copilot_round), [c_state, *common], outputs, api_name="close_copilot_round"
    ).then(**listed)
    # the list in the new language (`rerender` does not make lists)
    ctx.ui.change(**listed)
    tab_copilot.select(**listed)
    c_pick.input(use_followup, [c_pick, c_next], c_next, api_name="use_followup")
    gr.on(
        [c_transcribe.click, c_mic.stop_recording, c_mic.upload],
        bind(transcribe_into),
        [c_mic, c_answer, c_state, row.lang, ctx.ui],
        [c_answer, c_status, c_status_said],
        api_name="transcribe_copilot",
    )
    decide_inputs = [c_state, c_dim, c_score, c_reason, c_reviewer, *common]
    decided = [c_log_status, c_log_said, c_draft]
    c_accept.click(bind(decide_on_draft, True), decide_inputs, decided, api_name="copilot_accept")
    c_override.click(bind(decide_on_draft, False), decide_inputs, decided, api_name="copilot_override")
    # (the language switch names them with the rest of the page: `rerender`)
    c_dim.change(
        bind(decision_labels),
        [c_state, c_dim, ctx.ui],
        [c_accept, c_override],
        api_name="copilot_decision_labels",
        show_progress="hidden",
    )
    # a step of the session: the labels for its draft, and the last decision's line goes (it was about the
    # draft before; issue 12: "Not accepted" stayed after the session ended); the draft shows what stands
    c_state.change(
        bind(labels_after_step),
        [c_state, c_dim, ctx.ui],
        [c_accept, c_override, c_log_status, c_log_said],
        api_name="copilot_decision_step",
        show_progress="hidden",
    )
    # the override's score starts at what stands for the picked dimension: its override, else the draft score
    gr.on(
        [c_state.change, c_dim.change],
        bind(picked_score),
        [c_state, c_dim],
        c_score,
        api_name="copilot_picked_score",
        show_progress="hidden",
    )
    again = [c_waiting, c_suggestions, c_draft, c_sources, c_accept, c_override, c_status, c_log_status]
    assert len(again) == len(RERENDERED)

    def on_load(loaded: Any) -> None:
        """After the page's owner is known: the list of the owner's unfinished sessions."""
        loaded.then(**listed)

    return SessionPane(
        state=c_state,
        question=c_question,
        progress=c_progress,
        on_load=on_load,
        rerendered=again,
        rerender=rerender,
        rerender_inputs=[c_dim, c_status_said, c_log_said],
    )
