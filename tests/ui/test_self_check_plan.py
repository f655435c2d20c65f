"""The self-check round in the plan controls of Practice and Co-pilot, without a browser: its place in the
plan list, the box that adds it to a plan, the plan's name in both languages, and the controls a resumed
session sets."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import gradio as gr

from agent import graph
from agent.ui import views
from agent.ui.context import AppContext
from agent.ui.tabs import shared
from agent.ui.tabs.copilot import decisions, turns
from agent.ui.tabs.copilot import sessions as copilot_sessions
from agent.ui.tabs.practice import screen, sessions
from agent.util.messages import t


def test_the_plan_list_offers_the_self_check_alone_and_names_plans_that_add_it(ctx: AppContext) -> None:
    en, zh = ctx.plan_choices("en"), ctx.plan_choices("zh")
    assert [v for _, v in en][-3:] == ["project", "self-check", "redo"]
    assert ("Self-check: four questions, 8 min", "self-check") in en
    assert ("自检：四道题，8 分钟", "self-check") in zh
    assert ctx.plan_name("full self-check", "en") == "Full mock: five rounds, 90 min + self-check"
    assert ctx.plan_name("full self-check", "zh") == "完整模拟：五轮，90 分钟 + 自检"
    assert (
        ctx.plan_name("redo abc self-check", "en")
        == "Redo the two weakest rounds of a session: abc + self-check"
    )
    assert ctx.plan_name("self-check", "zh") == "自检：四道题，8 分钟"
    assert (
        ctx.plan_name("full", "en") == ctx.plan_name("full fresh", "en") == "Full mock: five rounds, 90 min"
    )
    assert shared.self_check_info(ctx, "en").startswith("Four self-check questions after the last round")
    assert "8 分钟" in shared.self_check_info(ctx, "zh")


def _start(ctx: AppContext, plan: str, self_check: bool, prev: str = "") -> list[Any]:
    request = SimpleNamespace(username=None, session_hash="page-1")
    return sessions.start_practice(ctx, plan, "en", prev, {}, "en", "tab:me", request, self_check)  # type: ignore[arg-type]


def test_the_box_adds_the_round_to_the_plan_and_a_resumed_session_ticks_it(ctx: AppContext) -> None:
    out = _start(ctx, "full", True)
    state = out[0]
    view = graph.get_session(state["sid"], owner="tab:me")
    assert view.plan == "full self-check" and view.n_rounds == 6
    plan, lang, prev, box = screen.plan_controls(view)
    assert (plan["value"], lang["value"], prev["value"], box["value"]) == ("full", "en", "", True)
    # the box (on while the session runs: it sets up the next Start, issue 12), then the speech's note and the banner's Retry (the API's earlier
    # outputs keep their places), then the status line and that note in both languages (states, not in the API)
    assert out[-5] == {**box, "interactive": True}
    assert out[-2]["zh"] == f"会话 {state['sid']} 已开始。" and out[-2]["en"] == out[6]
    # the self-check plan itself: the box adds nothing more
    alone = graph.get_session(_start(ctx, "self-check", True)[0]["sid"], owner="tab:me")
    assert alone.plan == "self-check" and alone.n_rounds == 1
    # unticked: the plan as chosen
    plain = graph.get_session(_start(ctx, "concepts", False)[0]["sid"], owner="tab:me")
    assert plain.plan == "concepts" and screen.plan_controls(plain)[3]["value"] is False


def test_the_copilot_box_adds_the_round_as_practice_does(ctx: AppContext) -> None:
    request = cast(gr.Request, SimpleNamespace(username=None, session_hash="page-1"))

    def start(plan: str, box: bool) -> list[Any]:
        return copilot_sessions.start_copilot(ctx, plan, "zh", {}, "en", "tab:me", request, box)

    out = start("capacity", True)
    view = graph.get_session(out[0]["sid"], owner="tab:me")
    assert view.plan == "capacity self-check" and view.n_rounds == 2 and view.mode == "copilot"
    plan, lang, box, prev = out[-5:-1]  # the set-up as the session has it: the API's last outputs
    assert box["interactive"] is True and prev["value"] == ""
    assert (plan["value"], lang["value"], box["value"]) == ("capacity", "zh", True)
    assert graph.get_session(start("self-check", True)[0]["sid"], owner="tab:me").plan == "self-check"
    assert graph.get_session(start("full", False)[0]["sid"], owner="tab:me").plan == "full"
    # a resumed session sets the box as it has it; a step within the session leaves the set-up alone
    resumed = copilot_sessions.resume_copilot(ctx, view.session_id, {}, "en", "tab:me", request)
    assert resumed[-3]["value"] is True
    saved = turns.record_answer(
        ctx, "Weights: 40e9 x 2 B = 80e9 B (derived).", resumed[0], "en", "tab:me", request
    )
    closed = turns.close_copilot_round(ctx, saved[0], "en", "tab:me", request)
    assert saved[-5:-1] == closed[-5:-1] == [gr.update()] * 4
    assert closed[0]["round"] == "self-check" and closed[0]["question"].startswith("自检第 1 题")
    # the closed round's draft is no longer there to act on: Accept and Override are refused (and off)
    assert saved[0]["draft"]["round"] == "capacity" and closed[0]["draft"] is None
    refused, both = decisions.decide(ctx, True, closed[0], "accuracy", 3, "", "rita", "en", request)
    assert refused.startswith("⚠️") and "under way" in refused and both["en"] == refused
    assert both["zh"].startswith("⚠️") and "这一轮还没有草拟分数" in both["zh"]
    # a redo needs the session to redo: refused without one, box or not
    assert "session to redo" in start("redo", True)[11]
    assert shared.plan_with_self_check("redo abc", True) == "redo abc self-check"


def test_the_insight_does_not_give_the_next_questions_away(ctx: AppContext) -> None:
    """After the first of the four answers, the round's lacking items are the first question's (and those
    every round shares), not what the next three questions ask for; once the round is over, all of them."""
    rubric = ctx.rubric
    v = graph.start_session("self-check", "en", session_id="insight-sc", owner="tab:me")
    v = graph.answer(v.session_id, "A 5 needs more than a right answer.", at_s=30, owner="tab:me")
    ra = v.last_assessment
    assert ra is not None and v.round == "self-check"
    rnd = rubric.round("self-check")
    later = {e for q in rnd.questions for e in q.evidence} | {e for f in rnd.followups for e in f.probes}
    assert views.not_asked_yet(rubric, ra) == later
    md = views.insight_md(rubric, ra, [], "en", "en", round_over=False)
    texts = {i.id: i.text.en for i in rubric.evidence("self-check")}
    assert texts["common-rollback"] in md
    assert not [e for e in later if texts[e] in md]
    # counted on the items the judge measured the answer against (an answer with no quantities: not the one on
    # labelling them, `judge.scoring.scored_items`), those the next questions ask counted but not named
    judged = {i.id for i in views.expected_items(rubric, ra)}
    lacking = judged - set(views.covered_ids(ra))
    assert f"The round still lacks ({len(lacking)} of {len(judged)})" in md
    assert t("ui.insight_held", "en", n=len(lacking & later)) in md
    over = views.insight_md(rubric, ra, [], "en", "en", round_over=True)
    assert f"({len(lacking)} of {len(judged)})" in over  # once the round is over, the same count, all named
    assert t("ui.insight_held", "en", n=len(lacking & later)) not in over
