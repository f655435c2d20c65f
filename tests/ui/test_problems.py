"""A file's structure refused by its contract, said in the reader's language (agent/ui/views/problems.py):
each of pydantic's bounds as it is, an exclusive one not said as inclusive."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from agent.rubric.model import Lang
from agent.ui.views.problems import problem_text, problems_text


class Bounded(BaseModel):
    at_least: int = Field(ge=1)
    more_than: int = Field(gt=0)
    at_most: int = Field(le=5)
    less_than: int = Field(lt=6)


def _errors() -> list[dict[str, object]]:
    with pytest.raises(ValidationError) as e:
        Bounded(at_least=0, more_than=0, at_most=6, less_than=6)
    return [dict(err) for err in e.value.errors(include_url=False)]


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "en",
            [
                "at_least: must be at least 1",
                "more_than: must be more than 0",
                "at_most: must be at most 5",
                "less_than: must be less than 6",
            ],
        ),
        ("zh", ["at_least：应不小于 1", "more_than：应大于 0", "at_most：应不大于 5", "less_than：应小于 6"]),
    ],
)
def test_each_bound_is_said_as_it_is(lang: Lang, said: list[str]) -> None:
    assert [problem_text(e, lang) for e in _errors()] == said


def test_more_than_shown_are_counted() -> None:
    text = problems_text(_errors(), "en")
    assert text.endswith(" (and 1 more)") and "less_than" not in text, text
    assert problems_text(_errors(), "zh").endswith("（另有 1 处）")
