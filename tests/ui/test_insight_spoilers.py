"""The insight after an answer says what the round still lacks, but not what a follow-up is about to ask:
listing it gave the next answer away (a tester saw "still lacks: continuous batching does not mean prefill and
decode always share a step" right under the follow-up that asks exactly that)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import graph
from agent.rubric import default_rubric
from agent.ui import views
from agent.util.messages import t


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


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_lacking_items_all_held_are_one_sentence_not_a_heading_over_nothing(ui: str) -> None:
    """A tester read "本轮仍缺少（28 项中的 2 项）：" over an empty list and "另有 2 项暂不列出": when every item the
    round still lacks is one a follow-up may ask (none named), the insight says how many in one sentence."""
    rubric = default_rubric()
    v = graph.start_session("concepts", "en", session_id=f"held-{ui}")
    v = graph.answer(v.session_id, "Paged KV stores the cache in pages. Batching is continuous.", at_s=20)
    ra = v.last_assessment
    assert ra is not None and ra.checklist is not None and v.question  # a follow-up is pending
    ahead = views.not_asked_yet(rubric, ra)
    # every item covered but two a follow-up probes
    held = sorted(ahead & {i.id for i in views.expected_items(rubric, ra)})[:2]
    assert len(held) == 2
    items = [f.model_copy(update={"covered": f.id not in held}) for f in ra.checklist.items]
    ra = ra.model_copy(update={"checklist": ra.checklist.model_copy(update={"items": items})})
    total = len(views.expected_items(rubric, ra))
    md = views.insight_md(rubric, ra, [], "en", ui, round_over=False)  # type: ignore[arg-type]
    texts = {i.id: views.safe_md(i.text.en) for i in rubric.evidence("concepts")}
    assert not [e for e in held if texts[e] in md], md
    assert t("ui.insight_lacks", ui, n=2, total=total) not in md, md  # no heading over nothing
    said = t("ui.insight_lacks_held", ui, n=2, total=total)
    assert said in md, md
    assert t("ui.insight_held", ui, n=2) not in md
    # once the round is over, the heading and the items named under it
    over = views.insight_md(rubric, ra, [], "en", ui, round_over=True)  # type: ignore[arg-type]
    assert all(texts[e] in over for e in held) and said not in over, over
