"""The practice loop as a candidate sees it, in headless Chromium, in English and in Chinese: after each
answer what it covered and what the round still lacks, follow-ups counted, a round-finished banner
that waits for the candidate, the conversation on screen, flags by name.

Screenshots go to $COACH_SCREENSHOTS (default: <tmp>/coach-screenshots): 7-… English, 8-… Chinese.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _open, _shot, _shows, _start_practice, browser  # noqa: F401  (the module's browser)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

INSIGHT_S = 1.0
"""The insight shows within this many seconds of Send on the embedded judge, on an idle machine."""


def _allowed_s() -> float:
    """INSIGHT_S, stretched by how many times over its cores the machine is loaded (shared CI cores)."""
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    return INSIGHT_S * max(1.0, load)


ANSWERS = {
    "en": (
        "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand, so memory is not "
        "reserved for the maximum length. Continuous batching reschedules every step.",
        "I would open vllm/v1/core/kv_cache_manager.py and vllm/v1/core/sched/scheduler.py.",
    ),
    "zh": (
        "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配，不按最大长度预留显存。"
        "Continuous batching 每一步都重新调度。",
        "我会打开 vllm/v1/core/kv_cache_manager.py 和 vllm/v1/core/sched/scheduler.py。",
    ),
}
SEEN = {
    "en": {
        "plan": "Full mock: five rounds, 90 min",
        "lang": "English",
        "question": "Question:",
        "insight": "What this answer showed",
        "covered": "Covered by this answer",
        "lacks": "The round still lacks",
        "followup": "Follow-up 1 of 2",
        "finish": "Finish this round",
        "banner": "Round finished: Concept quick-fire",
        "continue": "Continue",
        "held": "Round finished. Read your scores above",
        "round2": "Round 2 of 5",
        "you": "You:",
        "flag": "Happy path only",
    },
    "zh": {
        "plan": "完整模拟：五轮，90 分钟",
        "lang": "中文",
        "question": "问题：",
        "insight": "这次回答体现了什么",
        "covered": "本次回答覆盖了",
        "lacks": "本轮仍缺少",
        "followup": "追问 1/2",
        "finish": "结束本轮",
        "banner": "本轮结束：概念快问",
        "continue": "继续作答",
        "held": "本轮已结束",
        "round2": "第 2 / 5 轮",
        "you": "你：",
        "flag": "只讲了顺利情况",
    },
}
INTERNAL = ("happy_path_only", "validation_1", "happy_path_cap", "accuracy_1")


def _text(page: Page, selector: str) -> str:
    return str(page.evaluate("s => document.querySelector(s)?.innerText || ''", selector))


def _lacks(page: Page, lang: str) -> tuple[int, int]:
    """(N, M) of the insight's "The round still lacks (N of M)" / "本轮仍缺少（M 项中的 N 项）", or of its sentence
    when none is named ("… still lacks N of its M expected items …" / "本轮仍缺少 N 项期望要点（共 M 项；…")."""
    text = _text(page, "#answer-insight")
    if lang == "en":
        got = re.search(r"\((\d+) of (\d+)\)|lacks (\d+) of its (\d+) ", text)
        assert got is not None, text
        return (int(got[1]), int(got[2])) if got[1] else (int(got[3]), int(got[4]))
    got = re.search(r"（(\d+) 项中的 (\d+) 项）|仍缺少 (\d+) 项期望要点（共 (\d+) 项", text)
    assert got is not None, text
    return (int(got[2]), int(got[1])) if got[1] else (int(got[3]), int(got[4]))


def _ticks(page: Page) -> int:
    """The insight's ticked items, those folded away under "… more" too."""
    return int(page.evaluate("() => (document.querySelector('#answer-insight')?.textContent || '').split('✓').length - 1"))


def _send(page: Page, answer: str, seen: dict[str, str]) -> float:
    """Sends `answer`; the seconds until its insight is on screen. As a candidate would, it answers
    after the question is spoken (the speech is made on the same two cores)."""
    page.locator("#practice-question-audio audio").first.wait_for(state="attached")
    page.wait_for_timeout(500)
    before = _text(page, "#answer-insight")
    page.locator("#answer textarea").fill(answer)
    page.evaluate(WATCH_STATUS)
    t0 = time.monotonic()
    page.locator("#send").click()
    page.wait_for_function(
        "([b, t]) => { const s = document.querySelector('#answer-insight')?.innerText || '';"
        " return s.includes(t) && s !== b; }",
        arg=[before, seen["insight"]],
    )
    took = time.monotonic() - t0
    # issue 12: Gradio's progress timer ("0.4s") was read inside the status line while Send ran
    timed = page.evaluate("() => { window.coachStatusWatch.disconnect(); return window.coachStatusTimed; }")
    assert timed == [], timed
    return took


