"""A candidate who comes back to a session after time away (a reload, Resume) is told the round's clock was
paused, and the next answer is not closed on time because of the break (a blind tester was away nine
minutes; the first answer back ended the round)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from agent.graph import clock, session
from agent.ui.context import AppContext
from agent.ui.tabs.practice import answers, sessions
from agent.util.messages import t

FIRST = "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand."
SECOND = "Continuous batching reschedules at every step, bounded by the token budget and free KV blocks."


def _later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The wall clock, as the session's modules read it, `seconds` ahead."""
    real = time.time
    for module in (clock, session):
        monkeypatch.setattr(module, "time", SimpleNamespace(time=lambda: real() + seconds))


@pytest.mark.parametrize("how", ["reload", "resume"])
@pytest.mark.parametrize("ui", ["en", "zh"])
def test_coming_back_pauses_the_round_clock(
    ctx: AppContext, monkeypatch: pytest.MonkeyPatch, how: str, ui: str
) -> None:
    request = SimpleNamespace(username=None, session_hash="page-1")
    state = sessions.start_practice(ctx, "concepts", "en", "", {}, ui, "tab:me", request)[0]  # type: ignore[arg-type]
    live = answers.send_answer(ctx, FIRST, state, None, ui, "tab:me", request)[0]  # type: ignore[arg-type]
    minutes = ctx.rubric.round("concepts").minutes
    _later(monkeypatch, minutes * 60 - 20)  # away for nearly the whole round
    if how == "reload":
        out = sessions.restore_practice(ctx, live["sid"], {}, ui, "tab:me", request)  # type: ignore[arg-type]
    else:
        out = sessions.resume_practice(ctx, live["sid"], live, ui, "tab:me", request)  # type: ignore[arg-type]
    away = minutes * 60 - 20 - clock.THINKING_S  # what the clock leaves out: beyond the thinking time
    told = t("ui.clock_paused", ui, minutes=round(away / 60))  # type: ignore[arg-type]
    assert any(isinstance(o, str) and told in o for o in out), f"no {told!r} on screen"
    back = out[0]
    after = answers.send_answer(ctx, SECOND, back, None, ui, "tab:me", request)[0]  # type: ignore[arg-type]
    assert after["round"] == "concepts" and not after.get("banner"), "the break closed the round on time"


@pytest.mark.parametrize("how", ["reload", "resume"])
@pytest.mark.parametrize("ui", ["en", "zh"])
def test_coming_back_between_rounds_shows_the_banner_and_the_next_round_waits(
    ctx: AppContext, how: str, ui: str
) -> None:
    """A blind tester reloaded while the round-finished banner waited: the banner was gone and the next round's
    question was up with its clock running (00:27 / 15:00), though its clock starts when the candidate
    continues. Back between rounds, the banner of the round that closed is shown again and the next round
    waits at 00:00 until Continue."""
    from agent.ui import views

    request = SimpleNamespace(username=None, session_hash="page-1")
    state = sessions.start_practice(ctx, "full", "en", "", {}, ui, "tab:me", request)[0]  # type: ignore[arg-type]
    live = answers.send_answer(ctx, FIRST, state, None, ui, "tab:me", request)[0]  # type: ignore[arg-type]
    closed = answers.finish_round(ctx, live, ui, "tab:me", request)  # type: ignore[arg-type]
    assert closed[0]["held"] and closed[11] == {"__type__": "update", "visible": True}
    if how == "reload":
        out = sessions.restore_practice(ctx, live["sid"], {}, ui, "tab:me", request)  # type: ignore[arg-type]
    else:
        out = sessions.resume_practice(ctx, live["sid"], {}, ui, "tab:me", request)  # type: ignore[arg-type]
    back, shown_progress, question, banner_visible, banner = out[0], out[2], out[3], out[11], out[12]
    assert back["held"] and banner_visible == {"__type__": "update", "visible": True}
    assert views.round_title(ctx.rubric, "concepts", ui) in banner  # type: ignore[arg-type]
    assert t("ui.retry_off_finish", ui) not in banner  # nothing says how the round ended: it is not known here
    waiting = out[10]["question"]  # the next round's opening question, in the session
    assert waiting and waiting[:40] not in question and "00:00" in shown_progress
    # Continue: the next round's question, its clock from now
    on = answers.continue_round(ctx, back, ui, "tab:me", request)  # type: ignore[arg-type]
    assert back["round"] != "concepts" and on[0]["round"] == back["round"] and not on[0].get("held")
    assert waiting[:40] in on[3]
