"""What the Co-pilot tab shows of a session: the outputs of every event (`copilot_out`: whose turn it is,
the question asked or just answered, the suggestions, the draft scores, the controls as the session has
them), and what the language switch renders again (`rerender`)."""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from agent.graph import SessionView
from agent.graph.report import SessionReport
from agent.rubric.model import Lang
from agent.ui import views
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs import recording, shared
from agent.ui.tabs.copilot import decisions
from agent.ui.tabs.copilot.decisions import decision_labels
from agent.ui.tabs.said import Said, in_ui, joined, keyed, says, verbatim
from agent.util.messages import t

CONTROLS = ("mic", "transcribe", "save_answer", "ask", "close_round")
"""Outputs of `copilot_out` after the raw session: with the answer box, the follow-up pick and the next
question, what moves a co-pilot session on; off once the session is finished."""
SET_UP = ("plan", "session_language", "self_check", "previous_session")
"""The last outputs of `copilot_out` in the API: the set-up controls, as the session on screen has them."""


def copilot_out(
    ctx: AppContext,
    view: SessionView | None,
    prev: dict[str, Any],
    ui: Lang,
    *,
    note: Said | None = None,
    keep: str | None = "",
) -> list[Any]:
    """The tab's outputs for `view`; without a view the tab stays as it was, with `note` as its status.
    A session newly on screen (started or resumed) sets the plan, the interview language and the
    self-check box as it has them. `keep`: the answer box's value when the step was refused (None: as it
    is). Last, the status line in both languages (the language switch shows it again: `rerender`)."""
    if view is None:
        return [
            prev,
            *[gr.update()] * 4,
            gr.update() if keep is None else keep,
            *[gr.update()] * 5,
            in_ui(note, ui),
            gr.update(),
            *[gr.update()] * (len(CONTROLS) + len(SET_UP)),
            note or verbatim(""),
        ]
    ra = view.last_assessment
    state = shared.view_state(view)
    # the draft Accept and Override act on: the last answer's, while its round is under way (a closed
    # round's scores are changed in Review)
    state["draft"] = ra.model_dump(mode="json", exclude={"checklist"}) if ra and draft_open(view) else None
    answered = prev.get("sid") == view.session_id and view.awaiting == "interviewer"
    if view.question is None and view.awaiting == "interviewer":
        # the answer is saved and the next question not asked yet: the question answered stays on screen
        state.update(answered_question(view))
    choices = [sg.text for sg in view.suggestions]
    done = view.status == "done"
    session_said, state["said_once"] = once(view, prev)
    notes = joined(
        note,
        session_said,
        keyed(view.message_keyed, view.message),
        says("ui.copilot_finished") if done else None,
    )
    on = controls_on(view)
    box = answer_box(view, answered, keep)
    # the answer box emptied for what comes next (the answer saved, the next question asked, another session):
    # the recording transcribed into it goes too, so Transcribe cannot paste it again (as in Practice)
    state["moved_on"] = not view.message and box.get("value") == ""
    plan, lang, previous, self_check = (
        shared.plan_controls(view) if prev.get("sid") != view.session_id else [gr.update()] * 4
    )
    return [
        state,
        view.session_id,
        shared.progress(ctx, state, ui),
        shared.question_md(state, ui),
        waiting_md(view, ui),
        gr.update(interactive=not done, **box),
        views.suggestions_md(view.suggestions, ui) if not done else "",
        *next_question(choices, answered=answered, refused=bool(view.message), done=done),
        draft_md(ctx, view, ui),
        shared.snippets_for(ctx, shared.round_text(view, ra.round), ui) if (ra and answered) else gr.update(),
        in_ui(notes, ui),
        json.loads(view.model_dump_json(exclude={"report"})),
        *[
            recording.recorder_update(state, on=not done) if c == "mic" else gr.update(interactive=on[c])
            for c in CONTROLS
        ],
        plan,
        lang,
        shared.self_check_box(self_check, view),
        previous,
        notes,
    ]


