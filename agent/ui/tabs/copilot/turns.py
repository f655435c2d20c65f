"""The interview's turns as the interviewer drives them: Save answer (the candidate's answer recorded),
Ask (the next question, a suggested follow-up or the interviewer's own), Close the round."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from agent import graph
from agent.graph import SessionView
from agent.rubric.model import Lang
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.copilot.screen import copilot_note, copilot_out
from agent.ui.tabs.said import says
from agent.ui.tabs.shared import session_errors_noted


def copilot_call(
    ctx: AppContext,
    fn: Callable[[str, str], SessionView],
    text: str,
    state: dict[str, Any],
    ui: Lang,
    *,
    keep: str | None,
) -> list[Any]:
    """`fn(session id, text)` on the tab's session, shown; a note when the tab has no session. `keep`: what
    the answer box holds when the step is refused (None: as it is)."""
    if not state.get("sid"):
        return copilot_out(ctx, None, state, ui, note=says("ui.no_session"), keep=keep)
    return copilot_out(ctx, fn(state["sid"], text), state, ui, keep=keep)


@session_errors_noted(copilot_note)
def record_answer(
    ctx: AppContext, text: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    text = text or ""
    ctx.sent.send("copilot", request.session_hash)  # a transcription still running is dropped (`SentAnswers`)
    return copilot_call(
        ctx, lambda sid, x: graph.answer(sid, x, owner=owner), text, state, lang_of(ui_v), keep=text
    )


@session_errors_noted(copilot_note, kept=None)  # `text` is the question: the answer box stays as it was
def ask_question(
    ctx: AppContext,
    text: str,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
    pick: str | None = None,
) -> list[Any]:
    """Ask `text`, the next question; `pick`: the suggested follow-up it was started from (picked, then
    perhaps edited), which it is as long as it still asks it in part (`graph.ask`). No question: a note
    saying what is missing, the session as it was."""
    owner = ctx.owner_of(owner_v, request)
    ui = lang_of(ui_v)
    if state.get("sid") and not (text or "").strip():
        return copilot_out(ctx, None, state, ui, note=says("ui.ask_needs_question"), keep=None)
    return copilot_call(
        ctx,
        lambda sid, x: graph.ask(sid, x, owner=owner, picked=pick or None),
        text or "",
        state,
        ui,
        keep=None,
    )


@session_errors_noted(copilot_note)
def close_copilot_round(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    return copilot_call(
        ctx, lambda sid, _x: graph.close_round(sid, owner=owner), "", state, lang_of(ui_v), keep=None
    )


def use_followup(pick: str | None, current: str) -> str:
    return pick or current
