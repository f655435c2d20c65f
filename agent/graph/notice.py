"""A sentence the session says to whoever shows it (bad input, a round closed by the clock, source snippets
unavailable), kept as its message key (messages/interview.yaml) and its fields rather than as text, so a
caller renders it in any language: the interface's, which the person may switch, not only the session's.

A field is a number, a text that reads the same in either language (an error's own words), or a text in
each language (a round's title, a reason that is itself a message: `each`). Plain JSON, so the graph's state
keeps it as it is (`state.notice`); a state written before these existed holds the rendered text instead,
and `said` reads both."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, StrictFloat, StrictInt

from agent.rubric.model import Lang
from agent.util.messages import LANGS, t

FieldValue = StrictInt | StrictFloat | str | dict[Lang, str]


class Notice(BaseModel):
    """A message `key` and its `fields`; `text(lang)` is the sentence in `lang`."""

    key: str
    fields: dict[str, FieldValue] = Field(default_factory=dict)

    def text(self, lang: Lang) -> str:
        return t(self.key, lang, **{k: v[lang] if isinstance(v, dict) else v for k, v in self.fields.items()})


def notice(key: str, **fields: FieldValue) -> Notice:
    return Notice(key=key, fields=fields)


def for_mode(key: str, mode: str) -> str:
    """The key of a message worded for whom it is said to: `key.practice` (to the candidate, "you"), or
    `key.copilot` (to the interviewer, "the candidate")."""
    return f"{key}.{'copilot' if mode == 'copilot' else 'practice'}"


def each(key: str, **fields: object) -> dict[Lang, str]:
    """The message `key` in each language: a field that is itself a sentence of the catalogue."""
    return {lang: t(key, lang, **fields) for lang in LANGS}


def said(stored: Any) -> Notice | None:
    """A notice as the state or a view stores it: a key and fields (a dict), or None. A plain text (written
    before notices were keyed) is not one: `text_of` shows it as it is."""
    return Notice.model_validate(stored) if isinstance(stored, dict) else None


def text_of(stored: Any, lang: Lang) -> str | None:
    """The stored notice in `lang`; a plain text as it is."""
    if stored is None:
        return None
    keyed = said(stored)
    return keyed.text(lang) if keyed else str(stored)
