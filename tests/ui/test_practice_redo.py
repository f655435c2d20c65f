"""Practice's redo asks which session to redo from a list, as Co-pilot's does (issue 12: a candidate never
types a session id), in headless Chromium, in English and in Chinese: the plan "redo" shows "Session to
redo" beside the plan, listing the candidate's finished sessions by plan, mode and date; Start without a
pick says what to pick; the redo started from the list asks that session's round again.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): hc-3a-practice-redo-list-{lang},
hc-3a-practice-redo-started-{lang}.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import SID, _open, _shot, _shows, browser  # noqa: F401  (the module's browser)
from tests.ui.test_copilot_rounds import SEEN as COPILOT
from tests.ui.test_practice_loop import _text
from tests.ui.test_reports_package import SEEN as PACKAGE
from tests.ui.test_reports_package import _finished_session

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

SEEN = {
    lang: {
        **COPILOT[lang],  # the same list, its label and its refusal as Co-pilot's
        **PACKAGE[lang],  # a practice session finished
        "mode": {"en": "practice", "zh": "练习"}[lang],
        "typed": {"en": "Previous session", "zh": "上一次面试编号"}[lang],  # the field a redo had
    }
    for lang in ("en", "zh")
}
PREVIOUS = "#practice-previous"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_practice_redo_picks_the_session_from_a_list(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page = _open(browser, served)
    first = _finished_session(page, lang)
    assert not page.locator(PREVIOUS).is_visible()  # only a redo asks for a session
    assert page.get_by_label(seen["typed"]).count() == 0  # no field to type an id into

    page.locator("#plan input").click()
    page.get_by_role("option", name=seen["redo"], exact=True).click()
    page.locator(PREVIOUS).wait_for()
    _shows(page, PREVIOUS, seen["redo_of"])
    page.locator("#start").click()
    _shows(page, "#practice-status", seen["pick"])
    assert page.locator(SID).input_value() == first  # nothing started

    page.locator(f"{PREVIOUS} input").click()
    option = page.get_by_role("option").filter(has_text=first)
    option.wait_for()
    named = option.inner_text()
    assert seen["mode"] in named and seen["concepts_title"] in named, named
    _shot(page, screenshots, f"hc-3a-practice-redo-list-{lang}")
    option.click()
    # a long name ends in an ellipsis before the list's arrow, not under it
    assert page.locator(f"{PREVIOUS} input").evaluate(
        "e => getComputedStyle(e).textOverflow === 'ellipsis' && parseFloat(getComputedStyle(e).paddingRight) >= 20"
    )
    page.locator("#start").click()
    page.wait_for_function(
        "old => (document.querySelector('#practice-sid :is(input, textarea)')?.value || old) !== old",
        arg=first,
    )
    _shows(page, "#practice-progress", seen["concepts_title"])
    _shows(page, "#practice-question", seen["question"])
    assert seen["pick"] not in _text(page, "#practice-status")
    # the redo on screen: the plan and the session it redoes, as the session has them
    assert page.locator("#plan input").input_value() == seen["redo"]
    assert first in page.locator(f"{PREVIOUS} input").input_value()
    _shot(page, screenshots, f"hc-3a-practice-redo-started-{lang}")
    page.context.close()
