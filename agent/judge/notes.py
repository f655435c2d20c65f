"""The judge's notes on a round (not passed, below the senior bar, a wrong claim, graded without snippets…),
each written in every language when the round is scored (`contracts.report.JudgeNote`): a report shows them
in its reader's language, and Practice words them to the candidate where the interviewer's reads "the
candidate".

A field of a note is the same in each language (a number, the candidate's words, a path) or differs by
language (a round's or a dimension's title, a misconception's claim): a `Text` or a dict by language."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from agent.contracts.report import JudgeNote
from agent.rubric.model import Lang, Text
from agent.util.messages import LANGS, t

Field = object
"""A note's field: a `Text` or a dict by language (the text in the note's language), or anything else (as
it is)."""


def _in(value: Field, lang: Lang) -> object:
    if isinstance(value, Text):
        return value.get(lang)
    if isinstance(value, Mapping) and set(value) <= set(LANGS) and value:
        return value.get(lang, next(iter(value.values())))
    return value


def _each(say: Callable[..., str], fields: Mapping[str, Field]) -> dict[Lang, str]:
    """`say(lang, **fields)` in each language, each field in that language."""
    return {lang: say(lang, **{k: _in(v, lang) for k, v in fields.items()}) for lang in LANGS}


def lexicon_note(key: str, message: Text, *, to_candidate: Text | None = None, **fields: Field) -> JudgeNote:
    """The lexicon's message `key` (`message`; `to_candidate`: its wording to the candidate) filled in."""
    return JudgeNote(
        key=key,
        text=_each(message.fill, fields),
        to_candidate=None if to_candidate is None else _each(to_candidate.fill, fields),
    )


def catalogue_note(key: str, **fields: Field) -> JudgeNote:
    """The message catalogue's `key` (messages/*.yaml) filled in."""
    return JudgeNote(key=key, text=_each(lambda lang, **filled: t(key, lang, **filled), fields))
