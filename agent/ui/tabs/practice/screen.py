"""What the Practice tab shows of a session: the outputs of every event (`practice_out`: the question,
progress, insight on the answer just sent, the round-finished banner, scores, conversation, report, the
controls as the session has them), and what the language switch renders again (`rerender`)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import gradio as gr

from agent.contracts.report import RoundAssessment
from agent.graph import SessionView
from agent.rubric.model import Lang
from agent.ui import views
from agent.ui.context import AppContext
from agent.ui.tabs.recording import recorder_update
from agent.ui.tabs.said import Said, in_ui, joined, keyed, said, verbatim
from agent.ui.tabs.shared import (
    plan_controls,
    progress,
    question_md,
    round_text,
    self_check_box,
    session_shown,
    snippets_for,
    view_state,
)
from agent.util.messages import t
from agent.voice.delivery import Delivery


def practice_out(
    ctx: AppContext,
    view: SessionView | None,
    prev: dict[str, Any],
    ui: Lang,
    page: str | None = None,
    *,
    note: Said | None = None,
    keep: str | None = "",
    sent: str | None = None,
    continued: bool = False,
    earlier: list[str] | None = None,
    delivery: Delivery | None = None,
) -> list[Any]:
    """The tab's outputs for `view`; without a view the tab stays as it was, with `note` as its status. The
    last two outputs are the status line and the speech's note in both languages (`said.follow_switch`).

    `page`: the Gradio session showing it (see `speak_question`); `keep`: the answer being written,
    kept in the answer box unless the session took it (None, without a view: the box left as it is); `sent`: the answer the session just took (its
    insight is shown); `continued`: the candidate closed the round-finished banner; `earlier`: a retried
    answer's earlier attempt covered these items (the insight compares them); `delivery`: the sent
    answer was spoken, with these figures (shown beside its insight)."""
    if view is None:
        return [
            prev,
            gr.update(),
            gr.update(),
            gr.update(),
            gr.update(),
            gr.update() if keep is None else keep,
            in_ui(note, ui),
            *[gr.update()] * 4,
            *[gr.update()] * 7,
            *[gr.update()] * 2,
            *[gr.update()] * 3,
            gr.update(),
            gr.update(),
            gr.update(),
            gr.update(),
            note or verbatim(""),
            gr.update(),
        ]
    rubric = ctx.rubric
    state = view_state(view)
    same_session = prev.get("sid") == view.session_id
    # a rubric round closed (not the candidate's own questions at the end of the full mock)
    round_ended = (
        same_session
        and prev.get("round") is not None
        and (
            prev.get("round_index") != view.round_index
            or (view.status == "done" and prev.get("status") != "done")
        )
    )
    scored = view.last_assessment
    if view.status == "done" and view.report and view.report.rounds:
        scored = view.report.rounds[-1]
    # back (a reload, Resume) while the round-finished banner waited: that banner again, the next round waiting
    between = not same_session and not continued and between_rounds(view)
    # the round-finished moment: the next round's question waits until the candidate continues
    held = (
        view.status != "done"
        and not continued
        and (round_ended or between or (same_session and bool(prev.get("held"))))
    )
    if held:
        state["question"] = None
        state["held"] = True
    notes = joined(note, keyed(view.notice_keyed, view.notice), keyed(view.message_keyed, view.message))
    new_question = bool(state["question"]) and (not same_session or prev.get("question") != state["question"])
    # the question is spoken by `speak_question`, which runs when this state changes: text first
    state["say"] = secrets.token_hex(4) if new_question else prev.get("say")
    if page:
        ctx.shown.show(page, state["say"])
    # the player is emptied (and hidden) until the question's speech is ready (`speak_question`);
    # meanwhile the note under it says the speech is being prepared
    audio: Any = None if new_question or not state["question"] else gr.update()
    voice: Said | None = said(preparing_md) if new_question else None if state["question"] else verbatim("")
    result: Any = gr.update() if same_session else ""
    sources: Any = gr.update() if same_session else ""
    banner_visible: Any = gr.update(visible=False) if not same_session else gr.update()
    banner: Any = "" if not same_session else gr.update()
    if (round_ended or between or (not same_session and view.status == "done")) and scored is not None:
        # at the end of the session the report below holds the scores; the sources stay useful
        result = (
            ""
            if view.status == "done"
            else views.assessment_md(scored, rubric, ui, heading="ui.round_scores")
        )
        sources = snippets_for(ctx, round_text(view, scored.round), ui)
        # a retried answer closed its round again: the total before it, beside the new one
        again = prev.get("retrying") or {}
        before = again.get("total") if round_ended and again.get("closed") else None
        by_finish = round_ended and sent is None  # Finish ended it, not an answer: no Retry, and it says why
        banner = views.round_banner_md(
            rubric, scored, view.language, ui, last=view.status == "done", before=before, by_finish=by_finish
        )
        banner_visible = gr.update(visible=True)
        state["banner_total"], state["banner_before"] = scored.total, before
        state["banner_by_finish"] = by_finish
    # the insight on the answer just taken: the current round's draft, or the round it closed
    insight: Any = gr.update() if same_session and not continued and not round_ended else ""
    delivery_out: Any = gr.update() if same_session and not continued and not round_ended else _no_delivery()
    if continued:
        banner_visible = gr.update(visible=False)
    # a retried answer its round had closed on opened the round again: its banner goes (`retry.py`)
    reopened = same_session and bool(prev.get("banner")) and not round_ended and not held
    if reopened:  # and the scores it closed with, which the new answer replaces
        banner_visible, result = gr.update(visible=False), ""
    # what is on screen, for the language switch to render again (`rerender`)
    state["banner"] = bool(prev.get("banner")) and same_session and not continued and not reopened
    # the banner's total, before a retry closed it again, and whether Finish ended its round
    for key in ("banner_total", "banner_before", "banner_by_finish"):
        state.setdefault(key, prev.get(key) if state["banner"] else None)
    state["shown_round"] = prev.get("shown_round") if same_session else None
    state["insight"] = prev.get("insight") if same_session and not continued and not round_ended else None
    state["delivery"] = prev.get("delivery") if state["insight"] else None
    if banner_visible == gr.update(visible=True) and scored is not None:
        state["banner"], state["shown_round"] = True, scored.round
    current = view.last_assessment if not round_ended else scored
    drafted = (
        view.last_assessment if view.last_assessment and view.last_assessment.round == view.round else None
    )
    state["covered"] = views.covered_ids(drafted) if not round_ended and not held else []
    # the items the round's draft counts: the next answer's insight says when its total moved since
    state["counted"] = (
        views.counted_ids(rubric, drafted) if drafted is not None and not round_ended and not held else []
    )
    # what retrying the last answer compares with: the round before it, and what it covered
    for key in ("covered_before", "mine", "counted_before"):
        state[key] = prev.get(key, []) if same_session else []
    answered = next((r for r in view.transcript.rounds if r.round == view.round), None)
    if not same_session and drafted is not None:  # a reload or resume: read them back from the session
        last = (
            next((x.text for x in reversed(answered.turns) if x.role == "candidate"), None)
            if answered
            else None
        )
        if last:
            had = views.covered_ids(drafted)
            state["mine"] = views.answer_covered(drafted, last, had)  # the items quoted from the last answer
            state["covered_before"] = [c for c in had if c not in state["mine"]]
            if view.status != "done" and not view.message:  # what the last answer earned, as Send showed it
                insight = views.insight_md(
                    rubric,
                    drafted,
                    state["mine"],
                    view.language,
                    ui,
                    round_over=False,
                    next_label=views.question_label(state.get("kind"), ui),
                )
                state["insight"] = {"round_over": False, "earlier": None}
    if view.message and prev.get("retrying"):  # a retry that was not taken: still retrying
        state["retrying"] = prev["retrying"]
    if sent is not None and not view.message and current is not None and prev.get("round") is not None:
        mine = views.answer_covered(current, sent, prev.get("covered", []))
        state["covered_before"], state["mine"] = list(prev.get("covered", [])), mine
        state["counted_before"] = list(prev.get("counted") or []) or None
        insight = views.insight_md(
            rubric,
            current,
            mine,
            view.language,
            ui,
            round_over=round_ended,
            next_label="" if round_ended else views.question_label(state.get("kind"), ui),
            earlier=earlier,
            counted_before=state["counted_before"],
        )
        state["insight"] = {"round_over": round_ended, "earlier": earlier, "counted": state["counted_before"]}
        state["delivery"] = delivery.model_dump(mode="json") if delivery else None
        delivery_out = _delivery_shown(delivery, ui)
    # the answer a round closed on (Send, not Finish) may be answered again while its banner is up
    state["retry_closed"] = (
        view.mode == "practice"
        and held
        and ((round_ended and sent is not None) or (same_session and bool(prev.get("retry_closed"))))
    )
    state["can_retry"] = state["retry_closed"] or (
        view.mode == "practice"
        and view.status != "done"
        and not held
        and not round_ended
        and answered is not None
        and any(x.role == "candidate" for x in answered.turns)
    )
    # the answer box is emptied for what comes next (the answer taken, a round moved on, another session): the
    # recording transcribed into it goes too (`answer_controls`), so Transcribe cannot paste it again
    state["moved_on"] = not view.message
    retrying = bool(state.get("retrying"))
    report = report_md(ctx, view, ui)
    controls = plan_controls(view) if not same_session else [gr.update()] * 4
    return [
        state,
        view.session_id,
        progress(ctx, state, ui),
        question_md(state, ui),
        audio,
        (keep or "") if view.message else "",
        in_ui(notes, ui),
        result,
        sources,
        report,
        json.loads(view.model_dump_json(exclude={"report"})),
        banner_visible,
        banner,
        insight,
        views.conversation_md(rubric, view.transcript, ui, view.candidate_questions),
        gr.update(interactive=not held and view.status != "done"),
        gr.update(visible=view.status != "done"),
        gr.update(interactive=not held and view.status != "done" and not retrying),
        gr.update(interactive=state["can_retry"], visible=not retrying),
        gr.update(visible=retrying),
        *controls[:3],
        delivery_out,
        self_check_box(controls[3], view),
        gr.update() if voice is None else in_ui(voice, ui),
        banner_retry(state),
        notes,
        gr.update() if voice is None else voice,
    ]


def between_rounds(view: SessionView) -> bool:
    """A Practice session between rounds: a round closed and the next has no answer yet (its banner waited for
    the candidate to continue when the page was left; the next round's clock starts at Continue, `graph.clock`).
    How the round closed (its last answer, or Finish) is not kept: the banner shown again offers no Retry."""
    closed = view.last_assessment
    return (
        view.mode == "practice"
        and view.status != "done"
        and view.round is not None
        and view.round_index > 0
        and closed is not None
        and closed.round != view.round
        and all(r.round != view.round for r in view.transcript.rounds)
    )


def banner_retry(state: dict[str, Any]) -> Any:
    """The banner's own Retry: shown while the answer its round closed on may be retried, and not being."""
    return gr.update(visible=bool(state.get("retry_closed")) and not state.get("retrying"))


def report_md(ctx: AppContext, view: SessionView, ui: Lang) -> str:
    """The finished session's report in the interface language `ui` (the language switch renders it again),
    its overridden scores as Review has them ("" while the session is under way)."""
    if view.report is None:
        return ""
    eff = ctx.standing_scores(view.report, view.session_id)
    return views.finished_report_md(view.report, eff, ctx.rubric, ui)


def answer_controls(state: dict[str, Any]) -> list[Any]:
    """The answer box, Transcribe and the recorder: off once the session on screen is finished (as Send,
    Retry and Finish are, `practice_out`); the recorder emptied when the answer box was (`moved_on`: after
    Send, a round moved on, another session). Run when the tab's state changes, so the API's outputs of the
    session's events keep their values."""
    on = state.get("status") != "done"
    return [gr.update(interactive=on), gr.update(interactive=on), recorder_update(state, on=on)]


def practice_note(
    ctx: AppContext, state: dict[str, Any], ui: Lang, note: Said, keep: str | None = None
) -> list[Any]:
    """The tab as it was, with `note` as its status and `keep` in the answer box (None: the box as it is, the
    answer being written with it: a Start or Resume cancelled, or refused, never empties it)."""
    return practice_out(ctx, None, state, ui, note=note, keep=keep)


def preparing_md(ui: Lang) -> str:
    """The note in the question's spoken box while its speech is being made."""
    return f"<div class='coach-speaking'>{t('ui.question_audio_preparing', ui)}</div>"


def _no_delivery() -> Any:
    return gr.update(value="", visible=False)


def _delivery_shown(delivery: Delivery | None, ui: Lang) -> Any:
    """The delivery figures beside the insight: shown for a spoken answer, hidden for a typed one."""
    return gr.update(value=views.delivery_md(delivery, ui), visible=True) if delivery else _no_delivery()


def _shown_round(state: dict[str, Any], view: SessionView) -> tuple[RoundAssessment | None, RoundAssessment | None]:
    """The scores of the round the tab shows (`shown_round`: closed, or its assessment so far), and the
    session's last assessment."""
    shown = state.get("shown_round")
    scored = next((ra for ra in (view.report.rounds if view.report else []) if ra.round == shown), None)
    last = view.last_assessment
    return scored or (last if last is not None and last.round == shown else None), last


def insight_of(ctx: AppContext, state: dict[str, Any], view: SessionView, ui: Lang) -> Any:
    """The insight on the last answer as the tab shows it now (`insight_now`), from the stored session."""
    scored, last = _shown_round(state, view)
    return insight_now(ctx, state, view.language, scored, last, ui)


def next_label(state: dict[str, Any], ui: Lang) -> str:
    """The question the insight says comes next ("Follow-up 2 of 3"), and while the last answer is retried,
    that it comes once the retried answer is sent; "" for none."""
    label = views.question_label(state.get("kind"), ui)
    return t("ui.insight_next_after_retry", ui, label=label) if label and state.get("retrying") else label


def insight_now(
    ctx: AppContext,
    state: dict[str, Any],
    lang: Lang,
    scored: RoundAssessment | None,
    last: RoundAssessment | None,
    ui: Lang,
) -> Any:
    """The insight on the last answer as the tab shows it now (`state["insight"]`), in `ui`: on the round's
    scores (`scored`) when the answer closed it, else on its assessment so far (`last`); none (no change)
    when the tab shows no insight."""
    info = state.get("insight")
    current = scored if info and info.get("round_over") else last
    if not info or current is None:
        return gr.update()
    return views.insight_md(
        ctx.rubric,
        current,
        state.get("mine", []),
        lang,
        ui,
        round_over=bool(info.get("round_over")),
        next_label="" if info.get("round_over") else next_label(state, ui),
        earlier=info.get("earlier"),
        counted_before=info.get("counted"),
    )


def rerender(ctx: AppContext, state: dict[str, Any], ui: Lang, owner: str) -> list[Any]:
    """What the language switch renders again in Practice besides the labels, the question and the
    progress: the insight on the last answer, the round-finished banner, the round's scores, the
    conversation, a spoken answer's delivery figures and the finished session's report, from the stored
    session (the tab's `SessionPane.rerendered`)."""
    keep: list[Any] = [gr.update()] * 7
    view = session_shown(state, owner)
    if view is None:
        return keep
    rubric = ctx.rubric
    scored, last = _shown_round(state, view)
    banner: Any = gr.update()
    result: Any = gr.update()
    sources: Any = gr.update()
    if scored is not None:
        sources = snippets_for(ctx, round_text(view, scored.round), ui)
        if state.get("banner"):
            banner = views.round_banner_md(
                rubric,
                scored,
                view.language,
                ui,
                last=view.status == "done",
                before=state.get("banner_before"),
                by_finish=bool(state.get("banner_by_finish")),
            )
        if view.status != "done":
            result = views.assessment_md(scored, rubric, ui, heading="ui.round_scores")
    insight = insight_now(ctx, state, view.language, scored, last, ui)
    info = state.get("insight")
    delivery: Any = gr.update()
    if info and state.get("delivery"):
        delivery = _delivery_shown(Delivery.model_validate(state["delivery"]), ui)
    return [
        insight,
        banner,
        result,
        sources,
        views.conversation_md(rubric, view.transcript, ui, view.candidate_questions),
        delivery,
        report_md(ctx, view, ui) if view.report else gr.update(),
    ]
