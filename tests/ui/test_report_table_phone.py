"""The final report's round table (round, five dimensions, total, flags) in headless Chromium, in English and
Chinese, in Practice and Co-pilot. A blind tester read it on a 390 px phone as a card of bare numbers
("概念快问 5 / 4 / 4 / 4 / 4 / 21/25 / —"), and on a desktop Co-pilot's report cut it ("Communicat…", Total and
Flags hidden). On the phone each number carries its dimension's name; on a desktop every column can be read
(no header cut; the table fits its box or scrolls sideways within it).

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): rt-{phone,desktop}-{practice,copilot}-{lang}.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import WAIT_MS, _interface, _set_up_practice, browser  # noqa: F401

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SEEN = {
    "en": {
        "lang": "English",
        "finish": "Finish this round",
        "copilot": "Co-pilot",
        "close": "Close the round",
        "dims": ["Accuracy", "Evidence", "Tradeoffs", "Validation / rollback", "Communication"],
        "answer": "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand.",
    },
    "zh": {
        "lang": "中文",
        "finish": "结束本轮",
        "copilot": "面试官助手",
        "close": "结束本轮",
        "dims": ["准确性", "证据", "取舍", "验证与回滚", "沟通"],
        "answer": "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。",
    },
}

ROUND_TABLE = """s => {
  const t = Array.from(document.querySelectorAll(s + ' table'))
    .find(t => t.querySelectorAll('thead th').length > 4);
  if (!t) return null;
  const heads = Array.from(t.querySelectorAll('thead th')).map(th => th.textContent.trim());
  const rows = Array.from(t.querySelectorAll('tbody tr')).map(tr => Array.from(tr.children).map(td => ({
    text: td.innerText.trim(),
    before: getComputedStyle(td, '::before').content,
    shown: td.offsetParent !== null && td.getBoundingClientRect().width > 0,
  })));
  const box = t.getBoundingClientRect();
  const cut = Array.from(t.querySelectorAll('thead th')).filter(th => th.scrollWidth > th.clientWidth + 1)
    .map(th => th.textContent.trim());
  const scrolls = ['auto', 'scroll'].includes(getComputedStyle(t).overflowX);
  let clip = t.parentElement, clipped = false;
  for (; clip && clip !== document.body; clip = clip.parentElement) {
    const r = clip.getBoundingClientRect();
    if (getComputedStyle(clip).overflowX !== 'visible' && box.right > r.right + 1 && !scrolls) clipped = true;
  }
  return { heads, rows, cut, scrolls, fits: t.scrollWidth <= t.clientWidth + 1, clipped,
           pageWidth: document.documentElement.scrollWidth };
}"""


def _page(chromium: Browser, served: Served, viewport: dict[str, int], lang: str) -> Page:
    phone = viewport == PHONE
    context = chromium.new_context(viewport=viewport, device_scale_factor=2 if phone else 1, is_mobile=phone)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("dialog", lambda d: d.accept())
    page.goto(served.url)
    page.locator("#start").wait_for()
    if lang != "en":
        _interface(page, lang)
    return page


def _practice_report(page: Page, lang: str) -> str:
    seen = SEEN[lang]
    _set_up_practice(page, ui="en", lang=seen["lang"])  # the interface is switched already
    page.locator("#start").click()
    page.wait_for_function(
        "() => (document.querySelector('#practice-question')?.innerText || '').trim() !== ''"
    )
    page.locator("#answer textarea").fill(seen["answer"])
    page.locator("#send").click()
    page.wait_for_function("() => document.querySelector('#answer textarea').value === ''")
    page.get_by_role("button", name=seen["finish"]).click()
    return "#practice-report"


def _copilot_report(page: Page, lang: str) -> str:
    seen = SEEN[lang]
    page.get_by_role("tab", name=seen["copilot"]).click()
    page.locator("#copilot-start").wait_for()
    page.locator("#copilot-lang").get_by_text(seen["lang"], exact=True).click()
    page.locator("#copilot-start").click()
    page.wait_for_function(
        "() => (document.querySelector('#copilot-question')?.innerText || '').trim() !== ''"
    )
    page.locator("#copilot-answer textarea").fill(seen["answer"])
    page.locator("#copilot-record").click()
    page.wait_for_function("() => document.querySelector('#copilot-answer textarea').value === ''")
    page.get_by_role("button", name=seen["close"]).click()
    return "#copilot-draft"


def _round_table(page: Page, where: str) -> dict:  # type: ignore[type-arg]
    page.wait_for_function(f"() => ({ROUND_TABLE})({where!r}) !== null")  # the report is drawn
    page.wait_for_timeout(300)  # the page labels a table once it is drawn
    return page.evaluate(ROUND_TABLE, where)  # type: ignore[no-any-return]


def _shot(page: Page, where: str, folder: Path, name: str) -> None:
    table = page.locator(where + " table").last
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    page.locator(where).screenshot(path=str(folder / f"{name}.png"))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("tab", ["practice", "copilot"])
def test_round_table_on_a_phone_names_each_score(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
    tab: str,
) -> None:
    seen = SEEN[lang]
    page = _page(browser, served, PHONE, lang)
    where = _practice_report(page, lang) if tab == "practice" else _copilot_report(page, lang)
    t = _round_table(page, where)
    assert t["heads"][1:6] == seen["dims"], t["heads"]
    assert t["rows"], "the round table has no rows"
    for row in t["rows"]:
        for head, cell in list(zip(t["heads"], row, strict=True))[1:]:
            assert cell["shown"], f"{head}: not shown"
            assert head in cell["before"], (
                f"the cell {cell['text']!r} is not named {head!r} ({cell['before']})"
            )
    assert t["pageWidth"] <= PHONE["width"], f"the page is {t['pageWidth']} px wide on the phone"
    _shot(page, where, screenshots, f"rt-phone-{tab}-{lang}")
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("tab", ["practice", "copilot"])
def test_round_table_on_a_desktop_shows_every_column(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
    tab: str,
) -> None:
    page = _page(browser, served, DESKTOP, lang)
    where = _practice_report(page, lang) if tab == "practice" else _copilot_report(page, lang)
    t = _round_table(page, where)
    assert not t["cut"], f"headers cut: {t['cut']}"
    assert t["fits"] or t["scrolls"], "the table is wider than its box and does not scroll"
    assert not t["clipped"], "the table runs past a box that hides what overflows"
    _shot(page, where, screenshots, f"rt-desktop-{tab}-{lang}")
    page.context.close()
