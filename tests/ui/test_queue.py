"""One user must not stall the others: grading an uploaded report or a stored session runs in its own
queue, one at a time, beside the interactive events (which keep their own slots)."""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import pytest

from agent.ui import Services, build_app

BULK = {"open_report_file", "open_session_report"}
INTERACTIVE = {"start_practice", "send_answer", "record_answer", "save_override"}


@pytest.fixture(scope="module")
def app(ui_data_dir: Path) -> gr.Blocks:
    return build_app(Services(retriever=lambda: lambda text, k: [], reviewers=frozenset()))


def test_bulk_grading_has_its_own_queue_of_one(app: gr.Blocks) -> None:
    fns = {f.api_name: f for f in app.fns.values()}  # type: ignore[attr-defined]
    ids = {fns[n].concurrency_id for n in BULK}
    assert len(ids) == 1
    for n in BULK:
        assert fns[n].concurrency_limit == 1, n
    for n in INTERACTIVE:
        assert fns[n].concurrency_id not in ids, n
