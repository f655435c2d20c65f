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


def test_opening_a_report_clears_the_saves_stale_warning(ctx: AppContext) -> None:
    """A tester saw "⚠ 请先打开一个报告。" (Save clicked before a report was open) still under Save after opening one:
    opening a report clears that line and its state (so the language switch does not bring it back), and
    makes Save the primary action; a report that could not be opened leaves them as they are."""
    request = SimpleNamespace(username=None, session_hash="page-1")
    stale = review.save_override(ctx, None, "", "", 3, "", "", "zh", None, request)  # type: ignore[arg-type]
    assert stale[0].startswith("⚠️") and stale[-1]["zh"] == stale[0]
    view = drive(graph.start_session("concepts", "en", owner="tab:page-1"), lambda _: SAID, owner="tab:page-1")
    opened = review.open_session_report(ctx, view.session_id, "zh", None, request)  # type: ignore[arg-type]
    *_, line, said, save = opened
    assert opened[1] == review.opened_line(opened[0], "zh"), opened[1]
    assert line == "" and said is None and save["variant"] == "primary"
    refused = review.open_session_report(ctx, "no-such", "zh", None, request)  # type: ignore[arg-type]
    assert refused[1].startswith("⚠️") and all(x == {"__type__": "update"} for x in refused[-3:])
