"""A spoken answer in Practice, in headless Chromium, in English and in Chinese: uploaded, transcribed by the
real offline Whisper, sent; its delivery figures (pace, fillers, long pauses) show beside the insight, say
they are no part of the five scores, follow the language switch, and a typed answer after it has none.

Before it is sent, the language switch to the other language and back leaves the question's player and the
recording's player on screen with their audio and its duration at every moment (issue 12: they were mounted
again and showed 0:00 / 0:00), Gradio's own words in them in the language switched to. Once it is sent, the
recorder is empty, and Transcribe says there is nothing recorded (issue 12: it pasted the old answer again).
An answer sent while a recording is transcribed keeps its box empty: the late transcript is dropped, and the
status line says so.

Screenshots go to $COACH_SCREENSHOTS (default: <tmp>/coach-screenshots): 14a-…, 14b-…, audio-… and
desk-5-transcript-late-{lang}.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.util.messages import t
from tests.ui.conftest import Served
from tests.ui.test_browser import _interface, _open, _shot, _shows, _start_practice, browser  # noqa: F401  (the module's browser)
from tests.voice.test_delivery_stt import joined

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SPOKEN = {
    "en": (
        "en-us",
        "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand.",
        "Continuous batching reschedules the running requests at every step.",
    ),
    "zh": (
        "cmn-latn-pinyin",
        "嗯，那个，我们先看调度器，就是，KV cache 的分配。",
        "然后看连续批处理怎么调度。",
    ),
}
SEEN = {
    "en": {
        "lang": "English",
        "transcribed": "Transcribed",
        "insight": "What this answer showed",
        "title": "How you spoke",
        "not_scored": "not part of the five content scores",
        "rate": "words a minute",
        "pauses": "Long pauses (2 s or more): 1, the longest",
        "fillers": "Filler words:",
    },
    "zh": {
        "lang": "中文",
        "transcribed": "已转写",
        "insight": "这次回答体现了什么",
        "title": "表达情况",
        "not_scored": "不计入五个维度的内容评分",
        "rate": "字（说话",
        "pauses": "长停顿（2 秒及以上）：",
        "fillers": "口头禅：",
    },
}
OTHER = {"en": "zh", "zh": "en"}
PLAYERS = ["#practice-question-audio", "#practice-mic"]
GRADIO_PLAYER = {
    "en": {"download": "Download", "clear": "Clear"},
    "zh": {"download": "下载", "clear": "清除"},
}
"""Gradio's own words in a player holding audio (its frontend's en and zh-CN messages)."""
WATCH_PLAYERS_JS = """(players) => {
  clearInterval(window.coachPlayersWatch);
  window.coachPlayersSeen = new Set();
  const look = () => players.map((s) => {
    const el = document.querySelector(s);
    if (!el || el.offsetParent === null) return `${s}: gone`;
    const times = el.innerText.match(/\\d+:\\d\\d/g) || [];
    return `${s}: ${times.length ? times[times.length - 1] : "no duration"}`;
  }).join(" ; ");
  const note = () => window.coachPlayersSeen.add((window.coachPlayersNow = look()));
  note();
  window.coachPlayersWatch = setInterval(note, 20);
}"""
"""Watches what the players show, every 20 ms: each one's duration (the last time it shows), or that it is gone;
all it saw in `coachPlayersSeen`, the last in `coachPlayersNow`."""


@pytest.fixture(scope="module")
def spoken_wav(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per language, two sentences spoken by espeak-ng with 3 s of silence between them."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
    folder = tmp_path_factory.mktemp("delivery-wav")
    out: dict[str, Path] = {}
    for lang, (voice, *sentences) in SPOKEN.items():
        parts = []
        for i, text in enumerate(sentences):
            part = folder / f"{lang}-{i}.wav"
            subprocess.run(
                [exe, "-v", voice, "-s", "140", "-w", str(part), "--stdin"], input=text.encode(), check=True
            )
            parts.append(part)
        out[lang] = joined(parts, 3.0, folder / f"{lang}.wav")
    return out


def _text(page: Page, selector: str) -> str:
    return str(page.evaluate("s => document.querySelector(s)?.innerText || ''", selector))


def _labels(page: Page, selector: str) -> list[str]:
    return list(
        page.evaluate(
            "s => [...document.querySelectorAll(`${s} [aria-label]`)].map(e => e.ariaLabel)", selector
        )
    )


def _players_kept(page: Page, screenshots: Path, lang: str) -> None:
    """The switch to the other language and back: at every moment the players show the duration they showed
    before it; Gradio's words in them follow the switch."""
    page.evaluate(WATCH_PLAYERS_JS, PLAYERS)
    page.wait_for_function(  # both players have their audio: each shows its duration
        "() => window.coachPlayersNow.split(' ; ').every(p => /: (?!0:00)\\d+:\\d\\d$/.test(p))"
    )
    _shot(page, screenshots, f"audio-{lang}-before-switch")
    page.evaluate(WATCH_PLAYERS_JS, PLAYERS)  # from here on
    [before] = page.evaluate("[...window.coachPlayersSeen]")
    for to in (OTHER[lang], lang):
        _interface(page, to)
        page.locator("#practice-mic").get_by_text(t("ui.record", to)).wait_for()
        words = GRADIO_PLAYER[to]
        page.locator(f"#practice-question-audio [aria-label='{words['download']}']").wait_for()
        page.locator(f"#practice-mic [aria-label='{words['clear']}']").wait_for()
        page.wait_for_timeout(2500)  # the switch's events are done (Gradio's strings' ones included)
        for player in PLAYERS:
            other = set(GRADIO_PLAYER[OTHER[to]].values()) & set(_labels(page, player))
            assert not other, (player, to, other)
        _shot(page, screenshots, f"audio-{lang}-switched-to-{to}")
    seen = page.evaluate("clearInterval(window.coachPlayersWatch), [...window.coachPlayersSeen]")
    assert seen == [before], f"the players while switching, expected {before!r} throughout: {seen}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_spoken_answer_shows_its_delivery_figures_beside_the_insight(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    spoken_wav: dict[str, Path],
    lang: str,
) -> None:
    seen = SEEN[lang]
    page = _open(browser, served)
    _start_practice(page, ui=lang, lang=seen["lang"])
    page.locator("#practice-question-audio audio").first.wait_for(state="attached")  # spoken first

    # the recording: uploaded, transcribed offline into the editable answer
    # (labelled in the interface language: static/gradio_fixed.js gives Gradio's fixed English in Chinese)
    page.locator("#practice-mic button:is([aria-label='Upload file'], [aria-label='上传文件'])").click()
    page.locator("#practice-mic input[type=file]").set_input_files(str(spoken_wav[lang]))
    # under way: the status line says so while the box waits (issue 12: only Gradio's spinner moved)
    page.locator("#practice-status").get_by_text(t("ui.transcribing", lang)).wait_for()
    _shot(page, screenshots, f"14-transcribing-{lang}")
    page.locator("#practice-status").get_by_text(seen["transcribed"]).wait_for(timeout=180_000)
    answer = page.locator("#answer textarea").input_value()
    assert ("cache" in answer.lower()) if lang == "en" else ("调" in answer), answer
    assert not page.locator("#answer-delivery").is_visible()  # nothing before the answer is sent
    _players_kept(page, screenshots, lang)

    # sent: the insight, and beside it the delivery figures
    page.locator("#send").click()
    _shows(page, "#answer-insight", seen["insight"])
    page.locator("#answer-delivery").wait_for(state="visible")
    _shows(page, "#answer-delivery", seen["title"])
    figures = _text(page, "#answer-delivery")
    for key in ("not_scored", "rate", "pauses", "fillers"):
        assert seen[key] in figures, (key, figures)
    if lang == "zh":  # (Whisper base times Chinese words over a silence less surely: no pause count here)
        assert "嗯 ×1" in figures and "那个 ×1" in figures, figures
    insight_box = page.locator("#answer-insight").bounding_box()
    figures_box = page.locator("#answer-delivery").bounding_box()
    assert insight_box and figures_box and figures_box["x"] > insight_box["x"]  # beside it, on a wide screen
    _shot(page, screenshots, f"14a-delivery-{lang}")

    # the recording went with the answer: the recorder is empty, and Transcribe says there is nothing to transcribe
    page.wait_for_function(
        "s => !/\\d:\\d\\d/.test(document.querySelector(s)?.innerText || '')", arg="#practice-mic"
    )
    assert GRADIO_PLAYER[lang]["clear"] not in _labels(page, "#practice-mic")
    page.locator("#transcribe").click()
    _shows(page, "#practice-status", t("ui.no_audio", lang))
    assert page.locator("#answer textarea").input_value() == ""
    _shot(page, screenshots, f"audio-{lang}-after-send")

    # the language switch renders them again in the other language
    other = SEEN[OTHER[lang]]
    _interface(page, OTHER[lang])
    _shows(page, "#answer-delivery", other["title"])
    figures = _text(page, "#answer-delivery")
    assert other["not_scored"] in figures and seen["title"] not in figures, figures
    _shot(page, screenshots, f"14b-delivery-switched-{lang}")

    # a typed answer has no delivery figures
    _interface(page, lang)
    before = _text(page, "#answer-insight")
    page.locator("#answer textarea").fill("I would check the scheduler and the block table.")
    page.locator("#send").click()
    page.wait_for_function(
        "b => (document.querySelector('#answer-insight')?.innerText || '') !== b", arg=before
    )
    page.locator("#answer-delivery").wait_for(state="hidden")

    # an answer sent while a recording is still transcribed: the transcript, when it ends, is dropped and the
    # status line says so (issue 12: it was written into the box the answer had left)
    page.locator("#practice-mic button:is([aria-label='Upload file'], [aria-label='上传文件'])").click()
    page.locator("#practice-mic input[type=file]").set_input_files(str(spoken_wav[lang]))
    page.locator("#practice-status").get_by_text(t("ui.transcribing", lang)).wait_for()  # under way
    typed = "The scheduler admits requests while KV blocks remain."
    page.locator("#answer textarea").fill(typed)
    page.locator("#send").click()
    _shows(page, "#conversation", typed[:30])
    page.locator("#practice-status").get_by_text(t("ui.transcript_late", lang)).wait_for(timeout=60_000)
    page.wait_for_timeout(500)
    assert page.locator("#answer textarea").input_value() == ""
    page.locator("#practice-status").scroll_into_view_if_needed()
    _shot(page, screenshots, f"desk-5-transcript-late-{lang}", full_page=False)
    page.context.close()
