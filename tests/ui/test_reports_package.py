"""Reports → Download evidence package, in headless Chromium, in English and Chinese: a finished session's
package downloads as a zip (the page, package.json, its schema) and as the page alone, which opens
offline and names rounds instead of ids. Only the owner's sessions have one.

Screenshots in $COACH_SCREENSHOTS (default <tmp>/coach-screenshots): 9a-reports-package-{lang} (the tab),
9b-package-page-{lang} (the downloaded page), 9c-reports-compare-refused-{lang} (Compare refusing in place),
9d-reports-compare-switched-{lang} (a filled table after the switch to {lang}).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui.conftest import Served
from tests.ui.test_browser import _interface, _open, _shot, _shows, _start_practice, browser  # noqa: F401  (the module's browser)
from tests.ui.test_practice_loop import _text

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SEEN = {
    "en": {
        "lang": "English",
        "question": "Question:",
        "finish": "Finish this round",
        "reports": "Reports",
        "zip": "Download evidence package (zip)",
        "page": "Evidence package page (HTML)",
        "heading": "Evidence package",
        "round": "Concept quick-fire",
        "compare": "Compare two attempts",
        "refused": "No such session: nope",
    },
    "zh": {
        "lang": "中文",
        "question": "问题：",
        "finish": "结束本轮",
        "reports": "报告",
        "zip": "下载证据包（zip）",
        "page": "证据包页面（HTML）",
        "heading": "面试证据包",
        "round": "概念快问",
        "compare": "对比两次面试",
        "refused": "没有这个会话：nope",
    },
}
DOWNLOADS = ["#download-package", "#download-package-page", "#download-json", "#download-md"]
ENABLED = """(ids) => ids.map((s) => {
  const b = document.querySelector(s);
  const btn = b?.tagName === 'BUTTON' ? b : b?.querySelector('button');
  return !!btn && !btn.disabled;
})"""
"""For each download button, whether it can be clicked."""
ANSWER = {
    "en": "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand; continuous "
    "batching reschedules every step. If p95 latency regresses I would roll back.",
    "zh": "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配；continuous batching 每一步重新调度。"
    "如果 p95 延迟变差，我会回滚。",
}


def _finished_session(page: Page, lang: str) -> str:
    seen = SEEN[lang]
    sid = _start_practice(page, ui=lang, lang=seen["lang"])
    page.locator("#practice-question").get_by_text(seen["question"]).wait_for()
    page.locator("#answer textarea").fill(ANSWER[lang])
    page.locator("#send").click()
    page.wait_for_function("() => document.querySelector('#answer textarea').value === ''")
    page.get_by_role("button", name=seen["finish"]).click()
    page.locator("#round-scores").wait_for()
    return sid


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_download_the_evidence_package_from_reports(
    browser: Browser,  # noqa: F811
    served: Served,
    screenshots: Path,
    tmp_path: Path,
    lang: str,
) -> None:
    seen = SEEN[lang]
    page = _open(browser, served)
    sid = _finished_session(page, lang)

    page.get_by_role("tab", name=seen["reports"]).click()
    page.wait_for_function(
        "s => (document.querySelector('#reports-sessions input')?.value || '').includes(s)", arg=sid
    )  # selecting the tab lists the sessions by plan and date, the latest first
    assert seen["round"] in page.locator("#reports-sessions input").input_value()
    # nothing opened yet: nothing to download (issue 12: the Markdown and JSON buttons could be clicked and
    # did nothing)
    assert page.evaluate(ENABLED, DOWNLOADS) == [False] * len(DOWNLOADS)
    page.locator("#reports-open").click()
    _shows(page, "#reports-summary", seen["round"])
    page.wait_for_function(f"() => ({ENABLED})({DOWNLOADS!r}).every(Boolean)")
    _shot(page, screenshots, f"9a-reports-package-{lang}")
    # Compare: one session, nothing preselected; an attempt that is not the owner's is refused in place, in
    # the page's language, no Gradio error toast
    assert page.locator("#reports-a input").input_value() == ""
    page.locator("#reports-a input").fill("nope")
    page.locator("#reports-a input").press("Enter")
    page.locator("#reports-b input").fill(sid)
    page.locator("#reports-b input").press("Enter")
    page.get_by_role("button", name=seen["compare"], exact=True).click()
    _shows(page, "#reports-compare-status", seen["refused"])
    _shot(page, screenshots, f"9c-reports-compare-refused-{lang}")
    # a filled table follows the language switch, compared again (a blind tester's kept only its header rows)
    page.locator("#reports-a input").fill(sid)
    page.locator("#reports-a input").press("Enter")
    page.get_by_role("button", name=seen["compare"], exact=True).click()
    _shows(page, "#reports-compare", seen["round"])
    other = "zh" if lang == "en" else "en"
    _interface(page, other)
    _shows(page, "#reports-compare", SEEN[other]["round"])
    assert seen["round"] not in _text(page, "#reports-compare")
    _shot(page, screenshots, f"9d-reports-compare-switched-{other}")
    _interface(page, lang)
    _shows(page, "#reports-compare", seen["round"])

    with page.expect_download() as got:
        page.get_by_role("button", name=seen["zip"]).click()
    zipped = tmp_path / got.value.suggested_filename
    got.value.save_as(zipped)
    assert zipped.name == f"evidence-{sid}.zip"
    with zipfile.ZipFile(zipped) as z:
        names = sorted(z.namelist())
        assert names == sorted(
            f"evidence-{sid}/{n}" for n in ("index.html", "package.json", "package.schema.json")
        )
        data = json.loads(z.read(f"evidence-{sid}/package.json"))
    assert data["session"]["id"] == sid and data["language"] == lang and data["score_sheet"]

    with page.expect_download() as got:  # the report as Markdown: the round, the answer in the transcript
        page.locator("#download-md").click()
    md = tmp_path / got.value.suggested_filename
    got.value.save_as(md)
    said = md.read_text(encoding="utf-8")
    assert md.suffix == ".md" and seen["round"] in said and ANSWER[lang][:40] in said, said[:500]

    with page.expect_download() as got:
        page.get_by_role("button", name=seen["page"]).click()
    html = tmp_path / got.value.suggested_filename
    got.value.save_as(html)
    assert html.name == f"evidence-{sid}.html"
    page.context.close()

    # the page opens offline and names the round, never the browser's owner id
    reader = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    outside: list[str] = []
    reader.on("request", lambda r: outside.append(r.url) if not r.url.startswith("file:") else None)
    reader.goto(html.as_uri())
    heading = reader.get_by_role("heading", level=1).inner_text()
    assert seen["heading"] in heading and sid in heading
    body = reader.locator("body").inner_text()
    assert seen["round"] in body and "browser:" not in body and "concepts" not in body
    assert outside == []
    reader.screenshot(path=str(screenshots / f"9b-package-page-{lang}.png"), full_page=False)
    reader.context.close()
