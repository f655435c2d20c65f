"""The package's index.html in real headless Chromium (Debian `chromium` driven by Playwright, as tests/ui
does; never a downloaded browser): it opens offline with no request outside the file, and a screenshot
(and a printed PDF) of an English and a Chinese package is kept in $COACH_SCREENSHOTS/package (default:
<tmp>/coach-screenshots/package), outside the repo."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.graph import start_session
from agent.graph.state import GraphContext
from agent.package import build_package
from agent.package.folder import write
from agent.rubric import Rubric
from tests.package.conftest import UNIT_ERROR_ZH, Sessions, drive, override_capacity

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


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


@pytest.fixture(scope="module")
def artifacts() -> Path:
    base = Path(os.environ.get("COACH_SCREENSHOTS") or Path(tempfile.gettempdir()) / "coach-screenshots")
    d = base / "package"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _open_and_shoot(browser: Browser, folder: Path, artifacts: Path, name: str, heading: str) -> None:
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    page = ctx.new_page()
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
    page.goto((folder / "index.html").as_uri())
    page.get_by_role("heading", level=1).wait_for()
    assert heading in page.get_by_role("heading", level=1).inner_text()
    assert outside == [], f"requests outside the package: {outside}"
    assert page.evaluate("document.fonts.size") == 0  # no web font
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)
    page.emulate_media(media="print")
    page.pdf(path=str(artifacts / f"{name}.pdf"), format="A4")
    ctx.close()


def test_english_and_chinese_packages_open_in_chromium(
    browser: Browser, done: Sessions, flaky: GraphContext, rubric: Rubric, tmp_path: Path, artifacts: Path
) -> None:
    en = write(build_package("first"), tmp_path / "en", "html")[0].parent
    _open_and_shoot(browser, en, artifacts, "package-en", "Evidence package: first")

    v = start_session("capacity", "zh", session_id="zh-one")
    v = drive(v, {"capacity": "我会先问：权重是否复制？block size 是多少？"}, {"capacity": UNIT_ERROR_ZH})
    override_capacity(v)
    zh = write(build_package("zh-one"), tmp_path / "zh", "html")[0].parent
    _open_and_shoot(browser, zh, artifacts, "package-zh", "面试证据包")
    assert (artifacts / "package-zh.png").stat().st_size > 10_000
