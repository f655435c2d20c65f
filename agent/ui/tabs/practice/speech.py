"""The question spoken (text to speech), once per question shown, never holding up its text."""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np

from agent.rubric.model import Lang
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.said import Said, in_ui, said, verbatim
from agent.util.messages import t
from agent.voice import VoiceError, in_each


def speak_question(
    ctx: AppContext, state: dict[str, Any], spoken: str | None, ui_v: str, request: gr.Request
) -> tuple[Any, str | None, Any, Any]:
    """The question as speech, once per question shown (the text never waits for it): (the speech for the
    player; the question spoken; the note under the player: "", or why there is no speech; that note in
    both languages, for the language switch).

    Speech that is ready only after the page moved on to another question is dropped, and the note left
    to that question; a question already spoken keeps its note."""
    if not state.get("question"):
        return gr.update(), spoken, "", verbatim("")
    if state.get("say") == spoken:
        return gr.update(), spoken, gr.update(), gr.update()
    audio, warn = speak(ctx, state["question"], lang_of(state["lang"]))
    current = ctx.shown.showing(request.session_hash or "", state.get("say"))
    if current != state.get("say"):
        return gr.update(), spoken, gr.update(), gr.update()
    note = warn or verbatim("")
    return audio, state.get("say"), in_ui(note, lang_of(ui_v)), note


def speak(ctx: AppContext, text: str | None, lang: Lang) -> tuple[Any, Said | None]:
    """(audio for gr.Audio, a warning) for a question; a failure never blocks the typed path."""
    if not text:
        return None, None
    try:
        return wav_array(ctx.services.tts().synthesize(text, lang)), None
    except (VoiceError, OSError, ValueError) as e:
        why = in_each(e)
        return None, said(lambda ui: t("ui.tts_unavailable", ui, why=why[ui]))


def wav_array(path: Path) -> tuple[int, np.ndarray[Any, Any]]:
    """A WAV file as Gradio's numpy audio: (rate, int16 samples, one column per channel)."""
    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        rate = w.getframerate()
        channels = w.getnchannels()
    data = np.frombuffer(frames, dtype=np.int16)
    return rate, data.reshape(-1, channels) if channels > 1 else data
