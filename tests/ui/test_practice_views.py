"""The pieces of the practice loop as pure functions: the follow-up label, one distinct quote per
dimension, what an answer covered."""

from __future__ import annotations

import pytest

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.grading.render import quote_items
from agent.rubric import default_rubric
from agent.rubric.model import DIMENSIONS, Lang
from agent.ui import views
from agent.ui.views.text import dim_title
from agent.util.messages import colon, t


def _round(*extra_turns: dict[str, object]) -> TranscriptRound:
    return TranscriptRound.model_validate(
        {
            "round": "concepts",
            "turns": [
                {"role": "interviewer", "text": "Q1"},
                {"role": "candidate", "text": "A1"},
                *extra_turns,
            ],
        }
    )


def test_follow_ups_are_counted_in_both_languages() -> None:
    tr = _round({"role": "interviewer", "text": "F1", "followup": "fu-a"})
    kind = views.question_kind(tr, "F1", max_followups=2)
    assert views.question_label(kind, "en") == "Follow-up 1 of 2"
    assert views.question_label(kind, "zh") == "追问 1/2"
    tr2 = _round(
        {"role": "interviewer", "text": "F1", "followup": "fu-a"},
        {"role": "candidate", "text": "A2"},
        {"role": "interviewer", "text": "F2", "followup": "fu-b"},
    )
    assert views.question_label(views.question_kind(tr2, "F2", max_followups=2), "en") == "Follow-up 2 of 2"
    assert views.question_label(views.question_kind(tr2, "F2", max_followups=0), "en") == "Follow-up 2"
    assert views.question_kind(_round(), "Q1", max_followups=2) is None  # the opening question
    given = _round({"role": "interviewer", "text": "G", "given": ["hbm"]})
    assert (
        views.question_label(views.question_kind(given, "G", max_followups=2), "en")
        == "The inputs you asked for"
    )


def test_one_distinct_quote_per_dimension() -> None:
    ra = RoundAssessment.model_validate(
        {
            "round": "concepts",
            "scores": dict.fromkeys(DIMENSIONS, 3),
            "total": 15,
            "quotes": {"accuracy": ["same"], "evidence": ["same", "other"], "tradeoffs": ["same"]},
        }
    )
    assert views.distinct_quotes(ra) == {"accuracy": "same", "evidence": "other"}


def test_a_missing_source_index_is_named_in_the_interface_language() -> None:
    """The sources panel with no index built: the sentence is the interface language's own, not the index's
    English status, and it names the command that builds it."""
    from types import SimpleNamespace

    from agent.ui.sources import SourcesUnavailable
    from agent.ui.tabs.shared import snippets_for

    def retriever() -> object:
        raise SourcesUnavailable("the source index is not built yet (interview index build)", not_built=True)

    ctx = SimpleNamespace(services=SimpleNamespace(retriever=retriever))
    zh = snippets_for(ctx, "Paged KV", "zh")  # type: ignore[arg-type]
    en = snippets_for(ctx, "Paged KV", "en")  # type: ignore[arg-type]
    assert zh.startswith("尚未建立 vLLM 源码索引") and "interview index build" in zh and "not built" not in zh
    assert en.startswith("No vLLM source index is built yet") and "interview index build" in en


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_a_quote_repeated_from_another_dimension_is_named_as_repeated(ui: Lang) -> None:
    """Issue 12: accuracy and trade-offs showed the same passage, one inside the other, and the banner said
    nothing; a dimension whose quote is another's exactly was named ("the same passage as …")."""
    rubric = default_rubric()
    chain = "Draws the minimal chain in order: frontend, EngineCore, scheduler, model runner, sampler."
    longer = f"{chain} The frontend lives in vllm/entrypoints/openai/."
    ra = RoundAssessment.model_validate(
        {
            "round": "concepts",
            "scores": dict.fromkeys(DIMENSIONS, 3),
            "total": 15,
            "quotes": {"accuracy": [longer], "tradeoffs": [f"  {chain} "], "validation": [longer]},
        }
    )
    assert views.distinct_quotes(ra) == {"accuracy": longer}
    md = views.round_banner_md(rubric, ra, "en", ui, last=False)
    rows = {d: next(x for x in md.splitlines() if x.startswith(f"| {dim_title(rubric, d, ui)} |")) for d in DIMENSIONS}
    same = t("ui.quote_above", ui, dim=dim_title(rubric, "accuracy", ui))
    assert same in rows["tradeoffs"] and same in rows["validation"], md
    assert chain not in rows["tradeoffs"], rows["tradeoffs"]
    # the report's quotes (Markdown, the scores' views) list the passage once and name the repeats the same way
    items = quote_items(ra, rubric, ui, str.strip)
    assert sum(chain in x for x in items) == 1, items
    again = t("report.quote_above", ui, dim=dim_title(rubric, "accuracy", ui))
    assert [x for x in items if again in x] == [
        f"*{dim_title(rubric, d, ui)}*{colon(ui)}{again}" for d in ("tradeoffs", "validation")
    ], items
