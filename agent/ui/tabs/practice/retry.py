"""Retry this answer: the question the last answer replied to, shown again with that answer in the box
(Send takes the new one: `answers.send_answer`), or back to the question asked now."""

from __future__ import annotations

from typing import Any

import gradio as gr

from agent import graph
from agent.rubric.model import Lang
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.practice.screen import banner_retry, insight_of
from agent.ui.tabs.said import Said, in_ui, says, verbatim
from agent.ui.tabs.shared import progress, question_md, session_shown


def retry_out(
    ctx: AppContext,
    state: dict[str, Any],
    ui: Lang,
    answer: Any,
    note: Said,
    view: graph.SessionView | None = None,
) -> list[Any]:
    """The question (the one to answer again, or the one asked now), the answer box, the status line,
    Retry / Cancel and Send (on while retrying the answer a round closed on, off again on its banner), the
    progress (naming the round whose answer is retried, `shared.progress`) and the banner's Retry; the
    status line in both languages (`said.follow_switch`); last, the insight on the last answer, its next
    question waiting for the retry (from `view`; none: as it is). A recording in the recorder stays
    (`moved_on`: nothing was taken)."""
    state = {**state, "moved_on": False}
    retrying = bool(state.get("retrying"))
    return [
        state,
        question_md(state, ui),
        answer,
        in_ui(note, ui),
        gr.update(visible=not retrying, interactive=bool(state.get("can_retry"))),
        gr.update(visible=retrying),
        gr.update(interactive=not state.get("held") and state.get("status") != "done"),
        progress(ctx, state, ui),
        banner_retry(state),
        note,
        insight_of(ctx, state, view, ui) if view is not None else gr.update(),
    ]


def start_retry(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """Retry this answer: the question the last answer replied to, shown again with that answer in the
    box to rework; Send then replaces it (the earlier attempt is kept and compared)."""
    ui = lang_of(ui_v)
    if not state.get("sid") or not state.get("can_retry"):
        return retry_out(ctx, state, ui, gr.update(), says("ui.nothing_to_retry"))
    try:
        view = graph.get_session(state["sid"], owner=ctx.owner_of(owner_v, request))
    except graph.SessionError as e:
        return retry_out(ctx, state, ui, gr.update(), verbatim(f"⚠️ {e}"))
    # the round under way, or the round that closed on the answer (its banner is up; the next round has
    # no answer yet, so the transcript's last round is the closed one)
    closed = bool(state.get("retry_closed"))
    rounds = view.transcript.rounds
    tr = rounds[-1] if closed and rounds else next((r for r in rounds if r.round == view.round), None)
    turns = tr.turns if tr else []
    k = next((i for i in range(len(turns) - 1, -1, -1) if turns[i].role == "candidate"), None)
    asked = (
        next((x.text for x in reversed(turns[:k]) if x.role == "interviewer"), None)
        if k is not None
        else None
    )
    if k is None or asked is None:
        return retry_out(ctx, state, ui, gr.update(), says("ui.nothing_to_retry"))
    retrying: dict[str, Any] = {"question": asked, "closed": closed, "round": tr.round if tr else None}
    if closed:  # the round's clock where the answer left it, and the total its banner showed
        start, end = turns[0].at_s, turns[k].at_s
        retrying["elapsed_s"] = max(0.0, end - start) if start is not None and end is not None else 0.0
        retrying["total"] = state.get("banner_total")
    state = {**state, "retrying": retrying, "held": False}  # held again on Cancel when the round had closed
    return retry_out(ctx, state, ui, turns[k].text, says("ui.retry_hint"), view)


def cancel_retry(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """Keep the answer as it was: back to the question asked now."""
    closed = bool((state.get("retrying") or {}).get("closed"))
    state = {**state, "retrying": None, "held": closed or bool(state.get("held"))}
    view = session_shown(state, ctx.owner_of(owner_v, request))
    return retry_out(ctx, state, lang_of(ui_v), "", verbatim(""), view)
