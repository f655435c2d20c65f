"""The line above the question says where the candidate is; after the last round, that it is their turn to ask
(a tester saw "Round 5 of 5 · —" over the closing question)."""

from __future__ import annotations

import pytest

from agent.rubric import default_rubric
from agent.ui import views


@pytest.mark.parametrize(("lang", "ask"), [("en", "Your questions"), ("zh", "候选人提问")])
def test_the_closing_question_is_named_not_a_round(lang: str, ask: str) -> None:
    rubric = default_rubric()
    kw = {"status": "running", "round_index": 5, "n_rounds": 5, "minutes": 5, "elapsed_s": 0.0}
    closing = views.progress_html(rubric, lang, round_id=None, **kw)  # type: ignore[arg-type]
    assert ask in closing and "—" not in closing.split("coach-round'>")[1].split("<")[0]
    fifth = views.progress_html(rubric, lang, round_id="incident", **{**kw, "round_index": 4})  # type: ignore[arg-type]
    assert rubric.round("incident").title.get(lang) in fifth and "5" in fifth
