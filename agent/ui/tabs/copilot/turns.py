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
    ctx: AppContext, fn: Callable[[str, str], SessionView], text: str, state: dict[str, Any], ui: Lang
) -> list[Any]:
    """`fn(session id, text)` on the tab's session, shown; a note when the tab has no session."""
    if not state.get("sid"):
        return copilot_note(ctx, state, ui, says("ui.no_session"), keep=text)
    return copilot_out(ctx, fn(state["sid"], text), state, ui, keep=text)


@session_errors_noted(copilot_note)
def record_answer(
    ctx: AppContext, text: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    return copilot_call(
        ctx, lambda sid, x: graph.answer(sid, x, owner=owner), text or "", state, lang_of(ui_v)
    )


@session_errors_noted(copilot_note)
def ask_question(
    ctx: AppContext, text: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    return copilot_call(ctx, lambda sid, x: graph.ask(sid, x, owner=owner), text or "", state, lang_of(ui_v))


@session_errors_noted(copilot_note)
def close_copilot_round(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    owner = ctx.owner_of(owner_v, request)
    return copilot_call(ctx, lambda sid, _x: graph.close_round(sid, owner=owner), "", state, lang_of(ui_v))


def use_followup(pick: str | None, current: str) -> str:
    return pick or current
