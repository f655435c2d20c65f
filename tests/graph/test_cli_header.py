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


def test_minutes_and_a_cut_excerpt_speak_no_english_in_a_chinese_report() -> None:
    """The report's time lines said "0.4 min / 预算 5 min", a cut source excerpt "(46 more lines)"."""
    from agent.knowledge.snippet import Snippet
    from agent.util.messages import t

    assert t("report.session.minutes", "zh", m="0.4") == "0.4 分钟"
    assert t("report.session.minutes", "en", m=5) == "5 min"
    code = "\n".join(f"x{i} = {i}" for i in range(20))
    s = Snippet(path="vllm/x.py", symbol="x", kind="module", start_line=1, end_line=20, commit="c", permalink="p",
                text=code, score=1.0)
    assert s.excerpt(8).splitlines()[-1] == "# … +12"
    assert not any(ch.isalpha() for ch in s.excerpt(8).splitlines()[-1])
