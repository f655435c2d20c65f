"""What goes wrong with voice is said in the interface language (issue 12: a Chinese page read
"无法朗读问题：espeak-ng is not installed (Debian: apt-get install espeak-ng)", an exception's own English).
Each known failure of agent/voice/ (espeak-ng missing, a Whisper model missing, audio unreadable, …) is a
message of messages/voice.yaml; its raw detail (a path, a decoder's name) stays beside it, never alone."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from agent.ui.context import AppContext
from agent.ui.tabs import recording
from agent.ui.tabs.practice.speech import speak
from agent.voice import AudioDecodeError, EspeakTTS, VoiceUnavailable, WhisperSTT, decode, whisper_model_dir

ENGLISH_WORDS = re.compile(
    r"\b(?:is|the|not|could|cannot|record|again|type|answer|installed|missing)\b", re.I
)
"""English words of a sentence (not a program's or package's name)."""


def _ctx(**services: Any) -> AppContext:
    return cast(AppContext, SimpleNamespace(services=SimpleNamespace(**services)))


def test_missing_espeak_reads_in_chinese_on_a_chinese_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    tts = EspeakTTS(out_dir=tmp_path)
    audio, note = speak(_ctx(tts=lambda: tts), "请解释前缀缓存。", "zh")
    assert audio is None and note is not None
    assert note["zh"].startswith("无法朗读问题：") and "espeak-ng" in note["zh"], note
    assert not ENGLISH_WORDS.search(note["zh"]), note["zh"]
    assert "apt-get install espeak-ng" in note["en"] and "is not installed" in note["en"]


def _failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Exception]:
    """Every voice failure a test can cause without a model: each raised by agent/voice/ itself."""
    got: list[Exception] = []
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    for audio in (empty, junk, tmp_path / "gone.wav"):
        with pytest.raises(AudioDecodeError) as e:
            decode(audio)
        got.append(e.value)
    monkeypatch.setenv("WHISPER_MODEL_DIR", str(tmp_path))
    with pytest.raises(VoiceUnavailable) as v:
        whisper_model_dir()
    got.append(v.value)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(VoiceUnavailable) as v:
        EspeakTTS(out_dir=tmp_path).synthesize("你好", "zh")
    got.append(v.value)
    return got


def test_each_known_voice_failure_says_itself_in_either_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for e in _failures(tmp_path, monkeypatch):
        zh, en = e.text("zh"), e.text("en")  # type: ignore[attr-defined]
        assert en == str(e) and zh != en, (zh, en)
        assert re.search(r"[\u4e00-\u9fff]", zh) and not ENGLISH_WORDS.search(zh), zh


class _Refuses(WhisperSTT):
    def __init__(self, error: Exception) -> None:
        self.error = error

    def transcribe(self, audio: Path, language: Any) -> Any:
        raise self.error


def test_a_transcription_failure_is_said_in_each_interface_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recording, "safe_upload", lambda p, **_: Path(p))
    wav = tmp_path / "a.wav"
    wav.write_bytes(b"RIFF")
    for e in _failures(tmp_path, monkeypatch):
        stt = _Refuses(e)
        _, status, heard = recording.transcribe(_ctx(stt=lambda s=stt: s), str(wav), "", {"lang": "zh"}, "zh")
        assert heard is None
        assert not ENGLISH_WORDS.search(status["zh"]), status["zh"]
        assert str(e) in status["en"]
