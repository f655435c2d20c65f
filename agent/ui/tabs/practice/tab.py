"""Practice: a mock interview. The question shown, then spoken; the answer typed or recorded (transcribed
offline, editable before sending); the round's progress and clock; scores with quotes and vLLM sources.

The tab's components and events; what they call is in the modules beside this one."""

from __future__ import annotations

from typing import Any

import gradio as gr

from agent.ui.auth import browser_secret
from agent.ui.context import AppContext
from agent.ui.tabs.confirm import confirm_js
from agent.ui.tabs.practice.answers import continue_round, finish_round, send_answer, transcribe_answer
from agent.ui.tabs.practice.retry import cancel_retry, start_retry
from agent.ui.tabs.practice.screen import answer_controls, rerender
from agent.ui.tabs.practice.sessions import (
    list_unfinished,
    remember,
    restore_practice,
    resume_practice,
    start_practice,
)
from agent.ui.tabs.practice.speech import speak_question
from agent.ui.tabs.recording import recorder
from agent.ui.tabs.said import follow_switch
from agent.ui.tabs.shared import PlanIds, SessionPane, plan_row, raw_session, resume_row, session_tab

SHOW_NEXT_JS = "async () => { if (window.coachShowNext) await window.coachShowNext(); }"
"""After Start, Resume, Send, Finish and Continue: on a narrow screen (a phone), the new question, or the
round's scores, scrolled into view when off the screen (`static/app.js`); on a wide one, the round's scores
only."""

FOCUS_ANSWER_JS = (
    "() => { const a = document.querySelector('#answer textarea');"
    " if (a) { a.scrollIntoView({block: 'center'}); a.focus({preventScroll: true}); } }"
)
"""After the banner's Retry: the answer box, with the answer to rework, scrolled into view and focused."""


PRACTICE_IDS = PlanIds(
    plan="plan", previous="practice-previous", lang="session-lang", self_check="self-check", start="start"
)


