"""The round, its place in the session and its clock against the time budget, above the question."""

from __future__ import annotations

import html

from agent.rubric.loader import Rubric
from agent.rubric.model import Lang
from agent.ui.views.text import clock, round_title
from agent.util.messages import t


def progress_html(
    rubric: Rubric,
    lang: Lang,
    *,
    status: str,
    round_id: str | None,
    round_index: int,
    n_rounds: int,
    minutes: int | None,
    elapsed_s: float,
    paused: bool = False,
    shown_at: float = 0.0,
) -> str:
    """The round, the round's progress in the session, and its clock against the time budget.

    `paused`: the clock does not tick in the browser: it shows `elapsed_s` as it stands (00:00 for a round
    waiting for the candidate to continue, the round-finished banner: it starts on Continue).
    `shown_at`: when this clock was rendered (any number that differs between renders): the browser's clock
    (agent/ui/static/app.js) counts on from `elapsed_s` each time it changes, even if `elapsed_s` is the same
    (two sessions both started at 00:00), since Gradio re-renders the same element."""
    if status == "done":
        return f"<div class='coach-progress done'>✓ {html.escape(t('ui.progress_done', lang))}</div>"
    if not n_rounds:
        return ""
    if round_id is None:  # after the last round: the candidate's own questions (their own five minutes)
        label = t("interview.your_questions", lang)
    else:
        label = t(
            "ui.progress",
            lang,
            i=min(round_index + 1, n_rounds),
            n=n_rounds,
            title=round_title(rubric, round_id, lang),
        )
    budget = (minutes or 0) * 60
    over = bool(budget) and elapsed_s > budget
    timer = f"{clock(elapsed_s)} / {clock(budget)}" if budget else clock(elapsed_s)
    if over:
        timer += f" · {t('ui.over_time', lang)}"
    done_frac = round_index / n_rounds
    return (
        f"<div class='coach-progress{' over' if over else ''}'>"
        f"<span class='coach-round'>{html.escape(label)}</span> "
        f"<progress class='coach-rounds' value='{done_frac:.3f}' max='1' title='{html.escape(t('ui.rounds_bar', lang))}' "
        f"aria-label='{html.escape(t('ui.rounds_bar', lang))}'></progress> "
        f"<span class='coach-timer' title='{html.escape(t('ui.timer_hint', lang))}' "
        + ("data-paused='1' " if paused else f"data-elapsed='{elapsed_s:.1f}' data-shown='{shown_at:.3f}' ")
        + f"data-budget='{budget}' data-over='{html.escape(t('ui.over_time', lang))}'>{html.escape(timer)}</span>"
        f"<progress class='coach-clock' value='{min(elapsed_s, budget or 1):.0f}' max='{budget or 1}' "
        f"title='{html.escape(t('ui.clock_bar', lang))}' aria-label='{html.escape(t('ui.clock_bar', lang))}'></progress>"
        "</div>"
    )
