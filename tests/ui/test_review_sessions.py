"""Review's list of sessions (issue 12): a coach picks a session by its plan, mode, interview language and
date instead of typing its id; picking one opens it as the id typed does; a session's name reads whole at
1280 px (the list the page's width) and at 390 px (wrapped, in the list and in the box once picked). In
headless Chromium, in English and in Chinese; and whose sessions the list holds (the caller's own; a
reviewer's, every user's).

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): h1-review-sessions-{lang},
h1-review-opened-{lang}, h1-review-sessions-switched-{lang}, retry-review-sessions-phone-{lang},
retry-review-picked-phone-{lang}.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr
import pytest

from agent import graph
from agent.ui.context import AppContext, Services
from agent.ui.texts import Texts
from tests.ui.conftest import Served
from tests.ui.test_browser import _interface, _open, _shot, _shows, _start_practice, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_loop import _text
from tests.ui.test_practice_phone import PHONE
from tests.ui.test_review_browser import ANSWERS, SEEN

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

OTHER = {"en": "zh", "zh": "en"}
LIST = {
    "en": {
        "mode": "practice",
        "language": {"en": "English", "zh": "Chinese"},
        "under_way": "under way",
        "when": "UTC",
    },
    "zh": {
        "mode": "练习",
        "language": {"en": "英文", "zh": "中文"},
        "under_way": "进行中",
        "when": "（UTC）",
    },
}
PICK = "#review-sessions input"
CUT = """s => [...document.querySelectorAll(s)].filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.tagName.toLowerCase()} ${e.scrollWidth} > ${e.clientWidth}: ${e.value || e.innerText}`)"""
"""The elements matching a selector whose text is wider than their box (cut, or hidden past an ellipsis)."""
OUTSIDE = """s => [...document.querySelectorAll(s)].filter(e => e.getBoundingClientRect().right > window.innerWidth)
  .map(e => e.innerText)"""
"""The elements matching a selector that reach past the screen's right edge."""


def _options(page: Page, n: int) -> list[str]:
    """The list's choices as a person sees them when it is opened, once it holds `n` (it is filled when the
    tab is opened: a moment after the click)."""
    options = page.get_by_role("option")
    for _ in range(60):
        page.locator(PICK).click()
        page.wait_for_timeout(250)
        if options.count() == n:
            break
        page.keyboard.press("Escape")
        page.wait_for_timeout(250)
    return [o.inner_text().strip() for o in options.all()]


def _finish(page: Page, lang: str, session_lang: str) -> str:
    """A practice session in `session_lang` answered once and finished, in the interface language `lang`."""
    seen = SEEN[lang]
    sid = _start_practice(page, lang=SEEN[session_lang]["lang"])
    page.locator("#answer textarea").fill(ANSWERS[session_lang])
    page.locator("#send").click()
    page.wait_for_function("() => document.querySelector('#answer textarea').value === ''")
    page.get_by_role("button", name=seen["finish"]).click()
    page.locator("#practice-progress").get_by_text(seen["done"]).wait_for()
    return sid


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_review_lists_the_sessions_by_name_and_opens_the_one_picked(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen, words, other = SEEN[lang], LIST[lang], OTHER[lang]
    page = _open(browser, served)
    if lang == "zh":
        _interface(page, "zh")
    done = _finish(page, lang, other)  # in the other interview language: the list says which
    under_way = _start_practice(page, lang=seen["lang"])

    page.get_by_role("tab", name=seen["tab"]).click()
    options = _options(page, 2)
    assert len(options) == 2, options  # this page's own two sessions, the latest first
    latest, finished = options
    assert latest.endswith(under_way) and words["under_way"] in latest, latest
    assert finished.endswith(done) and words["under_way"] not in finished, finished
    for item, session_lang in ((finished, other), (latest, lang)):
        assert seen["round"] in item and words["mode"] in item and words["when"] in item, item
        assert words["language"][session_lang] in item, item
    if lang == "zh":  # no English but the id and UTC
        assert not re.search(r"[A-Za-z]", finished.replace(done, "").replace("UTC", "")), finished
    _shot(page, screenshots, f"h1-review-sessions-{lang}", full_page=False)

    page.get_by_role("option", name=finished).click()
    page.locator("#review-status").get_by_text(f"{seen['opened']} {done}").wait_for()
    _shows(page, "#review-table", seen["dims"][-1])
    assert page.locator("#review-sid :is(input, textarea)").input_value() == done  # as if typed
    assert page.locator(PICK).input_value() == finished
    # the picked session's name whole in its box on a wide screen (a blind tester saw it cut at 1280 px)
    assert page.evaluate(CUT, PICK) == [], page.evaluate(CUT, PICK)
    _shot(page, screenshots, f"h1-review-opened-{lang}")

    # the language switch names the sessions again, the one picked still picked
    _interface(page, other)
    page.wait_for_function(
        "([s, w]) => (document.querySelector(s)?.value || '').includes(w)", arg=[PICK, LIST[other]["mode"]]
    )
    switched = _options(page, 2)
    assert len(switched) == 2 and LIST[other]["under_way"] in switched[0], switched
    assert LIST[other]["language"][other] in switched[1] and switched[1].endswith(done), switched
    _shot(page, screenshots, f"h1-review-sessions-switched-{other}", full_page=False)

    # on a phone (390 px) each listed session reads whole, wrapped, within the screen; the one picked too
    page.keyboard.press("Escape")
    page.evaluate("() => document.activeElement?.blur()")  # the list opens as the box takes the focus
    page.set_viewport_size(PHONE)
    shown = _options(page, 2)
    assert shown == switched
    assert page.evaluate(CUT, "[role=option]") == [], page.evaluate(CUT, "[role=option]")
    assert page.evaluate(OUTSIDE, "[role=option]") == []
    _shot(page, screenshots, f"retry-review-sessions-phone-{other}", full_page=False)
    page.keyboard.press("Escape")
    page.evaluate("() => document.activeElement?.blur()")
    page.wait_for_function("() => document.querySelector('#review-sessions .coach-picked')?.offsetParent")
    assert page.evaluate(CUT, "#review-sessions .coach-picked") == []
    assert LIST[other]["mode"] in _text(page, "#review-sessions") and done in _text(page, "#review-sessions")
    page.locator("#review-sessions").scroll_into_view_if_needed()
    _shot(page, screenshots, f"retry-review-picked-phone-{other}", full_page=False)
    page.context.close()


def _request(name: str) -> Any:
    return gr.Request(username=name)


def test_the_list_holds_the_callers_own_sessions_and_a_reviewers_every_users(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.ui.tabs.review import list_reviewable  # (here: the browser test runs against older code too)

    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    services = Services(
        retriever=lambda: lambda text, k: [],
        require_login=True,
        reviewers=frozenset({"rita"}),
        users=("alice", "bob", "rita"),
    )
    with gr.Blocks():
        ui, owner, report = gr.Radio(), gr.State(), gr.State()
    ctx = AppContext(services, Texts("en"), "en", ui, owner, report)
    alice = graph.start_session("concepts", "en", "practice", owner="alice").session_id
    bob = graph.start_session("concepts", "zh", "copilot", owner="bob").session_id

    def listed(name: str) -> dict[str, str]:
        update = list_reviewable(ctx, None, "en", None, _request(name))
        return {sid: label for label, sid in update["choices"]}

    assert listed("alice") == {alice: listed("alice")[alice]} and "of alice" not in listed("alice")[alice]
    assert list(listed("bob")) == [bob]  # bob never sees alice's session
    seen = listed("rita")  # a reviewer: everyone's, each saying whose
    assert set(seen) == {alice, bob}
    assert "of alice" in seen[alice] and "English" in seen[alice] and "practice" in seen[alice]
    assert "of bob" in seen[bob] and "Chinese" in seen[bob] and "co-pilot" in seen[bob]
