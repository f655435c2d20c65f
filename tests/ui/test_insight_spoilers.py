"""The insight after an answer says what the round still lacks, but not what a follow-up is about to ask:
listing it gave the next answer away (a tester saw "still lacks: continuous batching does not mean prefill and
decode always share a step" right under the follow-up that asks exactly that)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import graph
from agent.rubric import default_rubric
from agent.ui import views


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_insight_keeps_follow_up_targets_until_the_round_ends(lang: str) -> None:
    rubric = default_rubric()
    v = graph.start_session("concepts", lang, session_id=f"spoil-{lang}")
    v = graph.answer(v.session_id, "Paged KV stores the cache in pages. Batching is continuous.", at_s=20)
    ra = v.last_assessment
    assert ra is not None and v.round == "concepts" and v.question  # a follow-up is pending
    probed = {e for f in rubric.round("concepts").followups for e in f.probes}
    texts = {i.id: i.text.get(lang) for i in rubric.evidence("concepts")}
    covered = set(views.covered_ids(ra))
    hidden = [texts[e] for e in probed if e not in covered]
    assert hidden, "the thin answer leaves some follow-up target uncovered"
    md = views.insight_md(rubric, ra, [], lang, lang, round_over=False)
    assert not [x for x in hidden if views.safe_md(x) in md], md
    over = views.insight_md(rubric, ra, [], lang, lang, round_over=True)
    assert all(views.safe_md(x) in over for x in hidden), over  # once the round is over, all of them
