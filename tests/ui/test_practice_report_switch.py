"""Practice's finished report follows the interface language switch (issue 12), as the rest of the Practice
screen and Co-pilot's finished report do: a session finished in one interface language, the switch to the
other renders its report there, and back. In headless Chromium, from English and from Chinese.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): h1-practice-report-{lang},
h1-practice-report-switched-{lang}.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _interface, _open, _shot, _shows, _start_practice, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_loop import _text
from tests.ui.test_review_browser import ANSWERS, SEEN

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

OTHER = {"en": "zh", "zh": "en"}
REPORT = {  # the report's own words (its heading first): not the candidate's quotes, nor the rubric's items
    # and follow-ups, which are the session's, in its interview language (as in the insight); the next
    # actions' sentences and the narrative's titles follow too (tests/ui/test_report_words_switch.py)
    "en": ["Interview report", "Dimension", "Score", "Quotes (verbatim from the answer)", "Missing evidence",
           "Next follow-ups"],
    "zh": ["面试评分报告", "维度", "分数", "引用（逐字来自回答）", "缺失证据", "建议追问"],
}  # fmt: skip
TABLE = {"en": ["Concept quick-fire", "Accuracy", "Communication"], "zh": ["概念快问", "准确性", "沟通"]}
"""The score table's round and dimensions, by name in the interface language."""


def _table(page: Page) -> str:
    """The report's score tables as shown (each row's cells)."""
    return str(
        page.evaluate(
            "() => [...document.querySelectorAll('#practice-report table')].map(t => t.innerText).join('\\n')"
        )
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_finished_report_follows_the_switch(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen, other = SEEN[lang], OTHER[lang]
    page = _open(browser, served)
    if lang == "zh":
        _interface(page, "zh")
    sid = _start_practice(page, lang=seen["lang"])
    page.locator("#answer textarea").fill(ANSWERS[lang])
    page.locator("#send").click()
    page.wait_for_function("() => document.querySelector('#answer textarea').value === ''")
    page.get_by_role("button", name=seen["finish"]).click()
    page.locator("#practice-progress").get_by_text(seen["done"]).wait_for()
    _shows(page, "#practice-report", REPORT[lang][0])
    assert sid in _text(page, "#practice-report")
    _shot(page, screenshots, f"h1-practice-report-{lang}")

    _interface(page, other)
    _shows(page, "#practice-report", REPORT[other][0])
    shown = _text(page, "#practice-report")
    assert [w for w in REPORT[other] if w not in shown] == [], shown
    assert [w for w in REPORT[lang] if w in shown] == [], shown  # nothing left in the language before
    table = _table(page)
    assert [w for w in TABLE[other] if w not in table] == [] and not [w for w in TABLE[lang] if w in table], (
        table
    )
    _shot(page, screenshots, f"h1-practice-report-switched-{other}")

    _interface(page, lang)
    _shows(page, "#practice-report", REPORT[lang][0])
    assert [w for w in REPORT[other] if w in _text(page, "#practice-report")] == []
    page.context.close()
