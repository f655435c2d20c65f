"""A transcription still running when the answer is sent (Practice's Send, Co-pilot's Save answer) is dropped
when it ends, and the status line says so (issue 12: it was written into the box after the answer had left it,
as if a new answer were begun). One that ends with no answer sent meanwhile goes into the box as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent.rubric.model import Lang
from agent.ui.context import AppContext
from agent.ui.tabs.copilot import sessions as copilot_sessions
from agent.ui.tabs.copilot import turns
from agent.ui.tabs.practice import answers, sessions
from agent.ui.tabs.recording import transcribe_into
from agent.util.messages import t
from agent.voice.stt import Transcription

HEARD = "Prefix caching reuses the KV blocks of a shared prefix."
TYPED = "Paged KV cache allocates fixed-size blocks on demand."


class SlowStt:
    """Speech to text that, while it transcribes, lets `meanwhile` run (a Send pressed in that time)."""

    name = "slow"

    def __init__(self) -> None:
        self.meanwhile: Callable[[], Any] = lambda: None

    def transcribe(self, audio: Path, language: Lang) -> Transcription:
        self.meanwhile()
        return Transcription(text=HEARD, language=language, duration_s=2.0, engine="slow")


@pytest.fixture
def stt(ctx: AppContext) -> SlowStt:
    slow = SlowStt()
    ctx.services.stt = lambda: slow
    return slow


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_practice_drops_a_transcript_that_ends_after_send(
    ctx: AppContext, stt: SlowStt, recording: str, ui: str
) -> None:
    page = SimpleNamespace(username=None, session_hash="page-1")
    state = sessions.start_practice(ctx, "concepts", "en", "", {}, ui, "tab:me", page)[0]  # type: ignore[arg-type]

    # no Send meanwhile: the transcript goes into the box after what was typed
    box, _status, heard, _said = list(
        answers.transcribe_answer(ctx, recording, "First,", state, "en", ui, [], page)
    )[-1]  # type: ignore[arg-type]
    assert box == f"First, {HEARD}" and heard[-1]["text"] == HEARD

    # Send pressed while it is transcribed: the box the answer left stays as Send leaves it
    sent: list[Any] = []
    stt.meanwhile = lambda: sent.append(answers.send_answer(ctx, TYPED, state, None, ui, "tab:me", page))  # type: ignore[arg-type]
    box, status, heard, said = list(
        answers.transcribe_answer(ctx, recording, TYPED, state, "en", ui, [], page)
    )[-1]  # type: ignore[arg-type]
    assert sent and sent[0][5] == ""  # Send took the answer and emptied the box
    assert box == {"__type__": "update"} and heard == {"__type__": "update"}
    assert status == t("ui.transcript_late", ui) and said["zh"] == t("ui.transcript_late", "zh")

    # another page's Send does not drop this page's transcript
    other = SimpleNamespace(username=None, session_hash="page-2")
    stt.meanwhile = lambda: answers.send_answer(ctx, TYPED, state, None, ui, "tab:me", other)  # type: ignore[arg-type]
    box, *_ = list(answers.transcribe_answer(ctx, recording, "", state, "en", ui, [], page))[-1]  # type: ignore[arg-type]
    assert box == HEARD


def test_copilot_drops_a_transcript_that_ends_after_save_answer(
    ctx: AppContext, stt: SlowStt, recording: str
) -> None:
    page = SimpleNamespace(username=None, session_hash="page-1")
    state = copilot_sessions.start_copilot(ctx, "concepts", "en", {}, "en", "tab:me", page)[0]  # type: ignore[arg-type]
    box, _status, _said = list(transcribe_into(ctx, recording, "", state, "en", "en", page))[-1]  # type: ignore[arg-type]
    assert box == HEARD

    stt.meanwhile = lambda: turns.record_answer(ctx, TYPED, state, "en", "tab:me", page)  # type: ignore[arg-type]
    box, status, _said = list(transcribe_into(ctx, recording, TYPED, state, "en", "en", page))[-1]  # type: ignore[arg-type]
    assert box == {"__type__": "update"} and status == t("ui.transcript_late", "en")
    # Practice's Send on the same page is not Co-pilot's answer
    stt.meanwhile = lambda: answers.send_answer(ctx, TYPED, {}, None, "en", "tab:me", page)  # type: ignore[arg-type]
    box, *_ = list(transcribe_into(ctx, recording, "", state, "en", "en", page))[-1]  # type: ignore[arg-type]
    assert box == HEARD


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_a_recording_is_said_to_be_transcribed_before_its_text_comes(
    ctx: AppContext, stt: SlowStt, recording: str, ui: str
) -> None:
    """Issue 12: while a recording was transcribed (seconds on a CPU) only Gradio's spinner moved; the status
    line now says so first, in the interface language, the box left as it is; then the text comes."""
    page = SimpleNamespace(username=None, session_hash="page-1")
    state = sessions.start_practice(ctx, "concepts", "en", "", {}, ui, "tab:me", page)[0]  # type: ignore[arg-type]
    steps = answers.transcribe_answer(ctx, recording, "First,", state, "en", ui, [], page)  # type: ignore[arg-type]
    box, status, heard, said = next(steps)
    assert box == {"__type__": "update"} and heard == {"__type__": "update"}
    assert status == t("ui.transcribing", ui) and said["zh"] == t("ui.transcribing", "zh")
    assert list(steps)[-1][0] == f"First, {HEARD}"

    c_state = copilot_sessions.start_copilot(ctx, "concepts", "en", {}, ui, "tab:me", page)[0]  # type: ignore[arg-type]
    c_steps = transcribe_into(ctx, recording, "", c_state, "en", ui, page)  # type: ignore[arg-type]
    box, status, _said = next(c_steps)
    assert box == {"__type__": "update"} and status == t("ui.transcribing", ui)
    assert list(c_steps)[-1][0] == HEARD

    # nothing recorded: the answer at once, no "Transcribing…" first
    ((box, status, _heard, _said),) = list(
        answers.transcribe_answer(ctx, None, "typed", state, "en", ui, [], page)
    )  # type: ignore[arg-type]
    assert box == "typed" and status == t("ui.no_audio", ui)
