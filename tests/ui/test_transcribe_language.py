"""A recording is transcribed in the session's language (issue 12: a Chinese practice session's Mandarin
answer came back as English words and digits): the transcriber is told "zh" in a Chinese session and "en" in
an English one, whatever the interface language or the set-up row's language picked since Start."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.rubric.model import Lang
from agent.ui.context import AppContext
from agent.ui.tabs.copilot import sessions as copilot_sessions
from agent.ui.tabs.practice import answers, sessions
from agent.ui.tabs.recording import transcribe_into
from agent.voice.stt import Transcription

OTHER: dict[str, Lang] = {"en": "zh", "zh": "en"}


class HeardStt:
    """Speech to text that records the language of each call."""

    name = "heard"

    def __init__(self) -> None:
        self.languages: list[str] = []

    def transcribe(self, audio: Path, language: Lang) -> Transcription:
        self.languages.append(language)
        return Transcription(text="调度器 scheduler", language=language, duration_s=2.0, engine="heard")


@pytest.fixture
def stt(ctx: AppContext) -> HeardStt:
    heard = HeardStt()
    ctx.services.stt = lambda: heard
    return heard


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("ui", ["en", "zh"])
def test_practice_transcribes_in_the_sessions_language(
    ctx: AppContext, stt: HeardStt, recording: str, lang: str, ui: str
) -> None:
    page = SimpleNamespace(username=None, session_hash="page-1")
    state = sessions.start_practice(ctx, "concepts", lang, "", {}, ui, "tab:me", page)[0]  # type: ignore[arg-type]
    # the set-up row's language as started, then moved to the other one (the session keeps its language)
    for row_lang in (lang, OTHER[lang]):
        box, *_ = list(answers.transcribe_answer(ctx, recording, "", state, row_lang, ui, [], page))[-1]  # type: ignore[arg-type]
        assert box == "调度器 scheduler"
    assert stt.languages == [lang, lang]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_copilot_transcribes_in_the_sessions_language(
    ctx: AppContext, stt: HeardStt, recording: str, lang: str
) -> None:
    page = SimpleNamespace(username=None, session_hash="page-1")
    ui = OTHER[lang]
    state = copilot_sessions.start_copilot(ctx, "concepts", lang, {}, ui, "tab:me", page)[0]  # type: ignore[arg-type]
    for row_lang in (lang, OTHER[lang]):
        list(transcribe_into(ctx, recording, "", state, row_lang, ui, page))  # type: ignore[arg-type]
    assert stt.languages == [lang, lang]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_before_a_session_the_rows_language_is_the_one(
    ctx: AppContext, stt: HeardStt, recording: str, lang: str
) -> None:
    page = SimpleNamespace(username=None, session_hash="page-1")
    list(answers.transcribe_answer(ctx, recording, "", {}, lang, OTHER[lang], [], page))  # type: ignore[arg-type]
    list(transcribe_into(ctx, recording, "", {}, lang, OTHER[lang], page))  # type: ignore[arg-type]
    assert stt.languages == [lang, lang]