def build(ctx: AppContext) -> SessionPane:
    """The tab and its events; returns what the language switch re-renders."""
    T = ctx.texts
    with session_tab(ctx, "ui.tab_practice", "practice") as tab_practice:
        p_state = gr.State({})
        # the session this browser practises now, kept in its local storage: a reload resumes it
        p_saved = gr.BrowserState(None, storage_key="interview-coach-practice", secret=browser_secret())
        # the round-finished moment: at the top, until the candidate continues
        with gr.Column(visible=False, elem_id="round-scores", elem_classes=["coach-banner"]) as p_banner:
            p_banner_md = gr.Markdown("", elem_classes=["coach-md"])
            with gr.Row(elem_classes=["coach-banner-actions"]):
                p_continue = T(gr.Button, {"value": "ui.continue"}, variant="primary", elem_id="continue")
                # the answer the round closed on, answered again (`retry.start_retry`): shown while it may be
                p_banner_retry = T(
                    gr.Button, {"value": "ui.retry_closed"}, visible=False, elem_id="banner-retry"
                )
        row = plan_row(ctx, p_state, "practice", plan="concepts", ids=PRACTICE_IDS)
        resuming = resume_row(ctx, "practice", resume_button_id="resume")
        p_sid, p_unfinished, p_resume_id, p_resume = (
            resuming.sid, resuming.unfinished, resuming.resume_id, resuming.resume
        )
        p_progress = gr.HTML("", elem_id="practice-progress")
        with gr.Row():
            with gr.Column(scale=3):
                p_question = gr.Markdown("", elem_id="practice-question")
            with gr.Column(scale=1, min_width=220):
                # the player shows once the question's speech is ready (an empty one is hidden, app.css);
                # until then the note below says it is being prepared: speech takes seconds, the
                # question's text does not wait for it
                p_audio_q = T(
                    gr.Audio,
                    {"label": "ui.question_audio"},
                    type="numpy",
                    autoplay=True,
                    interactive=False,
                    elem_id="practice-question-audio",
                )
                p_voice = gr.Markdown("", elem_id="practice-question-voice")
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
            p_mic = recorder(ctx, "practice-mic", scale=2)
            with gr.Column(scale=1):
                p_transcribe = T(gr.Button, {"value": "ui.transcribe"}, elem_id="transcribe")
                # Send and Finish are off until a session is on screen (`practice_out` turns them on)
                p_send = T(
                    gr.Button, {"value": "ui.send"}, variant="primary", interactive=False, elem_id="send"
                )
                p_retry = T(gr.Button, {"value": "ui.retry"}, interactive=False, elem_id="retry")
                p_retry_cancel = T(
                    gr.Button, {"value": "ui.retry_cancel"}, visible=False, elem_id="retry-cancel"
                )
                p_finish = T(
                    gr.Button,
                    {"value": "ui.finish_round"},
                    variant="secondary",
                    interactive=False,
                    elem_id="finish",
                )
        p_status = gr.Markdown("", elem_id="practice-status")
        # the status line and the speech's note in both languages: the language switch shows them again
        p_status_said, p_voice_said = gr.State(None), gr.State(None)
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
        p_view = raw_session(ctx)

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
        row.plan,
        row.lang,
        row.previous,
        p_delivery,
        row.self_check,
        p_voice,
        p_banner_retry,
        p_status_said,
        p_voice_said,
    ]
    common = ctx.common
    bind = ctx.bind
    # the question is spoken after its text shows; a newer event cancels speech still being made. The
    # note under the player says the speech is being prepared (`practice_out`), not Gradio's spinner
    speaking = p_state.change(
        bind(speak_question),
        [p_state, p_spoken, ctx.ui],
        [p_audio_q, p_spoken, p_voice, p_voice_said],
        api_name="speak_question",
        show_progress="hidden",
    )
    listed = {"fn": bind(list_unfinished), "inputs": common, "outputs": [p_unfinished]}
    # on a phone, what comes next (the question, or the round-finished banner) scrolled into view; on a
    # desktop, the banner
    show_next = {"fn": None, "js": SHOW_NEXT_JS, "api_name": "show_next", "show_progress": "hidden"}
    # Start and Resume replace the session on screen: the browser asks first when one is under way
    for trigger, fn, inputs, name, js in [
        (
            row.start,
            bind(start_practice),
            [row.plan, row.lang, row.previous, p_state, *common, row.self_check],
            "start_practice",
            confirm_js("practice", 2),
        ),
        (p_continue, bind(continue_round), [p_state, *common], "continue_round", None),
        (p_resume, bind(resume_practice), [p_resume_id, p_state, *common], "resume_practice", confirm_js("practice", 0)),
        (p_send, bind(send_answer), [p_answer, p_state, p_heard, *common], "send_answer", None),
        (p_finish, bind(finish_round), [p_state, *common], "finish_round", None),
    ]:
        event = trigger.click(fn, inputs, outputs, api_name=name, cancels=[speaking], js=js)
        if trigger in (row.start, p_resume, p_finish, p_send):
            event.then(**listed, api_name="list_unfinished", show_progress="hidden")
        event.then(**show_next)
    listed_resume = p_unfinished.select(
        bind(resume_practice),
        [p_unfinished, p_state, *common],
        outputs,
        api_name="resume_listed",
        js=confirm_js("practice", 0),
    )
    listed_resume.then(**listed, api_name="list_unfinished", show_progress="hidden")
    listed_resume.then(**show_next)
    p_state.change(remember, p_state, p_saved, api_name="remember_session", show_progress="hidden")
    p_state.change(
        answer_controls,
        p_state,
        [p_answer, p_transcribe, p_mic],
        api_name="answer_controls",
        show_progress="hidden",
    )
    tab_practice.select(**listed, api_name="list_unfinished")
    # what the language switch shows again besides `rerender`'s: the status line, the speech's note, the list
    follow_switch(ctx, "practice", [(p_status_said, p_status), (p_voice_said, p_voice)])
    ctx.ui.change(
        bind(list_unfinished), common, p_unfinished, api_name="list_unfinished", show_progress="hidden"
    )
    retry_outputs = [
        p_state,
        p_question,
        p_answer,
        p_status,
        p_retry,
        p_retry_cancel,
        p_send,
        p_progress,
        p_banner_retry,
        p_status_said,
        p_insight,
    ]
    p_retry.click(bind(start_retry), [p_state, *common], retry_outputs, api_name="retry_answer")
    # the banner's own Retry: the same, then the answer box in view, ready to edit
    p_banner_retry.click(
        bind(start_retry), [p_state, *common], retry_outputs, api_name="retry_closed_answer"
    ).then(fn=None, js=FOCUS_ANSWER_JS, api_name="focus_answer", show_progress="hidden")
    p_retry_cancel.click(bind(cancel_retry), [p_state, *common], retry_outputs, api_name="cancel_retry")
    gr.on(
        [p_transcribe.click, p_mic.stop_recording, p_mic.upload],
        bind(transcribe_answer),
        [p_mic, p_answer, p_state, row.lang, ctx.ui, p_heard],
        [p_answer, p_status, p_heard, p_status_said],
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
        rerendered=[p_insight, p_banner_md, p_result, p_sources, p_conversation, p_delivery, p_report],
        rerender=rerender,
    )
