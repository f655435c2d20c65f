"""The interface language switch renders what is on screen again (issue 12), in headless Chromium: with a
Chinese session open in the English interface, after an answer and at the round-finished banner, a switch
to 中文 turns the insight, the banner, the round's scores and the conversation Chinese, and back.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): 13a-before-switch-en,
13b-switched-zh, 13c-switched-back-en.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _open, _shot, _shows, _start_practice, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_loop import _text

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

ANSWER = "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配，不按最大长度预留显存。"
ENGLISH = ("What this answer showed", "Round finished", "The conversation so far", "Interviewer", "You:",
           "Follow-up", "Question:", "Dimension", "Score", "Quotes", "Flags", "Showed ", "Next time add",
           "expected items", "Continue", "Round scores")  # fmt: skip


def test_switch_renders_insight_banner_and_conversation_again(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
) -> None:
    page = _open(browser, served)
    _start_practice(page, plan="Full mock: five rounds, 90 min", lang="中文")
    page.locator("#answer textarea").fill(ANSWER)
    page.locator("#send").click()
    _shows(page, "#answer-insight", "What this answer showed")
    _shows(page, "#conversation", "The conversation so far")

    # 1. after an answer: the insight and the conversation follow the switch
    page.locator("#ui-language").get_by_text("中文").click()
    _shows(page, "#answer-insight", "这次回答体现了什么")
    _shows(page, "#conversation", "目前的对话")
    assert "What this answer showed" not in _text(page, "#answer-insight")
    assert "Interviewer" not in _text(page, "#conversation")

    # 2. at the round-finished banner, back in English first
    page.locator("#ui-language").get_by_text("English").click()
    _shows(page, "#conversation", "The conversation so far")
    page.get_by_role("button", name="Finish this round").click()
    page.locator("#round-scores").get_by_text("Round finished").wait_for()
    _shot(page, screenshots, "13a-before-switch-en")
    page.locator("#ui-language").get_by_text("中文").click()
    _shows(page, "#round-scores", "本轮结束")
    _shows(page, "#practice-result", "本轮得分")
    _shows(page, "#conversation", "目前的对话")
    on_screen = " ".join(
        _text(page, s)
        for s in ("#round-scores", "#practice-result", "#answer-insight", "#conversation", "#practice-question",
                  "#practice-progress")
    )  # fmt: skip
    assert not [w for w in ENGLISH if w in on_screen], [w for w in ENGLISH if w in on_screen]
    _shot(page, screenshots, "13b-switched-zh")

    page.locator("#ui-language").get_by_text("English").click()
    _shows(page, "#round-scores", "Round finished")
    _shows(page, "#conversation", "Interviewer")
    _shot(page, screenshots, "13c-switched-back-en")
    page.context.close()
