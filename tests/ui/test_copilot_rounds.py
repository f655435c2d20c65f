"""Co-pilot's rounds as a human interviewer runs them (issue 12), in headless Chromium, in English and in
Chinese:

- the redo plan asks which session to redo: a list of the interviewer's finished sessions shows beside the
  plan, and the redo started from it asks that session's rounds again (Start without one says what to pick);
- Accept and Save override act on the draft of the round under way only: once the round is closed they are
  off and the closed round's scores say how to change them (Review), until the next round's first answer
  brings its own draft, which they then name;
- the suggested follow-ups are what is still worth asking: one the interviewer picked and asked in their
  own words is not suggested again after the next answer, nor is the round's opening question.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): issue12-5a-copilot-redo-{lang},
issue12-5b-copilot-closed-{lang}, issue12-5c-copilot-next-draft-{lang}, h3-copilot-picked-{lang},
h3-copilot-asked-once-{lang}.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _interface, _open, _shot, _shows, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_loop import _text

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SEEN = {
    "en": {
        "tab": "Co-pilot",
        "lang": "English",
        "concepts": "Concept quick-fire (5 min)",
        "redo": "Redo the two weakest rounds of a session",
        "redo_of": "Session to redo",
        "pick": "pick one of your finished sessions",
        "mode": "co-pilot",
        "round1": "Round 1 of 2 · Concept quick-fire",
        "round2": "Round 2 of 2 · Self-check",
        "box": "Add the self-check round",
        "draft": "Draft scores",
        "closed": "Closed round: Concept quick-fire",
        "closed_note": "To change these scores, open the session in Review",
        "accept": "Accept the draft",
        "concepts_title": "Concept quick-fire",
        "self_check_title": "Self-check",
        "close": "Close the round",
        "finished": "To interview again, start a new session",
        "answer": "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand.",
        "suggested": "Suggested follow-ups",
        "no_suggestion": "No suggestion yet",
        "own": ("Good. So: ", " Briefly, please."),
        "thin": "I think it works fine and is fast.",
    },
    "zh": {
        "tab": "面试官助手",
        "lang": "中文",
        "concepts": "概念快问（5 分钟）",
        "redo": "重做某次面试最弱的两轮",
        "redo_of": "要重做的会话",
        "pick": "请在“要重做的会话”中选择",
        "mode": "面试官助手",
        "round1": "第 1 / 2 轮 · 概念快问",
        "round2": "第 2 / 2 轮 · 自检",
        "box": "加上自检轮",
        "draft": "草拟得分",
        "closed": "已结束的一轮：概念快问",
        "closed_note": "如要修改这些分数，请在复核页打开本次会话",
        "accept": "接受草拟分数",
        "concepts_title": "概念快问",
        "self_check_title": "自检",
        "close": "结束本轮",
        "finished": "如要再次面试，请开始新的会话",
        "answer": "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。",
        "suggested": "建议追问",
        "no_suggestion": "暂无建议",
        "own": ("好的。那么：", "，简单说说。"),
        "thin": "我觉得它运行得很好，也很快。",
    },
}


def _pick_plan(page: Page, name: str) -> None:
    page.locator("#copilot-plan input").click()
    page.get_by_role("option", name=name, exact=True).click()


def _save_answer(page: Page, seen: dict[str, str]) -> None:
    page.locator("#copilot-answer textarea").fill(seen["answer"])
    page.locator("#copilot-record").click()
    page.locator("#copilot-draft").get_by_text(seen["draft"]).wait_for()


def _off(page: Page, selector: str, off: bool) -> None:
    page.wait_for_function(
        "([s, off]) => { const b = document.querySelector(s);"
        " return !!b && (b.tagName === 'BUTTON' ? b : b.querySelector('button')).disabled === off; }",
        arg=[selector, off],
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_copilot_redo_asks_which_session_and_decisions_act_on_the_round_under_way(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page = _open(browser, served)
    if lang == "zh":
        _interface(page, "zh")
    page.get_by_role("tab", name=seen["tab"]).click()
    page.locator("#copilot-start").wait_for()
    assert not page.locator("#copilot-previous").is_visible()  # only a redo asks for a session

    # a session with two rounds: the concepts round, then the self-check
    _pick_plan(page, seen["concepts"])
    page.locator("#copilot-lang").get_by_text(seen["lang"], exact=True).click()
    page.locator("#copilot-self-check").get_by_text(seen["box"]).click()
    page.locator("#copilot-start").click()
    _shows(page, "#copilot-progress", seen["round1"])
    sid = page.locator("#copilot-sid :is(input, textarea)").input_value()
    _off(page, "#copilot-accept", True)  # nothing to accept before the first answer
    _save_answer(page, seen)
    _off(page, "#copilot-accept", False)
    _shows(page, "#copilot-accept", seen["concepts_title"])

    # the round closed: Accept and Override off, the closed round's scores say where to change them
    page.get_by_role("button", name=seen["close"]).click()
    _shows(page, "#copilot-progress", seen["round2"])
    _shows(page, "#copilot-draft", seen["closed"])
    _shows(page, "#copilot-draft", seen["closed_note"])
    _off(page, "#copilot-accept", True)
    _off(page, "#copilot-override", True)
    assert seen["concepts_title"] not in _text(page, "#copilot-accept")
    _shot(page, screenshots, f"issue12-5b-copilot-closed-{lang}")

    # the next round's first answer: its draft, named
    _save_answer(page, seen)
    _off(page, "#copilot-accept", False)
    _shows(page, "#copilot-accept", seen["self_check_title"])
    _shows(page, "#copilot-override", seen["self_check_title"])
    _shot(page, screenshots, f"issue12-5c-copilot-next-draft-{lang}")
    page.get_by_role("button", name=seen["close"]).click()
    page.locator("#copilot-status").get_by_text(seen["finished"]).wait_for()
    _off(page, "#copilot-accept", True)  # a finished session's scores are changed in Review

    # the redo: which session, from a list of the finished ones; Start without one says so
    _pick_plan(page, seen["redo"])
    page.locator("#copilot-previous").wait_for()
    _shows(page, "#copilot-previous", seen["redo_of"])
    page.locator("#copilot-start").click()
    _shows(page, "#copilot-status", seen["pick"])
    page.locator("#copilot-previous input").click()
    option = page.get_by_role("option").filter(has_text=sid)
    assert seen["mode"] in option.inner_text() and seen["concepts_title"] in option.inner_text()
    option.click()
    # a long name ends in an ellipsis before the list's arrow, not under it
    assert page.locator("#copilot-previous input").evaluate(
        "e => getComputedStyle(e).textOverflow === 'ellipsis' && parseFloat(getComputedStyle(e).paddingRight) >= 20"
    )
    _shot(page, screenshots, f"issue12-5a-copilot-redo-{lang}")
    page.locator("#copilot-start").click()
    page.wait_for_function(
        "old => (document.querySelector('#copilot-sid :is(input, textarea)')?.value || old) !== old", arg=sid
    )
    _shows(page, "#copilot-progress", seen["concepts_title"])
    assert seen["pick"] not in _text(page, "#copilot-status")
    page.context.close()


def _suggested(page: Page) -> list[str]:
    """The follow-ups the interviewer may pick, as the list beside the suggestions shows them."""
    return [x.strip() for x in page.locator("#copilot-pick label").all_inner_texts() if x.strip()]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_copilot_does_not_suggest_what_the_interviewer_asked(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page = _open(browser, served)
    if lang == "zh":
        _interface(page, "zh")
    page.get_by_role("tab", name=seen["tab"]).click()
    page.locator("#copilot-start").wait_for()
    _pick_plan(page, seen["concepts"])
    page.locator("#copilot-lang").get_by_text(seen["lang"], exact=True).click()
    page.locator("#copilot-start").click()
    _shows(page, "#copilot-progress", seen["concepts_title"])
    opening = re.split("[:：]", _text(page, "#copilot-question"), maxsplit=1)[-1].strip()
    assert len(opening) > 20, opening

    # the first answer: the follow-ups, none of them the opening question
    _save_answer(page, seen)
    _shows(page, "#copilot-suggestions", seen["suggested"])
    before = _suggested(page)
    assert len(before) >= 2, before
    assert opening[:40] not in _text(page, "#copilot-suggestions")

    # the next question box starts with the first suggestion; the interviewer picks the second (so the box
    # changes only when the pick's event has answered) and asks it in their own words
    picked = before[1]
    page.locator("#copilot-pick label").nth(1).click()
    page.wait_for_function(
        "t => document.querySelector('#copilot-next textarea').value.trim() === t", arg=picked
    )
    pre, post = seen["own"]
    first, _, rest = picked.partition(" ")
    body = rest if rest and first.isascii() else picked[2:]
    mine = f"{pre}{body.rstrip('?？')}{post}"
    page.locator("#copilot-next textarea").fill(mine)
    _shot(page, screenshots, f"h3-copilot-picked-{lang}")
    page.locator("#copilot-ask").click()
    _shows(page, "#copilot-question", mine[:30])
    _shows(page, "#copilot-suggestions", seen["no_suggestion"])

    # the next answer, still thin: the other follow-ups, not the one asked, nor the opening question
    page.locator("#copilot-answer textarea").fill(seen["thin"])
    page.locator("#copilot-record").click()
    _shows(page, "#copilot-suggestions", seen["suggested"])
    after = _suggested(page)
    shown = _text(page, "#copilot-suggestions")
    assert picked not in after and picked not in shown, (picked, after)
    assert opening[:40] not in shown
    assert set(after) == set(before) - {picked}, (before, after)
    _shot(page, screenshots, f"h3-copilot-asked-once-{lang}")
    page.context.close()
