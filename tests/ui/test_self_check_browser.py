"""The self-check round in headless Chromium, in English and in Chinese: the box beside the plan adds it
after the plan's last round, its first question follows the round-finished banner, an answer to it gets
its insight and the round's second question, and the report names it. The box applies at Start: it is off
while the session runs (issue 12: it stayed on) and on again once the session is finished.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): 17a-self-check-setup-{lang},
17b-self-check-question-{lang}, 17c-self-check-insight-{lang}, 17d-self-check-report-{lang};
issue12-6-self-check-on-{lang} (the box off while the session runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests import self_check_answers
from tests.ui.conftest import Served
from tests.ui.test_browser import _open, _set_up_practice, _shot, _shows, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_loop import _send

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

SEEN = {
    "en": {
        "plan": "Concept quick-fire (5 min)",
        "lang": "English",
        "box": "Add the self-check round",
        "hint": "Four self-check questions after the last round (8 min)",
        "round1": "Round 1 of 2",
        "finish": "Finish this round",
        "continue": "Continue",
        "round2": "Round 2 of 2 · Self-check",
        "q1": "Self-check, question 1",
        "q2": "Self-check, question 2",
        "insight": "What this answer showed",
        "report": "Self-check",
        "answer": "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand.",
    },
    "zh": {
        "plan": "概念快问（5 分钟）",
        "lang": "中文",
        "box": "加上自检轮",
        "hint": "最后一轮之后回答四道自检题（8 分钟）",
        "round1": "第 1 / 2 轮",
        "finish": "结束本轮",
        "continue": "继续作答",
        "round2": "第 2 / 2 轮 · 自检",
        "q1": "自检第 1 题",
        "q2": "自检第 2 题",
        "insight": "这次回答体现了什么",
        "report": "自检",
        "answer": "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。",
    },
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_self_check_box_adds_the_round_after_the_plan(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page = _open(browser, served)
    _set_up_practice(page, ui=lang, plan=seen["plan"], lang=seen["lang"])
    box = page.locator("#self-check input[type=checkbox]")
    assert not box.is_checked()
    _shows(page, "#self-check", seen["box"])
    _shows(page, "#self-check", seen["hint"])
    page.locator("#self-check").get_by_text(seen["box"]).click()
    assert box.is_checked()
    _shot(page, screenshots, f"17a-self-check-setup-{lang}")

    page.locator("#start").click()
    _shows(page, "#practice-progress", seen["round1"])
    assert box.is_checked()  # as the session has it
    page.wait_for_timeout(300)  # the Start's outputs have all landed
    assert box.is_enabled()  # and on: it sets up the next Start, like the plan (issue 12: it was off)
    _shot(page, screenshots, f"issue12-6-self-check-on-{lang}")
    _send(page, seen["answer"], seen)
    page.get_by_role("button", name=seen["finish"]).click()
    page.locator("#round-scores").wait_for()
    page.get_by_role("button", name=seen["continue"]).click()
    _shows(page, "#practice-question", seen["q1"])
    _shows(page, "#practice-progress", seen["round2"])
    _shot(page, screenshots, f"17b-self-check-question-{lang}")

    _send(page, self_check_answers.answers(lang)[0], seen)  # type: ignore[arg-type]
    _shows(page, "#practice-question", seen["q2"])
    _shot(page, screenshots, f"17c-self-check-insight-{lang}")

    page.get_by_role("button", name=seen["finish"]).click()
    _shows(page, "#practice-report", seen["report"])
    assert box.is_enabled()
    _shot(page, screenshots, f"17d-self-check-report-{lang}")
    page.context.close()
