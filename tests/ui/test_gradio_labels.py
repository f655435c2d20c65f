"""Gradio's own button labels and tooltips (aria-label, title) in the interface's language (issue 12), in
headless Chromium with a fake microphone: a session started in English, its question's player and a
recording on the microphone on screen, then the switch to 中文. The players' Download / Share / Clear / Play
buttons, the table's cell menu (Filter, Clear filters) and the screen reader's "done" announcement of an event
come out in Chinese, and back in English; the question's speech is not played again by the switch, and the
next question's is played as before.

What Gradio 6 writes as fixed English in its components (no message key, so no locale can change it:
`GRADIO_FIXED` lists what this app shows of it) is shown in Chinese too while the interface is Chinese
(`agent/ui/static/gradio_fixed.js`): in every tab, with the recording's trim mode, the raw session's JSON view
and the history table full screen, no visible text, aria-label or title is one of them,
nor at any frame while events run (a recorder checks what each frame shows: "processing |", …); back in
English, the page shows exactly the fixed English it showed before the switch.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): issue12-1-gradio-labels-{lang},
issue12-1-gradio-table-menu-{lang}, issue12-1-gradio-fixed-{trim,table}-{lang}.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.util.messages import t
from tests.ui.conftest import Served
from tests.ui.test_browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, _shot

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

pytestmark = pytest.mark.browser

FAKE_MIC = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
TRANSLATED = {  # Gradio's labels by message key, as the page shows them in each language
    "en": {"download": "Download", "share": "Share", "clear": "Clear", "play": "Play", "pause": "Pause",
           "filter": "Filter", "clear_filter": "Clear filters", "sort": "Sort ascending"},
    "zh": {"download": "下载", "share": "分享", "clear": "清除", "play": "播放", "pause": "暂停",
           "filter": "筛选", "clear_filter": "清除筛选", "sort": "升序排序"},
}  # fmt: skip
GRADIO_FIXED = (
    "Adjust volume", "Adjust playback speed to", "Skip backwards by", "Skip forward by", "Reset audio",
    "Trim audio to selection", "Trim", "Cancel", "undo", "Select input device", "Upload file", "Record audio",
    "pause", "number input for", "range slider for", "Reset to default value", "Click to upload or drop files",
    "File upload", "Copy table data", "Copied to clipboard", "Fullscreen", "Exit fullscreen mode",
    "Open cell menu", "Table actions", "Empty value", "More tabs", "Gradio footer navigation", "High volume",
    "Copy", "Copied", "copy", "Done", "processing |", "queue:",
)  # fmt: skip
"""Gradio 6's fixed English (written into its components, not looked up by key) this app's pages show, each as
the text starts (a number or a label follows some); the audio devices' names come from the browser."""
TRANSIENT = ("processing |", "queue:", "Done")
"""Fixed English shown only while an event runs or waits, or just after (the screen reader's "Done"): the frame
recorder sees it, not a look at the page."""
FIXED_JS = """(fixed) => {
  const hit = (v) => v && fixed.some((f) => v.trim().startsWith(f));
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let n = walk.currentNode; n; n = walk.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) {
      if (hit(n.data) && n.parentElement && n.parentElement.checkVisibility()) out.push('text: ' + n.data.trim());
    } else for (const a of ['aria-label', 'title']) if (hit(n.getAttribute(a))) out.push(a + ': ' + n.getAttribute(a));
  }
  return out;
}"""
"""Gradio's fixed English the page shows now: visible text, and aria-label and title (read out or shown on hover)."""
RECORD_FIXED = """
window.coachFixedSeen = [];
(() => {
  const watched = %s;
  const hit = (v) => v && watched.some((f) => v.trim().startsWith(f));
  const touched = new Set();
  let queued = false;
  const look = () => {  // before the frame is painted: after every script's reaction to the changes
    queued = false;
    const lang = document.documentElement.lang;
    for (const n of touched) {
      if (!n.isConnected) continue;
      if (n.nodeType === Node.TEXT_NODE) {
        if (hit(n.data) && n.parentElement && n.parentElement.checkVisibility()) window.coachFixedSeen.push([lang, n.data.trim()]);
      } else if (n.nodeType === Node.ELEMENT_NODE) {
        for (const a of ['aria-label', 'title']) if (hit(n.getAttribute(a))) window.coachFixedSeen.push([lang, n.getAttribute(a)]);
      }
    }
    touched.clear();
  };
  const add = (n) => {
    touched.add(n);
    if (n.nodeType === Node.ELEMENT_NODE) {
      const walk = document.createTreeWalker(n, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) touched.add(walk.currentNode);
    }
  };
  new MutationObserver((ms) => {
    for (const m of ms) if (m.type === 'childList') m.addedNodes.forEach(add); else touched.add(m.target);
    if (!queued) { queued = true; requestAnimationFrame(look); }
  }).observe(document, {subtree: true, childList: true, characterData: true, attributes: true,
                        attributeFilter: ['aria-label', 'title']});
})();
"""
"""An init script (%s: the texts to watch): each frame's visible text, aria-label or title that starts with one of
them, with Gradio's locale then, in `window.coachFixedSeen` (each node changed or added is looked at when the frame
is due, after every script's reaction to the change: a text the page swaps at once is not counted)."""
KEY = re.compile(r"^(common|audio|upload_text|status|dataframe|file|errors|blocks)\.[a-z_]+$")
"""A Gradio message key shown as itself: a key with no message in the language (and none in English)."""
RECORD_KEYS = """
window.coachSeenKeys = [];
new MutationObserver((ms) => {
  for (const m of ms) {
    const texts = m.type === 'attributes' ? [m.target.getAttribute(m.attributeName)]
      : m.type === 'characterData' ? [m.target.data] : [...m.addedNodes].map((n) => n.textContent);
    for (const t of texts) if (t && /^(common|audio|upload_text|status|dataframe|file|errors|blocks)\\.[a-z_]+$/
      .test(t.trim())) window.coachSeenKeys.push(t.trim());
  }
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true,
                      attributeFilter: ['aria-label', 'title']});
"""
PLAYING_JS = """(pause) => [...document.querySelectorAll('#practice-question-audio button[aria-label]')]
  .some((b) => pause.includes(b.getAttribute('aria-label')))"""
