"""Issue 12 in headless Chromium, in English and Chinese: Ctrl+Enter sends; while the round-finished banner
waits, the next round's clock is stopped at 00:00 and it starts on Continue; on a 390 px wide phone screen
the practice loop is usable (no sideways scrolling, the plan's name clear of its arrow). While the question
is being spoken (text to speech takes seconds), the phone shows the question's text at once and says the
speech is being prepared, instead of an empty player; the player fills in when the speech is ready.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): 12a-phone-setup-{lang},
12b-phone-insight-{lang}, 12c-phone-round-scores-{lang}, 12d-phone-next-round-{lang}; what the phone's
screen shows (not the whole page) 12e-phone-speech-preparing-{lang} (after an answer, the next question
and its speech being made) and 12f-phone-speech-ready-{lang}.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.rubric.model import Lang
from agent.voice.tts import default_tts
from tests.ui.conftest import Served, launch_app
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
        "continue": "Continue",
        "round2": "Round 2 of 5",
        "preparing": "Preparing the spoken question",
        "question": "Question:",
        "followup": "Follow-up 1 of 2",
    },
    "zh": {
        "plan": "完整模拟：五轮，90 分钟",
        "lang": "中文",
        "insight": "这次回答体现了什么",
        "finish": "结束本轮",
        "continue": "继续作答",
        "round2": "第 2 / 5 轮",
        "preparing": "正在生成问题语音",
        "question": "问题：",
        "followup": "追问 1/2",
    },
}
ANSWER = {
    "en": "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand.",
    "zh": "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。",
}


def _phone(chromium: Browser, served: Served) -> Page:
    """A page on a 390 px phone screen, the app open."""
    context = chromium.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("dialog", lambda d: d.accept())
    page.goto(served.url)
    page.locator("#start").wait_for()
    return page


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
    page = _phone(browser, served)
    context = page.context
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
    page.wait_for_function(  # the banner, at the top of the page, comes on the screen (Finish is far below)
        "() => { const r = document.querySelector('#round-scores')?.getBoundingClientRect();"
        " return !!r && r.top >= -1 && r.top < window.innerHeight / 2; }",
        timeout=10_000,
    )
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


class HeldSpeech:
    """The offline voices, each question's speech held until the test lets it go (`release`): text to speech
    that takes as long as the test wants, as a long question does on a slow machine."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.waiting = threading.Event()

    def synthesize(self, text: str, language: Lang) -> Path:
        self.waiting.set()
        self.go.wait(WAIT_MS / 1000)
        return default_tts().synthesize(text, language)

    def hold(self) -> None:
        self.go.clear()
        self.waiting.clear()

    def release(self) -> None:
        self.go.set()


@pytest.fixture(scope="module")
def held_speech() -> HeldSpeech:
    return HeldSpeech()


@pytest.fixture(scope="module")
def served_held_speech(ui_data_dir: Path, held_speech: HeldSpeech) -> Iterator[Served]:
    yield from launch_app(ui_data_dir, users={}, tts=lambda: held_speech)


ON_SCREEN = (
    "s => { const e = document.querySelector(s); if (!e || !e.offsetParent) return false;"
    " const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= -1 && r.bottom <= window.innerHeight + 1; }"
)
"""Whether the element is shown and wholly within the screen (the phone's viewport)."""


def _comes_on_screen(page: Page, selector: str, what: str) -> None:
    """The element comes wholly on the screen within a few seconds (the page scrolls smoothly)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(ON_SCREEN, arg=selector, timeout=10_000)
    except PlaywrightTimeout:
        raise AssertionError(f"{what} is off the screen") from None


def _question(page: Page) -> str:
    """The start of the question asked now, without its label ("Follow-up 1 of 2 · Question:")."""
    return re.split("[:：]", _text(page, "#practice-question"), maxsplit=1)[-1].strip()[:30]


def _speech_preparing(page: Page, seen: dict[str, str], question: str) -> None:
    """While the speech is held: the question's text is on the screen, the spoken box under it says its
    speech is being prepared, and no empty player stands in its place."""
    _shows(page, "#practice-question", question)
    _shows(page, "#practice-question-voice", seen["preparing"])
    _comes_on_screen(page, "#practice-question", "the question")
    _comes_on_screen(page, "#practice-question-voice", "the note that its speech is being prepared")
    assert not page.locator("#practice-question-audio").is_visible(), "an empty player stands in its place"


def _speech_ready(page: Page, seen: dict[str, str]) -> None:
    """Once the speech is let go: the player, with the question's speech, and the note gone."""
    page.wait_for_function(  # the player holds the speech: its file to download
        "() => /\\.wav$/.test(document.querySelector('#practice-question-audio a[download]')?.href || '')"
    )
    page.wait_for_function(
        "t => !(document.querySelector('#practice-question-voice')?.innerText || '').includes(t)",
        arg=seen["preparing"],
    )
    assert page.locator("#practice-question-audio").is_visible()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_phone_shows_the_next_question_at_once_while_its_speech_is_made(
    browser: Browser,  # noqa: F811
    served_held_speech: Served,
    held_speech: HeldSpeech,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page = _phone(browser, served_held_speech)
    _set_up_practice(page, ui=lang, lang=seen["lang"])

    # Start: the first question, its speech held
    held_speech.hold()
    page.locator("#start").click()
    _shows(page, "#practice-question", seen["question"])  # the question itself, not Gradio's progress text
    first = _question(page)
    _speech_preparing(page, seen, first)
    held_speech.release()
    _speech_ready(page, seen)

    # an answer sent from down the page: the next question is on the screen at once, its speech held
    held_speech.hold()
    box = page.locator("#answer textarea")
    box.fill(ANSWER[lang])
    page.locator("#send").click()
    _shows(page, "#practice-question", seen["followup"])
    follow_up = _question(page)
    assert follow_up != first
    assert held_speech.waiting.wait(WAIT_MS / 1000), "the next question was not being spoken"
    _speech_preparing(page, seen, follow_up)
    _no_sideways_scroll(page, "speech being prepared")
    _shot(page, screenshots, f"12e-phone-speech-preparing-{lang}", full_page=False)

    held_speech.release()
    _speech_ready(page, seen)
    _shows(page, "#answer-insight", seen["insight"])  # the insight of the answer is below, as before
    _shot(page, screenshots, f"12f-phone-speech-ready-{lang}", full_page=False)
    page.context.close()
