"""The Transcript contract (input of `interview grade`, output of a practice session).

Field names are relied on by other tools: see DESIGN.md "Interfaces other tools rely on".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent.rubric.model import ROUND_IDS, Lang, RoundId

MAX_ANSWER_CHARS = 60_000
"""An answer longer than this (about 40 minutes of fast speech) is refused, not truncated."""
MAX_FILE_BYTES = 5_000_000


class TranscriptError(ValueError):
    """A transcript that cannot be graded; the message names the file and what is wrong."""


class Turn(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["interviewer", "candidate"]
    text: str
    at_s: float | None = Field(default=None, ge=0)


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

    @field_validator("rounds")
    @classmethod
    def _answers_are_gradable(cls, rounds: list[TranscriptRound]) -> list[TranscriptRound]:
        for i, r in enumerate(rounds):
            text = r.candidate_text()
            if not text:
                raise ValueError(
                    f"round {i} ({r.round}): the candidate gave no answer (no non-empty candidate turn)"
                )
            if len(text) > MAX_ANSWER_CHARS:
                raise ValueError(
                    f"round {i} ({r.round}): the answer is {len(text):,} characters, over the limit of "
                    f"{MAX_ANSWER_CHARS:,}"
                )
            if "\x00" in text:
                raise ValueError(f"round {i} ({r.round}): the answer holds NUL bytes (binary, not text)")
        return rounds


def _describe(e: ValidationError) -> str:
    parts = []
    for err in e.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"]
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
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise TranscriptError(f"{source}: not JSON: {e.msg} at line {e.lineno} column {e.colno}") from e
    if not isinstance(obj, dict):
        raise TranscriptError(
            f"{source}: expected a JSON object with id, language, rounds; got {type(obj).__name__}"
        )
    try:
        return Transcript.model_validate(obj)
    except ValidationError as e:
        raise TranscriptError(f"{source}: {_describe(e)}") from e


def load_transcript(path: Path) -> Transcript:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise TranscriptError(f"{path}: cannot read: {e.strerror}") from e
    if size > MAX_FILE_BYTES:
        raise TranscriptError(f"{path}: file is {size:,} bytes, over the limit of {MAX_FILE_BYTES:,}")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise TranscriptError(f"{path}: cannot read: {e.strerror}") from e
    return parse_transcript(data, str(path))
