"""index.html names what a person reads (rounds, plans, kinds of question, verdicts, units, judges) instead
of the ids package.json keeps, in English and in Chinese."""

from __future__ import annotations

import re
from html import unescape

from agent.graph import answer, start_session
from agent.graph.state import GraphContext
from agent.package import build_package
from agent.package.folder import files
from tests.package.conftest import UNIT_ERROR_ZH, Sessions, override_capacity

IDS = ("fu-", "given-", "followup ", "unit_or_sharding_error", "(accuracy_1)", "(happy_path_only)",
       "browser:", "strong signal(s)", "weak: ", ">band<")  # fmt: skip


def _text(session_id: str, owner: str | None = None) -> str:
    page = files(build_package(session_id, owner=owner), "html")["index.html"].decode("utf-8")
    return unescape(re.sub(r"<[^>]+>", " ", page.split("<body>", 1)[1]))


def test_english_page_names_rounds_kinds_and_verdicts(done: Sessions) -> None:
    page = files(build_package("first"), "html")["index.html"].decode("utf-8")
    text = _text("first")
    assert not [i for i in IDS if i in page], [i for i in IDS if i in page]
    assert "Full mock (five rounds)" in text and "practice (the coach asks)" in text
    assert "opening question" in text and "follow-up" in text
    assert "Capacity" in text and "a unit or sharding error" in text
    assert re.search(r"Rounds:\s*Concept", text)  # the round list by title


def test_chinese_page_has_no_english_ids(flaky: GraphContext) -> None:
    owner = "browser:abc123"
    v = start_session("capacity", "zh", session_id="zh-names", owner=owner)
    text_for = [UNIT_ERROR_ZH, "我会先问：权重是否复制？block size 是多少？"]
    for k in range(8):
        if v.status == "done":
            break
        v = answer(v.session_id, text_for[min(k, 1)], at_s=45.0 * (k + 1), owner=owner)
    assert v.status == "done"
    override_capacity(v)
    text = _text("zh-names", owner)
    assert not [i for i in IDS if i in text], [i for i in IDS if i in text]
    for english in ("expected items covered", "decimal GB taken", "prompt", "practice", "GiB per rank",
                    "· seed", "override:", "fallback"):  # fmt: skip
        assert english not in text, english
    assert (
        "开场问题" in text
        and "追问" in text
        and "单位或分片错误" in text
        and "把十进制 GB 当成二进制 GiB" in text
    )
    assert "覆盖了" in text and "人工修改" in text and "abc123" not in text
