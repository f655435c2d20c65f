"""Issue 12 in headless Chromium, in English and Chinese: Ctrl+Enter sends; while the round-finished banner
waits, the next round's clock is stopped at 00:00 and it starts on Continue; on a 390 px wide phone screen
the practice loop is usable (no sideways scrolling, the plan's name clear of its arrow).

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): 12a-phone-setup-{lang},
12b-phone-insight-{lang}, 12c-phone-round-scores-{lang}, 12d-phone-next-round-{lang}.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import WAIT_MS, _set_up_practice, _shot, _shows, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_loop import _text

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SEEN = {
    "en": {
        "plan": "Full mock: five rounds, 90 min",
        "lang": "English",
        "insight": "What this answer showed",
        "finish": "Finish this round",
        "continue": "Continue to the next round",
        "round2": "Round 2 of 5",
    },
    "zh": {
        "plan": "完整模拟：五轮，90 分钟",
        "lang": "中文",
        "insight": "这次回答体现了什么",
        "finish": "结束本轮",
        "continue": "进入下一轮",
        "round2": "第 2 / 5 轮",
    },
}
ANSWER = {
    "en": "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand.",
    "zh": "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。",
}


def _no_sideways_scroll(page: Page, where: str) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{where}: the page is {width} px wide on a {PHONE['width']} px screen"


def _timer(page: Page) -> str:
    return _text(page, "#practice-progress .coach-timer")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_phone_ctrl_enter_and_the_clock_at_continue(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("dialog", lambda d: d.accept())
    page.goto(served.url)
    page.locator("#start").wait_for()
    _set_up_practice(page, ui=lang, plan=seen["plan"], lang=seen["lang"])
    # the plan's name is whole, not under the dropdown's arrow
    assert page.locator("#plan input").evaluate("e => e.scrollWidth <= e.clientWidth"), (
        "the plan's name is cut"
    )
    _no_sideways_scroll(page, "set-up")
    _shot(page, screenshots, f"12a-phone-setup-{lang}")

    page.locator("#start").click()
    page.wait_for_function(
        "() => document.querySelector('#practice-sid :is(input, textarea)').value.length > 0"
    )
    # Ctrl+Enter in the answer box sends it
    box = page.locator("#answer textarea")
    box.fill(ANSWER[lang])
    box.press("Control+Enter")
    _shows(page, "#answer-insight", seen["insight"])
    assert box.input_value() == ""
    _shows(page, "#conversation", ANSWER[lang][:25])
    _no_sideways_scroll(page, "after an answer")
    _shot(page, screenshots, f"12b-phone-insight-{lang}")

    # the round-finished banner: the next round's clock waits at 00:00
    page.get_by_role("button", name=seen["finish"]).click()
    page.locator("#round-scores").wait_for()
    _shows(page, "#practice-progress", seen["round2"])
    assert _timer(page).startswith("00:00"), _timer(page)
    page.wait_for_timeout(2200)
    assert _timer(page).startswith("00:00"), "the next round's clock ran while the scores were read"
    _no_sideways_scroll(page, "round scores")
    _shot(page, screenshots, f"12c-phone-round-scores-{lang}")

    page.get_by_role("button", name=seen["continue"]).click()
    page.locator("#round-scores").wait_for(state="hidden")
    page.wait_for_function(
        "() => document.querySelector('#practice-progress .coach-timer')?.dataset.elapsed !== undefined"
    )
    started = _timer(page)
    assert started.startswith(("00:00", "00:01", "00:02")), started  # from Continue, not from the close
    # and it runs: the page counts each second on its own (a loaded CI machine may be slow to paint)
    page.wait_for_function(
        "s => document.querySelector('#practice-progress .coach-timer')?.textContent !== s",
        arg=started,
        timeout=15_000,
    )
    _no_sideways_scroll(page, "next round")
    _shot(page, screenshots, f"12d-phone-next-round-{lang}")

    context.close()
