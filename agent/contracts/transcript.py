"""The Transcript contract (input of `interview grade`, output of a practice session).

Field names are relied on by other tools (the app, the graph's sessions, scripts): keep them stable.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from agent.rubric.model import ROUND_IDS, Lang, RoundId

MAX_ANSWER_CHARS = 60_000
"""An answer longer than this (about 40 minutes of fast speech) is refused, not truncated."""
MAX_FILE_BYTES = 5_000_000
"""A file larger than this is refused unread; at most this many bytes (+1, to tell) are ever read."""
MAX_ROUNDS = 20
"""Rounds a transcript may hold (a full interview has six): grading time grows with them."""
MAX_TURNS_PER_ROUND = 200
"""Turns a round may hold (interviewer and candidate together): grading time grows with them."""
MAX_DEPTH = 64
"""How deep JSON arrays and objects may nest (a transcript needs 5 levels)."""
MAX_NUMBER_DIGITS = 100
"""Digits a JSON number may have (Python refuses integers over 4,300 digits with its own error)."""


class TranscriptError(ValueError):
    """A transcript that cannot be graded; the message names the file and what is wrong (in English, for
    the command line and logs). `problems`: when its structure is what is wrong, pydantic's errors (`loc`,
    `type`, `ctx`, `input`), for a reader to say them in their own language."""

    def __init__(self, message: str, problems: Sequence[Mapping[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems


class Turn(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["interviewer", "candidate"]
    text: str
    at_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)


class TranscriptRound(BaseModel):
    model_config = ConfigDict(extra="allow")

    round: RoundId
    turns: list[Turn] = Field(default_factory=list)
    variant_seed: int | None = Field(default=None, description="round 3 only: the seed of a fresh variant")

    def candidate_text(self) -> str:
        """Every candidate turn of the round, in order, one paragraph each."""
        return "\n\n".join(t.text.strip() for t in self.turns if t.role == "candidate" and t.text.strip())

    def answer_turns(self) -> list[tuple[str, str]]:
        """Each non-empty candidate turn as (the interviewer's question before it, the answer)."""
        out: list[tuple[str, str]] = []
        question = ""
        for t in self.turns:
            if t.role == "interviewer":
                question = t.text.strip()
            elif t.text.strip():
                out.append((question, t.text.strip()))
        return out

    def duration_s(self) -> float | None:
        times = [t.at_s for t in self.turns if t.at_s is not None]
        return max(times) - min(times) if len(times) >= 2 else None


class Transcript(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1, max_length=200)
    language: Lang = "en"
    rounds: list[TranscriptRound] = Field(min_length=1)

    @field_validator("rounds", mode="before")
    @classmethod
    def _within_caps(cls, rounds: Any) -> Any:
        """Refuse too many rounds or turns before any of them is read (one upload, bounded work)."""
        if not isinstance(rounds, list):
            return rounds
        if len(rounds) > MAX_ROUNDS:
            raise ValueError(f"{len(rounds):,} rounds, over the limit of {MAX_ROUNDS} a transcript")
        for i, r in enumerate(rounds):
            turns = r.get("turns") if isinstance(r, dict) else getattr(r, "turns", None)
            if isinstance(turns, list) and len(turns) > MAX_TURNS_PER_ROUND:
                raise ValueError(
                    f"round {i}: {len(turns):,} turns, over the limit of {MAX_TURNS_PER_ROUND} a round"
                )
        return rounds

    @field_validator("rounds")
    @classmethod
    def _answers_are_gradable(cls, rounds: list[TranscriptRound]) -> list[TranscriptRound]:
        for i, r in enumerate(rounds):
            text = r.candidate_text()
            # each a type of its own (`problems`: a reader says it in their language)
            if not text:
                raise PydanticCustomError(
                    "no_answer",
                    "round {i} ({round}): the candidate gave no answer (no non-empty candidate turn)",
                    {"i": i, "round": r.round},
                )
            if len(text) > MAX_ANSWER_CHARS:
                raise PydanticCustomError(
                    "answer_too_long",
                    "round {i} ({round}): the answer is {size} characters, over the limit of {limit}",
                    {"i": i, "round": r.round, "size": f"{len(text):,}", "limit": f"{MAX_ANSWER_CHARS:,}"},
                )
            if "\x00" in text:
                raise PydanticCustomError(
                    "answer_nul",
                    "round {i} ({round}): the answer holds NUL bytes (binary, not text)",
                    {"i": i, "round": r.round},
                )
        return rounds


def _describe(e: ValidationError) -> str:
    parts = []
    for err in e.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "literal_error" and err["loc"] and err["loc"][-1] == "round":
            msg = f"unknown round {err.get('input')!r}; known rounds: {', '.join(ROUND_IDS)}"
        parts.append(f"{loc}: {msg}")
    more = len(e.errors()) - 3
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def parse_transcript(data: bytes | str, source: str = "<input>") -> Transcript:
    """Parse one transcript; every failure is a TranscriptError naming `source` and the problem."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > MAX_FILE_BYTES:
        raise TranscriptError(f"{source}: file is {len(raw):,} bytes, over the limit of {MAX_FILE_BYTES:,}")
    if b"\x00" in raw[:8192]:
        raise TranscriptError(f"{source}: binary file (NUL bytes), not a JSON transcript")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise TranscriptError(f"{source}: not UTF-8 text (byte {e.start})") from e
    try:
        obj = json.loads(text, parse_int=_number(int), parse_float=_number(float))
    except json.JSONDecodeError as e:
        raise TranscriptError(f"{source}: not JSON: {e.msg} at line {e.lineno} column {e.colno}") from e
    except _NumberTooLong as e:
        raise TranscriptError(f"{source}: {e}") from None
    except RecursionError:
        raise TranscriptError(f"{source}: JSON nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as e:  # anything else json.loads refuses: one line, never a traceback
        raise TranscriptError(f"{source}: not readable JSON: {_one_line(str(e))}") from None
    if _deeper_than(obj, MAX_DEPTH):
        raise TranscriptError(f"{source}: JSON nested more than {MAX_DEPTH} levels deep")
    if not isinstance(obj, dict):
        raise TranscriptError(
            f"{source}: expected a JSON object with id, language, rounds; got {type(obj).__name__}"
        )
    try:
        return Transcript.model_validate(obj)
    except ValidationError as e:
        raise TranscriptError(f"{source}: {_describe(e)}", problems=e.errors(include_url=False)) from e


class _NumberTooLong(ValueError):
    pass


def _number(kind: type[int] | type[float]) -> Any:
    """json.loads' hook for numbers: refuses one of more than MAX_NUMBER_DIGITS digits."""

    def parse(literal: str) -> int | float:
        digits = sum(c.isdigit() for c in literal)
        if digits > MAX_NUMBER_DIGITS:
            raise _NumberTooLong(f"a number of {digits:,} digits, over the limit of {MAX_NUMBER_DIGITS}")
        return kind(literal)

    return parse


def _deeper_than(obj: object, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` levels (without recursion)."""
    stack: list[tuple[object, int]] = [(obj, 1)]
    while stack:
        o, depth = stack.pop()
        children = o.values() if isinstance(o, dict) else o if isinstance(o, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_a_file(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)", "a character device", …); None for a file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def _why_unreadable(path: Path, e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "a symbolic link loop"
    if e.errno == errno.ENOENT and path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a dangling symbolic link (to {target}, which does not exist)"
    return e.strerror or str(e)


def _read_at_most(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes from `fd`, fewer only at the end of the file."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def load_transcript(path: Path) -> Transcript:
    """Read and parse one transcript file. Only a regular file (or a link to one) is read, and never
    more than MAX_FILE_BYTES + 1 bytes of it: a FIFO, device, socket or folder is refused by name
    unopened (a FIFO swapped in after the check cannot block: it is opened non-blocking)."""
    try:
        st = path.stat()
    except OSError as e:
        raise TranscriptError(f"{path}: cannot read: {_why_unreadable(path, e)}") from None
    kind = not_a_file(st.st_mode)
    if kind:
        raise TranscriptError(f"{path}: cannot read: {kind}, not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise TranscriptError(f"{path}: file is {st.st_size:,} bytes, over the limit of {MAX_FILE_BYTES:,}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise TranscriptError(f"{path}: cannot read: {_why_unreadable(path, e)}") from None
    try:
        kind = not_a_file(os.fstat(fd).st_mode)
        if kind:  # replaced between the check and the open
            raise TranscriptError(f"{path}: cannot read: {kind}, not a regular file")
        data = _read_at_most(fd, MAX_FILE_BYTES + 1)
    except OSError as e:
        raise TranscriptError(f"{path}: cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise TranscriptError(f"{path}: file is over the limit of {MAX_FILE_BYTES:,} bytes")
    return parse_transcript(data, str(path))
