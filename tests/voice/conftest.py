from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.voice import WhisperSTT, ensure_whisper_base


@pytest.fixture(scope="session")
def whisper_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_whisper_base(tmp_path_factory.mktemp("cache") / "whisper-base")


@pytest.fixture(scope="session")
def stt(whisper_dir: Path) -> WhisperSTT:
    return WhisperSTT(whisper_dir)


@pytest.fixture
def espeak_wav(tmp_path: Path) -> Callable[[str, str], Path]:
    """A WAV of `text` spoken by espeak-ng with `voice`; skips (with the reason) when espeak-ng is absent."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip("espeak-ng is not installed (Debian: apt-get install espeak-ng)")

    def make(text: str, voice: str) -> Path:
        out = tmp_path / f"espeak-{voice}-{abs(hash(text))}.wav"
        subprocess.run(
            [exe, "-v", voice, "-s", "140", "-w", str(out), "--stdin"], input=text.encode(), check=True
        )
        return out

    return make
