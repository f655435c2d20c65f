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


def test_api_page_timings_are_summed_up_every_hundred_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gradio sums up every event it keeps (pandas) after each one unless told otherwise: 2-7 ms an event."""
    from agent.ui.main import ANALYTICS_EVERY, queued

    monkeypatch.setenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", "")  # restored (unset) after the test
    monkeypatch.delenv("GRADIO_ANALYTICS_CACHE_FREQUENCY")
    with gr.Blocks() as blocks:
        gr.Button("x").click(lambda: None, api_name="x")
    queue = queued(blocks)._queue  # type: ignore[attr-defined]
    assert ANALYTICS_EVERY >= 100
    assert queue.ANAYLTICS_CACHE_FREQUENCY == ANALYTICS_EVERY  # (sic: Gradio's name)
    assert queue.default_concurrency_limit == 4
    records = [{"time": 0.0, "status": "success", "process_time": 0.1, "function": "x", "session_hash": "s"}]
    queue.events_recorded = ANALYTICS_EVERY
    summed = queue.compute_analytics_summary(records)
    queue.events_recorded += ANALYTICS_EVERY - 1  # fewer than ANALYTICS_EVERY events since: not summed again
    assert queue.compute_analytics_summary(records * 2) is summed
    queue.events_recorded += 1
    assert queue.compute_analytics_summary(records * 2) is not summed


def test_an_operator_may_still_set_how_often(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.ui.main import queued

    monkeypatch.setenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", "7")
    with gr.Blocks() as blocks:
        gr.Button("x").click(lambda: None, api_name="x")
    assert queued(blocks)._queue.ANAYLTICS_CACHE_FREQUENCY == 7  # type: ignore[attr-defined]
