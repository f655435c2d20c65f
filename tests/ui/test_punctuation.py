"""Where two texts join, the punctuation between them is the language's own (issue 12: a blind tester read
"New this time:The …" and ASCII colons in Chinese sentences). Every Chinese message, and everything the
tabs render for a session driven through their handlers (Practice: answers, a retry, the round-finished
banner, the conversation, the session's report; Co-pilot: the draft, a decision, the finished report;
Review: the scores and the override log; the Markdown report), in each interface language:

- Chinese: no ASCII colon after Chinese text ("标签:" or "**标签:**"), no space after a full-width colon or
  other Chinese punctuation ("标签： 内容", "……中的 2 项。 下次补充");
- English: a colon is followed by a space ("Label:Text" is two texts joined without one).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator
from types import SimpleNamespace
from typing import Any, cast

import gradio as gr
import pytest

from agent import graph
from agent.grading.render import report_markdown
from agent.graph.report import session_markdown
from agent.overrides import effective_scores
from agent.rubric.model import Text
from agent.ui import views
from agent.ui.context import AppContext
from agent.ui.tabs import review
from agent.ui.tabs.copilot import decisions, turns
from agent.ui.tabs.copilot import sessions as copilot_sessions
from agent.ui.tabs.practice import answers, retry, sessions
from agent.util.messages import catalogue, fields_of, t
from agent.voice import Transcription, delivery_of

CJK = r"[\u3400-\u9fff\u3000-\u303f\uff01-\uff60“”‘’…—]"
"""A Chinese character or Chinese punctuation."""
ZH_ASCII_COLON = re.compile(CJK + r"[ \t]*:(?!//)")
ZH_SPACE_AFTER_COLON = re.compile(r"[：。；，！？][ \t]+[^\s|]")
"""A space after Chinese punctuation, before more text ("标签： 内容", "……要点中的 2 项。 下次补充")."""
ZH_SPACE_BETWEEN = re.compile(r"[\u3400-\u9fff][ \t]+[\u3400-\u9fff]")
"""A space between two Chinese characters, where a text met a field: "源码追踪 未通过：证据 需 ≥ 3"."""
EN_NO_SPACE = re.compile(r"(?<![\w./-])[A-Za-z]+[)\]]*:(?=[A-Za-z])")
"""A word (or a closing bracket or bold) then a colon then a letter: "time:The" (not "http://", "a.py:Sym",
"08:30")."""
ANSWERS = {
    "en": (
        "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand, so memory is not "
        "reserved for the maximum length. Continuous batching reschedules every step.",
        "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand; prefix "
        "caching hashes full blocks and reuses their KV. If p95 latency regresses I would roll back.",
    ),
    "zh": (
        "Paged KV cache 把 KV cache 切成固定大小的 block，按需分配，不按最大长度预留显存。"
        "Continuous batching 每一步都重新调度。",
        "Paged KV 把逻辑位置映射到不连续的物理 block，按需分配；prefix caching 对完整 block 做哈希并复用 KV。"
        "如果 p95 延迟变差，我会回滚。",
    ),
}


def _plain(text: str) -> str:
    """What a person reads: Markdown emphasis, HTML tags, code spans and links' targets left out."""
    text = re.sub(r"`[^`]*`", "`code`", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("**", "").replace("__", "")


def faults(text: str, ui: str) -> list[str]:
    """The joins in `text` that break the rule of `ui`, each with a little context."""
    plain = _plain(text)
    found = []
    patterns = (ZH_ASCII_COLON, ZH_SPACE_AFTER_COLON, ZH_SPACE_BETWEEN) if ui == "zh" else (EN_NO_SPACE,)
    for p in patterns:
        for m in p.finditer(plain):
            found.append(plain[max(0, m.start() - 20) : m.end() + 20])
    return found


def _texts(outputs: Iterable[Any]) -> Iterator[str]:
    """The texts a handler's outputs put on screen: strings, and the value, label and info of updates (the
    raw JSON views and states are not text on screen)."""
    for x in outputs:
        if isinstance(x, str):
            yield x
        elif isinstance(x, dict) and x.get("__type__") == "update":
            for k in ("value", "label", "info", "placeholder"):
                if isinstance(x.get(k), str):
                    yield x[k]


def test_the_rule_finds_the_joins_it_is_for() -> None:
    assert faults("- New this time:The block table", "en")
    assert faults("**问题（已回答）:** 权重是多少？", "zh")
    assert faults("**评分器：** 内置评分器", "zh")
    assert faults("覆盖了 6 项期望要点中的 2 项。 下次补充：说出问题", "zh")
    assert faults("源码追踪 未通过：证据 需 ≥ 3（得分 2）", "zh")
    assert not faults("**Question:** What is paged KV? See `vllm/a.py:KVCache` at 08:30, https://x.org", "en")
    assert not faults("**问题**：权重是多少？用时 00:05 / 05:00 | 覆盖了 2 项。 |", "zh")
    assert not faults("源码追踪未通过：证据需 ≥ 3（得分 2）；Paged KV 把 block 按需分配", "zh")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_message_joins_with_its_language_s_punctuation(lang: str) -> None:
    bad = {k: faults(e[lang], lang) for k, e in catalogue().items()}
    assert {k: v for k, v in bad.items() if v} == {}


def _filled(text: str) -> dict[str, object]:
    """A value for each of the text's fields: a Chinese word, or a number where its format wants one."""
    out: dict[str, object] = {}
    for _, name, spec, _ in string.Formatter().parse(text):
        if name is not None:
            out[name] = 3 if spec else "中文"
    return out


def test_a_chinese_text_meets_its_chinese_fields_without_a_space(ctx: AppContext) -> None:
    """Issue 12: "源码追踪 未通过：证据 需 ≥ 3". A Chinese template leaves a space around a field that may be
    Latin; filled with Chinese, the space goes: every message and every judge's message of the lexicon."""
    bad = []
    for key, entry in catalogue().items():
        text = entry["zh"]
        if fields_of(text):
            bad += [f"{key}: {f}" for f in faults(t(key, "zh", **_filled(text)), "zh")]
    msgs = ctx.rubric.lexicon.messages
    for name in type(msgs).model_fields:
        text = getattr(msgs, name)
        if isinstance(text, Text):
            bad += [f"lexicon {name}: {f}" for f in faults(text.fill("zh", **_filled(text.zh)), "zh")]
    for dim, text in ctx.rubric.lexicon.next_actions.items():
        bad += [f"next action {dim}: {f}" for f in faults(text.fill("zh", **_filled(text.zh)), "zh")]
    assert not bad, "\n".join(bad)
    assert t("ui.tts_unavailable", "zh", why="Paged KV") == "无法朗读问题：Paged KV"  # a Latin field as it is


@pytest.mark.parametrize("ui", ["zh", "en"])
def test_what_the_tabs_render_joins_with_the_interface_language_s_punctuation(
    ctx: AppContext, ui: str
) -> None:
    request = cast(gr.Request, SimpleNamespace(username=None, session_hash="page-1"))
    owner = "tab:me"
    first, better = ANSWERS[ui]
    shown: dict[str, list[str]] = {}

    def seen(where: str, outputs: Iterable[Any]) -> list[Any]:
        outputs = list(outputs)
        shown.setdefault(where, []).extend(_texts(outputs))
        return outputs

    # Practice: one round, answered, retried, finished; the session's report
    state = seen("start", sessions.start_practice(ctx, "concepts", ui, "", {}, ui, owner, request))[0]
    state = seen("answer", answers.send_answer(ctx, first, state, None, ui, owner, request))[0]
    state = seen("retry", retry.start_retry(ctx, state, ui, owner, request))[0]
    state = seen("retried", answers.send_answer(ctx, better, state, None, ui, owner, request))[0]
    state = seen("finished", answers.finish_round(ctx, state, ui, owner, request))[0]
    state = seen("continued", answers.continue_round(ctx, state, ui, owner, request))[0]
    for _ in range(6):  # the closing questions, until the session is over
        view = graph.get_session(state["sid"], owner=owner)
        if view.status == "done":
            break
        state = seen("closing", answers.send_answer(ctx, "No questions, thank you.", state, None, ui, owner, request))[0]  # fmt: skip
    view = graph.get_session(state["sid"], owner=owner)
    assert view.status == "done" and view.report is not None
    shown["session report"] = [
        session_markdown(view.report, ctx.rubric),
        report_markdown(view.report, ctx.rubric),
    ]
    words = "Um, I would roll back, uh, and then check the p95 latency of the decode step again"
    shown["delivery"] = [
        views.delivery_md(delivery_of(Transcription(words, "en", 9.0, "test")), ui),  # type: ignore[arg-type]
        views.delivery_md(
            delivery_of(Transcription("嗯，我会先回滚，然后那个再看延迟", "zh", 4.0, "test")), ui
        ),  # type: ignore[arg-type]
    ]

    # Co-pilot: an answer, its draft, an accept and an override, the round closed
    c = seen("copilot start", copilot_sessions.start_copilot(ctx, "concepts", ui, {}, ui, owner, request))[0]
    c = seen("copilot answer", turns.record_answer(ctx, first, c, ui, owner, request))[0]
    shown["copilot decide"] = [
        decisions.decide(ctx, True, c, "accuracy", 3, "", "rita", ui, request)[0],
        decisions.decide(ctx, False, c, "evidence", 4, "named the files", "rita", ui, request)[0],
    ]
    seen("copilot labels", decisions.decision_labels(ctx, c, "accuracy", ui))
    seen("copilot closed", turns.close_copilot_round(ctx, c, ui, owner, request))

    # Review: the practice session's scores and an override
    rows = ctx.services.overrides.rows(c["sid"])
    report = graph.get_session(state["sid"], owner=owner).report
    assert report is not None
    eff = effective_scores(report, rows, key=state["sid"])
    shown["review"] = [
        views.report_summary_md(report, ctx.rubric, ui, eff),  # type: ignore[arg-type]
        views.review_html(report, eff, ctx.rubric, ui),  # type: ignore[arg-type]
        views.log_html(rows, ctx.rubric, ui, problem=None),  # type: ignore[arg-type]
    ]
    assert review  # the tab's handlers render these views

    bad = [f"{where}: {f!r}" for where, texts in shown.items() for text in texts for f in faults(text, ui)]
    assert not bad, "\n".join(dict.fromkeys(bad))
