"""The language switch re-renders the labels first (issue 12: after a reload the Chinese interface showed
English for many seconds, and a switch took 9-30 s on a loaded machine).

Gradio's page runs the listeners of one event one after another, each waiting for the one before it to
finish; the tabs' own re-renders (their status lines, lists, reports) were registered before the app's
labels, so the labels came last, after a dozen round trips. The switch now starts the labels' event at
once (through `switched`, `agent/ui/app.py`), beside the others. Checked in headless Chromium from the
server's queue: when each event arrived.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _open, browser  # noqa: F401  (the module's browser)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

LABELS = "set_ui_language"
OTHERS = ("_follow_switch", "_rerender", "_follows", "_decision_labels", "redo_choices")
"""The tabs' own listeners of the switch, by the end of their api names."""


def _arrivals(served: Served, since: float) -> list[tuple[float, str]]:
    queue: Any = served.app._queue  # type: ignore[attr-defined]
    return sorted(
        (e["time"], str(e["function"])) for e in list(queue.event_analytics.values()) if e["time"] >= since
    )


def _wait_for_zh(page: Page) -> None:
    page.wait_for_function("() => document.body.innerText.includes('面向 LLM')")


def _labels_first(served: Served, since: float) -> None:
    deadline = time.monotonic() + 30
    while True:
        seen = _arrivals(served, since)
        names = [n for _, n in seen]
        others = [n for n in names if n.endswith(OTHERS)]
        if LABELS in names and len(others) >= 4:
            break
        assert time.monotonic() < deadline, f"the switch's events did not all arrive: {names}"
        time.sleep(0.2)
    at = names.index(LABELS)
    before = [n for n in names[:at] if n.endswith(OTHERS)]
    assert len(before) <= 1, f"the labels' event came after {before} (all: {names})"


def test_the_labels_are_rerendered_first_on_a_switch_and_on_a_reload(
    browser: Browser,  # noqa: F811
    served: Served,
) -> None:
    page = _open(browser, served)
    since = time.time()
    page.locator("#ui-language").get_by_text("中文").click()
    _wait_for_zh(page)
    _labels_first(served, since)

    time.sleep(1)
    since = time.time()
    page.reload()  # the browser keeps 中文: the page loads in English and switches
    _wait_for_zh(page)
    _labels_first(served, since)
    page.context.close()