LABELS_JS = """(sel) => [...document.querySelectorAll(sel + ' [aria-label], ' + sel + ' [title]')]
  .flatMap((el) => [el.getAttribute('aria-label'), el.getAttribute('title')]).filter((v) => v)"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + FAKE_MIC, headless=True)
        try:
            yield b
        finally:
            b.close()


def _labels(page: Page, selector: str) -> list[str]:
    return list(page.evaluate(LABELS_JS, selector))


def _wait_labels(page: Page, selector: str, want: list[str]) -> None:
    page.wait_for_function(
        "([sel, want]) => { const have = new Set([...document.querySelectorAll(sel + ' [aria-label]')]"
        ".map((el) => el.getAttribute('aria-label'))); return want.every((w) => have.has(w)); }",
        arg=[selector, want],
    )


def _switch(page: Page, lang: str) -> None:
    page.locator("#ui-language").get_by_text("中文" if lang == "zh" else "English", exact=True).click()
    page.wait_for_function("l => document.documentElement.lang === l", arg="zh-CN" if lang == "zh" else "en")


def _player_labels(page: Page, lang: str) -> None:
    """The question's player and the recorder (with its recording) carry `lang`'s labels, not the other's."""
    seen, other = TRANSLATED[lang], TRANSLATED["en" if lang == "zh" else "zh"]
    _wait_labels(page, "#practice-question-audio", [seen["download"], seen["share"]])
    _wait_labels(page, "#practice-mic", [seen["download"], seen["share"], seen["clear"]])
    for where in ("#practice-question-audio", "#practice-mic"):
        shown = _labels(page, where)
        assert not [w for w in shown if w in other.values()], (where, shown)
        if lang == "zh":  # and none of Gradio's fixed English either: its Chinese
            assert not [w for w in shown if w.startswith(GRADIO_FIXED)], (where, shown)
            assert t("ui.gradio_fixed.adjust_volume", "zh") in shown, (where, shown)


