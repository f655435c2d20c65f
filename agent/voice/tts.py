"""Text to speech, offline: Piper (`en_US-joe-medium`) for English, espeak-ng `cmn-latn-pinyin` for Chinese.

`synthesize` returns the path of a WAV under `<data dir>/tts/`, named by a hash of engine, voice
and text, so a question spoken once is not synthesised again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import wave
from pathlib import Path
from typing import Any, Protocol

from agent import config
from agent.rubric.model import Lang
from agent.voice.errors import NothingToSay, VoiceUnavailable
from agent.voice.models import piper_voice_files

MAX_TTS_CHARS = 2_000
ESPEAK_ZH_VOICE = "cmn-latn-pinyin"
"""The `zh`/`cmn` voices of espeak-ng 1.51 misread tones; this one reads Hanzi with correct tones."""


class TextToSpeech(Protocol):
    def synthesize(self, text: str, language: Lang) -> Path: ...


def tts_dir() -> Path:
    d = config.data_dir() / "tts"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _target(engine: str, text: str, out_dir: Path | None) -> Path:
    key = hashlib.sha256(f"{engine}\0{text}".encode()).hexdigest()[:24]
    return (out_dir or tts_dir()) / f"{key}.wav"


def _clean(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise NothingToSay(key="nothing_to_say")
    return text[:MAX_TTS_CHARS]


def _write_atomically(dest: Path, write: Any) -> Path:
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".tts-", suffix=".wav")
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, dest)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return dest


class PiperTTS:
    """Piper with the packaged English voice (or another .onnx voice and its .json)."""

    def __init__(
        self, model: Path | None = None, config_path: Path | None = None, *, out_dir: Path | None = None
    ):
        self._files = (model, config_path) if model else None
        self._voice: Any = None
        self._lock = threading.Lock()
        self._out_dir = out_dir

    def _load(self) -> Any:
        if self._voice is None:
            from piper import PiperVoice

            model, cfg = self._files or piper_voice_files()
            self._voice = PiperVoice.load(model, cfg)
        return self._voice

    def synthesize(self, text: str, language: Lang = "en") -> Path:
        text = _clean(text)
        dest = _target("piper:en_US-joe-medium", text, self._out_dir)
        if dest.is_file():
            return dest

        def write(tmp: Path) -> None:
            with self._lock:
                voice = self._load()
                with wave.open(str(tmp), "wb") as wf:
                    voice.synthesize_wav(text, wf)

        return _write_atomically(dest, write)


class EspeakTTS:
    """espeak-ng as a subprocess; the text goes through stdin, never the command line."""

    def __init__(self, voice: str = ESPEAK_ZH_VOICE, *, speed_wpm: int = 150, out_dir: Path | None = None):
        self.voice = voice
        self.speed_wpm = speed_wpm
        self._out_dir = out_dir

    def synthesize(self, text: str, language: Lang = "zh") -> Path:
        exe = shutil.which("espeak-ng")
        if exe is None:
            raise VoiceUnavailable(key="espeak_missing")
        text = _clean(text)
        dest = _target(f"espeak-ng:{self.voice}:{self.speed_wpm}", text, self._out_dir)
        if dest.is_file():
            return dest

        def write(tmp: Path) -> None:
            res = subprocess.run(
                [exe, "-v", self.voice, "-s", str(self.speed_wpm), "-w", str(tmp), "--stdin"],
                input=text.encode("utf-8"),
                capture_output=True,
                timeout=60,
            )
            if res.returncode != 0 or tmp.stat().st_size == 0:
                raise VoiceUnavailable(
                    key="espeak_failed",
                    code=res.returncode,
                    detail=res.stderr.decode(errors="replace").strip(),
                )

        return _write_atomically(dest, write)


class ByLanguage:
    """One engine per interview language: Piper for English, espeak-ng for Chinese by default."""

    def __init__(self, engines: dict[Lang, TextToSpeech] | None = None) -> None:
        self.engines: dict[Lang, TextToSpeech] = engines or {"en": PiperTTS(), "zh": EspeakTTS()}

    def synthesize(self, text: str, language: Lang) -> Path:
        return self.engines[language].synthesize(text, language)


_default: ByLanguage | None = None
_default_lock = threading.Lock()


def default_tts() -> TextToSpeech:
    global _default
    with _default_lock:
        if _default is None:
            _default = ByLanguage()
        return _default
