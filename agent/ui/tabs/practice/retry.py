"""Retry this answer: the question the last answer replied to, shown again with that answer in the box
(Send takes the new one: `answers.send_answer`), or back to the question asked now."""

from __future__ import annotations

from typing import Any

import gradio as gr

from agent import graph
from agent.rubric.model import Lang
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.shared import question_md
from agent.util.messages import t


def retry_out(state: dict[str, Any], ui: Lang, answer: Any, note: str) -> list[Any]:
    retrying = bool(state.get("retrying"))
    return [
        state,
        question_md(state, ui),
        answer,
        note,
        gr.update(visible=not retrying, interactive=bool(state.get("can_retry"))),
        gr.update(visible=retrying),
    ]


def start_retry(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """Retry this answer: the question the last answer replied to, shown again with that answer in the
    box to rework; Send then replaces it (the earlier attempt is kept and compared)."""
    ui = lang_of(ui_v)
    if not state.get("sid") or not state.get("can_retry"):
        return retry_out(state, ui, gr.update(), t("ui.nothing_to_retry", ui))
    try:
        view = graph.get_session(state["sid"], owner=ctx.owner_of(owner_v, request))
    except graph.SessionError as e:
        return retry_out(state, ui, gr.update(), f"⚠️ {e}")
    tr = next((r for r in view.transcript.rounds if r.round == view.round), None)
    turns = tr.turns if tr else []
    k = next((i for i in range(len(turns) - 1, -1, -1) if turns[i].role == "candidate"), None)
    asked = (
        next((x.text for x in reversed(turns[:k]) if x.role == "interviewer"), None)
        if k is not None
        else None
    )
    if k is None or asked is None:
        return retry_out(state, ui, gr.update(), t("ui.nothing_to_retry", ui))
    state = {**state, "retrying": {"question": asked}}
    return retry_out(state, ui, turns[k].text, t("ui.retry_hint", ui))


def cancel_retry(ctx: AppContext, state: dict[str, Any], ui_v: str) -> list[Any]:
    """Keep the answer as it was: back to the question asked now."""
    state = {**state, "retrying": None}
    return retry_out(state, lang_of(ui_v), "", "")
