"""Co-pilot's list of unfinished sessions (a blind tester: Co-pilot could only resume by a typed id), checked
on the tab's handlers and its wiring (no app served, no browser):

- the list (`#copilot-unfinished`) holds the owner's unfinished Co-pilot sessions, by plan, interview
  language and date (the id last), in the interface language; not a Practice session, not another
  owner's, not a finished one;
- picking one resumes it, as Resume by id does; the list is made again on page load and after Start,
  Resume, a pick and Close the round (which finishes the session after its last round).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import gradio as gr
import pytest

from agent import graph
from agent.ui import Services, build_app
from agent.ui.context import AppContext
from agent.ui.tabs.copilot import sessions, turns
from agent.ui.tabs.practice import sessions as practice_sessions
from agent.util.messages import t

ANSWER = "Weights: 40e9 x 2 B = 80e9 B, about 74.5 GiB; per rank at TP=4 about 18.6 GiB."


def _request(page: str = "page-1") -> gr.Request:
    return cast(gr.Request, SimpleNamespace(username=None, session_hash=page))


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_list_holds_the_owners_unfinished_copilot_sessions_and_a_pick_resumes(
    ctx: AppContext, ui: str
) -> None:
    req = _request()
    mine = sessions.start_copilot(ctx, "capacity", "zh", {}, ui, "tab:me", req)[0]["sid"]
    practice_sessions.start_practice(ctx, "concepts", "en", "", {}, ui, "tab:me", req)
    sessions.start_copilot(ctx, "capacity", "en", {}, ui, "tab:other", _request("page-2"))
    # a finished co-pilot session of the owner's (the self-check plan's one round, closed)
    done = sessions.start_copilot(ctx, "self-check", "en", {}, ui, "tab:me", req)
    saved = turns.record_answer(ctx, ANSWER, done[0], ui, "tab:me", req)
    assert turns.close_copilot_round(ctx, saved[0], ui, "tab:me", req)[0]["status"] == "done"

    listed = sessions.list_unfinished_copilot(ctx, ui, "tab:me", req)
    assert listed["value"] is None
    assert [sid for _, sid in listed["choices"]] == [mine]
    name = listed["choices"][0][0]
    summary = next(s for s in graph.list_sessions(owner="tab:me") if s.session_id == mine)
    when = summary.updated_at[:16].replace("T", " ")
    # by plan, interview language and date, the id last, in the interface language
    assert ctx.plan_name("capacity", ui) in name and t("ui.language_zh", ui) in name
    assert when in name and name.endswith(mine)
    other = "zh" if ui == "en" else "en"
    assert t("ui.language_zh", other) not in name
    # another owner sees only theirs
    theirs = sessions.list_unfinished_copilot(ctx, ui, "tab:other", _request("page-2"))
    assert len(theirs["choices"]) == 1 and theirs["choices"][0][1] != mine

    # picking it resumes it (the value the list gives is the id), with its plan and language set
    picked = sessions.resume_copilot(ctx, listed["choices"][0][1], {}, ui, "tab:me", req)
    assert picked[0]["sid"] == mine and picked[1] == mine
    assert picked[-4]["value"] == "zh"  # the interview language, as the session has it


def _ids(app: gr.Blocks) -> dict[int, Any]:
    return {b._id: getattr(b, "elem_id", None) for b in app.blocks.values()}


def test_the_list_is_made_on_load_and_after_each_step_that_changes_it(ui_data_dir: Any) -> None:
    app = build_app(Services(retriever=lambda: lambda text, k: []))
    ids = _ids(app)
    deps = app.config["dependencies"]
    listing = [d for d in deps if "copilot-unfinished" in {ids[i] for i in d["outputs"]}]
    assert listing, "nothing fills #copilot-unfinished"
    # a pick resumes: an event of the list itself, the list's value first, the tab's outputs
    picks = [
        d
        for d in deps
        if any(ids.get(tr[0]) == "copilot-unfinished" and tr[1] == "select" for tr in d["targets"])
    ]
    assert len(picks) == 1 and picks[0]["api_name"] == "copilot_resume_listed"
    assert ids[picks[0]["inputs"][0]] == "copilot-unfinished"
    assert {"copilot-sid", "copilot-question"} <= {ids[i] for i in picks[0]["outputs"]}
    # made again after Start, Resume, the pick and Close (each a `then` of that event), and on page load
    by_id = {d["id"]: d for d in deps}
    after = {by_id[d["trigger_after"]]["api_name"] for d in listing if d.get("trigger_after") is not None}
    assert {"start_copilot", "resume_copilot", "copilot_resume_listed", "close_copilot_round"} <= after
    assert "restore_owner" in after
