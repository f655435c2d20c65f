"""The round-finished banner and the round's scores below it say the same: the banner's "showed N of M" is the
judge's own count, and a dimension whose only quote is shown above says so instead of "no quote" (a blind
tester saw "Evidence 0 of 4" over "0 of 3" and "no quote" over a quoted dimension)."""

from __future__ import annotations

import pytest

from agent.judge.assessment import assess_answer
from agent.rubric import default_rubric
from agent.ui import views
from agent.util.messages import t

ANSWER = (
    "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand; the tail "
    "block wastes a little and the block table is metadata. I would confirm it in vllm/v1/core/kv_cache_manager.py."
)


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_banner_counts_and_quotes_agree_with_the_scores(ui: str) -> None:
    rubric = default_rubric()
    ra = assess_answer(rubric, "concepts", ANSWER, "en")
    md = views.round_banner_md(rubric, ra, "en", ui, last=False)  # type: ignore[arg-type]
    for ds in ra.dimensions:
        assert ds.coverage is not None
        said = views.dimension_note(rubric, ra, ds.dimension, "en", ui)  # type: ignore[arg-type]
        if ui == "en":
            assert f"Showed {ds.coverage.covered} of {ds.coverage.expected} " in said, (ds.dimension, said)
        else:
            assert f"{ds.coverage.expected} 项期望要点中的 {ds.coverage.covered} 项" in said, (ds.dimension, said)
    shown = views.distinct_quotes(ra)
    for d, qs in ra.quotes.items():
        if qs and d not in shown:  # its passage is shown under another dimension
            assert ("the same passage as" if ui == "en" else "同一段引用") in md


NO_NUMBERS = (
    "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand; the tail "
    "block wastes a little and the block table is metadata. I would confirm it in vllm/v1/core/kv_cache_manager.py "
    "and the step loop in vllm/v1/core/sched/scheduler.py."
)
"""Every evidence item in scope covered, and no quantities: the item on labelling numbers is moot (lexicon
moot_without_numbers), so the judge leaves it out of the count; the banner said "Showed 3 of 3 …" and then
"Next time add: … labels every number …" (issue 12)."""


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_banner_suggests_only_what_its_count_left_out(ui: str) -> None:
    rubric = default_rubric()
    ra = assess_answer(rubric, "concepts", NO_NUMBERS, "en")
    assert ra.checklist is not None and not ra.checklist.checks.numbers
    whole = [ds for ds in ra.dimensions if ds.coverage and ds.coverage.expected and not ds.coverage.missing]
    assert whole, "the answer should cover every item of some dimension"
    for ds in ra.dimensions:
        assert ds.coverage is not None
        said = views.dimension_note(rubric, ra, ds.dimension, "en", ui)  # type: ignore[arg-type]
        add = t("ui.dim_note_missing", ui, item="")  # type: ignore[arg-type]
        if not ds.coverage.missing:
            assert add not in said, (ds.dimension, said)
            assert t("ui.dim_note_all", ui) in said, (ds.dimension, said)  # type: ignore[arg-type]
        else:
            suggested = said.split(add, 1)[1]
            assert suggested.startswith(ds.coverage.missing[0]), (ds.dimension, said)


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_banner_says_when_its_scores_are_not_a_grade(ui: str) -> None:
    """The banner is the first thing a candidate reads after a round: scores a demonstration model gave
    (seen: 5/25 for a strong capacity answer through the team's judge pool, with the caveat only in the report
    further down), or scores the embedded judge gave because the configured judge failed, say so there too.
    The usual judge's banner names no judge."""
    from agent.contracts.report import JudgeInfo

    rubric = default_rubric()
    ra = assess_answer(rubric, "concepts", ANSWER, "en")
    usual = views.round_banner_md(rubric, ra, "en", ui, last=False)  # type: ignore[arg-type]
    judge = t("ui.judge", ui)  # type: ignore[arg-type]
    assert judge not in usual
    demo = ra.model_copy(
        update={"judge": JudgeInfo(kind="vllm", model="smollm2-135m-instruct", rubric_version="v")}
    )
    md = views.round_banner_md(rubric, demo, "en", ui, last=False)  # type: ignore[arg-type]
    assert judge in md and ("demonstration model" if ui == "en" else "演示模型") in md
    fell = ra.model_copy(
        update={
            "judge": JudgeInfo(
                kind="embedded", model="cues", rubric_version="v", fallback=True,
                fallback_reason="the vLLM judge timed out",
            )
        }
    )
    md = views.round_banner_md(rubric, fell, "en", ui, last=False)  # type: ignore[arg-type]
    assert t("report.fallback", ui) in md and "the vLLM judge timed out" in md  # type: ignore[arg-type]
    real = ra.model_copy(
        update={"judge": JudgeInfo(kind="vllm", model="Qwen2.5-7B-Instruct", rubric_version="v")}
    )
    assert judge not in views.round_banner_md(rubric, real, "en", ui, last=False)  # type: ignore[arg-type]
