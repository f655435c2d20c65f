"""What a session says (issue 12, a blind tester): its messages and notices carry their key and fields, so the
interface renders them in its own language, not the session's (an English session on a Chinese page showed
"The candidate has not answered…"); Practice says "you" to the candidate, Co-pilot "the candidate" to the
interviewer; a session stored with a plain-text notice still shows it."""

from __future__ import annotations

import re

from agent.graph import SessionView, answer, close_round, start_session
from agent.graph.notice import Notice
from agent.graph.store import SessionRow
from agent.graph.view import session_view
from agent.rubric import Rubric
from agent.ui.tabs.said import keyed
from tests.graph.script import WEAK

HAN = re.compile(r"[\u4e00-\u9fff]")


def _no_english_words(text: str) -> bool:
    """No run of four Latin letters (a Chinese sentence may name "UTF-8" or "NUL", not say a word)."""
    return not re.search(r"[A-Za-z]{4,}", text.replace("UTF-8", ""))


def test_a_refusal_in_an_english_practice_session_renders_in_chinese_and_says_you() -> None:
    v = start_session("concepts", "en")
    closed = close_round(v.session_id)  # Finish before any answer: refused
    assert closed.status == "waiting" and closed.message_keyed is not None
    en, zh = closed.message_keyed.text("en"), closed.message_keyed.text("zh")
    assert closed.message == en  # the plain text stays, in the session's language, for callers that read it
    assert HAN.search(zh) and _no_english_words(zh), zh
    assert "candidate" not in en.lower() and "候选人" not in zh, (en, zh)
    assert en.startswith("You ") and "你" in zh
    # and on screen: the status line in each interface language
    line = keyed(closed.message_keyed, closed.message)
    assert (line["en"], line["zh"]) == (en, zh)


def test_copilot_says_the_candidate_to_the_interviewer() -> None:
    c = start_session("concepts", "en", "copilot")
    closed = close_round(c.session_id)
    assert closed.message_keyed is not None
    assert "The candidate" in closed.message_keyed.text("en") and "候选人" in closed.message_keyed.text("zh")


def test_bad_input_renders_its_reason_in_the_interface_language() -> None:
    v = start_session("concepts", "en")
    refused = answer(v.session_id, b"an answer\x00with a NUL byte")
    assert refused.message_keyed is not None
    zh = refused.message_keyed.text("zh")
    assert zh.startswith("回答不是文本（") and _no_english_words(zh), zh
    assert "NUL bytes" in (refused.message or "")


def test_the_time_up_notice_renders_in_either_language(rubric: Rubric) -> None:
    v = start_session("full", "en")
    v = answer(v.session_id, WEAK, at_s=5 * 60 + 101)  # past the first round's 5-minute budget
    assert v.notice_keyed is not None and v.notice == v.notice_keyed.text("en")
    title = rubric.round("concepts").title
    assert title.en in v.notice_keyed.text("en") and title.zh in v.notice_keyed.text("zh")
    assert _no_english_words(v.notice_keyed.text("zh").replace(title.zh, ""))
    # the view as JSON (the API, the raw view on screen) reads back with its keyed notice
    again = SessionView.model_validate_json(v.model_dump_json())
    assert again.notice_keyed == v.notice_keyed


def test_a_session_stored_with_a_plain_text_notice_still_shows_it() -> None:
    v = start_session("concepts", "en")
    fields = {k: f for k, f in v.model_dump(mode="json").items() if k not in ("notice_keyed", "message_keyed")}
    old = SessionView.model_validate({**fields, "notice": "Time is up for Concepts (5 min): the round is closed."})
    assert old.notice_keyed is None
    line = keyed(old.notice_keyed, old.notice)
    assert line["zh"] == line["en"] == old.notice
    # a state checkpointed before notices were keyed holds the text itself
    row = SessionRow(v.session_id, v.plan, "practice", "en", "waiting", None, "t", "t")
    state = _state_of(v.session_id)
    shown = session_view(row, {**state, "notice": "an old notice"})
    assert shown.notice == "an old notice" and shown.notice_keyed is None
    keyed_state = {**state, "notice": Notice(key="interview.index_not_built").model_dump(mode="json")}
    assert session_view(row, keyed_state).notice_keyed == Notice(key="interview.index_not_built")


def _state_of(session_id: str) -> dict[str, object]:
    from agent.graph.store import open_store, thread_config

    return dict(open_store().graph.get_state(thread_config(session_id)).values)
