"""The insight after an answer, and the round-finished banner, count one set of items per round (issue 12: a
blind tester saw "The round still lacks (4 of 8)" under six ticked items, and "8" become "20" when the round
ended: the ticks counted items the follow-ups probe, the "of 8" left them out until the round was over).

What is ticked (this answer's items and those covered earlier in the round) and what is still lacking add up
to the round's total, the judge's own set (`judge.scoring.scored_items`), at every answer and at the round's
end; the items a follow-up may still ask are counted as lacking but not named while the round is open."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import gradio as gr
import pytest

from agent import graph
from agent.judge.scoring import scored_items
from agent.rubric import default_rubric
from agent.rubric.model import Lang
from agent.ui import views
from agent.ui.context import AppContext
from agent.ui.tabs.practice import answers, retry, screen, sessions
from agent.util.messages import t

FIRST = (
    "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand; the tail "
    "block wastes a little and the block table is metadata. I would confirm it in vllm/v1/core/kv_cache_manager.py."
)
SECOND = (
    "Continuous batching reschedules at every step boundary: requests join and leave at any step, bounded by the "
    "token budget and by KV capacity. Prefill and decode do not always share a step; it depends on the budget."
)

INSIGHT = 13
"""The insight among a Practice handler's outputs (`screen.practice_out`)."""


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)


def lacks(md: str, ui: Lang) -> tuple[int, int]:
    """(N, M) of "still lacks (N of M)" / "（M 项中的 N 项）", or of the sentence said when none is named ("still lacks
    N of its M expected items" / "仍缺少 N 项期望要点（共 M 项"); (0, M) when everything is covered."""
    m = re.search(r"\((\d+) of (\d+)\)|lacks (\d+) of its (\d+) ", md) if ui == "en" else None
    if m is not None:
        return (int(m[1]), int(m[2])) if m[1] else (int(m[3]), int(m[4]))
    m = re.search(r"（(\d+) 项中的 (\d+) 项）|仍缺少 (\d+) 项期望要点（共 (\d+) 项", md)
    assert m is not None, md
    return (int(m[2]), int(m[1])) if m[1] else (int(m[3]), int(m[4]))


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_ticked_and_lacking_add_up_to_one_total_per_round(ui: Lang) -> None:
    rubric = default_rubric()
    v = graph.start_session("concepts", "en", session_id=f"counts-{ui}")
    v = graph.answer(v.session_id, FIRST, at_s=30)
    ra = v.last_assessment
    assert ra is not None and ra.checklist is not None and v.round == "concepts" and v.question
    probed = {e for f in rubric.round("concepts").followups for e in f.probes}
    mine = views.covered_ids(ra)
    assert set(mine) & probed, "the answer covers an item a follow-up probes (what the tester's did)"
    total = len(scored_items(rubric, ra.checklist))

    md = views.insight_md(rubric, ra, mine, "en", ui, round_over=False)
    n, m = lacks(md, ui)
    assert m == total, md
    assert n + md.count("✓") == m, md

    over = views.insight_md(rubric, ra, mine, "en", ui, round_over=True)
    n_over, m_over = lacks(over, ui)
    assert (n_over, m_over) == (n, m), over  # the round's end changes which are named, not the count

    # the banner counts the same set: its round line says how many of the same total were shown
    banner = views.round_banner_md(rubric, ra, "en", ui, last=False)
    assert t("ui.banner_items", ui, covered=m - n, total=m) in banner, banner

    # the next answer, on the follow-up: covered earlier stays ticked, the total stays, or the text says why
    v = graph.answer(v.session_id, SECOND, at_s=60)
    ra2 = v.last_assessment
    assert ra2 is not None and ra2.round == "concepts"
    mine2 = views.answer_covered(ra2, SECOND, mine)
    md2 = views.insight_md(rubric, ra2, mine2, "en", ui, round_over=False, counted_before=views.counted_ids(rubric, ra))
    n2, m2 = lacks(md2, ui)
    assert n2 + md2.count("✓") == m2, md2
    assert set(mine) <= set(views.covered_ids(ra2)) and n2 < n, md2
    if m2 != m:
        assert t("ui.insight_recount", ui, total=m2, before=m, why="").rstrip("：: ") in md2, md2


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_a_changed_total_is_explained(ui: Lang) -> None:
    """An answer with no figures leaves labelling figures out of the count (`moot_without_numbers`); the next
    one gives figures and the item counts again: the insight says the total moved and why."""
    rubric = default_rubric()
    v = graph.start_session("concepts", "en", session_id=f"recount-{ui}")
    v = graph.answer(v.session_id, FIRST, at_s=30)
    ra = v.last_assessment
    assert ra is not None and ra.checklist is not None and not ra.checklist.checks.numbers
    v = graph.answer(
        v.session_id, "With block size 16 and 2,000 tokens per step (given), 64 requests fit; I measured 40 ms TTFT.",
        at_s=60,
    )
    ra2 = v.last_assessment
    assert ra2 is not None and ra2.checklist is not None and ra2.checklist.checks.numbers
    before = views.counted_ids(rubric, ra)
    after = views.counted_ids(rubric, ra2)
    assert len(after) == len(before) + 1
    md = views.insight_md(rubric, ra2, [], "en", ui, round_over=False, counted_before=before)
    why = t("ui.insight_recount_figures", ui)
    assert t("ui.insight_recount", ui, total=len(after), before=len(before), why=why) in md, md
    same = views.insight_md(rubric, ra2, [], "en", ui, round_over=False, counted_before=after)
    assert why not in same


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_practice_says_why_the_total_moved_and_keeps_it_on_a_switch(ctx: AppContext, ui: Lang) -> None:
    """Through the tab's handlers: the second answer's insight names the total's move from the first answer's
    (the state carries what the first counted), a retry of it compares with the same first answer, and the
    language switch renders the same."""
    request = cast(gr.Request, SimpleNamespace(username=None, session_hash="page-1"))
    owner = "tab:me"
    state = sessions.start_practice(ctx, "concepts", "en", "", {}, ui, owner, request)[0]
    out = answers.send_answer(ctx, FIRST, state, None, ui, owner, request)
    state, first = out[0], out[INSIGHT]
    n, m = lacks(first, ui)
    assert n + first.count("✓") == m
    figures = "With block size 16 and 2,000 tokens per step (given), 64 requests fit; I measured 40 ms TTFT."
    out = answers.send_answer(ctx, figures, state, None, ui, owner, request)
    state, second = out[0], out[INSIGHT]
    n2, m2 = lacks(second, ui)
    assert m2 == m + 1 and n2 + second.count("✓") == m2, second
    said = t("ui.insight_recount", ui, total=m2, before=m, why=t("ui.insight_recount_figures", ui))
    assert said in second, second
    other: Lang = "zh" if ui == "en" else "en"
    switched = screen.rerender(ctx, state, other, owner)[0]
    assert t("ui.insight_recount", other, total=m2, before=m, why=t("ui.insight_recount_figures", other)) in switched
    # the figures answer retried with none: compared with the first answer's count again, so nothing moved
    state = retry.start_retry(ctx, state, ui, owner, request)[0]
    again = answers.send_answer(ctx, SECOND, state, None, ui, owner, request)[INSIGHT]
    assert lacks(again, ui)[1] == m and t("ui.insight_recount_figures", ui) not in again, again
