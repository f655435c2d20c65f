"""Speech to text: offline faster-whisper (default) or an OpenAI-compatible transcription endpoint.

The language is always forced from the interview's language (never detected): a Chinese session
transcribes as Chinese even when the answer is full of English identifiers. Audio that cannot be
decoded raises `AudioDecodeError` with a sentence for the user; the typed path never depends on this.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.rubric.model import Lang
from agent.voice.errors import AudioDecodeError, VoiceUnavailable
from agent.voice.models import whisper_model_dir

if TYPE_CHECKING:
    import numpy as np

SAMPLE_RATE = 16_000
MAX_AUDIO_BYTES = 50_000_000
MAX_AUDIO_SECONDS = 20 * 60
_ZH_PROMPT = "以下是普通话的句子，关于 vLLM 推理服务。"
"""Whisper writes traditional or simplified Chinese at random without a simplified-Chinese prompt."""
_TEMPERATURES = (0.0, 0.2, 0.4)
"""Whisper's fallback ladder, cut short: past a silence the small model can loop on one character
("已已已…"), and each of the default six retries decodes the whole window again (80 s for 14 s of audio)."""
_NO_REPEAT_NGRAM = 6
"""No run of six tokens twice in one 30 s window: the loop cannot form; a short term said again survives
(a long phrase said twice word for word would come out altered the second time)."""
_LOOP = re.compile(r"([^\x00-\x7f]{1,4}?)\1{5,}")
"""One to four non-ASCII characters six times or more in a row (已已已…, 。。。…): a decoding loop, not
speech; kept once. ASCII is left alone (10000000 is a number)."""


def _plain(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


ECHO_SHARE = 0.6
"""A segment that is this much of the prompt, and nothing else, is the prompt written back; so is its
opening ("以下是普通话的句子"), which no candidate says. A candidate's own "关于 vLLM 推理服务" is neither."""


def echoes_prompt(segment: str, prompt: str) -> bool:
    """Whether a transcribed segment is the prompt Whisper was given (most of it, or its opening, and nothing
    else): a blind tester's Chinese recording came back as "以下是普通话的句子，关于 vLLM 推理服务。" and numbers."""
    said, given = _plain(segment), _plain(prompt)
    if not said or said not in given:
        return False
    return len(said) >= ECHO_SHARE * len(given) or (given.startswith(said) and len(said) >= 4)


def without_prompt(segment: str, prompt: str) -> str:
    """The segment without the prompt written out in it."""
    return segment.replace(prompt, "") if prompt else segment


@dataclass(frozen=True)
class TimedText:
    """A piece of what was heard with when it was said, in seconds from the start of the audio."""

    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Transcription:
    text: str
    """What was heard (empty when no speech was recognised)."""
    language: Lang
    """The language the model was told to hear."""
    duration_s: float
    engine: str
    """Which engine and model produced it, for the record."""
    words: tuple[TimedText, ...] = ()
    """Each word with its time (Whisper's word timestamps; for Chinese a word is a character or a few);
    empty when the engine gives none (an endpoint's plain JSON). `delivery.py` reads pauses from them."""
    segments: tuple[TimedText, ...] = ()
    """Each segment (a phrase or sentence) with its time; empty when the engine gives none."""


class SpeechToText(Protocol):
    name: str

    def transcribe(self, audio: Path, language: Lang) -> Transcription: ...


def _check_file(audio: Path) -> None:
    try:
        size = audio.stat().st_size
    except OSError as e:
        raise AudioDecodeError(key="audio_unreadable") from e
    if size == 0:
        raise AudioDecodeError(key="audio_empty")
    if size > MAX_AUDIO_BYTES:
        raise AudioDecodeError(key="audio_too_large", mb=size / 1e6, limit=MAX_AUDIO_BYTES / 1e6)


