"""Review's rows: each round and dimension, judge → effective score, the override and the rationale folding
out; and the override log of a report."""

from __future__ import annotations

import html
from collections.abc import Sequence

from agent.contracts.labels import why_text
from agent.contracts.report import Report
from agent.overrides import EffectiveScore, Override
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang
from agent.ui.views.text import colon, dim_title, round_title, safe_md
from agent.util.messages import bracketed, t, then


def review_html(
    report: Report, effective: Sequence[EffectiveScore], rubric: Rubric, ui: Lang, *, quotes_shown: int = 3
) -> str:
    """The judge's and the effective score of each round and dimension, one compact row each: round,
    dimension, judge → effective and who overrode it on one line; the override's reason, the judge's
    rationale and the quotes fold out under it. Labels in the interface language `ui`; the level, the
    missing items and the quotes as the report has them. Each row carries its ids and scores as data
    attributes (`data-round`, `data-dimension`, `data-judge`, `data-effective`) for scripts."""
    by_round = {ra.round: ra for ra in report.rounds}
    labels = (
        t("ui.col_round", ui),
        t("ui.col_dimension", ui),
        f"{t('ui.col_judge', ui)} → {t('ui.col_effective', ui)}",
    )
    head = "".join(f"<span>{html.escape(x)}</span>" for x in (*labels, t("ui.col_by", ui)))
    out = [
        f"<p class='coach-hint'>{html.escape(t('ui.scores_hint', ui))}</p>",
        "<div class='coach-scores'>",
        f"<div class='coach-score-head' aria-hidden='true'>{head}</div>",
    ]
    for e in effective:
        ra = by_round[e.round]
        ds = next((d for d in ra.dimensions if d.dimension == e.dimension), None)
        changed = e.effective != e.judge
        score = f"{e.judge}/5 → <b>{e.effective}/5</b>" if changed else f"{e.judge}/5"
        by = ""
        if e.override:
            by = t("ui.overridden_by", ui, reviewer=safe_md(e.override.reviewer))
            by += f" ⚠ {html.escape(t('ui.stale', ui))}" if e.stale else ""
        attrs = (
            f"data-round='{html.escape(e.round)}' data-dimension='{html.escape(e.dimension)}' "
            f"data-judge='{e.judge}' data-effective='{e.effective}'"
        )
        details: list[str] = []
        if e.override:
            o = e.override
            details.append(
                f"<p><b>{html.escape(t('ui.override_detail', ui))}{colon(ui)}</b>"
                f"{o.judge_score} → {o.human_score} · {safe_md(o.reviewer)} · {_written(o, ui)}"
                f"{colon(ui)}{safe_md(o.reason)}</p>"
            )
        if ds:
            why = then(ds.level, why_text(ds, ui), ui)
            details.append(f"<p><b>{html.escape(t('ui.rationale', ui))}{colon(ui)}</b>{safe_md(why)}</p>")
        said = ra.quotes.get(e.dimension, [])[:quotes_shown]
        if said:
            items = "".join(f"<li>“{safe_md(q)}”</li>" for q in said)
            details.append(
                f"<p><b>{html.escape(t('ui.quotes', ui))}{colon(ui).rstrip()}</b></p><ul>{items}</ul>"
            )
        else:
            details.append(f"<p><i>{html.escape(t('ui.no_quotes', ui))}</i></p>")
        out.append(
            f"<details class='coach-score{' changed' if changed else ''}' {attrs}><summary>"
            f"<span class='coach-score-round'>{html.escape(round_title(rubric, e.round, ui))}</span>"
            f"<span class='coach-score-dim'>{html.escape(dim_title(rubric, e.dimension, ui))}</span>"
            f"<span class='coach-score-num'>{score}</span>"
            f"<span class='coach-score-by'>{by}</span>"
            f"</summary><div class='coach-score-body'>{''.join(details)}</div></details>"
        )
    out.append("</div>")
    return "\n".join(out)


LOG_HEADERS = (
    "ui.log_id",
    "ui.log_when",
    "ui.round",
    "ui.dimension",
    "ui.log_judge",
    "ui.log_human",
    "ui.log_reviewer",
    "ui.log_reason",
)


def _when(created_at: str) -> str:
    """A log row's time as people read it: "2026-11-30 22:56" (UTC, to the minute)."""
    return created_at.replace("T", " ")[:16]


def _written(o: Override, ui: Lang) -> str:
    """When a row was written, as HTML: its log time; for a row imported from another install's log after this
    log's rows (dated at the import, agent/db/migrations/postgres/0005_override_origin.sql), the time it was
    written there, marked imported, the import's time in its title."""
    if not o.original_created_at:
        return html.escape(_when(o.created_at))
    mark = bracketed(t("ui.log_imported", ui), ui)
    title = html.escape(t("ui.log_imported_at", ui, at=_when(o.created_at)), quote=True)
    return f"<span class='coach-imported' title=\"{title}\">{html.escape(_when(o.original_created_at) + mark)}</span>"


def log_html(rows: Sequence[Override], rubric: Rubric, ui: Lang, *, problem: str | None = None) -> str:
    """The override log of a report, oldest row first: headers in the interface language, the round and the
    dimension by name, the time to the minute. Each row carries its log id and the ids of its round and
    dimension as data attributes. `problem`: what verifying the log found, said above it (an alert)."""
    warn = (
        f"<p class='coach-warn' role='alert'>⚠️ {html.escape(t('ui.log_unverified', ui, problem=problem))}</p>"
        if problem
        else ""
    )
    if not rows:
        return warn or f"<p class='coach-hint'>{html.escape(t('ui.log_empty', ui))}</p>"
    head = "".join(f"<th>{html.escape(t(k, ui))}</th>" for k in LOG_HEADERS)
    body = []
    for r in sorted(rows, key=lambda x: x.id):
        cells = (
            str(r.id),
            _written(r, ui),
            html.escape(round_title(rubric, r.round, ui)),
            html.escape(dim_title(rubric, r.dimension, ui)),
            str(r.judge_score),
            str(r.human_score),
            safe_md(r.reviewer),
            safe_md(r.reason),
        )
        body.append(
            f"<tr data-id='{r.id}' data-round='{html.escape(r.round)}' data-dimension='{html.escape(r.dimension)}'>"
            + "".join(f"<td>{c}</td>" for c in cells)
            + "</tr>"
        )
    return (
        f"{warn}<table class='coach-log'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
