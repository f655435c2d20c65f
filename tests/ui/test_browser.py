"""End to end in real headless Chromium (Debian `chromium`, driven by Playwright; never a downloaded browser).

Saves a screenshot of each tab to $COACH_SCREENSHOTS (default: <tmp>/coach-screenshots), outside the repo.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.overrides import OverrideLog
from tests.ui.conftest import Served

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog, Page

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 60_000
ANSWER = (
    "Paged KV cache splits the KV cache into fixed-size blocks so memory is not reserved for the maximum "
    "length. Continuous batching reschedules every step. Prefix caching reuses the KV blocks of a shared "
    "prefix. If p95 latency regresses after the change I would roll back."
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def _open(browser: Browser, served: Served, on_dialog: Callable[[Dialog], None] | None = None) -> Page:
    """The app in a new browser context; the browser's dialogs go to `on_dialog`, else each is accepted ("leave
    the session under way?": yes, as a person who clicked)."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("dialog", on_dialog or (lambda d: d.accept()))
    page.goto(served.url)
    page.locator("#start").wait_for()
    return page


def _value(page: Page, selector: str) -> str:
    return page.locator(selector).input_value()


SWITCH = {"en": "English", "zh": "中文"}
"""The interface language switch's choices (#ui-language)."""
PRACTICE_TAB = {"en": "Practice", "zh": "练习"}
SID = "#practice-sid :is(input, textarea)"


def _interface(page: Page, lang: str) -> None:
    """The interface language switch on `lang` ("en" or "zh"); returns once the tabs carry its names."""
    page.locator("#ui-language").get_by_text(SWITCH[lang], exact=True).click()
    page.get_by_role("tab", name=PRACTICE_TAB[lang]).wait_for()


def _set_up_practice(page: Page, *, ui: str = "en", plan: str | None = None, lang: str | None = None) -> None:
    """Practice's set-up on a page just opened (in English): the interface switched to `ui` when it is not
    English, the plan picked by its name in the list, the interview language by its label ("English",
    "中文"); what is not given stays as the page has it."""
    if ui != "en":
        _interface(page, ui)
    if plan is not None:
        page.locator("#plan input").click()
        page.get_by_role("option", name=plan).click()
    if lang is not None:
        page.locator("#session-lang").get_by_text(lang, exact=True).click()


def _start_practice(page: Page, *, ui: str = "en", plan: str | None = None, lang: str | None = None) -> str:
    """`_set_up_practice`, then Start: the new session's id, once it and its first question are on screen."""
    _set_up_practice(page, ui=ui, plan=plan, lang=lang)
    before = _value(page, SID)
    page.locator("#start").click()
    page.wait_for_function(
        "old => { const v = document.querySelector('#practice-sid :is(input, textarea)')?.value || '';"
        " return v.length > 0 && v !== old; }",
        arg=before,
    )
    page.wait_for_function(
        "() => (document.querySelector('#practice-question')?.innerText || '').trim() !== ''"
    )
    return _value(page, SID)


def _shows(page: Page, selector: str, text: str) -> None:
    """Wait until the element's rendered text holds `text` (tables render hidden copies of cells)."""
    page.wait_for_function(
        "([s, t]) => (document.querySelector(s)?.innerText || '').includes(t)", arg=[selector, text]
    )


def _no_error_toast(page: Page, where: str) -> None:
    """Gradio shows a failed event as a red toast (class `toast-body error`): none may be on screen."""
    toasts = page.locator(".toast-body.error")
    assert toasts.count() == 0, f"{where}: error toast: {toasts.first.inner_text()!r}"


def _shot(page: Page, folder: Path, name: str, *, full_page: bool = True) -> None:
    """The page (`full_page`) or what the screen shows now, once the last render settled."""
    page.wait_for_timeout(500)  # let the last render settle
    _no_error_toast(page, name)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=full_page)


