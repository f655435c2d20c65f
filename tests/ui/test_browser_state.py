"""What the app keeps in the browser (Gradio's BrowserState: the interface language, the browser's id, the
Practice session under way) is encrypted with a key Gradio gives the page; a key made at random by each
process makes what one process stored unreadable to the next. Seen in the team setup: the replica that
served a Chinese interface was killed, the reload landed on the other replica and came back in English (the
session itself resumed). The same happened to the one-machine app at each restart. Every BrowserState now
takes the key the replicas share (`browser_secret()`: the data dir's, or the shared database's)."""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import pytest

from agent.ui import Services, build_app
from agent.ui.auth import browser_secret


def _keys(app: gr.Blocks) -> dict[str, str]:
    """storage key -> the key its value is encrypted with, for every BrowserState of the page."""
    return {b.storage_key: b.secret for b in app.blocks.values() if isinstance(b, gr.BrowserState)}


def test_two_processes_read_what_the_browser_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("INTERVIEW_DATABASE_URL", raising=False)
    services = Services(retriever=lambda: lambda text, k: [], reviewers=frozenset())
    first, second = _keys(build_app(services)), _keys(build_app(services))  # as two processes build it
    assert set(first) >= {"interview-coach-ui-language", "interview-coach-browser", "interview-coach-practice"}
    assert first == second
    assert set(first.values()) == {browser_secret()}
