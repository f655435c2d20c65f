"""What more than one tab does: a session's plan (the self-check box), question, progress and sources,
overrides (speech to text: `recording`)."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import gradio as gr
from pydantic import ValidationError

from agent import graph
from agent.contracts.report import JudgeInfo
from agent.graph import SessionError, SessionSummary, SessionView
from agent.graph.plan import ADD_SELF_CHECK, with_self_check
from agent.graph.session import MAX_FOLLOWUPS
from agent.overrides import NewOverride, OverrideLogError
from agent.rubric.model import DIMENSIONS, SELF_CHECK, Lang
from agent.ui import views
from agent.ui.context import LANG_CHOICES, AppContext, lang_of
from agent.ui.sources import SourcesUnavailable
from agent.ui.tabs.said import Said, said, says, verbatim
from agent.util.messages import bracketed, labelled, t

SNIPPETS_SHOWN = 3

Handler = TypeVar("Handler", bound=Callable[..., list[Any]])
NoteOut = Callable[[AppContext, dict[str, Any], Lang, Said, str | None], list[Any]]
"""`(ctx, state, ui, note, keep)` -> a tab's outputs: the tab as it was, `note` its status, `keep` in
the answer box (None: the box as it was: the handler had no answer being written, or its text is not one)."""


@dataclass(frozen=True)
class SessionPane:
    """A tab that shows a session (Practice, Co-pilot): what the language switch re-renders in it."""

    state: gr.State
    """What the tab keeps of its session (`view_state`)."""
    question: gr.Markdown
    progress: gr.HTML
    on_load: Callable[[Any], None] | None = None
    """Chains the tab's own events after the page's load event (which knows the page's owner)."""
    rerendered: list[Any] = field(default_factory=list)
    """Further components the language switch renders again, with `rerender(ctx, state, ui, owner, *more)`
    in its one event (`agent/ui/app.py`: not a later listener of the switch)."""
    rerender: Callable[..., list[Any]] | None = None
    rerender_inputs: list[Any] = field(default_factory=list)
    """The values `rerender` takes after the owner (`more`)."""


@dataclass(frozen=True)
class ResumeRow:
    """A tab's row of its session's id, its owner's unfinished sessions (one picked resumes it), and Resume by
    a pasted id (`resume_row`)."""

    sid: gr.Textbox
    unfinished: gr.Dropdown
    resume_id: gr.Textbox
    resume: gr.Button


def resume_row(ctx: AppContext, prefix: str, *, resume_button_id: str) -> ResumeRow:
    """Practice's and Co-pilot's `ResumeRow`, made inside the tab; ids `{prefix}-sid`, `{prefix}-unfinished`,
    `{prefix}-resume-id` and `resume_button_id`."""
    T = ctx.texts
    with gr.Row():
        sid = T(gr.Textbox, {"label": "ui.session_id"}, interactive=False, scale=2, elem_id=f"{prefix}-sid")
        unfinished = T(
            gr.Dropdown,
            {"label": "ui.unfinished"},
            choices=[],
            value=None,
            allow_custom_value=True,
            scale=3,
            elem_id=f"{prefix}-unfinished",
        )
        resume_id = T(gr.Textbox, {"label": "ui.resume_id"}, scale=2, elem_id=f"{prefix}-resume-id")
        resume = T(gr.Button, {"value": "ui.resume"}, scale=1, elem_id=resume_button_id)
    return ResumeRow(sid, unfinished, resume_id, resume)


def session_tab(ctx: AppContext, name: str, tab_id: str) -> gr.Tab:
    """A session tab (Practice, Co-pilot), named by the message `name` in the interface language (and again
    on each switch); its components are made inside `with session_tab(…):`."""
    tab = gr.Tab(t(name, ctx.ui_lang), id=tab_id)
    ctx.texts.register(tab, {"label": name})
    return tab


def override_score(ctx: AppContext, prefix: str) -> tuple[gr.Dropdown, gr.Slider]:
    """An override's dimension and new score (Co-pilot's and Review's), with ids `{prefix}-dim`, `{prefix}-score`."""
    dim = ctx.texts(
        gr.Dropdown,
        {"label": "ui.dimension", "choices": ctx.dim_choices},
        value="accuracy",
        elem_id=f"{prefix}-dim",
    )
    score = ctx.texts(
        gr.Slider, {"label": "ui.new_score"}, minimum=1, maximum=5, step=1, value=3, elem_id=f"{prefix}-score"
    )
    return dim, score


def raw_session(ctx: AppContext) -> gr.JSON:
    """The session as the graph gives it (`SessionView`, without its report), folded away at the tab's end."""
    with ctx.texts(gr.Accordion, {"label": "ui.raw_json"}, open=False):
        return gr.JSON(None)


@dataclass(frozen=True)
class PlanIds:
    """The element ids of a tab's set-up row (`plan_row`), for tests and scripts."""

    plan: str
    previous: str
    lang: str
    self_check: str
    start: str


@dataclass(frozen=True)
class PlanRow:
    """A session tab's set-up row (Practice, Co-pilot), as `plan_row` builds it: the plan, the session to
    redo, the interview language, the self-check box and Start."""

    plan: gr.Dropdown
    previous: gr.Dropdown
    lang: gr.Radio
    self_check: gr.Checkbox
    start: gr.Button


def plan_row(
    ctx: AppContext,
    state: gr.State,
    tab: str,
    *,
    plan: str,
    ids: PlanIds,
) -> PlanRow:
    """The set-up row of the tab `tab` ("practice", "copilot": its events' api names), whose session is
    kept in `state`: the plan list with `plan` chosen; for a redo, the session to redo, picked from a list
    (`redo_choices`); the interview language (following the interface language until picked:
    `follow_ui_language`), the self-check box and Start, with the element ids `ids`."""
    T = ctx.texts
    with gr.Row():
        plan_c = T(
            gr.Dropdown,
            {"label": "ui.plan", "choices": ctx.plan_choices},
            value=plan,
            scale=2,
            elem_id=ids.plan,
        )
        # a redo asks the two weakest rounds of a session of the person's again: which one
        prev = T(
            gr.Dropdown,
            {"label": "ui.redo_of", "info": "ui.redo_of_info"},
            choices=[],
            value="",  # (the API's default: no redo)
            allow_custom_value=True,
            visible=False,
            scale=2,
            elem_id=ids.previous,
        )
        lang = T(
            gr.Radio,
            {"label": "ui.session_language"},
            choices=LANG_CHOICES,
            value=ctx.ui_lang,
            scale=1,
            elem_id=ids.lang,
        )
        self_check = T(
            gr.Checkbox,
            {"label": "ui.add_self_check", "info": lambda lang: self_check_info(ctx, lang)},
            value=False,
            scale=1,
            elem_id=ids.self_check,
        )
        start = T(gr.Button, {"value": "ui.start"}, variant="primary", scale=1, elem_id=ids.start)
    follow_ui_language(ctx, lang, state, tab)
    gr.on(
        [plan_c.change, ctx.ui.change],
        ctx.bind(redo_choices),
        [plan_c, *ctx.common],
        prev,
        api_name=f"{tab}_redo_choices",
        show_progress="hidden",
    )
    return PlanRow(plan_c, prev, lang, self_check, start)


def redo_choices(
    ctx: AppContext, plan: str | None, ui_v: str, owner_v: str | None, request: gr.Request
) -> Any:
    """The session to redo: shown for the redo plan, listing the person's finished sessions (practice and
    co-pilot) by plan, mode and date (the id last; an id may be typed too)."""
    if plan != "redo":
        return gr.update(visible=False)
    ui = lang_of(ui_v)
    done = [s for s in graph.list_sessions(owner=ctx.owner_of(owner_v, request)) if s.status == "done"]
    return gr.update(visible=True, choices=[session_choice(ctx, s, ui) for s in done[:REDO_SHOWN]])


REDO_SHOWN = 30


def unfinished_sessions(
    ctx: AppContext, mode: str, ui_v: str, owner_v: str | None, request: gr.Request
) -> Any:
    """A tab's list of the owner's unfinished sessions of its `mode` ("practice", "copilot"), most recent
    first: by plan, interview language and date, the id last; none picked."""
    ui = lang_of(ui_v)
    choices = []
    for s in graph.list_sessions(owner=ctx.owner_of(owner_v, request)):
        if s.status == "done" or s.mode != mode:
            continue
        plan = f"{ctx.plan_name(s.plan, ui)} · {t(f'ui.language_{s.language}', ui)}"
        name = t("ui.unfinished_item", ui, plan=plan, when=session_when(s), sid=s.session_id)
        choices.append((name, s.session_id))
    return gr.update(choices=choices[:UNFINISHED_SHOWN], value=None)


UNFINISHED_SHOWN = 30


def session_when(s: SessionSummary) -> str:
    """When a session was last moved on, to the minute (UTC), as the lists of sessions say it."""
    return s.updated_at[:16].replace("T", " ")


def session_choice(
    ctx: AppContext, s: SessionSummary, ui: Lang, *, language: bool = False, mine: str | None = None
) -> tuple[str, str]:
    """A session as a list of sessions names it (the session to redo, Review's): by plan, mode (with
    `language`: its interview language too) and date, "under way" when not finished, whose when not
    `mine`'s (None: not said), the id last; its value the id."""
    when = session_when(s)
    mode = t(f"ui.mode_{s.mode}", ui)
    if language:
        mode = f"{mode} · {t(f'ui.language_{s.language}', ui)}"
    name = t("ui.redo_item", ui, plan=ctx.plan_name(s.plan, ui), mode=mode, when=when)
    if s.status != "done":
        name = f"{name} · {t('ui.session_under_way', ui)}"
    if mine is not None and s.owner != mine:
        name = f"{name} · {t('ui.session_of', ui, owner=s.owner or '—')}"
    return f"{name} · {s.session_id}", s.session_id


def self_check_info(ctx: AppContext, lang: Lang) -> str:
    """The self-check box's hint (Practice and Co-pilot): what the round is and its minutes."""
    return t("ui.add_self_check_info", lang, minutes=ctx.rubric.round(SELF_CHECK).minutes)


def plan_with_self_check(spec: str, self_check: bool) -> str:
    """The plan word a tab starts a session with: `spec` ("full", "capacity", "redo ID", …) with the
    self-check round added after its last round when the box is ticked (`full self-check`); the
    self-check plan itself adds nothing."""
    return f"{spec} {ADD_SELF_CHECK}" if self_check and spec != SELF_CHECK else spec


def start_plan(plan: str | None, default: str, prev_sid: str | None, self_check: bool) -> str | None:
    """The plan word Start begins a session with: the plan chosen (`default` when none), "redo ID" for the
    redo of `prev_sid`, the self-check round added when the box is ticked (`plan_with_self_check`); None for
    a redo without the session to redo."""
    spec = plan or default
    if spec == "redo":
        if not (prev_sid or "").strip():
            return None
        spec = f"redo {str(prev_sid).strip()}"
    return plan_with_self_check(spec, self_check)


def plan_controls(view: SessionView) -> list[Any]:
    """The plan, interview language, previous-session and self-check controls as the session has them."""
    plan, added = with_self_check(view.plan)
    words = plan.split()
    redo = len(words) > 1 and words[0] == "redo"
    return [
        gr.update(value="redo" if redo else plan),
        gr.update(value=view.language),
        gr.update(value=words[1] if redo else ""),
        gr.update(value=added),
    ]


def follow_ui_language(ctx: AppContext, radio: gr.Radio, state: gr.State, tab: str) -> None:
    """A tab's interview language follows the interface language (on each switch, and when a reload brings
    the interface back in the language chosen before) until the person picks one, or a session on screen
    sets it as it has it."""
    picked = gr.State(False)
    radio.input(lambda: True, None, picked, api_name=f"{tab}_language_picked", show_progress="hidden")
    ctx.ui.change(
        interview_language,
        [ctx.ui, picked, state],
        radio,
        api_name=f"{tab}_language_follows",
        show_progress="hidden",
    )


def interview_language(ui_v: str, picked: bool, state: dict[str, Any] | None) -> Any:
    """The interface language for the interview language, unless it was picked or a session under way is on
    screen (a finished one leaves the next session's language to the interface again)."""
    state = state or {}
    if picked or (state.get("sid") and state.get("status") != "done"):
        return gr.update()
    return gr.update(value=lang_of(ui_v))


def self_check_box(update: dict[str, Any], view: SessionView) -> dict[str, Any]:
    """The self-check box's `update` (`plan_controls`' for a session newly on screen: ticked as the session
    has it, else none). It stays on while a session runs, like the plan it is set up with: it applies at the
    next Start (issue 12: turned off while any session ran, it could not be set up for the next one)."""
    del view  # the box's state does not depend on the session's
    return {**update, "interactive": True} if "value" in update else update


def question_md(state: dict[str, Any], ui: Lang) -> str:
    """The question a tab's session asks now (see `view_state`), with its kind ("Follow-up 1 of 2")."""
    if not state.get("sid"):
        return ""
    if state.get("held"):
        return t("ui.round_held", ui)
    retrying = state.get("retrying")
    if retrying:
        return labelled(f"{t('ui.retry_label', ui)} · {t('ui.question', ui)}", retrying["question"], ui)
    question = state.get("question")
    if question:
        label = views.question_label(state.get("kind"), ui)
        head = f"{label + ' · ' if label else ''}{t('ui.question', ui)}"
        if state.get("answered"):  # co-pilot: the question just answered, until the next one is asked
            head += bracketed(t("ui.question_answered", ui), ui)
        return labelled(head, question, ui)
    return "" if state.get("status") == "done" else t("ui.no_question", ui)


def session_errors_noted(note_out: NoteOut, *, kept: str | None = "text") -> Callable[[Handler], Handler]:
    """For a handler that moves a session on: a `SessionError` it raises (no such session, not the
    caller's, a refused step) becomes "⚠️ <error>" in the tab's status, the rest of the tab as it was.

    `note_out` renders that; it gets the handler's arguments `ctx`, `state` and `ui_v` (the interface
    language) and, when the handler has it, the argument named `kept` (`text`): the answer being written,
    which stays in its box. A handler whose text is something else (Co-pilot's Ask: the question, which
    stays in its own box) says `kept=None`; then, as for a handler with no text, the answer box is left as
    it was."""

    def decorate(handler: Handler) -> Handler:
        signature = inspect.signature(handler)

        @functools.wraps(handler)
        def noted(*args: Any, **kwargs: Any) -> list[Any]:
            try:
                return handler(*args, **kwargs)
            except SessionError as e:
                given = signature.bind(*args, **kwargs).arguments
                ui = lang_of(given["ui_v"])
                keep = str(given[kept] or "") if kept is not None and kept in given else None
                return note_out(given["ctx"], given["state"], ui, verbatim(f"⚠️ {e}"), keep)

        return cast(Handler, noted)

    return decorate


def session_shown(state: dict[str, Any], owner: str) -> SessionView | None:
    """The session a tab shows (`state["sid"]`) as stored; None with none on screen, or when it cannot be read
    (the tab then stays as it is)."""
    if not state.get("sid"):
        return None
    try:
        return graph.get_session(state["sid"], owner=owner)
    except SessionError:
        return None


def view_state(view: SessionView) -> dict[str, Any]:
    """What a tab keeps of the session it shows (the clock's origin in this server's time)."""
    return {
        "sid": view.session_id,
        "lang": view.language,
        "round": view.round,
        "round_index": view.round_index,
        "n_rounds": view.n_rounds,
        "minutes": view.round_minutes,
        "t0": time.time() - view.round_elapsed_s,
        "status": view.status,
        "question": view.question,
        "kind": views.question_kind(
            next((r for r in view.transcript.rounds if r.round == view.round), None),
            view.question,
            max_followups=MAX_FOLLOWUPS if view.mode == "practice" else 0,
        ),
    }


def progress(ctx: AppContext, state: dict[str, Any], ui: Lang) -> str:
    """The round progress and clock of the session a tab keeps in `state` (see `view_state`).

    While the round-finished banner waits, the next round with its clock at 00:00; while the candidate
    retries the answer a round closed on (Practice's `retrying`, `closed`), that round, its clock stopped
    where the answer left it."""
    if not state.get("sid"):
        return ""
    retrying = state.get("retrying") or {}
    if retrying.get("closed") and retrying.get("round"):
        rid = retrying["round"]
        where: dict[str, Any] = {
            "round_id": rid,
            "round_index": state["round_index"] - 1,
            "minutes": ctx.rubric.round(rid).minutes,
            "elapsed_s": float(retrying.get("elapsed_s") or 0.0),
            "paused": True,
        }
    else:
        held = bool(state.get("held"))
        now = time.time()
        where = {
            "round_id": state["round"],
            "round_index": state["round_index"],
            "minutes": state["minutes"],
            "elapsed_s": 0.0 if held else now - state["t0"],
            "paused": held,
            "shown_at": now,
        }
    return views.progress_html(ctx.rubric, ui, status=state["status"], n_rounds=state["n_rounds"], **where)


def round_text(view: SessionView, round_id: str | None) -> str:
    return "\n\n".join(r.candidate_text() for r in view.transcript.rounds if r.round == round_id)


def snippets_for(ctx: AppContext, text: str, ui: Lang) -> str:
    if not text.strip():
        return ""
    try:
        found = ctx.services.retriever()(text, SNIPPETS_SHOWN)
    except SourcesUnavailable as e:
        return t("ui.index_not_built", ui) if e.not_built else t("ui.sources_unavailable", ui, why=str(e))
    except Exception as e:  # the index is an aid: its failure must not break the interview
        return t("ui.sources_unavailable", ui, why=f"{type(e).__name__}: {e}")
    return views.snippets_md(found, ui)


def override_logged(
    ctx: AppContext,
    *,
    report_id: str,
    round_id: str,
    dim: str,
    judge_score: int,
    human: int,
    reason: str,
    reviewer: str,
    info: JudgeInfo,
    request: gr.Request,
) -> Said:
    """Writes one override to the log; "✓ …" when it was written, else "⚠️ …" saying why not, in both
    languages."""
    if ctx.services.require_login:
        if not request.username:
            return says("ui.need_login", "⚠️ ")
        reviewer = str(request.username)
    if not round_id or dim not in DIMENSIONS:
        return says("ui.need_round_dim", "⚠️ ")
    if not (reason or "").strip():
        return says("ui.need_reason", "⚠️ ")
    if not (reviewer or "").strip():
        return says("ui.need_reviewer", "⚠️ ")
    try:
        row = ctx.services.overrides.append(
            NewOverride.judged_by(
                info,
                transcript_id=report_id,
                round_id=round_id,
                dimension=dim,
                judge_score=judge_score,
                human_score=int(human),
                reason=reason,
                reviewer=reviewer,
            )
        )
    except ValidationError as e:
        errors = e.errors(include_url=False)[:1]
        return said(lambda lang: "⚠️ " + t("ui.override_failed", lang, why=views.problems_text(errors, lang)))
    except OverrideLogError as e:
        return says("ui.override_failed", "⚠️ ", why=str(e))
    key = "ui.accept_saved" if row.human_score == row.judge_score else "ui.override_saved"
    return said(
        lambda lang: (
            "✓ "
            + t(
                key,
                lang,
                round=views.round_title(ctx.rubric, row.round, lang),
                dimension=views.dim_title(ctx.rubric, row.dimension, lang),
                judge=row.judge_score,
                human=row.human_score,
                reviewer=row.reviewer,
                id=row.id,
            )
        )
    )
