"""How the tabs' module-level handlers reach Gradio: bound to the AppContext, and session errors as notes."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr
import pytest
from gradio.utils import get_type_hints, is_special_typed_parameter

from agent.graph import SessionError, SessionNotFound
from agent.ui import Services, build_app
from agent.ui.tabs.shared import session_errors_noted


@pytest.fixture(scope="module")
def app(ui_data_dir: Path) -> gr.Blocks:
    return build_app(Services(retriever=lambda: lambda text, k: [], reviewers=frozenset()))


def test_gradio_sees_each_handler_without_the_context_and_fills_in_its_request(app: gr.Blocks) -> None:
    """A handler's `request: gr.Request` is recognised only while Gradio can resolve its type hints
    (so the tab modules import AppContext at run time, not under TYPE_CHECKING)."""
    fns = [f for f in app.fns.values() if f.fn is not None]  # type: ignore[attr-defined]
    assert len(fns) > 20
    with_request = []
    for f in fns:
        params = inspect.signature(f.fn).parameters
        assert "ctx" not in params, f.api_name
        if "request" in params:
            assert is_special_typed_parameter("request", get_type_hints(f.fn)), f.api_name
            with_request.append(f.api_name)
    assert {"start_practice", "send_answer", "record_answer", "save_override", "restore_owner"} <= set(
        with_request
    )
    # the transcriptions yield "Transcribing…" first: Gradio streams them only when it sees a generator
    streamed = {f.api_name for f in fns if inspect.isgeneratorfunction(f.fn)}
    assert {"transcribe_practice", "transcribe_copilot"} <= streamed, streamed


def test_the_language_switch_compares_the_reports_attempts_again(app: gr.Blocks) -> None:
    """Reports' compare table follows the switch by its own event (`reports.rerender_compare`), and the labels'
    event (`set_ui_language`) does not set its value (the empty table it set wiped a filled one)."""
    fns = {f.api_name: f for f in app.fns.values()}  # type: ignore[attr-defined]
    radio = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "ui-language")
    table = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "reports-compare")
    again = fns["reports_compare_rerender"]
    assert table in again.outputs and (radio._id, "change") in again.targets
    labels = fns["set_ui_language"]
    i = labels.outputs.index(table)
    _, p, c, owner, *more = [getattr(x, "value", None) for x in labels.inputs]
    request = SimpleNamespace(username=None, session_hash="page-1")
    update = labels.fn("zh", p, c, owner, request, *more)[i]
    assert "value" not in update and "label" in update, update


def test_opening_a_report_in_review_writes_the_saves_line_and_button(app: gr.Blocks) -> None:
    """Each way Review opens a report clears the save's line (`review.loaded`); Save is not primary before."""
    save = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "review-save")
    line = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "review-save-status")
    assert isinstance(save, gr.Button) and save.variant == "secondary"
    fns = {f.api_name: f for f in app.fns.values()}  # type: ignore[attr-defined]
    for name in ("open_report_file", "open_session_report", "open_listed_session"):
        assert line in fns[name].outputs and save in fns[name].outputs, name


def _noted(*given: Any) -> list[Any]:
    return ["noted", *given]


@session_errors_noted(_noted)
def _answer(
    ctx: str, text: str, state: dict[str, Any], ui_v: str, error: Exception | None = None
) -> list[Any]:
    if error is not None:
        raise error
    return ["shown", text]


@session_errors_noted(_noted)
def _close(ctx: str, state: dict[str, Any], ui_v: str) -> list[Any]:
    raise SessionNotFound("s-1")


@session_errors_noted(_noted, kept=None)
def _ask(ctx: str, text: str, state: dict[str, Any], ui_v: str) -> list[Any]:
    """Co-pilot's Ask: its text is the question, not the answer being written."""
    raise SessionNotFound("s-1")


def test_a_session_error_becomes_a_note_and_the_answer_stays() -> None:
    state = {"sid": "s-1"}
    assert _answer("ctx", "my answer", state, "en") == ["shown", "my answer"]
    assert _answer("ctx", "my answer", state, "zh", SessionError("refused")) == [
        "noted",
        "ctx",
        state,
        "zh",
        {"en": "⚠️ refused", "zh": "⚠️ refused"},  # the error's message, the same in either interface language
        "my answer",
    ]
    no_such = "⚠️ no such session: s-1"
    # no answer being written: the answer box as it was (None), not emptied
    assert _close("ctx", state, "fr") == ["noted", "ctx", state, "en", {"en": no_such, "zh": no_such}, None]
    # a question is not an answer: it does not land in the answer box (issue 12, Co-pilot's Ask)
    assert _ask("ctx", "And the KV cache?", state, "en") == [
        "noted",
        "ctx",
        state,
        "en",
        {"en": no_such, "zh": no_such},
        None,
    ]


def test_other_errors_are_not_turned_into_notes() -> None:
    with pytest.raises(gr.Error):
        _answer("ctx", "x", {}, "en", gr.Error("sign in"))
