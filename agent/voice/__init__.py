"""Voice, offline: speech to text (faster-whisper) and text to speech (Piper, espeak-ng); each swappable.
A spoken answer's delivery figures (pace, fillers, long pauses) come from its timestamps: `delivery.py`."""

from agent.voice.delivery import Delivery, delivery_of
from agent.voice.models import VoiceUnavailable, ensure_whisper_base, whisper_model_dir
from agent.voice.stt import (
    AudioDecodeError,
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
    "PiperTTS",
    "SpeechToText",
    "TextToSpeech",
    "TimedText",
    "Transcription",
    "VoiceUnavailable",
    "WhisperSTT",
    "decode",
    "default_stt",
    "default_tts",
    "delivery_of",
    "ensure_whisper_base",
    "whisper_model_dir",
]
