"""Retry the last answer of the round under way (issue 12): the candidate answers the same question again
before the round closes.

The session goes back to the checkpoint where it waited for that answer and takes the new one from
there, so the follow-up, the hidden inputs given and the draft scores all follow from the new answer, as
if the first had not been sent. Nothing is lost: the new answer's turn keeps the earlier attempts
(`earlier`: the text and time of each), and the checkpoints of the first attempt stay in the store.
The round's clock is not turned back.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.types import StateSnapshot

from agent.graph.inputs import check_text
from agent.graph.session import _held, _resume, _round_chars, _store_guard
from agent.graph.state import Inbox
from agent.graph.store import SessionStore, thread_config
from agent.graph.view import SessionView, session_view
from agent.util import messages


def _answers(values: dict[str, Any]) -> int:
    return sum(
        1 for r in values.get("transcript", []) for t in r.get("turns", []) if t["role"] == "candidate"
    )


def last_answer(values: dict[str, Any]) -> dict[str, Any] | None:
    """The round under way's last answer (a turn), when there is one to retry."""
    if values.get("phase") != "rounds" or values.get("mode") != "practice" or not values.get("transcript"):
        return None
    rounds = values["rounds"]
    idx = values["round_index"]
    current = values["transcript"][-1]
    if idx >= len(rounds) or current.get("round") != rounds[idx]["round"]:
        return None
    return next((t for t in reversed(current.get("turns", [])) if t["role"] == "candidate"), None)


def _before_last_answer(store: SessionStore, session_id: str, values: dict[str, Any]) -> StateSnapshot | None:
    """The checkpoint, on the session's own history, where it waited for its last answer."""
    want = _answers(values) - 1
    snap = store.graph.get_state(thread_config(session_id))
    while snap.parent_config is not None:
        snap = store.graph.get_state(snap.parent_config)
        v = snap.values or {}
        if snap.next == ("wait",) and _answers(v) == want and v.get("round_index") == values["round_index"]:
            return snap
        if _answers(v) < want:
            return None
    return None


@_store_guard("the retry was not recorded; the session still waits at the same question, send it again")
def retry_answer(
    session_id: str, text: str | bytes, *, at_s: float | None = None, owner: str | None = None
) -> SessionView:
    """The candidate's new answer to the question their last answer replied to, while its round is open.

    at_s: seconds since the session started (default: the wall clock). A view with a `message` (and the
    session as it was) when there is nothing to retry or the text cannot be recorded."""
    with _held(session_id, owner) as (store, row, ctx, v):
        lang = v["language"]
        last = last_answer(v)
        fork = _before_last_answer(store, session_id, v) if last is not None else None
        if last is None or fork is None:
            return session_view(row, v, messages.t("interview.nothing_to_retry", lang))
        so_far = max(0, _round_chars(v) - len(last["text"]))
        clean, message = check_text(text, lang, so_far=so_far)
        if clean is None:
            return session_view(row, v, message)
        at = float(at_s) if at_s is not None else time.time() - v["clock_base"]
        earlier = [*last.get("earlier", []), {"text": last["text"], "at_s": last.get("at_s")}]
        # a new branch from the checkpoint that waited for the last answer (as if `choose` had just
        # asked its question again): the graph waits at the same question, and the new answer resumes it
        store.graph.update_state(fork.config, {"route": "wait"}, as_node="choose")
        store.graph.invoke(None, thread_config(session_id), context=ctx, durability="sync")
        inbox = Inbox(kind="answer", text=clean, at_s=at, clocked=at_s is not None, earlier=earlier)
        v = _resume(store, row, ctx, inbox)
    return session_view(row, v)