def _playing(page: Page) -> bool:
    """The question's player plays (its middle button offers Pause)."""
    return bool(page.evaluate(PLAYING_JS, [TRANSLATED["en"]["pause"], TRANSLATED["zh"]["pause"]]))


def _table_menu(page: Page, lang: str) -> str:
    """The text of the Reports history table's cell menu, opened from its first header."""
    page.get_by_role("tab", name="报告" if lang == "zh" else "Reports").click()
    head = page.locator("#reports-history th").first
    head.hover()
    page.locator(f"#reports-history th button[aria-label='{t('ui.gradio_fixed.cell_menu', lang)}']").first.dispatch_event(
        "click"
    )
    menu = page.locator(".cell-menu").first
    menu.wait_for()
    text = menu.inner_text()
    page.keyboard.press("Escape")
    return text


TABS = {"en": ("Practice", "Co-pilot", "Review", "Reports"), "zh": ("练习", "面试官助手", "复核", "报告")}


def _fixed(page: Page) -> list[str]:
    return list(page.evaluate(FIXED_JS, list(GRADIO_FIXED)))


def _button(page: Page, within: str, key: str, lang: str) -> Locator:
    """The button of Gradio's labelled (aria-label) with its fixed English `ui.gradio_fixed.<key>` in `lang`."""
    return page.locator(f"{within} button[aria-label='{t('ui.gradio_fixed.' + key, lang)}']").first


def _sweep(page: Page, lang: str, screenshots: Path) -> list[str]:
    """Gradio's fixed English each tab shows (numbers as N; the status of an event still running left out), with more of it brought on screen: the raw session's
    JSON view and its copy, the recording's trim mode, the history table full screen (its copy copies nothing
    while it is empty, so it never says "Copied to clipboard" here)."""
    practice, copilot, review, reports = TABS[lang]
    found: list[str] = []
    page.get_by_role("tab", name=practice).click()
    raw = page.get_by_role("button", name=t("ui.raw_json", lang))  # Practice's accordion (Co-pilot's is hidden)
    raw.click()  # opens
    copy = _button(page, "", "copy", lang)
    copy.click()
    _button(page, "", "copied", lang).wait_for()
    found += _fixed(page)
    raw.click()  # and closes
    _button(page, "#practice-mic", "trim_audio", lang).click()
    trim = page.locator("#practice-mic").get_by_role("button", name=t("ui.gradio_fixed.trim", lang), exact=True)
    trim.wait_for()
    found += _fixed(page)
    _shot(page, screenshots, f"issue12-1-gradio-fixed-trim-{lang}", full_page=False)
    page.locator("#practice-mic").get_by_role("button", name=t("ui.gradio_fixed.trim_cancel", lang)).click()
    trim.wait_for(state="detached")
    for tab in (copilot, review):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(500)
        found += _fixed(page)
    page.get_by_role("tab", name=reports).click()
    page.locator("#reports-history").hover()
    _button(page, "#reports-history", "fullscreen", lang).click()
    _button(page, "#reports-history", "exit_fullscreen", lang).wait_for()
    found += _fixed(page)
    _shot(page, screenshots, f"issue12-1-gradio-fixed-table-{lang}", full_page=False)
    _button(page, "#reports-history", "exit_fullscreen", lang).click()
    _button(page, "#reports-history", "fullscreen", lang).wait_for()
    page.get_by_role("tab", name=practice).click()
    return sorted({re.sub(r"\d+(\.\d+)?", "N", f) for f in found if not f.split(": ", 1)[1].startswith(TRANSIENT)})


