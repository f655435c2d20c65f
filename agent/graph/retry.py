"""Retry the last answer (issue 12): the candidate answers the same question again, in the round under way
or, when a round closed on its last answer (its time ran out, or nothing was left to ask), in that round
while the next one has no answer yet.

The session goes back to the checkpoint where it waited for that answer and takes the new one from
there, so the follow-up, the hidden inputs given, the draft scores and whether the round closes all follow
from the new answer, as if the first had not been sent (a closed round opens again, or closes again with
the new answer's scores). Nothing is lost: the new answer's turn keeps the earlier attempts (`earlier`:
the text and time of each, and the round's scores as they stood with it: `total`, `scores`), the new answer's
turn the round's scores with it (stamped by `nodes.assess`), so the conversation and the transcript export
show the comparison; the checkpoints of the first attempt stay in the store. The round's clock
is not turned back. A round the candidate closed with Finish after their answer stays closed.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.types import StateSnapshot

from agent.graph.inputs import check_input
from agent.graph.notice import notice
from agent.graph.session import _held, _resume, _round_chars, _store_guard
from agent.graph.state import Inbox
from agent.graph.store import SessionStore, thread_config
from agent.graph.view import SessionView, session_view


def _answers(values: dict[str, Any]) -> int:
    return sum(
        1 for r in values.get("transcript", []) for t in r.get("turns", []) if t["role"] == "candidate"
    )


def _last_of(r: dict[str, Any]) -> dict[str, Any] | None:
    return next((t for t in reversed(r.get("turns", [])) if t["role"] == "candidate"), None)


def retry_round(values: dict[str, Any]) -> tuple[int, int] | None:
    """Where the answer to retry is: (its round's place in the transcript, that round's index in the plan),
    the round under way when it has an answer, else the round just closed while the next has none."""
    if values.get("mode") != "practice" or not values.get("transcript"):
        return None
    rounds, idx, transcript = values["rounds"], values["round_index"], values["transcript"]
    phase = values.get("phase")
    if phase == "questions":  # the last round closed; the candidate's own questions not asked yet
        return (len(transcript) - 1, idx - 1) if not values.get("asked") and idx >= 1 else None
    if phase != "rounds" or idx >= len(rounds) or transcript[-1].get("round") != rounds[idx]["round"]:
        return None
    if _last_of(transcript[-1]) is not None:
        return len(transcript) - 1, idx
    return (len(transcript) - 2, idx - 1) if len(transcript) >= 2 and idx >= 1 else None


def _before_last_answer(
    store: SessionStore, session_id: str, values: dict[str, Any], round_index: int
) -> StateSnapshot | None:
    """The checkpoint, on the session's own history, where it waited for its last answer in the round
    `round_index`. None when the session waited again in that round after the answer (a round closed then,
    by Finish, stays closed)."""
    want = _answers(values) - 1
    snap = store.graph.get_state(thread_config(session_id))
    while snap.parent_config is not None:
        snap = store.graph.get_state(snap.parent_config)
        v = snap.values or {}
        if snap.next == ("wait",) and v.get("round_index") == round_index:
            if _answers(v) == want:
                return snap
            if _answers(v) > want and round_index != values["round_index"]:
                return None
        if _answers(v) < want:
            return None
    return None


def _scored(values: dict[str, Any], where: tuple[int, int]) -> dict[str, Any]:
    """The round's scores as they stand with the answer about to be retried: the draft of the round under way,
    or the scores the round closed with; {} when there are none."""
    rnd = values["transcript"][where[0]].get("round")
    if where[1] == values["round_index"] and values.get("draft"):
        ra: dict[str, Any] | None = values["draft"]
    else:
        ra = next((a for a in reversed(values.get("assessments", [])) if a.get("round") == rnd), None)
    return {"total": ra["total"], "scores": dict(ra["scores"])} if ra and ra.get("round") == rnd else {}


@_store_guard("the retry was not recorded; the session still waits at the same question, send it again")
def retry_answer(
    session_id: str, text: str | bytes, *, at_s: float | None = None, owner: str | None = None
) -> SessionView:
    """The candidate's new answer to the question their last answer replied to, while its round is open.

    at_s: seconds since the session started (default: the wall clock). A view with a `message` (and the
    session as it was) when there is nothing to retry or the text cannot be recorded."""
    with _held(session_id, owner) as (store, row, ctx, v):
        where = retry_round(v)
        last = _last_of(v["transcript"][where[0]]) if where is not None else None
        fork = _before_last_answer(store, session_id, v, where[1]) if where and last else None
        if where is None or last is None or fork is None:
            return session_view(row, v, notice("interview.nothing_to_retry"))
        so_far = _round_chars(fork.values)  # the round before the answer retried
        clean, message = check_input(text, so_far=so_far)
        if clean is None:
            return session_view(row, v, message)
        at = float(at_s) if at_s is not None else time.time() - v["clock_base"]
        earlier = [*last.get("earlier", []), {"text": last["text"], "at_s": last.get("at_s"), **_scored(v, where)}]
        # a new branch from the checkpoint that waited for the last answer (as if `choose` had just
        # asked its question again): the graph waits at the same question, and the new answer resumes it
        store.graph.update_state(fork.config, {"route": "wait"}, as_node="choose")
        store.graph.invoke(None, thread_config(session_id), context=ctx, durability="sync")
        inbox = Inbox(kind="answer", text=clean, at_s=at, clocked=at_s is not None, earlier=earlier)
        v = _resume(store, row, ctx, inbox)
    return session_view(row, v)
