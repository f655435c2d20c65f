"""Gradio's own strings follow the app's language switch, not the browser's language, in headless Chromium
with a fake microphone: the recorder's "Record" and "Stop", the upload's "Drop File Here" / "Click to
Upload" and the footer, in Chinese when the switch says 中文 in an English browser and in English when it
says English in a Chinese browser; a reload keeps them with the session under way.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): 16a-gradio-strings-practice-{lang},
16b-gradio-strings-review-{lang}, 16c-gradio-strings-reloaded-{lang}.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.util.messages import t
from tests.ui.conftest import Served
from tests.ui.test_browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, _shot, _shows

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

FAKE_MIC = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
GRADIO = {  # Gradio's own strings (its frontend's en and zh-CN messages) the app shows
    "en": {
        "record": "Record",
        "stop": "Stop",
        "drop": "Drop File Here",
        "or": "- or -",
        "upload": "Click to Upload",
        "api": "Use via API",
    },
    "zh": {
        "record": "录制",
        "stop": "停止",
        "drop": "将文件拖放到此处",
        "or": "- 或 -",
        "upload": "点击上传",
        "api": "通过 API 使用",
    },
}
APP = {
    "en": {
        "switch": "English",
        "tab_review": "Review",
        "tab_practice": "Practice",
        "welcome": "Welcome back",
    },
    "zh": {"switch": "中文", "tab_review": "复核", "tab_practice": "练习", "welcome": "欢迎回来"},
}
SESSION_KEY = "interview-coach-practice"
"""Where the browser keeps the session under way (Practice's gr.BrowserState)."""
BROWSER = {"en": "zh-CN", "zh": "en-US"}
"""The browser's own language in each case: the other one."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium with a fake microphone (its recorder shows Record, then Stop)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + FAKE_MIC, headless=True)
        try:
            yield b
        finally:
            b.close()


def _gradio_locale(page: Page, want: str) -> None:
    """Wait until Gradio's frontend runs in `want` (it writes its locale to <html lang>)."""
    page.wait_for_function("l => document.documentElement.lang === l", arg=want)


def _english_gradio_strings(page: Page, selector: str) -> list[str]:
    text = page.locator(selector).inner_text()
    return [s for s in GRADIO["en"].values() if s in text]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_gradio_strings_follow_the_switch_not_the_browser(
    browser: Browser, served: Served, screenshots: Path, lang: str
) -> None:
    gradio, app = GRADIO[lang], APP[lang]
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale=BROWSER[lang], permissions=["microphone"]
    )
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("dialog", lambda d: d.accept())
    page.goto(served.url)
    page.locator("#start").wait_for()
    assert page.evaluate("navigator.language") == BROWSER[lang]
    if lang == "zh":  # the app starts in English
        page.locator("#ui-language").get_by_text(app["switch"]).click()
    _gradio_locale(page, "zh-CN" if lang == "zh" else "en")
    # the switch's own answer has come back: the microphone's label (the app's words, not Gradio's) is in the
    # language asked for; "Record or upload the answer" holds Gradio's "Record" until then
    mic_label = t("ui.record", "zh" if lang == "zh" else "en")
    page.locator("#practice-mic").get_by_text(mic_label).wait_for()

    # Practice: the recorder's Record, then Stop while it records; the footer
    mic = page.locator("#practice-mic")
    mic.get_by_role("button", name=gradio["record"], exact=True).click()
    mic.get_by_role("button", name=gradio["stop"], exact=True).wait_for()
    _shows(page, "footer", gradio["api"])
    if lang == "zh":
        assert _english_gradio_strings(page, "#practice-mic") == []
        assert _english_gradio_strings(page, "footer") == []
    _shot(page, screenshots, f"16a-gradio-strings-practice-{lang}")
    mic.get_by_role("button", name=gradio["stop"], exact=True).click()

    # Review: the upload's own words
    page.get_by_role("tab", name=app["tab_review"]).click()
    for key in ("drop", "or", "upload"):
        _shows(page, "#review-file", gradio[key])
    if lang == "zh":
        assert _english_gradio_strings(page, "body") == []
    _shot(page, screenshots, f"16b-gradio-strings-review-{lang}")

    # a reload keeps the switch's language for Gradio's strings too, and the session under way
    page.get_by_role("tab", name=app["tab_practice"]).click()
    kept = page.evaluate(f"localStorage.getItem('{SESSION_KEY}')")
    page.locator("#start").click()
    page.wait_for_function("document.querySelector('#practice-sid :is(input, textarea)').value.length > 0")
    sid = page.locator("#practice-sid :is(input, textarea)").input_value()
    page.wait_for_function(f"k => localStorage.getItem('{SESSION_KEY}') !== k", arg=kept)  # remembered
    page.reload()
    page.locator("#practice-status").get_by_text(app["welcome"]).wait_for()
    assert page.locator("#practice-sid :is(input, textarea)").input_value() == sid
    _gradio_locale(page, "zh-CN" if lang == "zh" else "en")
    page.locator("#practice-mic").get_by_role("button", name=gradio["record"], exact=True).wait_for()
    if lang == "zh":
        page.wait_for_function(
            "words => !words.some(w => document.querySelector('#practice-mic').innerText.includes(w))",
            arg=list(GRADIO["en"].values()),
        )
    _shot(page, screenshots, f"16c-gradio-strings-reloaded-{lang}")
    context.close()
