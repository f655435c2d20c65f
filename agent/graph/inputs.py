"""What a session call accepts: the text of an answer or a question (`check_text`: text, not empty,
within the length limit) and a language (`check_language`). Bad input never reaches the graph: the
caller gets a message saying what is wrong, or a SessionError."""

from __future__ import annotations

import unicodedata

from agent.contracts.transcript import MAX_ANSWER_CHARS
from agent.graph.errors import SessionError
from agent.rubric.model import Lang
from agent.util import messages


def check_text(
    text: object, lang: Lang, *, so_far: int = 0, kind: str = "answer"
) -> tuple[str | None, str | None]:
    """(the text, None) when it can be recorded, else (None, a message saying what is wrong)."""
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            return None, messages.t("interview.not_text", lang, why=f"not UTF-8 at byte {e.start}")
    if not isinstance(text, str):
        return None, messages.t("interview.not_text", lang, why=type(text).__name__)
    if "\x00" in text:
        return None, messages.t("interview.not_text", lang, why="NUL bytes")
    control = sum(1 for c in text if c not in "\n\r\t" and unicodedata.category(c) == "Cc")
    if control > max(2, len(text) // 100):
        return None, messages.t("interview.not_text", lang, why=f"{control} control characters")
    if text.count("\ufffd") > max(2, len(text) // 50):
        return None, messages.t("interview.not_text", lang, why="undecodable bytes")
    if not text.strip():
        return None, messages.t("interview.empty" if kind == "answer" else "interview.empty_question", lang)
    if len(text) > MAX_ANSWER_CHARS or so_far + len(text) > MAX_ANSWER_CHARS:
        return None, messages.t("interview.too_long", lang, n=len(text), limit=MAX_ANSWER_CHARS - so_far)
    return text, None


def check_language(lang: str) -> Lang:
    if lang == "zh":
        return "zh"
    if lang == "en":
        return "en"
    raise SessionError(f"unknown language {lang!r}; choose zh or en")
