"""The round's clock counts the time spent in the round, not time away from it (issue 12).

A round opens as soon as the one before it closes, while the candidate still reads the round-finished
banner; `start_round_clock` (the app's Continue) moves the round's start, and the time its opening
question was asked, to now, as long as the round has no answer yet. Time spent reading the scores no
longer counts against the next round's budget.

A session left and opened again later (a reload, Resume, `interview practice --session`) does not count the
time away against the round (it did: nine minutes away and the first answer back closed the round on time):
`rejoin` moves the session's clock base by the time since its last recorded step beyond `THINKING_S`, the
time the person may have spent thinking on the open page before they left (or reloaded it).
Times in the session (`at_s`) are then on that clock, which leaves the time away out.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from agent.graph.errors import SessionBusy, SessionStoreError
from agent.graph.session import _held, _store_guard, get_session
from agent.graph.state import GraphContext
from agent.graph.store import SessionStore, thread_config
from agent.graph.view import SessionView, session_view


def _not_started(v: dict[str, Any]) -> bool:
    """The round under way has no answer yet (its opening question is the only turn)."""
    if v.get("mode") != "practice" or not v.get("run"):
        return False
    if v["phase"] == "questions":
        return not v.get("asked")
    if v["phase"] != "rounds" or not v.get("transcript"):
        return False
    turns = v["transcript"][-1].get("turns", [])
    return all(t["role"] == "interviewer" for t in turns)


@_store_guard("the round's clock was not moved; it runs from when the round opened")
def start_round_clock(session_id: str, *, at_s: float | None = None, owner: str | None = None) -> SessionView:
    """The candidate starts the round under way now (at_s: seconds since the session started, default the
    wall clock): its clock counts from here. Nothing changes once the round has an answer."""
    with _held(session_id, owner) as (store, row, ctx, v):
        if not _not_started(v):
            return session_view(row, v)
        at = float(at_s) if at_s is not None else time.time() - v["clock_base"]
        if at <= v["run"]["started_s"]:
            return session_view(row, v)
        update: dict[str, Any] = {"run": {**v["run"], "started_s": at}, "clock_s": max(v["clock_s"], at)}
        if v["phase"] == "rounds":
            last = v["transcript"][-1]
            turns = [{**t, "at_s": at} if k == 0 else t for k, t in enumerate(last.get("turns", []))]
            update["transcript"] = [*v["transcript"][:-1], {**last, "turns": turns}]
        v = _written(store, session_id, ctx, update)
    return session_view(row, v)


def _written(
    store: SessionStore, session_id: str, ctx: GraphContext, update: dict[str, Any]
) -> dict[str, Any]:
    """The session's state with `update` written as if `choose` had just asked the pending question: the
    graph waits for its answer again. Its values after."""
    cfg = thread_config(session_id)
    store.graph.update_state(store.graph.get_state(cfg).config, {**update, "route": "wait"}, as_node="choose")
    store.graph.invoke(None, cfg, context=ctx, durability="sync")
    return dict(store.graph.get_state(cfg).values)


THINKING_S = 120.0
"""Time since the session's last step that still counts when the person comes back: they may have been
thinking on the open page (a reload after a minute and a half took that minute and a half off the clock)."""
PAUSE_TOLD_S = 60.0
"""Time away worth telling the person about when they come back."""


class Rejoined(NamedTuple):
    view: SessionView
    paused_s: float
    """The time away left out of the clock (0 when none was)."""

    @property
    def told_minutes(self) -> int | None:
        """The time away in whole minutes (at least 1), when it is worth telling the person
        (`PAUSE_TOLD_S`); None when it is not."""
        return max(1, round(self.paused_s / 60)) if self.paused_s >= PAUSE_TOLD_S else None


def rejoin(session_id: str, *, at_s: float | None = None, owner: str | None = None) -> Rejoined:
    """The person opens again a session under way: its clock goes on from the session's last recorded step
    (an answer, a question asked, Continue) plus `THINKING_S`, so the rest of the time since then is not
    counted. at_s: now, in seconds
    on the session's clock (default the wall clock; a session whose answers gave their times keeps its
    clock unless at_s is given). A session another process drives (a terminal) is read as it is: its clock
    is that process's; so is one whose store cannot be written now (locked, read-only): its clock goes on
    counting, and the step that needs the store says what is wrong."""
    try:
        return _rejoin(session_id, at_s, owner)
    except (SessionBusy, SessionStoreError):
        return Rejoined(get_session(session_id, owner=owner), 0.0)


@_store_guard("the session's clock was not paused; it counts the time away")
def _rejoin(session_id: str, at_s: float | None, owner: str | None) -> Rejoined:
    with _held(session_id, owner) as (store, row, ctx, v):
        if v["phase"] == "done" or not v.get("run"):
            return Rejoined(session_view(row, v), 0.0)
        if at_s is not None:
            now = float(at_s)
        elif v["simulated"]:
            now = v["clock_s"]
        else:
            now = time.time() - v["clock_base"]
        away = now - v["clock_s"] - THINKING_S
        if away <= 0 or store.graph.get_state(thread_config(session_id)).next != ("wait",):
            return Rejoined(session_view(row, v), 0.0)
        v = _written(store, session_id, ctx, {"clock_base": v["clock_base"] + away})
    return Rejoined(session_view(row, v), away)
