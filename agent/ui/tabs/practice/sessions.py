"""Choosing and opening a practice session: Start (a plan, the interview language, the self-check box; a
redo of one of the candidate's finished sessions, picked from a list: `shared.redo_choices`), Resume by id
or from the list of unfinished sessions, and the session this browser was practising, restored on
reload."""

from __future__ import annotations

from typing import Any

import gradio as gr

from agent import graph
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.confirm import KEEP
from agent.ui.tabs.practice.screen import practice_note, practice_out
from agent.ui.tabs.said import joined, paused, says, verbatim
from agent.ui.tabs.shared import session_errors_noted, start_plan, unfinished_sessions


def remember(state: dict[str, Any]) -> str | None:
    """What this browser keeps to resume after a reload: the session under way (none once it is done)."""
    return state.get("sid") if state.get("sid") and state.get("status") != "done" else None


def list_unfinished(ctx: AppContext, ui_v: str, owner_v: str | None, request: gr.Request) -> Any:
    """The owner's unfinished practice sessions, by plan, interview language and date (the id last), most recent
    first."""
    return unfinished_sessions(ctx, "practice", ui_v, owner_v, request)


@session_errors_noted(practice_note)
def restore_practice(
    ctx: AppContext,
    saved: str | None,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
) -> list[Any]:
    """On page load: the session this browser was practising, as it stands (the page was reloaded)."""
    ui = lang_of(ui_v)
    unchanged = [gr.update() for _ in practice_note(ctx, state, ui, verbatim(""))]
    if not saved or state.get("sid"):
        return unchanged
    try:
        back = graph.rejoin(saved, owner=ctx.owner_of(owner_v, request))
    except graph.SessionError:
        return unchanged
    view = back.view
    if view.status == "done":
        return unchanged
    note = joined(says("ui.restored", sid=view.session_id), paused(back))
    return practice_out(ctx, view, {}, ui, request.session_hash, note=note)


@session_errors_noted(practice_note)
def start_practice(
    ctx: AppContext,
    plan: str,
    lang: str,
    prev_sid: str,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
    self_check: bool = False,
) -> list[Any]:
    """Start a practice session with `plan` (a plan of the list; "redo" with `prev_sid`), the self-check
    round added after its last round when `self_check` is ticked."""
    ui = lang_of(ui_v)
    if prev_sid == KEEP:
        return practice_note(ctx, state, ui, verbatim(""))
    spec = start_plan(plan, "concepts", prev_sid, self_check)
    if spec is None:
        return practice_note(ctx, state, ui, says("ui.need_previous_pick"))
    view = graph.start_session(spec, lang_of(lang), "practice", owner=ctx.owner_of(owner_v, request))
    return practice_out(ctx, view, {}, ui, request.session_hash, note=says("ui.started", sid=view.session_id))


@session_errors_noted(practice_note)
def resume_practice(
    ctx: AppContext, sid: str, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    ui = lang_of(ui_v)
    if sid == KEEP:
        return practice_note(ctx, state, ui, verbatim(""))
    if not (sid or "").strip():
        return practice_note(ctx, state, ui, says("ui.need_session_id"))
    back = graph.rejoin(sid.strip(), owner=ctx.owner_of(owner_v, request))
    view = back.view
    note = joined(says("ui.resumed", sid=view.session_id), paused(back))
    return practice_out(ctx, view, {}, ui, request.session_hash, note=note)