SAID_ONCE = frozenset({"interview.index_not_built"})
"""Notices a session's status line says once: the graph says them on every answer (the source index not
built), and a refused step shows the last step's notice again; the sources pane keeps saying it where it is."""


def once(view: SessionView, prev: dict[str, Any]) -> tuple[Said | None, list[str]]:
    """The session's notice for the status line, None when it is one of `SAID_ONCE` already said in this
    session (the tab's state `prev` keeps which, `said_once`); and the keys said so far."""
    said = list(prev.get("said_once") or []) if prev.get("sid") == view.session_id else []
    key = view.notice_keyed.key if view.notice_keyed else None
    if key in SAID_ONCE:
        if key in said:
            return None, said
        said.append(key)
    return keyed(view.notice_keyed, view.notice), said


def next_question(choices: list[str], *, answered: bool, refused: bool, done: bool) -> list[Any]:
    """The follow-up pick and the next question's box: the suggestions, the first in the box once the
    candidate's answer is saved; as they were when the session refused the step (a refused Ask's question
    stays to be corrected, with the suggestion it was picked from)."""
    if refused:
        return [gr.update(interactive=not done), gr.update(interactive=not done)]
    return [
        gr.update(choices=choices, value=None, interactive=not done),
        gr.update(value=choices[0] if choices and answered else "", interactive=not done),
    ]


def controls_on(view: SessionView) -> dict[str, bool]:
    """Which of `CONTROLS` can act now: none once the session is finished; Ask while the session waits for
    the interviewer's next question (the candidate's answer saved: before it, the question on screen waits
    for the candidate); Close once the round under way has an answer (the graph refuses it before)."""
    if view.status == "done":
        return dict.fromkeys(CONTROLS, False)
    last = view.transcript.rounds[-1] if view.transcript.rounds else None
    answered = view.round is None or (
        last is not None and last.round == view.round and bool(last.candidate_text().strip())
    )
    return {
        **dict.fromkeys(CONTROLS, True),
        "ask": view.awaiting == "interviewer",
        "close_round": answered,
    }


def copilot_note(
    ctx: AppContext, state: dict[str, Any], ui: Lang, note: Said, keep: str | None = ""
) -> list[Any]:
    """The tab as it was, with `note` as its status and `keep` in the answer box (None: as it was)."""
    return copilot_out(ctx, None, state, ui, note=note, keep=keep)


def waiting_md(view: SessionView, ui: Lang) -> str:
    """Whose turn it is: the candidate's answer or the interviewer's next question."""
    who = {"candidate": "ui.who_candidate", "interviewer": "ui.who_interviewer"}.get(view.awaiting or "")
    return t("ui.waiting_for", ui, who=t(who, ui)) if who and view.status != "done" else ""


def draft_open(view: SessionView) -> bool:
    """Whether the last answer's draft belongs to the round under way (Accept and Override act on it): not
    once its round is closed (the next round's first answer brings the next draft), nor once the session is
    finished."""
    ra = view.last_assessment
    return ra is not None and view.status != "done" and ra.round == view.round


def draft_md(ctx: AppContext, view: SessionView, ui: Lang) -> str:
    """The last answer's draft scores (a closed round's scores, said to be closed), or the session's report
    once it is finished (`finished_md`)."""
    if view.report:
        return finished_md(ctx, view.report, ui, key=view.session_id)
    ra = view.last_assessment
    if ra is None:
        return ""
    decided = decisions.decisions_md(ctx, view.session_id, ra, ui)
    if draft_open(view):
        return views.assessment_md(ra, ctx.rubric, ui, heading="ui.draft_scores") + decided
    closed = views.assessment_md(ra, ctx.rubric, ui, heading="ui.closed_scores")
    return f"{closed}{decided}\n\n{t('ui.closed_scores_note', ui)}"


