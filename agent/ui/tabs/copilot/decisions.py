"""The interviewer's decision on a draft score of the round under way: Accept it, or Save an override with
a reason, both written to the override log; and what the two buttons say (the round, the dimension and the
draft score they act on)."""

from __future__ import annotations

from typing import Any

import gradio as gr

from agent.contracts.report import JudgeInfo, RoundAssessment
from agent.grading.render import bullets
from agent.overrides import Override, OverrideLogError
from agent.rubric.model import DIMENSIONS, Lang
from agent.ui import views
from agent.ui.context import AppContext, lang_of
from agent.ui.tabs.said import Said, in_ui, said, says
from agent.ui.tabs.shared import override_logged
from agent.util.messages import bracketed, t


def judge_info(ctx: AppContext, ra: RoundAssessment | None) -> JudgeInfo:
    if ra is not None and ra.judge is not None:
        return ra.judge
    from agent.graph.context import graph_context

    return graph_context(ctx.rubric).info


def decide(
    ctx: AppContext,
    accept: bool,
    state: dict[str, Any],
    dim: str,
    score: float,
    reason: str,
    reviewer: str,
    ui_v: str,
    request: gr.Request,
) -> tuple[str, Said]:
    """Accept the draft score of `dim` (`accept`) or override it with `score` and a reason: what the log
    says ("✓ …", or "⚠️ …" why not), and that line in both languages (`said.follow_switch`). An accept that
    would undo an override, or that the log already holds, is not written."""
    ui = lang_of(ui_v)

    def answer(line: Said) -> tuple[str, Said]:
        return in_ui(line, ui), line

    draft = state.get("draft")
    if not state.get("sid") or not draft:
        return answer(says("ui.no_draft", "⚠️ "))
    ra = RoundAssessment.model_validate(draft)
    judge_score = ra.scores.get(dim)  # type: ignore[call-overload]
    if judge_score is None:
        return answer(says("ui.need_round_dim", "⚠️ "))
    if accept:
        try:
            standing = latest_decision(ctx, state["sid"], ra.round, dim)
        except OverrideLogError as e:
            return answer(says("ui.override_failed", "⚠️ ", why=str(e)))
        if standing is not None:

            def named(lang: Lang) -> dict[str, str]:
                return {
                    "round": views.round_title(ctx.rubric, ra.round, lang),
                    "dimension": views.dim_title(ctx.rubric, dim, lang),
                }

            if standing.human_score == judge_score:  # it already stands at the draft's score
                return answer(
                    said(
                        lambda lang: (
                            "✓ "
                            + t("ui.accept_already", lang, score=judge_score, id=standing.id, **named(lang))
                        )
                    )
                )
            if standing.human_score != standing.judge_score:  # an override the accept would undo
                return answer(
                    said(
                        lambda lang: (
                            "⚠️ "
                            + t(
                                "ui.accept_refused",
                                lang,
                                human=standing.human_score,
                                reviewer=standing.reviewer,
                                id=standing.id,
                                judge=judge_score,
                                **named(lang),
                            )
                        )
                    )
                )
    logged = override_logged(
        ctx,
        report_id=state["sid"],
        round_id=ra.round,
        dim=dim,
        judge_score=judge_score,
        human=judge_score if accept else int(score),
        reason=(reason or t("ui.accepted_reason", ui)) if accept else reason,
        reviewer=reviewer,
        info=judge_info(ctx, ra),
        request=request,
    )
    return answer(logged)


def standing_decisions(ctx: AppContext, sid: str, round_id: str) -> dict[str, Override]:
    """The log's latest row for each dimension of the session's round (what stands now), by dimension."""
    latest: dict[str, Override] = {}
    for row in sorted((r for r in ctx.services.overrides.rows(sid) if r.round == round_id), key=lambda r: r.id):
        latest[row.dimension] = row
    return latest


def latest_decision(ctx: AppContext, sid: str, round_id: str, dim: str) -> Override | None:
    """The log's latest row for the session's round and dimension (what stands now), or None."""
    return standing_decisions(ctx, sid, round_id).get(dim)


def picked_score(ctx: AppContext, state: dict[str, Any] | None, dim: str | None) -> Any:
    """The override's score slider set to what stands for the picked dimension of the draft: the latest
    override's score if one is logged, else the draft score (issue 12: it stayed at 3 while Accept said 1/5;
    Review's `picked_score` does the same); left as it is with no draft or no dimension picked."""
    draft = state.get("draft") if state else None
    score = draft.get("scores", {}).get(dim) if draft and dim else None
    if not state or not draft or score is None:
        return gr.update()
    try:
        standing = latest_decision(ctx, str(state.get("sid")), str(draft.get("round")), str(dim))
    except OverrideLogError:  # the log's problem is said by Accept and Override: the draft score
        standing = None
    return gr.update(value=standing.human_score if standing is not None else score)


def decision_labels(ctx: AppContext, state: dict[str, Any], dim: str | None, ui_v: str) -> list[Any]:
    """Accept and Override name the round and dimension they act on, and the draft score Accept keeps."""
    ui = lang_of(ui_v)
    draft = state.get("draft") if state else None
    score = draft.get("scores", {}).get(dim) if draft and dim else None
    if not draft or score is None:  # nothing to act on: no answer in the round under way yet
        return [
            gr.update(value=t("ui.accept_draft", ui), interactive=False),
            gr.update(value=t("ui.save_override", ui), interactive=False),
        ]
    named = {
        "round": views.round_title(ctx.rubric, draft.get("round"), ui),
        "dimension": views.dim_title(ctx.rubric, str(dim), ui),
    }
    return [
        gr.update(value=t("ui.accept_on", ui, score=score, **named), interactive=True),
        gr.update(value=t("ui.override_on", ui, **named), interactive=True),
    ]


def labels_after_step(ctx: AppContext, state: dict[str, Any], dim: str | None, ui_v: str) -> list[Any]:
    """After a step of the session: Accept and Override named for its draft (`decision_labels`), and the
    last decision's line (and its text in both languages) emptied: it spoke of the draft before the step;
    the decisions that stand are in the draft (`decisions_md`)."""
    return [*decision_labels(ctx, state, dim, ui_v), "", None]


def decisions_md(ctx: AppContext, sid: str, ra: RoundAssessment, ui: Lang) -> str:
    """The interviewer's decisions standing on the round of the draft `ra` (the log's latest row per
    dimension: an override judge → human, or an accept), each said to be on an earlier draft when the draft
    has moved since (issue 12: the draft table did not show them until the round closed); "" for none, or
    when the log cannot be read (Accept and Override say its problem)."""
    try:
        latest = standing_decisions(ctx, sid, ra.round)
    except OverrideLogError:
        return ""
    lines = []
    for d in DIMENSIONS:
        if (r := latest.get(d)) is None:
            continue
        key = "ui.decision_accept" if r.human_score == r.judge_score else "ui.decision_override"
        line = t(
            key,
            ui,
            dimension=views.dim_title(ctx.rubric, d, ui),
            judge=r.judge_score,
            human=r.human_score,
            reviewer=views.safe_md(r.reviewer),
        )
        if r.judge_score != ra.scores[d]:
            line += bracketed(t("ui.decision_earlier", ui, draft=ra.scores[d]), ui)
        lines.append(line)
    return "\n\n" + "\n".join(bullets(t("ui.decisions", ui), lines, ui)) if lines else ""
