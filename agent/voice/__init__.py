"""Voice, offline: speech to text (faster-whisper) and text to speech (Piper, espeak-ng); each swappable.
What goes wrong is said in either language (`errors.py`). A spoken answer's delivery figures (pace, fillers, long pauses) come from its timestamps: `delivery.py`."""

from agent.voice.delivery import Delivery, delivery_of
from agent.voice.errors import AudioDecodeError, NothingToSay, VoiceError, VoiceUnavailable, in_each, said
from agent.voice.models import ensure_whisper_base, whisper_model_dir
from agent.voice.stt import (
    EndpointSTT,
    SpeechToText,
    TimedText,
    Transcription,
    WhisperSTT,
    decode,
    default_stt,
)
from agent.voice.tts import ByLanguage, EspeakTTS, PiperTTS, TextToSpeech, default_tts

__all__ = [
    "AudioDecodeError",
    "ByLanguage",
    "Delivery",
    "EndpointSTT",
    "EspeakTTS",
    "NothingToSay",
    "PiperTTS",
    "SpeechToText",
    "TextToSpeech",
    "TimedText",
    "Transcription",
    "VoiceError",
    "VoiceUnavailable",
    "WhisperSTT",
    "decode",
    "default_stt",
    "default_tts",
    "delivery_of",
    "ensure_whisper_base",
    "in_each",
    "said",
    "whisper_model_dir",
]
