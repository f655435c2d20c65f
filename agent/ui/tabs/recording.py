"""An answer spoken: the recorder (microphone or upload) and its transcription into the answer box, with a
"Transcribing…" line while the recording is transcribed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gradio as gr

from agent.ui.context import AppContext, lang_of
from agent.ui.files import UploadRefused, safe_upload
from agent.ui.tabs.said import Said, in_ui, said, says
from agent.util.messages import t
from agent.voice import AudioDecodeError, Transcription, VoiceUnavailable, in_each
from agent.voice.stt import MAX_AUDIO_BYTES


def recorder(ctx: AppContext, elem_id: str, **layout: Any) -> gr.Audio:
    """The microphone, or an uploaded recording, for an answer spoken (`transcribe` puts it in the box)."""
    return ctx.texts(
        gr.Audio,
        {"label": "ui.record"},
        sources=["microphone", "upload"],
        type="filepath",
        elem_id=elem_id,
        **layout,
    )


def recorder_update(state: dict[str, Any], *, on: bool) -> Any:
    """The recorder, on or off; emptied when the answer box was (`state["moved_on"]`: the answer taken, the
    interview moved on, another session), so Transcribe cannot paste that recording again."""
    return gr.update(interactive=on, value=None) if state.get("moved_on") else gr.update(interactive=on)


def transcribe_into(
    ctx: AppContext,
    audio: str | None,
    current: str | None,
    state: dict[str, Any],
    lang: str,
    ui_v: str,
    request: gr.Request,
) -> Iterator[tuple[Any, str, Said]]:
    """Co-pilot's (the answer with the transcript appended, a status line, the line in both languages): the
    session's language is forced; "Transcribing…" first (`under_way`). An answer saved while it was
    transcribed keeps its box: the transcript is dropped and the status line says so (`SentAnswers`)."""
    sent = ctx.sent.count("copilot", request.session_hash)
    if audio:
        note = under_way()
        yield gr.update(), in_ui(note, lang_of(ui_v)), note
    text, status, _ = transcribe(ctx, audio, current, state, lang)
    if ctx.sent.count("copilot", request.session_hash) != sent:
        status = says("ui.transcript_late")
        yield gr.update(), in_ui(status, lang_of(ui_v)), status
        return
    yield text, in_ui(status, lang_of(ui_v)), status


def under_way() -> Said:
    """The status line while a recording is transcribed (seconds on a CPU: the box fills in when it ends)."""
    return says("ui.transcribing")


def transcribe(
    ctx: AppContext, audio: str | None, current: str | None, state: dict[str, Any], lang: str
) -> tuple[str, Said, Transcription | None]:
    """The answer with the transcript appended, the status line in both languages, and what was heard with
    its timestamps (None when nothing was): `transcribe_into`."""
    current = current or ""
    lang = lang_of(state.get("lang") or lang)
    if not audio:
        return current, says("ui.no_audio"), None
    try:
        path = safe_upload(audio, max_bytes=MAX_AUDIO_BYTES)
        heard = ctx.services.stt().transcribe(path, lang)
    except UploadRefused as e:
        refused = said(e.text)
        return current, said(lambda ui: t("ui.bad_file", ui, why=refused[ui])), None
    except AudioDecodeError as e:
        why = in_each(e)
        return current, said(lambda ui: f"⚠️ {why[ui]}"), None
    except VoiceUnavailable as e:
        why = in_each(e)
        return current, said(lambda ui: t("ui.voice_unavailable", ui, why=why[ui])), None
    if not heard.text:
        return current, says("ui.no_speech"), None
    text = f"{current.rstrip()} {heard.text}".strip() if current.strip() else heard.text
    return text, says("ui.transcribed", seconds=heard.duration_s, engine=heard.engine), heard
