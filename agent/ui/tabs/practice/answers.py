"""Answering: Send (typed, or recorded and transcribed into the box, with the recordings' delivery
figures), Finish this round, and Continue after the round-finished banner."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import partial
from typing import Any, Protocol

import gradio as gr

from agent import graph
from agent.graph import SessionView
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.practice.screen import practice_note, practice_out
from agent.ui.tabs.recording import transcribe, under_way
from agent.ui.tabs.said import Said, in_ui, says
from agent.ui.tabs.shared import session_errors_noted
from agent.voice.delivery import Delivery, combine, delivery_of


@session_errors_noted(practice_note)
def send_answer(
    ctx: AppContext,
    text: str,
    state: dict[str, Any],
    heard: list[dict[str, Any]] | None,
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
) -> list[Any]:
    text = text or ""
    ctx.sent.send("practice", request.session_hash)  # a transcription still running is dropped (`SentAnswers`)
    step, before, earlier = partial(graph.answer, text=text), state, None
    if state.get("retrying"):  # the last answer, answered again: compared with the earlier attempt
        step = partial(graph.retry_answer, text=text)
        before = {**state, "covered": state.get("covered_before", []), "counted": state.get("counted_before")}
        earlier = state.get("mine", [])
        if state["retrying"].get("closed"):  # as the page stood before the round closed on that answer
            before.update(round_index=state["round_index"] - 1, round=state["retrying"]["round"], held=False)
    spoken = spoken_delivery(heard, text)
    return on_session(
        ctx,
        step,
        state,
        ui_v,
        owner_v,
        request,
        prev=before,
        keep=text,
        sent=text,
        earlier=earlier,
        delivery=spoken,
    )


def transcribe_answer(
    ctx: AppContext,
    audio: str | None,
    current: str | None,
    state: dict[str, Any],
    lang: str,
    ui_v: str,
    heard: list[dict[str, Any]] | None,
    request: gr.Request,
) -> Iterator[tuple[Any, str, Any, Said]]:
    """The recording transcribed into the answer box (the session's language forced), and kept with its
    delivery figures beside the recordings still in the box (those a new answer replaced are dropped),
    for Send to show beside the insight; the status line, and last that line in both languages;
    "Transcribing…" first. An answer sent while it was transcribed keeps its box: the transcript is
    dropped and the status line says so."""
    sent = ctx.sent.count("practice", request.session_hash)
    if audio:
        note = under_way()
        yield gr.update(), in_ui(note, lang_of(ui_v)), gr.update(), note
    text, status, got = transcribe(ctx, audio, current, state, lang)
    if ctx.sent.count("practice", request.session_hash) != sent:
        dropped = says("ui.transcript_late")
        yield gr.update(), in_ui(dropped, lang_of(ui_v)), gr.update(), dropped
        return
    shown = in_ui(status, lang_of(ui_v))
    kept = [h for h in heard or [] if still_in(h.get("text", ""), current or "")]
    if got is None:
        yield text, shown, kept, status
        return
    try:
        figures = delivery_of(got)
    except (OSError, ValueError):  # the figures are an aid: the transcript goes into the box regardless
        yield text, shown, kept, status
        return
    yield text, shown, [*kept, {"text": got.text, "delivery": figures.model_dump(mode="json")}], status


_TOKENS = re.compile(r"[\u3400-\u9fff]|[a-z0-9]+")


KEPT_SHARE = 0.5
"""A recording belongs to the answer sent while at least this share of its words (characters) is in it:
edited, it still does; replaced by typing, it no longer does."""


def still_in(heard: str, answer: str) -> bool:
    """Whether most of a recording's words (Chinese: characters) are still in `answer`."""
    said = _TOKENS.findall(heard.lower())
    if not said:
        return False
    pool = Counter(_TOKENS.findall(answer.lower()))
    found = 0
    for w in said:
        if pool[w]:
            pool[w] -= 1
            found += 1
    return found / len(said) >= KEPT_SHARE


def spoken_delivery(heard: list[dict[str, Any]] | None, answer: str) -> Delivery | None:
    """The delivery figures of the recordings still in `answer`, together; None for a typed answer."""
    parts = [Delivery.model_validate(h["delivery"]) for h in heard or [] if still_in(h["text"], answer)]
    return combine(parts)


@session_errors_noted(practice_note)
def finish_round(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    return on_session(ctx, graph.close_round, state, ui_v, owner_v, request)


@session_errors_noted(practice_note)
def continue_round(
    ctx: AppContext, state: dict[str, Any], ui_v: str, owner_v: str | None, request: gr.Request
) -> list[Any]:
    """After the round-finished banner: the next round's question, shown and spoken; its clock starts now.
    A retry of the answer the round closed on, open and not sent, is dropped: the status line says so (the
    answer and its scores stand)."""
    dropped = says("ui.retry_not_sent") if state.get("retrying") else None
    return on_session(ctx, graph.start_round_clock, state, ui_v, owner_v, request, continued=True, note=dropped)


class Step(Protocol):
    """A step of a session: `graph.close_round`, `graph.answer` with its text, …"""

    def __call__(self, session_id: str, *, owner: str | None = None) -> SessionView: ...


def on_session(
    ctx: AppContext,
    step: Step,
    state: dict[str, Any],
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
    *,
    prev: dict[str, Any] | None = None,
    keep: str = "",
    **shown: Any,
) -> list[Any]:
    """`step` on the tab's session, shown (`practice_out` with `keep` and `shown`, after `prev`: the tab's
    state unless given); a note when the tab has no session, `keep` left in the answer box."""
    ui = lang_of(ui_v)
    if not state.get("sid"):
        return practice_note(ctx, state, ui, says("ui.no_session"), keep=keep)
    view = step(state["sid"], owner=ctx.owner_of(owner_v, request))
    return practice_out(ctx, view, prev or state, ui, request.session_hash, keep=keep, **shown)
