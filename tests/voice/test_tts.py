"""Text to speech, offline: Piper speaks English, espeak-ng speaks Chinese, both into the data dir."""

from __future__ import annotations

import shutil
import wave
from pathlib import Path

import pytest

from agent.voice import ByLanguage, EspeakTTS, PiperTTS, VoiceUnavailable, WhisperSTT, default_tts


def _seconds(wav: Path) -> float:
    with wave.open(str(wav)) as w:
        return w.getnframes() / w.getframerate()


def test_an_english_question_is_spoken_by_piper_and_heard_back(tmp_path: Path, stt: WhisperSTT) -> None:
    wav = PiperTTS(out_dir=tmp_path).synthesize(
        "How does the scheduler decide which request runs next?", "en"
    )
    assert wav.parent == tmp_path and 1.5 < _seconds(wav) < 10
    heard = stt.transcribe(wav, "en").text.lower()
    assert "scheduler" in heard and "request" in heard, heard


def test_the_same_question_is_synthesised_once(tmp_path: Path) -> None:
    tts = PiperTTS(out_dir=tmp_path)
    a = tts.synthesize("What is prefix caching?", "en")
    mtime = a.stat().st_mtime_ns
    assert tts.synthesize("What  is prefix\ncaching?", "en") == a
    assert a.stat().st_mtime_ns == mtime
    assert [p.name for p in tmp_path.iterdir()] == [a.name]  # no temporary file left


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_chinese_question_is_spoken_by_espeak_with_the_pinyin_voice(tmp_path: Path) -> None:
    wav = EspeakTTS(out_dir=tmp_path).synthesize("请解释前缀缓存如何复用显存块。", "zh")
    assert 1.5 < _seconds(wav) < 15


def test_text_that_starts_like_an_option_is_spoken_not_parsed(tmp_path: Path) -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    wav = EspeakTTS(out_dir=tmp_path).synthesize("-w /tmp/owned.wav --help", "zh")
    assert wav.is_file() and not Path("/tmp/owned.wav").exists()


def test_missing_espeak_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(VoiceUnavailable, match="apt-get install espeak-ng"):
        EspeakTTS(out_dir=tmp_path).synthesize("你好", "zh")


def test_empty_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        PiperTTS(out_dir=tmp_path).synthesize("  \n ", "en")


def test_the_default_writes_into_the_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    assert isinstance(default_tts(), ByLanguage)
    wav = ByLanguage().synthesize("Hello.", "en")
    assert wav.parent == tmp_path / "tts"