WATCH_STATUS = """() => {
  window.coachStatusTimed = [];
  const box = document.querySelector('#practice-status');
  const look = () => { const s = box.innerText; if (/\\d\\.\\ds/.test(s)) window.coachStatusTimed.push(s); };
  window.coachStatusWatch = new MutationObserver(look);
  window.coachStatusWatch.observe(box, {subtree: true, childList: true, characterData: true, attributes: true});
}"""
"""Watches Practice's status line as a person reads it (`innerText`: what is shown) for a timer ("0.4s")."""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_insight_round_banner_and_conversation(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    first, second = ANSWERS[lang]
    page = _open(browser, served)
    _start_practice(page, ui=lang, plan=seen["plan"], lang=seen["lang"])
    page.locator("#practice-question").get_by_text(seen["question"]).wait_for()
    first_question = _text(page, "#practice-question")

    # 1. the insight right after the answer: ✓ items in the rubric's words, what is lacking, the next follow-up
    took = _send(page, first, seen)
    assert took < _allowed_s(), f"the insight took {took:.2f} s (load {os.getloadavg()[0]:.1f})"
    insight = _text(page, "#answer-insight")
    assert seen["covered"] in insight and "✓" in insight and seen["lacks"] in insight, insight
    assert ("Paged KV" in insight) and ("block" in insight), insight
    _shows(page, "#practice-question", seen["followup"])
    assert first_question not in _text(page, "#practice-question")

    # 3. the conversation: the opening question and the answer, then the follow-up
    _shows(page, "#conversation", first[:40])  # outputs of one event land in the page one by one
    conv = _text(page, "#conversation")
    assert first_question.split(":", 1)[-1].split("：", 1)[-1].strip()[:30] in conv, conv
    assert seen["you"].rstrip(":") in conv and first[:40] in conv, conv
    _shot(page, screenshots, f"{7 if lang == 'en' else 8}a-insight-{lang}")

    n, m = _lacks(page, lang)
    took = _send(page, second, seen)
    assert took < _allowed_s(), f"the insight took {took:.2f} s (load {os.getloadavg()[0]:.1f})"
    _shows(page, "#conversation", second[:30])
    # one set of items per round (issue 12): ticked (this answer's and earlier ones) + lacking = the same total
    n2, m2 = _lacks(page, lang)
    assert m2 == m and n2 < n, _text(page, "#answer-insight")
    assert n2 + _ticks(page) == m2, _text(page, "#answer-insight")
    _shot(page, screenshots, f"{7 if lang == 'en' else 8}a2-insight-second-{lang}")

    # 2. the round-finished banner at the top; the next round waits for the candidate
    page.get_by_role("button", name=seen["finish"]).click()
    banner = page.locator("#round-scores")
    banner.get_by_text(seen["banner"]).wait_for()
    text = banner.inner_text()
    assert "/5" in text and "“" in text, text
    assert seen["flag"] in text and not any(i in text for i in INTERNAL), text
    said = re.search(r"of its (\d+) expected items" if lang == "en" else r"本轮覆盖了 (\d+) 项期望要点", text)
    assert said is not None and int(said[1]) == m2, text  # the banner counts the insight's items
    _shows(page, "#practice-question", seen["held"])
    assert page.locator("#send").is_disabled()
    assert page.get_by_role("button", name=seen["finish"]).is_disabled()  # nothing to finish yet
    box = banner.bounding_box()
    question_box = page.locator("#practice-question").bounding_box()
    assert box is not None and question_box is not None and box["y"] < question_box["y"]  # at the top
    body = str(page.evaluate("() => document.body.innerText"))
    assert not any(i in body for i in INTERNAL), "an internal flag id is on screen"
    _shot(page, screenshots, f"{7 if lang == 'en' else 8}b-round-scores-{lang}")

    page.get_by_role("button", name=seen["continue"]).click()
    banner.wait_for(state="hidden")
    _shows(page, "#practice-progress", seen["round2"])
    page.wait_for_function(
        "h => !(document.querySelector('#practice-question')?.innerText || '').includes(h)", arg=seen["held"]
    )
    assert page.locator("#send").is_enabled()
    assert second[:30] in _text(page, "#conversation")  # the first round's pairs stay on screen
    _shot(page, screenshots, f"{7 if lang == 'en' else 8}c-next-round-{lang}")
    page.context.close()
