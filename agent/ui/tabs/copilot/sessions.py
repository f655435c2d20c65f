"""Opening a co-pilot session: Start (a plan, the interview language, the self-check box; a redo of one of
the interviewer's finished sessions, picked from a list: `shared.redo_choices`), Resume by id or from the
list of the interviewer's unfinished co-pilot sessions."""

from __future__ import annotations

from typing import Any

import gradio as gr

from agent import graph
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.confirm import KEEP
from agent.ui.tabs.copilot.screen import copilot_note, copilot_out
from agent.ui.tabs.said import joined, paused, says, verbatim
from agent.ui.tabs.shared import session_errors_noted, start_plan, unfinished_sessions


@session_errors_noted(copilot_note)
def start_copilot(
    ctx: AppContext,
    plan: str,
    lang: str,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
    self_check: bool = False,
    prev_sid: str | None = "",
) -> list[Any]:
    """Start a co-pilot session with `plan`, the self-check round added after its last round when
    `self_check` is ticked (as in Practice); a redo of `prev_sid`, a session of the interviewer's (its two
    weakest rounds asked again)."""
    ui = lang_of(ui_v)
    if prev_sid == KEEP:  # the session under way kept (`confirm_js`)
        return copilot_note(ctx, state, ui, verbatim(""), keep=None)
    spec = start_plan(plan, "capacity", prev_sid, self_check)
    if spec is None:
        return copilot_note(ctx, state, ui, says("ui.need_previous_pick"))
    view = graph.start_session(spec, lang_of(lang), "copilot", owner=ctx.owner_of(owner_v, request))
    return copilot_out(ctx, view, {}, ui, note=says("ui.started", sid=view.session_id))


@session_errors_noted(copilot_note)
def resume_copilot(
    ctx: AppContext, sid: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    if sid == KEEP:
        return copilot_note(ctx, state, ui, verbatim(""), keep=None)
    back = graph.rejoin((sid or "").strip(), owner=ctx.owner_of(owner_v, request))
    note = joined(says("ui.resumed", sid=back.view.session_id), paused(back))
    return copilot_out(ctx, back.view, {}, ui, note=note)


def list_unfinished_copilot(ctx: AppContext, ui_v: str, owner_v: str | None, request: gr.Request) -> Any:
    """The owner's unfinished co-pilot sessions, by plan, interview language and date (the id last), most
    recent first; one picked resumes (`resume_copilot`)."""
    return unfinished_sessions(ctx, "copilot", ui_v, owner_v, request)
