"""What a session call accepts: the text of an answer or a question (`check_input`: text, not empty,
within the length limit) and a language (`check_language`). Bad input never reaches the graph: the
caller gets a notice saying what is wrong (`notice.py`), or a SessionError."""

from __future__ import annotations

import unicodedata

from agent.contracts.transcript import MAX_ANSWER_CHARS
from agent.graph.errors import SessionError
from agent.graph.notice import Notice, each, notice
from agent.rubric.model import Lang


def check_input(
    text: object, *, so_far: int = 0, kind: str = "answer"
) -> tuple[str | None, Notice | None]:
    """(the text, None) when it can be recorded, else (None, a notice saying what is wrong)."""
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            return None, _not_text(kind, "not_utf8", at=e.start)
    if not isinstance(text, str):
        return None, _not_text(kind, "type", name=type(text).__name__)
    if "\x00" in text:
        return None, _not_text(kind, "nul")
    control = sum(1 for c in text if c not in "\n\r\t" and unicodedata.category(c) == "Cc")
    if control > max(2, len(text) // 100):
        return None, _not_text(kind, "control", n=control)
    if text.count("\ufffd") > max(2, len(text) // 50):
        return None, _not_text(kind, "undecodable")
    if not text.strip():
        return None, notice(_of(kind, "interview.empty"))
    if len(text) > MAX_ANSWER_CHARS or so_far + len(text) > MAX_ANSWER_CHARS:
        return None, notice(_of(kind, "interview.too_long"), n=len(text), limit=MAX_ANSWER_CHARS - so_far)
    return text, None


def _of(kind: str, key: str) -> str:
    """The message `key` worded for what is refused: an answer (`key`) or the interviewer's question
    (`key_question`)."""
    return key if kind == "answer" else f"{key}_question"


def _not_text(kind: str, why: str, **fields: object) -> Notice:
    return notice(_of(kind, "interview.not_text"), why=each(f"interview.not_text_why.{why}", **fields))


def check_text(
    text: object, lang: Lang, *, so_far: int = 0, kind: str = "answer"
) -> tuple[str | None, str | None]:
    """`check_input` with its notice rendered in `lang`."""
    clean, wrong = check_input(text, so_far=so_far, kind=kind)
    return clean, wrong.text(lang) if wrong else None


def check_language(lang: str) -> Lang:
    if lang == "zh":
        return "zh"
    if lang == "en":
        return "en"
    raise SessionError(f"unknown language {lang!r}; choose zh or en")
