"""Retry the answer a round closed on (issue 12: "the last answer of a round cannot be retried"): while
the round-finished banner is up, Retry shows the question that answer replied to with the answer in the
box; Send takes the new answer, and the round either opens again (the banner goes, the next question is
the new answer's follow-up) or closes again with the new answer's scores on the banner. Finish keeps the
round closed. Through the tab's handlers, as the page calls them."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

from agent.ui.context import AppContext
from agent.ui.tabs.practice import answers, retry, screen, sessions
from agent.ui.tabs.shared import progress
from agent.util.messages import t
from tests.graph.script import WEAK, strong

OUT = {"status": 6, "view": 10, "banner_visible": 11, "banner": 12, "send": 15, "retry": 18, "banner_retry": 26}
"""Places in the tab's outputs (agent/ui/tabs/practice/tab.py `outputs`)."""
RETRY_SEND = 6
"""Send's place in Retry's outputs."""
RETRY_BANNER_RETRY, RETRY_INSIGHT = 8, 10
"""The banner's Retry's and the insight's places in Retry's outputs."""

REQUEST = SimpleNamespace(username=None, session_hash="page-1")


def _send(ctx: AppContext, text: str, state: dict[str, Any], ui: str) -> list[Any]:
    return answers.send_answer(ctx, text, state, None, ui, "tab:me", REQUEST)  # type: ignore[arg-type]


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_answer_a_round_closed_on_is_retried_and_the_round_opens_again(ctx: AppContext, ui: str) -> None:
    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    good = strong(ctx.rubric, "concepts")
    out = _send(ctx, good, state, ui)  # every expected item: nothing left to ask, the round closes
    closed = out[0]
    assert closed["held"] and closed["banner"] and closed["round"] == "source-trace"
    assert closed["can_retry"] and out[OUT["retry"]]["interactive"] is True
    assert out[OUT["send"]]["interactive"] is False  # the banner's moment: Continue, or Retry

    again = retry.start_retry(ctx, closed, ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    state = again[0]
    assert state["retrying"]["closed"] and not state["held"]
    assert again[2] == good  # the answer in the box to rework
    assert ctx.rubric.round("concepts").prompt.get("en")[:40] in again[1]  # the question it replied to
    assert again[RETRY_SEND]["interactive"] is True

    out = _send(ctx, WEAK, state, ui)  # a weaker answer: a follow-up is asked, the round is open again
    reopened = out[0]
    assert reopened["round"] == "concepts" and not reopened.get("held") and not reopened["banner"]
    assert out[OUT["banner_visible"]] == {"__type__": "update", "visible": False}
    assert reopened["question"] and reopened["insight"]["earlier"] is not None


def test_cancel_goes_back_to_the_banner_and_finish_keeps_a_round_closed(ctx: AppContext) -> None:
    state = sessions.start_practice(ctx, "full", "en", "", {}, "en", "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    closed = _send(ctx, strong(ctx.rubric, "concepts"), state, "en")[0]
    again = retry.start_retry(ctx, closed, "en", "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    back = retry.cancel_retry(ctx, again, "en", "tab:me", REQUEST)  # type: ignore[arg-type]
    assert back[0]["held"] and not back[0]["retrying"] and back[RETRY_SEND]["interactive"] is False

    # a weak answer (a follow-up asked), then Finish: no retry on the banner
    state = sessions.start_practice(ctx, "full", "en", "", {}, "en", "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    state = _send(ctx, WEAK, state, "en")[0]
    assert state["round"] == "concepts"
    finished = answers.finish_round(ctx, state, "en", "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    assert finished["held"] and not finished["can_retry"]


def test_a_retry_that_closes_the_round_again_shows_its_scores_on_the_banner(ctx: AppContext) -> None:
    state = sessions.start_practice(ctx, "full", "en", "", {}, "en", "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    good = strong(ctx.rubric, "concepts")
    first = _send(ctx, good, state, "en")
    closed, had = first[0], re.search(r"— (\d+)/25", first[OUT["banner"]])
    assert had, first[OUT["banner"]]
    again = retry.start_retry(ctx, closed, "en", "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    out = _send(ctx, good + " Prefix caching reuses full blocks by their hash chain.", again, "en")
    state = out[0]
    assert state["held"] and state["banner"] and state["round"] == "source-trace" and state["can_retry"]
    assert out[OUT["banner_visible"]] == {"__type__": "update", "visible": True}
    assert isinstance(out[OUT["banner"]], str) and out[OUT["banner"]]  # the round's scores, drawn again
    assert state["insight"]["earlier"] is not None  # compared with the attempt it replaced
    # issue 12: the banner says what the retry changed, the total before → now
    title = ctx.rubric.round("concepts").title.get("en")
    head = out[OUT["banner"]].splitlines()[0]
    scored = out[OUT["view"]]["last_assessment"]  # the round closed again, with the new answer's scores
    assert scored["round"] == "concepts"
    assert f"{title} — {had[1]} → {scored['total']}/25" in head, head


def _shown(outputs: list[Any]) -> list[str]:
    """The progress lines among a handler's outputs."""
    return [x for x in outputs if isinstance(x, str) and "coach-progress" in x]


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_progress_names_the_round_being_retried_and_the_banner_has_its_retry(
    ctx: AppContext, ui: str
) -> None:
    """Issue 12: retrying from the banner, the progress line showed the next round (2 of 5) over the first
    round's question; and the banner had no Retry of its own."""
    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    out = _send(ctx, strong(ctx.rubric, "concepts"), state, ui)
    closed = out[0]
    first = t("ui.progress", ui, i=1, n=5, title=ctx.rubric.round("concepts").title.get(ui))
    second = t("ui.progress", ui, i=2, n=5, title=ctx.rubric.round("source-trace").title.get(ui))
    assert second in progress(ctx, closed, ui)  # the banner's moment: the next round waits

    again = retry.start_retry(ctx, closed, ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    assert first in progress(ctx, again[0], ui)  # as the language switch renders it
    lines = _shown(again)  # and as Retry shows it
    assert lines and first in lines[0] and second not in lines[0], lines
    assert "data-paused" in lines[0]  # the retried round's clock, stopped where its answer left it
    assert out[OUT["banner_retry"]] == {"__type__": "update", "visible": True}  # the banner's own Retry
    assert again[RETRY_BANNER_RETRY] == {"__type__": "update", "visible": False}  # the banner's Retry, while retrying

    back = retry.cancel_retry(ctx, again[0], ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    assert second in _shown(back)[0]
    assert back[RETRY_BANNER_RETRY] == {"__type__": "update", "visible": True}  # the banner's Retry, back


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_banner_of_a_one_round_plan_says_why_there_is_no_retry(ctx: AppContext, ui: str) -> None:
    """Issue 12: on a one-round plan Retry stayed off after the end without a word. The round that finishes
    the session says so on its banner; a round of a longer plan has the banner's Retry instead."""
    state = sessions.start_practice(ctx, "concepts", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    out = _send(ctx, strong(ctx.rubric, "concepts"), state, ui)
    assert out[0]["status"] == "done" and not out[0]["can_retry"]
    assert t("ui.retry_off_finished", ui) in out[OUT["banner"]]
    assert out[OUT["banner_retry"]] == {"__type__": "update", "visible": False}

    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    out = _send(ctx, strong(ctx.rubric, "concepts"), state, ui)
    assert t("ui.retry_off_finished", ui) not in out[OUT["banner"]]


OTHER = {"en": "zh", "zh": "en"}


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_a_round_closed_with_finish_says_why_there_is_no_retry(ctx: AppContext, ui: str) -> None:
    """Issue 12: a round of a longer plan closed with Finish had no Retry on its banner and no word why (the
    round that finishes the session says so, `ui.retry_off_finished`); the language switch says it again."""
    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    state = _send(ctx, WEAK, state, ui)[0]  # a follow-up is asked: the round is open
    out = answers.finish_round(ctx, state, ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    assert out[0]["banner"] and out[0]["status"] != "done" and not out[0]["can_retry"]
    assert out[OUT["banner_retry"]] == {"__type__": "update", "visible": False}
    assert t("ui.retry_off_finish", ui) in out[OUT["banner"]]
    assert t("ui.retry_off_finished", ui) not in out[OUT["banner"]]
    switched = screen.rerender(ctx, out[0], OTHER[ui], "tab:me")  # type: ignore[arg-type]
    assert t("ui.retry_off_finish", OTHER[ui]) in switched[1]  # the banner, in the other language

    # a round closed by an answer has the banner's Retry, not that sentence
    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    out = _send(ctx, strong(ctx.rubric, "concepts"), state, ui)
    assert out[OUT["banner_retry"]] == {"__type__": "update", "visible": True}
    assert t("ui.retry_off_finish", ui) not in out[OUT["banner"]]


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_continue_while_retrying_says_the_retry_was_not_sent(ctx: AppContext, ui: str) -> None:
    """Issue 12: Retry on the banner, then Continue, dropped the retry without a word. Continue still moves on
    (the answer the round closed on and its scores stand); the status line says so, in both languages."""
    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    closed = _send(ctx, strong(ctx.rubric, "concepts"), state, ui)[0]
    retrying = retry.start_retry(ctx, closed, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    out = answers.continue_round(ctx, retrying, ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    moved = out[0]
    assert not moved.get("retrying") and not moved.get("held") and moved["round"] == "source-trace"
    assert t("ui.retry_not_sent", ui) in out[OUT["status"]]
    assert all(t("ui.retry_not_sent", lang) in out[-2][lang] for lang in ("en", "zh"))  # the switch's line
    # Continue with no retry open says nothing of one
    out = answers.continue_round(ctx, closed, ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    assert t("ui.retry_not_sent", ui) not in out[OUT["status"]]


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_while_an_answer_is_retried_the_insight_says_the_next_question_waits_for_it(
    ctx: AppContext, ui: str
) -> None:
    """Issue 12: retrying the last answer left the insight saying "Next: Follow-up 1 of 2" beside the question
    being answered again; it says the follow-up comes once the retried answer is sent, and Cancel puts back
    the plain "Next"."""
    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", REQUEST)[0]  # type: ignore[arg-type]
    state = _send(ctx, WEAK, state, ui)[0]  # a follow-up is asked: the insight names it as next
    label = screen.views.question_label(state["kind"], ui)  # type: ignore[arg-type]
    assert label and state["can_retry"]
    plain = f"**{t('ui.insight_next', ui, label=label)}**"
    waiting = f"**{t('ui.insight_next', ui, label=t('ui.insight_next_after_retry', ui, label=label))}**"
    again = retry.start_retry(ctx, state, ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    assert waiting in again[RETRY_INSIGHT] and plain not in again[RETRY_INSIGHT], again[RETRY_INSIGHT]
    back = retry.cancel_retry(ctx, again[0], ui, "tab:me", REQUEST)  # type: ignore[arg-type]
    assert plain in back[RETRY_INSIGHT] and waiting not in back[RETRY_INSIGHT], back[RETRY_INSIGHT]
    # the language switch renders it as the tab has it
    assert waiting in screen.rerender(ctx, again[0], ui, "tab:me")[0]  # type: ignore[arg-type]
