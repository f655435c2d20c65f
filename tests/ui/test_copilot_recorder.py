"""Co-pilot's recorder is emptied with the answer box (issue 12: after Save answer it still held the recording,
so Transcribe on the next answer pasted the saved one again), as Practice's is (`moved_on`,
`recording.recorder_update`); an answer refused keeps its recording."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import gradio as gr

from agent.ui.context import AppContext
from agent.ui.tabs.copilot import sessions, turns
from agent.ui.tabs.copilot.screen import CONTROLS, SET_UP

ANSWER = "Weights: 40e9 x 2 B = 80e9 B, about 74.5 GiB (derived); per rank at TP=4 about 18.6 GiB (derived)."


def _mic(out: list[Any]) -> dict[str, Any]:
    """The recorder's update among `copilot_out`'s outputs (its controls come before the set-up and the
    status line in both languages)."""
    return cast(dict[str, Any], out[len(out) - 1 - len(SET_UP) - len(CONTROLS) + CONTROLS.index("mic")])


def _answer_box(out: list[Any]) -> dict[str, Any]:
    return cast(dict[str, Any], out[5])


def test_save_answer_empties_the_recorder_and_a_refused_answer_keeps_it(ctx: AppContext) -> None:
    request = cast(gr.Request, SimpleNamespace(username=None, session_hash="page-1"))
    started = sessions.start_copilot(ctx, "capacity", "en", {}, "en", "tab:me", request)
    refused = turns.record_answer(ctx, "", started[0], "en", "tab:me", request)
    assert _answer_box(refused)["value"] == ""  # nothing typed yet: refused…
    assert "value" not in _mic(refused)  # …and a recording not transcribed yet stays
    saved = turns.record_answer(ctx, ANSWER, refused[0], "en", "tab:me", request)
    assert _answer_box(saved)["value"] == ""
    assert _mic(saved) == {"__type__": "update", "interactive": True, "value": None}
    # asking the next question empties the box for its answer, and the recorder with it
    asked = turns.ask_question(ctx, "And the KV cache per token?", saved[0], "en", "tab:me", request)
    assert _answer_box(asked)["value"] == "" and _mic(asked)["value"] is None
