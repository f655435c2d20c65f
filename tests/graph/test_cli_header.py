"""The terminal's line above each round speaks the session's language (it said "min" in a Chinese session)."""

from __future__ import annotations

from agent.cli.practice_cmd import _round_header
from agent.graph import session as graph_session
from agent.rubric import Rubric


def test_the_round_header_is_in_the_sessions_language(rubric: Rubric) -> None:
    zh = graph_session.start_session("incident", "zh", session_id="hdr-zh")
    en = graph_session.start_session("incident", "en", session_id="hdr-en")
    minutes = rubric.round("incident").minutes
    assert _round_header(zh) == f"— 1/1 · {rubric.round('incident').title.zh} · {minutes} 分钟 —"
    assert _round_header(en) == f"— 1/1 · {rubric.round('incident').title.en} · {minutes} min —"