def finished_md(ctx: AppContext, report: SessionReport, ui: Lang, *, key: str) -> str:
    """The finished session's report in the interface language `ui` (the language switch renders it
    again), its scores as Review has them: after its heading, every overridden score, judge → effective,
    with who changed it and why (the overrides kept under `key`, the session's id)."""
    eff, problem = ctx.scores_and_log_problem(report, key)
    shown = views.finished_report_md(report, eff, ctx.rubric, ui)
    return f"{t('ui.log_unreadable', ui, why=problem)}\n\n{shown}" if problem else shown


RERENDERED = ("waiting", "suggestions", "draft", "sources", "accept", "override", "status", "log_status")
"""What `rerender` renders again, in this order (the tab's `SessionPane.rerendered`)."""


def rerender(
    ctx: AppContext,
    state: dict[str, Any],
    ui: Lang,
    owner: str,
    dim: str | None,
    status: Said | None,
    log: Said | None,
) -> list[Any]:
    """What the tab shows, in the interface language `ui`, in the language switch's one event with the rest
    of the page (issue 12: Accept and Override, a later listener of the switch, came seconds after it):
    whose turn it is, the suggestions' heading, the draft scores and the vLLM sources of its session; Accept
    and Override, named for the draft and the dimension `dim` (`decision_labels`); the status line and the
    override log's answer (`status`, `log`: each line in both languages; one never said stays as it is)."""
    lines = [gr.update() if line is None else in_ui(line, ui) for line in (status, log)]
    return [*session_again(ctx, state, ui, owner), *decision_labels(ctx, state, dim, ui), *lines]


def session_again(ctx: AppContext, state: dict[str, Any], ui: Lang, owner: str) -> list[Any]:
    """Whose turn it is, the suggestions' heading, the draft scores and the vLLM sources, in `ui`."""
    view = shared.session_shown(state, owner)
    if view is None:
        return [gr.update()] * 4
    ra = view.last_assessment
    text = shared.round_text(view, ra.round) if ra else ""
    return [
        waiting_md(view, ui),
        views.suggestions_md(view.suggestions, ui) if view.status != "done" else "",
        draft_md(ctx, view, ui),
        shared.snippets_for(ctx, text, ui) if text.strip() else gr.update(),
    ]


def answer_box(view: SessionView, answered: bool, keep: str | None) -> dict[str, Any]:
    """The answer box's new value: `keep` when the input was refused (None: as it is), emptied once an
    answer is saved or the candidate is to answer, else as it is (no value)."""
    if view.message:
        return {} if keep is None else {"value": keep}
    if answered or view.awaiting == "candidate" or view.status == "done":
        return {"value": ""}
    return {}


def answered_question(view: SessionView) -> dict[str, Any]:
    """The question the candidate just answered (the round's last interviewer turn) and its kind, for
    `view_state`, marked answered."""
    tr = next((r for r in view.transcript.rounds if r.round == view.round), None)
    at = [i for i, x in enumerate(tr.turns) if x.role == "interviewer"] if tr else []
    if tr is None or not at:
        return {}
    until = tr.model_copy(update={"turns": tr.turns[: at[-1] + 1]})  # as it stood when it was asked
    asked = tr.turns[at[-1]].text
    return {"question": asked, "kind": views.question_kind(until, asked, max_followups=0), "answered": True}


def decide_on_draft(
    ctx: AppContext,
    accept: bool,
    state: dict[str, Any],
    dim: str,
    score: float,
    reason: str,
    reviewer: str,
    ui_v: str,
    owner_v: str | None,
    request: gr.Request,
) -> list[Any]:
    """Accept or Override (`decisions.decide`): what the log says, that line in both languages, and the
    draft again with the decision among those standing on its round (`decisions.decisions_md`)."""
    line, both = decisions.decide(ctx, accept, state, dim, score, reason, reviewer, ui_v, request)
    view = shared.session_shown(state, ctx.owner_of(owner_v, request))  # none: the draft stays as it is
    return [line, both, draft_md(ctx, view, lang_of(ui_v)) if view is not None else gr.update()]
