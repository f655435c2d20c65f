"""What goes wrong with voice (a model or program missing, audio that cannot be read), said in either
language: each failure is a message key of messages/voice.yaml with its fields, so the page shows it in the
interface language, not an exception's English; `str()` is the English text, for logs and the terminal."""

from __future__ import annotations

from agent.util.messages import LANGS, Lang, t


class VoiceError(Exception):
    """A voice failure: `key` (voice.<key> in messages/voice.yaml) and its `fields`; `text(lang)` says it.
    Made from a plain message (no key), it says that message as it is in every language."""

    def __init__(self, message: str | None = None, *, key: str | None = None, **fields: object) -> None:
        self.key = key
        self.fields = fields
        super().__init__(message if message is not None or key is None else t(f"voice.{key}", "en", **fields))

    def text(self, lang: Lang) -> str:
        """The failure in `lang`."""
        return t(f"voice.{self.key}", lang, **self.fields) if self.key else str(self)


class VoiceUnavailable(VoiceError, RuntimeError):
    """A voice model or program is missing or fails its checksum; the message says how to fix it."""


class AudioDecodeError(VoiceError, ValueError):
    """The audio could not be decoded or is unusable; the message is meant for the user."""


class NothingToSay(VoiceError, ValueError):
    """Text to speech was given no text."""


def in_each(e: BaseException) -> dict[Lang, str]:
    """The failure in each language (`said`)."""
    return {lang: said(e, lang) for lang in LANGS}


def said(e: BaseException, lang: Lang) -> str:
    """Any failure of speaking or transcribing in `lang`: a voice failure in its words; another (a file that
    could not be written) by what it is, its own words after them."""
    if isinstance(e, VoiceError):
        return e.text(lang)
    detail = (e.strerror if isinstance(e, OSError) else None) or str(e) or type(e).__name__
    return t("voice.failed", lang, detail=detail)