def test_gradio_labels_follow_the_switch(browser: Browser, served: Served, screenshots: Path) -> None:
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, permissions=["microphone", "clipboard-read", "clipboard-write"]
    )
    context.add_init_script(RECORD_KEYS)
    processing = t("ui.gradio_fixed.processing", "zh")  # the status while an event runs, in Chinese
    watched = [*GRADIO_FIXED, processing]
    context.add_init_script(RECORD_FIXED % json.dumps(watched, ensure_ascii=False))
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("dialog", lambda d: d.accept())
    page.goto(served.url)
    page.locator("#start").wait_for()

    # in English: a session with its question's speech, and a recording on the microphone
    page.locator("#start").click()
    _wait_labels(page, "#practice-question-audio", ["Download", "Share"])
    mic = page.locator("#practice-mic")
    mic.get_by_role("button", name="Record", exact=True).click()
    stop = mic.get_by_role("button", name="Stop", exact=True)
    stop.wait_for()
    # a recording with sound in it: stopped the moment it starts, on a loaded machine it can hold nothing and show
    # no player (a clean-clone run waited 60 s for the player's labels)
    page.wait_for_timeout(1500)
    stop.click()
    _player_labels(page, "en")
    # the question's speech played (stopped here): a switch must not play it again
    page.wait_for_function(PLAYING_JS, arg=["Pause", "Play"])  # it is loaded: it plays or has played
    if _playing(page):
        page.locator("#practice-question-audio").get_by_role("button", name="Pause", exact=True).click()
    # the button offers Play once the player has taken the click (a clean-clone run looked a moment too early)
    page.wait_for_function(
        f"(pause) => !({PLAYING_JS})(pause)", arg=[TRANSLATED["en"]["pause"], TRANSLATED["zh"]["pause"]]
    )
    english = _sweep(page, "en", screenshots)
    assert {"text: Trim", "aria-label: Fullscreen", "aria-label: Exit fullscreen mode", "title: Copied"} <= set(
        english
    ), english  # what the sweep brings on screen is there

    for lang in ("zh", "en"):
        _switch(page, lang)
        _player_labels(page, lang)
        page.wait_for_timeout(1500)  # a player mounted again would have started by now
        assert not _playing(page), f"{lang}: the switch played the question's speech again"
        _shot(page, screenshots, f"issue12-1-gradio-labels-{lang}")
        menu = _table_menu(page, lang)
        seen = TRANSLATED[lang]
        for key in ("sort", "filter", "clear_filter"):
            assert seen[key] in menu, (lang, key, menu)
        if lang == "zh":
            assert not re.search(r"[A-Za-z]", menu), menu
        _shot(page, screenshots, f"issue12-1-gradio-table-menu-{lang}")
        page.get_by_role("tab", name="练习" if lang == "zh" else "Practice").click()
        # Gradio's fixed English: none in Chinese; back in English, what it was before the switch
        assert _sweep(page, lang, screenshots) == ([] if lang == "zh" else english), lang

    # the next question's speech still plays on its own
    page.locator("#answer textarea").fill("Paged KV cache splits the KV cache into fixed-size blocks.")
    page.locator("#send").click()
    page.wait_for_function(PLAYING_JS, arg=["Pause"])
    assert page.evaluate("window.coachSeenKeys") == [], "a Gradio message key was shown as itself"
    # at no frame in Chinese (events running: the status "processing |" drawn, in Chinese), and in English as before
    seen = page.evaluate("window.coachFixedSeen")
    assert [text for lang, text in seen if lang == "zh-CN" and text.startswith(GRADIO_FIXED)] == [], seen
    assert any(lang == "zh-CN" and text.startswith(processing) for lang, text in seen), seen
    assert any(lang == "en" and text.startswith("processing |") for lang, text in seen), seen
    context.close()
