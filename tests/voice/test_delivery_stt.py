"""Delivery figures end to end: speech synthesised by the packaged voices, transcribed by the real offline
Whisper model, measured from its word timestamps."""

from __future__ import annotations

import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agent.voice import PiperTTS, WhisperSTT, delivery_of
from agent.voice.stt import SAMPLE_RATE, decode

ANSWER = "I would roll back the deployment and check the latency."
THEN = "Then I would compare the latency before and after the change."


def joined(parts: list[Path], silence_s: float, out: Path) -> Path:
    """The recordings one after another with `silence_s` of silence between them, as a 16 kHz WAV."""
    gap = np.zeros(int(silence_s * SAMPLE_RATE), dtype=np.float32)
    samples = [decode(parts[0])]
    for p in parts[1:]:
        samples += [gap, decode(p)]
    pcm = (np.clip(np.concatenate(samples), -1, 1) * 32767).astype(np.int16)
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(pcm.tobytes())
    return out


def test_an_english_answer_spoken_by_piper_has_a_plausible_rate_and_no_long_pause(
    tmp_path: Path, stt: WhisperSTT
) -> None:
    wav = PiperTTS(out_dir=tmp_path).synthesize(f"{ANSWER} {THEN}", "en")
    heard = stt.transcribe(wav, "en")
    assert len(heard.words) >= 15 and heard.segments, heard
    d = delivery_of(heard)
    # 21 words spoken; Piper's voice varies from one synthesis to the next, and the small Whisper once
    # dropped the last clause (16 heard, CI stop 19): the rate below is what this test is about
    assert d.timed and d.unit == "words" and 14 <= d.units <= 26, (d, heard.text)
    assert d.rate_per_min is not None and 100 <= d.rate_per_min <= 300, d  # Piper: about 230 as timed
    assert d.pauses == 0 and d.longest_pause_s is None, d
    assert d.speaking_s <= heard.duration_s


def test_three_seconds_of_silence_between_two_clips_is_a_long_pause(
    tmp_path: Path, stt: WhisperSTT, espeak_wav: Callable[[str, str], Path]
) -> None:
    wav = joined([espeak_wav(ANSWER, "en-us"), espeak_wav(THEN, "en-us")], 3.0, tmp_path / "paused.wav")
    heard = stt.transcribe(wav, "en")
    d = delivery_of(heard)
    assert d.pauses == 1, (d, [(w.text, w.start, w.end) for w in heard.words])
    assert d.longest_pause_s is not None and 2.0 <= d.longest_pause_s <= 4.0, d
    assert d.rate_per_min is not None and 60 <= d.rate_per_min <= 220, d  # espeak at 140, the pause inside


def test_a_chinese_answer_has_a_character_rate_and_its_fillers(
    tmp_path: Path, stt: WhisperSTT, espeak_wav: Callable[[str, str], Path]
) -> None:
    heard = stt.transcribe(
        espeak_wav("嗯，那个，我们先看调度器，就是，KV cache 的分配。", "cmn-latn-pinyin"), "zh"
    )
    d = delivery_of(heard)
    assert d.timed and d.unit == "characters" and 10 <= d.units <= 30, (d, heard.text)
    assert d.rate_per_min is not None and 80 <= d.rate_per_min <= 400, d
    assert {"嗯", "那个"} <= {u.text for u in d.filler_uses}, (d, heard.text)  # both standalone here
