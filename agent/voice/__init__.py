"""Voice, offline: speech to text (faster-whisper) and text to speech (Piper, espeak-ng); each swappable."""

from agent.voice.models import VoiceUnavailable, ensure_whisper_base, whisper_model_dir
from agent.voice.stt import (
    AudioDecodeError,
    EndpointSTT,
    SpeechToText,
    Transcription,
    WhisperSTT,
    decode,
    default_stt,
)
from agent.voice.tts import ByLanguage, EspeakTTS, PiperTTS, TextToSpeech, default_tts

__all__ = [
    "AudioDecodeError",
    "ByLanguage",
    "EndpointSTT",
    "EspeakTTS",
    "PiperTTS",
    "SpeechToText",
    "TextToSpeech",
    "Transcription",
    "VoiceUnavailable",
    "WhisperSTT",
    "decode",
    "default_stt",
    "default_tts",
    "ensure_whisper_base",
    "whisper_model_dir",
]
