"""The stylesheet and script live in agent/ui/static/, reach the launched page, and are package data."""

from __future__ import annotations

import json
import tomllib
from fnmatch import fnmatch
from pathlib import Path

from agent.ui import assets
from agent.ui.main import launch_kwargs

ROOT = Path(__file__).resolve().parents[2]


def test_the_launched_page_gets_the_stylesheet_and_the_clock_script() -> None:
    kw = launch_kwargs("127.0.0.1", None, {})
    assert ".coach-timer" in kw["css"] and ".coach-progress" in kw["css"]
    head = kw["head"]
    assert head.startswith("<script>") and head.rstrip().endswith("</script>")
    assert "setInterval" in head and ".coach-timer[data-elapsed]" in head
    assert (assets.css(), assets.head()) == (kw["css"], kw["head"])


def test_the_page_gets_the_chinese_for_gradios_fixed_english() -> None:
    """`static/gradio_fixed.js` and its pairs (messages/ui.yaml `gradio_fixed`) are in the head, as JSON a script
    cannot end early."""
    head = assets.head()
    pairs = assets.gradio_fixed()
    assert ("Adjust volume", "调节音量") in pairs and ("Skip forward by {seconds} seconds", "快进 {seconds} 秒") in pairs
    start = head.index("window.coachGradioFixed = ") + len("window.coachGradioFixed = ")
    assert [tuple(p) for p in json.loads(head[start : head.index(";\n", start)])] == pairs
    assert "coachGradioFixedRules" in head and head.count("</script>") == head.count("<script>") == 2


def test_every_static_file_is_package_data() -> None:
    """An installed package (not only this checkout) must find them: pyproject names each one."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "agent.ui"
    ]
    static = ROOT / "agent" / "ui" / "static"
    names = sorted(p.relative_to(static.parent).as_posix() for p in static.iterdir() if p.is_file())
    assert names, "agent/ui/static is empty"
    assert [n for n in names if not any(fnmatch(n, pat) for pat in patterns)] == []
