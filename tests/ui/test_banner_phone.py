"""The round-finished banner on a 390 px phone screen (issue 12: its text touched its border and its flag and
score chips were clipped), in headless Chromium, in English and Chinese: every line of text in the banner
keeps clear of the border around it (the banner's, and each dimension's box), and nothing in it is cut.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): issue12-7-phone-banner-{lang} (the
banner alone) and issue12-7-phone-banner-page-{lang}.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _set_up_practice, _shows, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_phone import PHONE, _no_sideways_scroll, _phone

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

pytestmark = pytest.mark.browser

CLEAR_PX = 4
"""Text keeps at least this far from a border around it."""
SEEN = {
    "en": {"plan": "Full mock: five rounds, 90 min", "lang": "English", "finish": "Finish this round",
           "flags": "Flags", "insight": "What this answer showed"},
    "zh": {"plan": "完整模拟：五轮，90 分钟", "lang": "中文", "finish": "结束本轮", "flags": "标记",
           "insight": "这次回答体现了什么"},
}  # fmt: skip
ANSWER = {  # says what works and not what fails: the banner shows a flag
    "en": "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand. Continuous batching "
    "reschedules every step. Prefix caching reuses the KV blocks of a shared prefix.",
    "zh": "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。Continuous batching 每一步都重新调度。"
    "Prefix caching 复用共享前缀的 KV block。",
}
TOUCHING = """(clear) => {
  const banner = document.querySelector('#round-scores');
  const out = [];
  // the boxes with a border that text sits in: the banner and every element inside it that draws one
  const bordered = (el) => { const c = getComputedStyle(el);
    return parseFloat(c.borderLeftWidth) > 0 || parseFloat(c.borderRightWidth) > 0; };
  const texts = [];
  const walker = document.createTreeWalker(banner, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.data.trim()) texts.push(n);
  for (const n of texts) {
    const el = n.parentElement;
    if (!el.offsetParent) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (r.width === 0) continue;
      for (let box = el; box && banner.contains(box); box = box.parentElement) {
        if (!bordered(box)) continue;
        const b = box.getBoundingClientRect(), c = getComputedStyle(box);
        const left = b.left + parseFloat(c.borderLeftWidth), right = b.right - parseFloat(c.borderRightWidth);
        if (r.left - left < clear || right - r.right < clear)
          out.push(`${n.data.trim().slice(0, 24)} (${Math.round(r.left - left)} / ${Math.round(right - r.right)} px` +
                   ` inside ${box.tagName.toLowerCase()}${box.id ? '#' + box.id : ''})`);
      }
    }
  }
  for (const el of banner.querySelectorAll('*')) {  // cut: content wider than its box, not scrolled to
    if (el.offsetParent && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
      out.push(`cut: ${el.tagName.toLowerCase()}.${el.className} ${el.scrollWidth} > ${el.clientWidth}`);
  }
  return [...new Set(out)];
}"""


def banner_on_a_phone(b: Browser, served: Served, lang: str, answer: str) -> tuple[Page, Locator]:
    """A phone's page with the round-finished banner of one round: the plan started in `lang`, `answer`
    sent, the round finished (`b`: the module's browser)."""
    seen = SEEN[lang]
    page = _phone(b, served)
    _set_up_practice(page, ui=lang, plan=seen["plan"], lang=seen["lang"])
    page.locator("#start").click()
    page.wait_for_function(
        "() => document.querySelector('#practice-sid :is(input, textarea)').value.length > 0"
    )
    page.locator("#answer textarea").fill(answer)
    page.locator("#send").click()
    _shows(page, "#answer-insight", seen["insight"])
    page.get_by_role("button", name=seen["finish"]).click()
    banner = page.locator("#round-scores")
    banner.wait_for()
    return page, banner


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_round_banner_keeps_its_text_clear_of_its_borders_on_a_phone(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page, banner = banner_on_a_phone(browser, served, lang, ANSWER[lang])
    _shows(page, "#round-scores", seen["flags"])
    page.wait_for_timeout(500)
    banner.screenshot(path=str(screenshots / f"issue12-7-phone-banner-{lang}.png"))
    page.screenshot(path=str(screenshots / f"issue12-7-phone-banner-page-{lang}.png"))
    assert page.evaluate(TOUCHING, CLEAR_PX) == []
    _no_sideways_scroll(page, "round scores")
    assert (
        page.evaluate("() => document.querySelector('#round-scores').getBoundingClientRect().right")
        <= PHONE["width"]
    )
    page.context.close()
