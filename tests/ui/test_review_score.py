"""Review's new score starts at the picked round and dimension's current score (issue 12: the slider started
at 3 whatever the row): the judge's score, or the last override's once one is saved."""

from __future__ import annotations

from types import SimpleNamespace

from agent import graph
from agent.rubric.model import DIMENSIONS
from agent.ui.context import AppContext
from agent.ui.tabs import review
from tests.graph.script import drive

SAID = "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand."


def test_the_new_score_starts_at_the_picked_rows_current_score(ctx: AppContext) -> None:
    report = drive(graph.start_session("concepts", "en"), lambda _: SAID).report
    assert report is not None
    rep = review.loaded(ctx, report, "ui.kind_report", "en")[0]
    ra = report.rounds[0]
    for dim in DIMENSIONS:
        assert review.picked_score(ctx, rep, ra.round, dim)["value"] == ra.scores[dim], dim

    other = next(s for s in range(1, 6) if s != ra.scores["evidence"])
    request = SimpleNamespace(username=None, session_hash="page-1")
    said = review.save_override(ctx, rep, ra.round, "evidence", other, "named it", "Rui", "en", None, request)  # type: ignore[arg-type]
    assert said[0].startswith("✓"), said[0]
    assert review.picked_score(ctx, rep, ra.round, "evidence")["value"] == other
    assert review.picked_score(ctx, rep, ra.round, "accuracy")["value"] == ra.scores["accuracy"]


def test_nothing_picked_leaves_the_score_as_it_is(ctx: AppContext) -> None:
    assert review.picked_score(ctx, None, "concepts", "accuracy") == {"__type__": "update"}
    report = drive(graph.start_session("concepts", "en"), lambda _: SAID).report
    assert report is not None
    rep = review.loaded(ctx, report, "ui.kind_report", "en")[0]
    assert review.picked_score(ctx, rep, None, "accuracy") == {"__type__": "update"}
    assert review.picked_score(ctx, rep, "no-such-round", "accuracy") == {"__type__": "update"}
