"""A note whose sentences come in two languages (the banner's note per dimension, in a Chinese interface on an
English session: the rubric's missing item in English, then a cap in Chinese) keeps a space after the English
sentence (issue 12: "…measured.具体…"), and none between Chinese sentences."""

from __future__ import annotations

import re

import pytest

from agent import graph
from agent.contracts.labels import cap_text
from agent.rubric.model import Lang
from agent.ui import views
from agent.ui.context import AppContext
from agent.util.messages import sentences, t, then
from tests.graph.script import drive

GLUED = re.compile(r"[A-Za-z0-9)][.!?][\u3400-\u9fff（“]")
"""An English sentence's end with Chinese right after it."""
SPACED = re.compile(r"[\u3400-\u9fff。，：；！？（）] +[\u3400-\u9fff（）]")
"""A stray space between Chinese characters, or after a Chinese sentence."""
WEAK = {"en": "We measured 2x throughput with paged KV cache and 40% less memory.", "zh": "我觉得它运行良好，速度很快。"}
"""A weak answer: the banner notes the items it lacks, and a cap (the core mechanism wrong) after them."""


def test_an_english_sentence_in_a_chinese_note_is_followed_by_a_space() -> None:
    item = "Numbers are given without saying whether they are measured, derived or assumed."
    note = sentences([t("ui.dim_note_missing", "zh", item=item), cap_text("few_specifics (≤3)", "zh")], "zh")
    assert "assumed. " + cap_text("few_specifics (≤3)", "zh") in note, note
    assert not GLUED.search(note), note
    # Chinese after Chinese: side by side, as before; English after English: a space
    assert sentences(["覆盖了 3 项。", "下次补充：某项。"], "zh") == "覆盖了 3 项。下次补充：某项。"
    assert sentences(["One.", "Two."], "en") == "One. Two."
    assert sentences(["", " 一。", "  "], "zh") == "一。"
    assert then("It holds.", "覆盖了", "zh") == "It holds. 覆盖了"
    assert then("……。", "覆盖了", "zh") == "……。覆盖了"


@pytest.mark.parametrize(("session", "ui"), [("en", "zh"), ("zh", "en"), ("zh", "zh"), ("en", "en")])
def test_the_round_banner_joins_its_notes_by_the_interface_language(
    ctx: AppContext, session: Lang, ui: Lang
) -> None:
    view = drive(graph.start_session("concepts", session), lambda _: WEAK[session])
    assert view.report is not None
    for ra in view.report.rounds:
        md = views.round_banner_md(ctx.rubric, ra, session, ui, last=True)
        assert not GLUED.search(md), GLUED.search(md)
        if (session, ui) == ("en", "zh"):  # the case seen: an English item, then the cap in Chinese
            assert re.search(r"[.!?] [\u3400-\u9fff]", md), md
        if session == ui == "zh":
            assert not SPACED.search(md), SPACED.search(md)
