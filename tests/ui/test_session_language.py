"""The interview language follows the interface language until the person picks one (issue 12: with the
interface on 中文, Co-pilot's interview language stayed English), in headless Chromium: on Co-pilot and on
Practice, a switch to 中文 sets it to 中文 and back; once picked, a switch leaves it; a reload that brings the
interface back in 中文 sets it too; a session on screen keeps its own.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): issue12-4-copilot-language-{lang}.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _interface, _open, _shot, browser  # noqa: F401  (the module's browser)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

NAMES = {"en": "English", "zh": "中文"}
TABS = {"copilot": {"en": "Co-pilot", "zh": "面试官助手"}, "practice": {"en": "Practice", "zh": "练习"}}
RADIO = {"copilot": "#copilot-lang", "practice": "#session-lang"}


def _picked(page: Page, selector: str) -> str:
    return page.locator(f"{selector} label:has(input:checked)").inner_text().strip()


def _follows(page: Page, selector: str, lang: str) -> None:
    page.wait_for_function(
        "([s, name]) => (document.querySelector(s + ' label:has(input:checked)')?.innerText || '').trim() === name",
        arg=[selector, NAMES[lang]],
    )


def test_the_interview_language_follows_the_interface_until_picked(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
) -> None:
    page = _open(browser, served)
    page.get_by_role("tab", name=TABS["copilot"]["en"]).click()
    for selector in RADIO.values():
        assert _picked(page, selector) == "English"

    # the interface on 中文: both tabs' interview language with it, and back
    _interface(page, "zh")
    for selector in RADIO.values():
        _follows(page, selector, "zh")
    _shot(page, screenshots, "issue12-4-copilot-language-zh")
    _interface(page, "en")
    for selector in RADIO.values():
        _follows(page, selector, "en")
    _shot(page, screenshots, "issue12-4-copilot-language-en")

    # Co-pilot's picked by hand: a switch leaves it (Practice's still follows)
    page.locator(RADIO["copilot"]).get_by_text("中文", exact=True).click()
    _interface(page, "zh")
    _follows(page, RADIO["practice"], "zh")
    page.locator(RADIO["copilot"]).get_by_text("English", exact=True).click()
    _interface(page, "en")
    _interface(page, "zh")
    _follows(page, RADIO["practice"], "zh")
    page.wait_for_timeout(500)
    assert _picked(page, RADIO["copilot"]) == "English"

    # a reload brings the interface back in 中文: the interview language with it
    page.reload()
    page.locator("#start").wait_for()
    page.get_by_role("tab", name=TABS["practice"]["zh"]).wait_for()
    _follows(page, RADIO["practice"], "zh")
    page.get_by_role("tab", name=TABS["copilot"]["zh"]).click()  # (a tab's controls are drawn when shown)
    _follows(page, RADIO["copilot"], "zh")

    # a session on screen keeps its own language: a Chinese interface with an English session
    page.locator(RADIO["copilot"]).get_by_text("English", exact=True).click()
    page.locator("#copilot-start").click()
    page.wait_for_function("(document.querySelector('#copilot-question')?.innerText || '').trim() !== ''")
    _interface(page, "en")
    _interface(page, "zh")
    page.wait_for_timeout(500)
    assert _picked(page, RADIO["copilot"]) == "English"
    page.context.close()
