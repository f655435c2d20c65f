"""The round-finished banner shows, under each flag, what in the answer raised it (issue 12), in headless
Chromium on a 390 px phone screen, in English and Chinese: under "Wrong claim" the candidate's sentence as they
wrote it, under "Source path that does not exist" the path they cited, under "Happy path only" that there is
nothing to quote; every line clear of the banner's borders, nothing cut, no sideways scroll.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): h2-banner-flag-quotes-phone-{lang} (the
banner alone) and h2-banner-flag-quotes-desktop-{lang} (the same banner at 1280 px).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_banner_phone import CLEAR_PX, TOUCHING, banner_on_a_phone
from tests.ui.test_browser import _set_up_practice, _shows, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_phone import PHONE, _no_sideways_scroll

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

PATH = "vllm/model_executor/layers/quantization/utils/paged_swap_to_cpu_manager.py"  # long: it must wrap
WRONG = {
    "en": "PagedAttention is basically CPU swapping for the KV cache.",
    "zh": "PagedAttention 就是显存不够时把 KV cache 换出到 CPU 内存。",
}
ANSWER = {
    "en": f"Paged KV cache splits the KV cache into fixed-size blocks allocated on demand. {WRONG['en']} "
    f"I would check {PATH}.",
    "zh": f"Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。{WRONG['zh']}我会去看 {PATH}。",
}
SEEN = {
    "en": {"plan": "Full mock: five rounds, 90 min", "lang": "English", "finish": "Finish this round",
           "insight": "What this answer showed", "wrong": "Wrong claim", "path": "The path you cited: ",
           "quote": "Your words: “{q}”", "happy": "Happy path only", "absent": "Nothing to quote",
           "nowhere": "Source path that does not exist"},
    "zh": {"plan": "完整模拟：五轮，90 分钟", "lang": "中文", "finish": "结束本轮",
           "insight": "这次回答体现了什么", "wrong": "错误说法", "path": "你引用的路径：",
           "quote": "你的原话：“{q}”", "happy": "只讲了顺利情况", "absent": "没有可引用的原话",
           "nowhere": "引用了不存在的源码路径"},
}  # fmt: skip
UNDER = """(name) => {
  // the text of the items nested under the flag whose line starts with `name`, in the banner's flag list
  for (const li of document.querySelectorAll('#round-scores li')) {
    const own = Array.from(li.childNodes).filter((n) => n.nodeName !== 'UL').map((n) => n.textContent).join('').trim();
    if (li.parentElement.closest('li') || !own.startsWith(name)) continue;
    return Array.from(li.querySelectorAll(':scope > ul > li')).map((x) => x.innerText.trim());
  }
  return null;
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_banner_quotes_what_raised_each_flag(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page, banner = banner_on_a_phone(browser, served, lang, ANSWER[lang])
    _shows(page, "#round-scores", seen["quote"].format(q=WRONG[lang]))
    page.wait_for_timeout(500)
    banner.screenshot(path=str(screenshots / f"h2-banner-flag-quotes-phone-{lang}.png"))

    # under the flag's own line, in the candidate's words, not somewhere else in the banner
    wrong = page.evaluate(UNDER, seen["wrong"])
    assert wrong and seen["quote"].format(q=WRONG[lang]) in wrong[0], wrong
    happy = page.evaluate(UNDER, seen["happy"])
    assert happy and len(happy) == 1 and happy[0].startswith(seen["absent"]), happy
    assert page.evaluate(UNDER, seen["nowhere"]) == [seen["path"] + PATH]
    quote = banner.locator("li li").filter(has_text=WRONG[lang])
    assert quote.is_visible()

    # a phone reads it: every line clear of its borders, nothing cut, no sideways scroll
    assert page.evaluate(TOUCHING, CLEAR_PX) == []
    _no_sideways_scroll(page, "round scores with the flags' quotes")
    box = quote.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box

    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_timeout(500)
    banner.screenshot(path=str(screenshots / f"h2-banner-flag-quotes-desktop-{lang}.png"))
    page.context.close()