def _tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def test_practice_voice_review_reports_and_copilot_in_chromium(
    browser: Browser, served: Served, speak_wav: Callable[[str], Path], screenshots: Path
) -> None:
    page = _open(browser, served)

    # Practice, typed: the question as text and speech, the timer, then scores with quotes.
    sid = _start_practice(page)
    page.locator("#practice-progress").get_by_text(re.compile(r"Round 1 of 1")).wait_for()
    page.locator("#practice-question-audio audio").first.wait_for(state="attached")  # the question, spoken
    timer_1 = page.locator("#practice-progress .coach-timer").inner_text()
    page.wait_for_function(  # it ticks (within a few seconds even on a loaded machine)
        "s => document.querySelector('#practice-progress .coach-timer')?.innerText !== s",
        arg=timer_1,
        timeout=15_000,
    )
    first_question = page.locator("#practice-question").inner_text()
    page.locator("#answer textarea").fill(ANSWER)
    page.locator("#send").click()
    page.wait_for_function(
        "q => !document.querySelector('#practice-question').innerText.includes(q)", arg=first_question[-40:]
    )
    page.get_by_role("button", name="Finish this round").click()
    report = page.locator("#practice-report")
    report.get_by_text(f"Interview report: {sid}").wait_for()
    assert "Accuracy" in report.inner_text() and "fixed-size blocks" in report.inner_text()
    page.locator("#practice-progress").get_by_text("Session finished").wait_for()
    _shot(page, screenshots, "1-practice")

    # Practice, spoken: an espeak-ng WAV through the audio path fills the editable answer.
    _start_practice(page)
    wav = speak_wav("I would roll back the deployment and check the latency.")
    page.locator("#practice-mic button[aria-label='Upload file']").click()
    page.locator("#practice-mic input[type=file]").set_input_files(str(wav))
    page.wait_for_function(
        "() => /roll ?back/i.test(document.querySelector('#answer textarea').value)", timeout=120_000
    )
    answer = _value(page, "#answer textarea")
    assert "latency" in answer.lower()
    page.locator("#practice-status").get_by_text("Transcribed").wait_for()
    page.locator("#answer textarea").fill(answer + " Edited before sending.")
    _no_error_toast(page, "2-practice-voice")
    page.screenshot(path=str(screenshots / "2-practice-voice.png"), full_page=False)
    page.locator("#send").click()
    page.wait_for_function("() => document.querySelector('#answer textarea').value === ''")

    # Review: open the first session, override a score with a reason, see the log row.
    _tab(page, "Review")
    page.locator("#review-sid :is(input, textarea)").fill(sid)
    page.get_by_role("button", name="Open session").click()
    page.locator("#review-status").get_by_text(f"Opened {sid}").wait_for()
    _shows(page, "#review-table", "Accuracy")
    score = page.locator("#review-score input[type=number]")
    score.fill("4")
    score.press("Enter")
    page.locator("#review-reason textarea").fill("Named the block table; the cue list missed it")
    page.locator("#review-reviewer textarea").fill("Rui Chen")
    page.locator("#review-save").click()
    page.locator("#review-save-status").get_by_text("Saved").wait_for()
    _shows(page, "#review-log", "Rui Chen")
    _shows(page, "#review-log", "Named the block table; the cue list missed it")
    [row] = OverrideLog(served.data_dir / "overrides.sqlite").rows(sid)
    assert (row.dimension, row.human_score, row.reviewer) == ("accuracy", 4, "Rui Chen")
    _shot(page, screenshots, "3-review")

    # Reports: the radar chart of the session, with the override in its effective scores.
    _tab(page, "Reports")
    page.wait_for_timeout(1000)  # selecting the tab lists the sessions
    page.get_by_role("button", name="Use the report open in Review").click()
    page.locator("#reports-radar img, #reports-radar svg, #reports-radar canvas").first.wait_for()
    _shows(page, "#reports-summary", "Concept quick-fire")
    # the history: the session's total after the override, marked as overridden (issue 12)
    _shows(page, "#reports-history", "overridden; judge:")
    _shot(page, screenshots, "4-reports")

    # Co-pilot: record an answer, see follow-ups with why and draft scores, pick one and ask it.
    _tab(page, "Co-pilot")
    page.locator("#copilot-start").click()
    page.locator("#copilot-question").get_by_text("Given").wait_for()
    page.locator("#copilot-answer textarea").fill(
        "Weights: 40e9 x 2 B = 80e9 B, about 74.5 GiB (derived); per rank at TP=4 about 18.6 GiB (derived)."
    )
    page.get_by_role("button", name="Save answer").click()
    page.locator("#copilot-suggestions").get_by_text("Suggested follow-ups").wait_for()
    page.locator("#copilot-draft").get_by_text("Draft scores").wait_for()
    picked = page.locator("#copilot-pick label").nth(1)
    picked_text = picked.inner_text().strip()
    picked.click()
    page.wait_for_function(
        "t => document.querySelector('#copilot-next textarea').value.trim() === t", arg=picked_text
    )
    page.get_by_role("button", name="Ask", exact=True).click()
    page.locator("#copilot-question").get_by_text(picked_text).wait_for()
    _shot(page, screenshots, "5-copilot")

    # The language switch: tabs, buttons and labels in Chinese.
    _interface(page, "zh")
    page.get_by_role("button", name="保存回答").wait_for()
    _tab(page, "练习")
    page.get_by_role("button", name="发送回答").wait_for()
    _shows(page, "#practice-progress", "第 1 / 1 轮")
    _shows(page, "#practice-question", "问题")
    _shot(page, screenshots, "6-practice-zh")
    _tab(page, "报告")
    _shows(page, "#reports-history", "人工改分；评分器：")
    _shot(page, screenshots, "6b-reports-zh")
    page.context.close()


def _view_json(page: Page) -> str:
    """Everything the page holds, hidden parts (the raw session JSON) included."""
    return str(page.evaluate("() => document.body.textContent"))


def test_two_sessions_at_once_do_not_see_each_others_answers(browser: Browser, served: Served) -> None:
    a, b = _open(browser, served), _open(browser, served)
    sid_a, sid_b = _start_practice(a), _start_practice(b)
    assert sid_a != sid_b
    for page, text in (
        (a, "Alice says the block table maps tokens."),
        (b, "Bob says preemption recomputes."),
    ):
        page.locator("#answer textarea").fill(text)
        page.locator("#send").click()
    for page, text in (
        (a, "Alice says the block table maps tokens."),
        (b, "Bob says preemption recomputes."),
    ):
        page.wait_for_function("() => document.querySelector('#answer textarea').value === ''")
        page.get_by_text("Raw session (JSON)").click()
        page.wait_for_function("t => document.body.textContent.includes(t)", arg=text)  # in its session JSON
    assert "Bob says" not in _view_json(a) and "Alice says" not in _view_json(b)
    b.locator("#practice-resume-id :is(input, textarea)").fill(sid_a)
    b.get_by_role("button", name="Resume").click()
    b.locator("#practice-status").get_by_text(f"no such session: {sid_a}").wait_for()
    assert "Alice says" not in _view_json(b)
    # a reload keeps the browser's own sessions (its id lives in local storage)
    a.reload()
    a.locator("#practice-status").get_by_text("Welcome back").wait_for()  # restored first, then resumed
    a.locator("#practice-resume-id :is(input, textarea)").fill(sid_a)
    a.get_by_role("button", name="Resume").click()
    a.locator("#practice-status").get_by_text(f"Session {sid_a} resumed.").wait_for()
    for page in (a, b):
        page.context.close()
