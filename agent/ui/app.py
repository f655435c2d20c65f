"""The Gradio app: Practice, Co-pilot, Review and Reports on one interview graph and one override log.

Every event has an `api_name`, so everything the pages do can be driven with `gradio_client`.
Sessions belong to an owner: the signed-in user when the app requires a login, else the browser
(a random id kept in its local storage) or, for an API client, its Gradio session. A request never
sees another owner's session: the graph answers "no such session".

Overrides belong to the session they correct, so to its owner; a reviewer (`INTERVIEW_REVIEWERS`,
signed in) may also open anyone's session in Review and override it. A report or transcript uploaded
in Review whose id names a stored session is refused unless the caller owns that session or is a
reviewer; when allowed, the stored session's report is opened, so the judge score written to the log
is the stored one, never the file's. An upload whose id names no stored session is reviewed under the
key `upload:<uploader>:<id>`: its overrides are the uploader's alone and never touch a session.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
import wave
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np

from agent import graph
from agent.graph import SessionError, SessionView
from agent.graph.report import session_markdown
from agent.rubric.loader import Rubric
from agent.rubric.model import ROUND_IDS, Lang
from agent.ui import views
from agent.ui.auth import browser_secret
from agent.ui.context import AppContext, Services
from agent.ui.files import UploadRefused, safe_upload
from agent.ui.sources import SourcesUnavailable
from agent.ui.strings import t
from agent.ui.tabs import copilot, reports, review
from agent.ui.texts import Texts
from agent.voice import (
    AudioDecodeError,
    VoiceUnavailable,
)
from agent.voice.stt import MAX_AUDIO_BYTES

LANG_CHOICES: list[tuple[str, str]] = [("English", "en"), ("中文", "zh")]
SNIPPETS_SHOWN = 3
MAX_PAGES = 10_000


def _lang(value: object) -> Lang:
    return "zh" if value == "zh" else "en"


def _plan_choices(rubric: Rubric) -> Callable[[Lang], list[tuple[str, str]]]:
    def choices(lang: Lang) -> list[tuple[str, str]]:
        rounds = [
            (t("plan_round", lang, title=rubric.round(r).title.get(lang), minutes=rubric.round(r).minutes), r)
            for r in ROUND_IDS
            if r != "project-experience"
        ]
        return [
            (t("plan_full", lang), "full"),
            *rounds,
            (t("plan_project", lang), "project"),
            (t("plan_redo", lang), "redo"),
        ]

    return choices


def _wav_array(path: Path) -> tuple[int, np.ndarray[Any, Any]]:
    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        rate = w.getframerate()
        channels = w.getnchannels()
    data = np.frombuffer(frames, dtype=np.int16)
    return rate, data.reshape(-1, channels) if channels > 1 else data


def build_app(services: Services | None = None, *, ui_lang: Lang = "en") -> gr.Blocks:
    """The whole app, not launched. `main()` launches it with the safe defaults."""
    s = services or Services()
    rubric = s.rubric
    T = Texts(ui_lang)
    plan_choices = _plan_choices(rubric)
    secret = browser_secret()
    said: OrderedDict[str, str | None] = OrderedDict()
    """page (Gradio session) -> the question it shows now, so late speech of an older one is dropped."""
    said_lock = threading.Lock()

    # ------------------------------------------------------------ shared helpers

    def owner_of(owner_state: str | None, request: gr.Request) -> str:
        if s.require_login:
            if not request.username:
                raise gr.Error(t("need_login", ui_lang))
            return str(request.username)
        return owner_state or f"tab:{request.session_hash}"

    def question_md(question: str | None, ui: Lang, *, done: bool = False) -> str:
        if question:
            return f"**{t('question', ui)}:** {question}"
        return "" if done else t("no_question", ui)

    def speak(text: str | None, lang: Lang, ui: Lang) -> tuple[Any, str | None]:
        """(audio for gr.Audio, a warning) for a question; a failure never blocks the typed path."""
        if not text:
            return None, None
        try:
            return _wav_array(s.tts().synthesize(text, lang)), None
        except (VoiceUnavailable, OSError, ValueError) as e:
            return None, t("tts_unavailable", ui, why=str(e))

    def transcribe_into(
        audio: str | None, current: str | None, state: dict[str, Any], lang: str, ui_v: str
    ) -> tuple[str, str]:
        """(the answer with the transcript appended, a status line): the session's language is forced."""
        current = current or ""
        lang, ui = _lang(state.get("lang") or lang), _lang(ui_v)
        if not audio:
            return current, t("no_audio", ui)
        try:
            path = safe_upload(audio, max_bytes=MAX_AUDIO_BYTES)
            heard = s.stt().transcribe(path, lang)
        except UploadRefused as e:
            return current, t("bad_file", ui, why=str(e))
        except AudioDecodeError as e:
            return current, f"⚠️ {e}"
        except VoiceUnavailable as e:
            return current, t("voice_unavailable", ui, why=str(e))
        if not heard.text:
            return current, t("no_speech", ui)
        text = f"{current.rstrip()} {heard.text}".strip() if current.strip() else heard.text
        return text, t("transcribed", ui, seconds=heard.duration_s, engine=heard.engine)

    def snippets_for(text: str, ui: Lang) -> str:
        if not text.strip():
            return ""
        try:
            found = s.retriever()(text, SNIPPETS_SHOWN)
        except SourcesUnavailable as e:
            return t("sources_unavailable", ui, why=str(e))
        except Exception as e:  # the index is an aid: its failure must not break the interview
            return t("sources_unavailable", ui, why=f"{type(e).__name__}: {e}")
        return views.snippets_md(found, ui)

    def round_text(view: SessionView, round_id: str | None) -> str:
        return "\n\n".join(r.candidate_text() for r in view.transcript.rounds if r.round == round_id)

    with gr.Blocks(title=t("app_title", ui_lang), analytics_enabled=False) as app:
        owner_state = gr.State(None)
        browser_id = gr.BrowserState(None, storage_key="interview-coach-browser", secret=secret)
        report_state = gr.State(None)
        with gr.Row(equal_height=True):
            with gr.Column(scale=4):
                T(gr.Markdown, {"value": lambda lang: f"## {t('app_title', lang)}\n{t('app_intro', lang)}"})
            with gr.Column(scale=1, min_width=180):
                ui = T(gr.Radio, {"label": "ui_language"}, choices=LANG_CHOICES, value=ui_lang)
        who = gr.Markdown("")
        ctx = AppContext(s, T, ui_lang, ui, owner_state, report_state)

        # ======================================================== Practice
        with gr.Tab(t("tab_practice", ui_lang), id="practice") as tab_practice:
            T.register(tab_practice, {"label": "tab_practice"})
            p_state = gr.State({})
            with gr.Row():
                p_plan = T(gr.Dropdown, {"label": "plan", "choices": plan_choices}, value="concepts", scale=2)
                p_lang = T(
                    gr.Radio, {"label": "session_language"}, choices=LANG_CHOICES, value=ui_lang, scale=1
                )
                p_prev = T(gr.Textbox, {"label": "previous_session"}, scale=1)
                p_start = T(
                    gr.Button, {"value": "start"}, variant="primary", scale=1, elem_id="practice-start"
                )
            with gr.Row():
                p_sid = T(
                    gr.Textbox, {"label": "session_id"}, interactive=False, scale=2, elem_id="practice-sid"
                )
                p_resume_id = T(gr.Textbox, {"label": "resume_id"}, scale=2, elem_id="practice-resume-id")
                p_resume = T(gr.Button, {"value": "resume"}, scale=1)
            p_progress = gr.HTML("", elem_id="practice-progress")
            with gr.Row():
                with gr.Column(scale=3):
                    p_question = gr.Markdown("", elem_id="practice-question")
                with gr.Column(scale=1, min_width=220):
                    p_audio_q = T(
                        gr.Audio,
                        {"label": "question_audio"},
                        type="numpy",
                        autoplay=True,
                        interactive=False,
                        elem_id="practice-question-audio",
                    )
                    p_voice = gr.Markdown("")
            p_spoken = gr.State(None)
            p_answer = T(
                gr.Textbox,
                {"label": "answer", "placeholder": "answer_placeholder"},
                lines=6,
                max_lines=20,
                elem_id="practice-answer",
            )
            with gr.Row():
                p_mic = T(
                    gr.Audio,
                    {"label": "record"},
                    sources=["microphone", "upload"],
                    type="filepath",
                    elem_id="practice-mic",
                    scale=2,
                )
                with gr.Column(scale=1):
                    p_transcribe = T(gr.Button, {"value": "transcribe"})
                    p_send = T(gr.Button, {"value": "send"}, variant="primary", elem_id="practice-send")
                    p_finish = T(gr.Button, {"value": "finish_round"}, variant="secondary")
            p_status = gr.Markdown("", elem_id="practice-status")
            p_result = gr.Markdown("", elem_id="practice-result", elem_classes=["coach-md"])
            p_sources = gr.Markdown("")
            p_report = gr.Markdown("", elem_id="practice-report", elem_classes=["coach-md"])
            with T(gr.Accordion, {"label": "raw_json"}, open=False):
                p_view = gr.JSON(None)

        practice_outputs = [
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
        ]

        def practice_out(
            view: SessionView | None,
            prev: dict[str, Any],
            ui: Lang,
            page: str | None = None,
            *,
            note: str | None = None,
            keep: str = "",
        ) -> list[Any]:
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
                ]
            state = _view_state(view)
            same_session = prev.get("sid") == view.session_id
            round_ended = same_session and (
                prev.get("round_index") != view.round_index
                or (view.status == "done" and prev.get("status") != "done")
            )
            notes = [n for n in (note, view.notice, view.message) if n]
            new_question = bool(view.question) and (not same_session or prev.get("question") != view.question)
            # the question is spoken by `speak_question`, which runs when this state changes: text first
            state["say"] = secrets.token_hex(4) if new_question else prev.get("say")
            if page:
                with said_lock:
                    said[page] = state["say"]
                    while len(said) > MAX_PAGES:
                        said.popitem(last=False)
            audio: Any = None if new_question or not view.question else gr.update()
            result: Any = gr.update() if same_session else ""
            sources: Any = gr.update() if same_session else ""
            scored = view.last_assessment
            if view.status == "done" and view.report and view.report.rounds:
                scored = view.report.rounds[-1]
            if (round_ended or (not same_session and view.status == "done")) and scored is not None:
                # at the end of the session the report below holds the scores; the sources stay useful
                result = (
                    ""
                    if view.status == "done"
                    else views.assessment_md(scored, rubric, ui, heading="round_scores")
                )
                sources = snippets_for(round_text(view, scored.round), ui)
            report = session_markdown(view.report, rubric) if view.report else ""
            return [
                state,
                view.session_id,
                progress(state, ui),
                question_md(view.question, ui, done=view.status == "done"),
                audio,
                keep if view.message else "",
                "\n\n".join(notes),
                result,
                sources,
                report,
                json.loads(view.model_dump_json(exclude={"report"})),
            ]

        def progress(state: dict[str, Any], ui: Lang) -> str:
            if not state.get("sid"):
                return ""
            return views.progress_html(
                rubric,
                ui,
                status=state["status"],
                round_id=state["round"],
                round_index=state["round_index"],
                n_rounds=state["n_rounds"],
                minutes=state["minutes"],
                elapsed_s=time.time() - state["t0"],
            )

        def start_practice(
            plan: str,
            lang: str,
            prev_sid: str,
            state: dict[str, Any],
            ui_v: str,
            owner_v: str | None,
            request: gr.Request,
        ) -> list[Any]:
            ui = _lang(ui_v)
            owner = owner_of(owner_v, request)
            spec = plan or "concepts"
            if spec == "redo":
                if not (prev_sid or "").strip():
                    return practice_out(None, state, ui, note=t("need_previous", ui))
                spec = f"redo {prev_sid.strip()}"
            try:
                view = graph.start_session(spec, _lang(lang), "practice", owner=owner)
            except SessionError as e:
                return practice_out(None, state, ui, note=f"⚠️ {e}")
            return practice_out(
                view, {}, ui, request.session_hash, note=t("started", ui, sid=view.session_id)
            )

        def resume_practice(
            sid: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
        ) -> list[Any]:
            ui = _lang(ui_v)
            if not (sid or "").strip():
                return practice_out(None, state, ui, note=t("need_session_id", ui))
            try:
                view = graph.get_session(sid.strip(), owner=owner_of(owner_v, request))
            except SessionError as e:
                return practice_out(None, state, ui, note=f"⚠️ {e}")
            return practice_out(
                view, {}, ui, request.session_hash, note=t("resumed", ui, sid=view.session_id)
            )

        def send_answer(
            text: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
        ) -> list[Any]:
            ui = _lang(ui_v)
            if not state.get("sid"):
                return practice_out(None, state, ui, note=t("no_session", ui), keep=text)
            try:
                view = graph.answer(state["sid"], text or "", owner=owner_of(owner_v, request))
            except SessionError as e:
                return practice_out(None, state, ui, note=f"⚠️ {e}", keep=text)
            return practice_out(view, state, ui, request.session_hash, keep=text)

        def finish_round(
            state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
        ) -> list[Any]:
            ui = _lang(ui_v)
            if not state.get("sid"):
                return practice_out(None, state, ui, note=t("no_session", ui))
            try:
                view = graph.close_round(state["sid"], owner=owner_of(owner_v, request))
            except SessionError as e:
                return practice_out(None, state, ui, note=f"⚠️ {e}")
            return practice_out(view, state, ui, request.session_hash)

        def speak_question(
            state: dict[str, Any], spoken: str | None, ui_v: str, request: gr.Request
        ) -> tuple[Any, str | None, str]:
            """The question as speech, once per question shown (the text never waits for it).

            Speech that is ready only after the page moved on to another question is dropped."""
            if not state.get("question") or state.get("say") == spoken:
                return gr.update(), spoken, ""
            audio, warn = speak(state["question"], _lang(state["lang"]), _lang(ui_v))
            with said_lock:
                current = said.get(request.session_hash or "", state.get("say"))
            if current != state.get("say"):
                return gr.update(), spoken, ""
            return audio, state.get("say"), warn or ""

        common = [ui, owner_state]
        # the question is spoken after its text shows; a newer event cancels speech still being made
        speaking = p_state.change(
            speak_question, [p_state, p_spoken, ui], [p_audio_q, p_spoken, p_voice], api_name="speak_question"
        )
        for trigger, fn, inputs, name in [
            (p_start, start_practice, [p_plan, p_lang, p_prev, p_state, *common], "start_practice"),
            (p_resume, resume_practice, [p_resume_id, p_state, *common], "resume_practice"),
            (p_send, send_answer, [p_answer, p_state, *common], "send_answer"),
            (p_finish, finish_round, [p_state, *common], "finish_round"),
        ]:
            trigger.click(fn, inputs, practice_outputs, api_name=name, cancels=[speaking])
        gr.on(
            [p_transcribe.click, p_mic.stop_recording, p_mic.upload],
            transcribe_into,
            [p_mic, p_answer, p_state, p_lang, ui],
            [p_answer, p_status],
            api_name="transcribe_practice",
        )

        copilot_pane = copilot.build(ctx)
        review.build(ctx)
        reports.build(ctx)

        # ======================================================== language and owner
        def switch(ui_v: str, p: dict[str, Any], c: dict[str, Any]) -> list[Any]:
            """Every label in the new language, and the rendered question and progress of both tabs."""
            lang = _lang(ui_v)
            questions = [
                question_md(st.get("question"), lang, done=st.get("status") == "done")
                if st.get("sid")
                else ""
                for st in (p, c)
            ]
            return [*T.updates(lang), *questions, progress(p, lang), progress(c, lang)]

        ui.change(
            switch,
            [ui, p_state, copilot_pane.state],
            [*T.blocks, p_question, copilot_pane.question, p_progress, copilot_pane.progress],
            api_name="set_ui_language",
        )

        def restore_owner(saved: str | None, ui_v: str, request: gr.Request) -> tuple[str, str, str]:
            if s.require_login:
                user = str(request.username or "")
                return saved or "", user, t("signed_in_as", _lang(ui_v), user=user) if user else ""
            bid = (
                saved
                if saved and len(saved) <= 64 and saved.replace("-", "").replace("_", "").isalnum()
                else None
            )
            bid = bid or secrets.token_urlsafe(16)
            return bid, f"browser:{bid}", ""

        app.load(restore_owner, [browser_id, ui], [browser_id, owner_state, who], api_name="restore_owner")

    return app


def _view_state(view: SessionView) -> dict[str, Any]:
    """What a tab keeps of the session it shows (the clock's origin in this server's time)."""
    return {
        "sid": view.session_id,
        "lang": view.language,
        "round": view.round,
        "round_index": view.round_index,
        "n_rounds": view.n_rounds,
        "minutes": view.round_minutes,
        "t0": time.time() - view.round_elapsed_s,
        "status": view.status,
        "question": view.question,
    }