def decode(audio: Path) -> np.ndarray[Any, Any]:
    """16 kHz mono float32 samples, or `AudioDecodeError` saying the file is not audio we can read."""
    _check_file(audio)
    from faster_whisper import decode_audio

    try:
        samples = decode_audio(str(audio), sampling_rate=SAMPLE_RATE)
    except Exception as e:  # PyAV raises many kinds (InvalidDataError, DecoderNotFoundError, ...)
        raise AudioDecodeError(key="audio_undecodable", kind=type(e).__name__) from e
    if samples.size == 0:
        raise AudioDecodeError(key="audio_no_samples")
    seconds = samples.size / SAMPLE_RATE
    if seconds > MAX_AUDIO_SECONDS:
        raise AudioDecodeError(key="audio_too_long", minutes=seconds / 60, limit=MAX_AUDIO_SECONDS // 60)
    return samples


def collapse_loops(text: str) -> str:
    """The text with each decoding loop of non-ASCII characters kept once (see `_LOOP`)."""
    return _LOOP.sub(r"\1", text)


class WhisperSTT:
    """faster-whisper on CPU (int8), loaded on first use from `model_dir` (default: see models.py)."""

    def __init__(self, model_dir: Path | None = None, *, cpu_threads: int = 2, beam_size: int = 5) -> None:
        self._model_dir = model_dir
        self._cpu_threads = cpu_threads
        self._beam_size = beam_size
        self._model: Any = None
        self._lock = threading.Lock()
        self.name = "faster-whisper"

    def _load(self) -> Any:
        if self._model is None:
            from faster_whisper import WhisperModel

            d = self._model_dir or whisper_model_dir()
            try:
                self._model = WhisperModel(
                    str(d), device="cpu", compute_type="int8", cpu_threads=self._cpu_threads
                )
            except Exception as e:
                raise VoiceUnavailable(key="whisper_load_failed", dir=str(d), detail=str(e)) from e
            self.name = f"faster-whisper:{d.name}"
        return self._model

    def transcribe(self, audio: Path, language: Lang) -> Transcription:
        samples = decode(audio)
        with self._lock:  # one transcription at a time: two cores, and the model is shared
            model = self._load()
            segments, info = model.transcribe(
                samples,
                language=language,
                beam_size=self._beam_size,
                initial_prompt=_ZH_PROMPT if language == "zh" else None,
                condition_on_previous_text=False,
                temperature=_TEMPERATURES,
                no_repeat_ngram_size=_NO_REPEAT_NGRAM,
                word_timestamps=True,  # pauses for the delivery figures (delivery.py)
            )
            heard = list(segments)  # a generator: transcription happens while it is read
        if language == "zh":  # on speech it cannot read Whisper may write its prompt back as what was said
            heard = [s for s in heard if not echoes_prompt(s.text, _ZH_PROMPT)]
        text = collapse_loops("".join(without_prompt(s.text, _ZH_PROMPT) for s in heard)).strip()
        return Transcription(
            text=text,
            language=language,
            duration_s=float(info.duration),
            engine=self.name,
            words=tuple(
                TimedText(w.word, float(w.start), float(w.end)) for s in heard for w in (s.words or [])
            ),
            segments=tuple(TimedText(s.text, float(s.start), float(s.end)) for s in heard),
        )


class EndpointSTT:
    """An OpenAI-compatible `/v1/audio/transcriptions` (e.g. a vLLM server that serves Whisper)."""

    def __init__(self, base_url: str, model: str, *, api_key: str = "EMPTY", timeout_s: float = 120) -> None:
        self.base_url = base_url
        self.model = model
        self._api_key = api_key
        self._timeout_s = timeout_s
        self.name = f"endpoint:{model}"

    def transcribe(self, audio: Path, language: Lang) -> Transcription:
        _check_file(audio)
        import openai

        client = openai.OpenAI(base_url=self.base_url, api_key=self._api_key, timeout=self._timeout_s)
        try:
            with audio.open("rb") as f:
                res = client.audio.transcriptions.create(
                    model=self.model, file=f, language=language, response_format="json"
                )
        except openai.BadRequestError as e:
            raise AudioDecodeError(key="stt_server_refused", detail=e.message) from e
        except openai.APIError as e:
            raise VoiceUnavailable(key="stt_server_failed", url=self.base_url, detail=str(e)) from e
        duration = getattr(res, "duration", None)
        return Transcription(
            text=res.text.strip(),
            language=language,
            duration_s=float(duration) if duration is not None else 0.0,
            engine=self.name,
        )


_default: SpeechToText | None = None
_default_lock = threading.Lock()


def default_stt() -> SpeechToText:
    """`STT_BASE_URL` (+ `STT_MODEL`) selects an endpoint; otherwise offline faster-whisper. One per process."""
    global _default
    with _default_lock:
        if _default is None:
            url = os.environ.get("STT_BASE_URL")
            _default = EndpointSTT(url, os.environ.get("STT_MODEL", "whisper")) if url else WhisperSTT()
        return _default
