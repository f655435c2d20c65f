"""What the tabs show, as Markdown, HTML and table rows: pure functions of the session and report data."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent.contracts.labels import cap_text, flag_line, why_text
from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.contracts.transcript import Transcript, TranscriptRound
from agent.overrides import EffectiveScore, Override, effective_totals
from agent.package.labels import name as package_name
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, EvidenceItem, Lang
from agent.util.messages import t
from agent.voice.delivery import Delivery

if TYPE_CHECKING:
    from agent.graph import Suggestion
    from agent.knowledge import Snippet


MISSING_SHOWN = 6
"""Missing-evidence items listed openly; the rest fold away."""


def _md(text: str) -> str:
    """User or model text made safe inside Markdown table cells and HTML."""
    return html.escape(" ".join(text.split())).replace("|", "&#124;")


def round_title(rubric: Rubric, round_id: str | None, lang: Lang) -> str:
    if not round_id:
        return "—"
    try:
        return rubric.round(round_id).title.get(lang)
    except KeyError:
        return round_id


def dim_title(rubric: Rubric, dim: str, lang: Lang) -> str:
    spec = rubric.dimensions.get(dim)  # type: ignore[call-overload]
    return spec.title.get(lang) if spec else dim


def clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60:02d}:{s % 60:02d}"


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
) -> str:
    """The round, the round's progress in the session, and its clock against the time budget.

    `paused`: the round waits for the candidate to continue (the round-finished banner): its clock shows
    00:00 and does not tick in the browser (it starts on Continue)."""
    if paused:
        elapsed_s = 0.0
    if status == "done":
        return f"<div class='coach-progress done'>✓ {html.escape(t('ui.progress_done', lang))}</div>"
    if not n_rounds:
        return ""
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
        + ("data-paused='1' " if paused else f"data-elapsed='{elapsed_s:.1f}' ")
        + f"data-budget='{budget}' data-over='{html.escape(t('ui.over_time', lang))}'>{html.escape(timer)}</span>"
        f"<progress class='coach-clock' value='{min(elapsed_s, budget or 1):.0f}' max='{budget or 1}' "
        f"title='{html.escape(t('ui.clock_bar', lang))}' aria-label='{html.escape(t('ui.clock_bar', lang))}'></progress>"
        "</div>"
    )


def assessment_md(ra: RoundAssessment, rubric: Rubric, lang: Lang, *, heading: str) -> str:
    """Scores with why, the verbatim quotes behind them, and the evidence still missing."""
    title = round_title(rubric, ra.round, lang)
    out = [f"### {t(heading, lang, title=title)} — {ra.total}/25", ""]
    reasons = {d.dimension: d for d in ra.dimensions}
    out += [f"| {t('ui.dimension', lang)} | {t('ui.score', lang)} | {t('ui.why', lang)} |", "|---|---|---|"]
    for d in DIMENSIONS:
        ds = reasons.get(d)
        why = ""
        if ds:  # the level reached, then how the checklist got there (missing items are listed below)
            why = f"{ds.level} — {why_text(ds, lang, missing=False)}"
        out.append(f"| {dim_title(rubric, d, lang)} | {ra.scores[d]} | {_md(why)} |")
    out.append("")
    if ra.flags:
        out.append(f"**{t('ui.flags', lang)}:**")
        out += [f"- {_md(flag_line(f, lang))}" for f in ra.flags]
        out.append("")
    if any(ra.quotes.values()):
        out.append(f"**{t('ui.quotes', lang)}:**")
        for d, qs in ra.quotes.items():
            for q in qs[:2]:
                out.append(f"- *{dim_title(rubric, d, lang)}*: “{_md(q)}”")
        out.append("")
    if ra.missing_evidence:
        out.append(f"**{t('ui.missing', lang)}:**")
        out += [f"- {_md(m)}" for m in ra.missing_evidence[:MISSING_SHOWN]]
        rest = ra.missing_evidence[MISSING_SHOWN:]
        if rest:
            items = "".join(f"<li>{_md(m)}</li>" for m in rest)
            out.append(
                f"\n<details><summary>{t('ui.more', lang, n=len(rest))}</summary><ul>{items}</ul></details>"
            )
        out.append("")
    if ra.judge:
        out.append(f"<sub>{t('ui.judge', lang)}{_colon(lang)} {judge_line(ra.judge, lang)}</sub>")
    return "\n".join(out)


def snippets_md(snippets: Sequence[Snippet], lang: Lang) -> str:
    if not snippets:
        return t("ui.no_sources", lang)
    out = [f"**{t('ui.sources', lang)}:**", ""]
    for s in snippets:
        out.append(f"- [{_md(s.location)}]({s.permalink}) `{_md(s.symbol)}`")
        out.append("")
        out.append("  ```python")
        out += [f"  {line}" for line in s.excerpt(8).splitlines()]
        out.append("  ```")
    return "\n".join(out)


def suggestions_md(suggestions: Sequence[Suggestion], lang: Lang) -> str:
    if not suggestions:
        return t("ui.no_suggestions", lang)
    out = [f"**{t('ui.suggestions', lang)}:**", ""]
    for i, s in enumerate(suggestions, 1):
        out.append(f"{i}. **{_md(s.text)}**")
        out += [f"   - {_md(w)}" for w in s.why]
    return "\n".join(out)


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
            by = t("ui.overridden_by", ui, reviewer=_md(e.override.reviewer))
            by += f" ⚠ {html.escape(t('ui.stale', ui))}" if e.stale else ""
        attrs = (
            f"data-round='{html.escape(e.round)}' data-dimension='{html.escape(e.dimension)}' "
            f"data-judge='{e.judge}' data-effective='{e.effective}'"
        )
        details: list[str] = []
        if e.override:
            o = e.override
            details.append(
                f"<p><b>{html.escape(t('ui.override_detail', ui))}{_colon(ui)}</b> "
                f"{o.judge_score} → {o.human_score} · {_md(o.reviewer)} · {html.escape(_when(o.created_at))}"
                f"{_colon(ui)} {_md(o.reason)}</p>"
            )
        if ds:
            why = f"{ds.level} — {why_text(ds, ui)}"
            details.append(f"<p><b>{html.escape(t('ui.rationale', ui))}{_colon(ui)}</b> {_md(why)}</p>")
        said = ra.quotes.get(e.dimension, [])[:quotes_shown]
        if said:
            items = "".join(f"<li>“{_md(q)}”</li>" for q in said)
            details.append(f"<p><b>{html.escape(t('ui.quotes', ui))}{_colon(ui)}</b></p><ul>{items}</ul>")
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
            html.escape(_when(r.created_at)),
            html.escape(round_title(rubric, r.round, ui)),
            html.escape(dim_title(rubric, r.dimension, ui)),
            str(r.judge_score),
            str(r.human_score),
            _md(r.reviewer),
            _md(r.reason),
        )
        body.append(
            f"<tr data-id='{r.id}' data-round='{html.escape(r.round)}' data-dimension='{html.escape(r.dimension)}'>"
            + "".join(f"<td>{c}</td>" for c in cells)
            + "</tr>"
        )
    return (
        f"{warn}<table class='coach-log'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def effective_md(report: Report, effective: Sequence[EffectiveScore], rubric: Rubric) -> str:
    """The section a downloaded report adds: every override that changed a score, latest first wins."""
    lang = report.language
    changed = [e for e in effective if e.override is not None]
    if not changed:
        return ""
    out = [f"## {t('ui.effective_section', lang)}", ""]
    for e in changed:
        o = e.override
        assert o is not None
        out.append(
            "- "
            + t(
                "ui.override_line",
                lang,
                round=round_title(rubric, e.round, lang),
                dimension=dim_title(rubric, e.dimension, lang),
                judge=e.judge,
                human=e.effective,
                reviewer=o.reviewer,
                when=o.created_at,
                reason=o.reason,
            )
            + (f" ({t('ui.stale', lang)})" if e.stale else "")
        )
    return "\n".join(out) + "\n"


def judge_name(kind: str, lang: Lang) -> str:
    return package_name("judge", kind, lang)


def judge_line(judge: JudgeInfo, lang: Lang) -> str:
    """The judge by name; its model and rubric version (what reproduces the scores) on hover."""
    detail = " · ".join(x for x in (judge.model, judge.rubric_version) if x)
    return (
        f"<abbr title='{html.escape(detail, quote=True)}'>{html.escape(judge_name(judge.kind, lang))}</abbr>"
    )


def report_summary_md(report: Report, rubric: Rubric, lang: Lang, effective: Sequence[EffectiveScore]) -> str:
    """Totals per round (judge → effective), risks and next actions."""
    totals = effective_totals(effective)
    j = report.judge
    out = [
        f"### {_md(report.id)}",
        f"<sub>{t('ui.judge', lang)}{_colon(lang)} {judge_line(j, lang)}</sub>",
        "",
    ]
    out += [
        f"| {t('ui.round', lang)} | {t('ui.col_judge', lang)} | {t('ui.col_effective', lang)} |",
        "|---|---|---|",
    ]
    for rid, (jt, et) in totals.items():
        out.append(f"| {round_title(rubric, rid, lang)} | {jt}/25 | {et}/25 |")
    out.append("")
    if report.risks:
        out += [f"**{t('ui.risks', lang)}:**", *[f"- {_md(r)}" for r in report.risks], ""]
    if report.next_actions:
        out += [f"**{t('ui.next_actions', lang)}:**", *[f"- {_md(a)}" for a in report.next_actions], ""]
    return "\n".join(out)


# ---------------------------------------------------------------- practice: insight, round banner, conversation

QUOTE_CHARS = 180
"""A quote in the round banner is cut to this many characters."""


def expected_items(rubric: Rubric, ra: RoundAssessment) -> list[EvidenceItem]:
    """The round's expected items the assessment was measured against (its scope, when it has one)."""
    items = rubric.evidence(ra.round)
    scope = ra.checklist.scope if ra.checklist else None
    return [i for i in items if scope is None or i.id in scope]


def not_asked_yet(rubric: Rubric, ra: RoundAssessment) -> set[str]:
    """The items only a question of the round not asked yet asks for: in a round with questions (the
    project interview, the self-check), before the first of them is answered (the assessment has no
    scope yet), every item a question claims; once one is, the scope already leaves the others out."""
    rnd = rubric.round(ra.round)
    if not rnd.questions or (ra.checklist is not None and ra.checklist.scope is not None):
        return set()
    return {e for q in rnd.questions for e in q.evidence}


def covered_ids(ra: RoundAssessment | None) -> list[str]:
    return sorted(ra.checklist.covered()) if ra is not None and ra.checklist else []


def answer_covered(ra: RoundAssessment, answer: str, before: Sequence[str]) -> list[str]:
    """Items this answer covered: newly covered ones, and covered ones whose quote is in this answer."""
    if ra.checklist is None:
        return []
    seen = set(before)
    text = " ".join(answer.split())
    out = []
    for f in ra.checklist.items:
        quote = " ".join((f.quote or "").split())
        if f.covered and (f.id not in seen or (quote and quote in text)):
            out.append(f.id)
    return out


def question_kind(
    tr: TranscriptRound | None, question: str | None, *, max_followups: int
) -> dict[str, Any] | None:
    """What kind of question the round's last interviewer turn is, when it is the one asked now: a
    listed follow-up (the k-th of at most n; no n when `max_followups` is 0), the inputs the candidate
    asked for, a project question's follow-up; None for a round's opening question."""
    if tr is None or not tr.turns or not question:
        return None
    last = tr.turns[-1]
    if last.role != "interviewer" or last.text != question:
        return None
    extra = last.model_extra or {}
    if extra.get("given"):
        return {"kind": "given"}
    if extra.get("followup"):
        k = sum(1 for x in tr.turns if (x.model_extra or {}).get("followup"))
        return {"kind": "followup", "k": k, "n": max(k, max_followups) if max_followups else None}
    if extra.get("trigger"):
        return {"kind": "trigger"}
    return None


def question_label(kind: dict[str, Any] | None, lang: Lang) -> str:
    """ "Follow-up 2 of 3" / "追问 2/3", or the other kinds' label; "" for none."""
    if not kind:
        return ""
    if kind.get("kind") == "followup":
        if not kind.get("n"):  # co-pilot: the interviewer asks as many as they like
            return f"{t('ui.followup_plain', lang)} {kind['k']}"
        return t("ui.followup_of", lang, k=kind["k"], n=kind["n"])
    if kind.get("kind") == "given":
        return t("ui.given_label", lang)
    return t("ui.followup_plain", lang)


def insight_md(
    rubric: Rubric,
    ra: RoundAssessment,
    covered: Sequence[str],
    lang: Lang,
    ui: Lang,
    *,
    round_over: bool,
    next_label: str = "",
    earlier: Sequence[str] | None = None,
) -> str:
    """Right after an answer: the expected items it covered (✓) and those the round still lacks, in the
    rubric's words in the session's language `lang`; headings in the interface language `ui`. `earlier`:
    the items a retried answer's earlier attempt covered, compared with this one. While the round is open,
    the items of its questions not asked yet are not listed as lacking (they would give the next answers away)."""
    items = expected_items(rubric, ra)
    ahead = set() if round_over else not_asked_yet(rubric, ra)
    done = set(covered_ids(ra))
    mine = set(covered)
    out = [f"#### {t('ui.insight_title', ui)}", ""]
    got = [i for i in items if i.id in mine]
    if got:
        out.append(f"**{t('ui.insight_covered', ui)}{_colon(ui)}**")
        out += [f"- ✓ {_md(i.text.get(lang))}" for i in got]
    else:
        out.append(t("ui.insight_none", ui))
    out.append("")
    if earlier is not None:
        before = set(earlier)
        had = len(before & {i.id for i in items})
        out.append(f"**{t('ui.retry_compare', ui, before=had, now=len(got))}**")
        gained = [i for i in got if i.id not in before]
        lost = [i for i in items if i.id in before and i.id not in mine]
        for key, shown in (("ui.retry_gained", gained), ("ui.retry_lost", lost)):
            if shown:
                sep = "；" if lang == "zh" else "; "
                items_said = sep.join(_md(i.text.get(lang).rstrip("。.")) for i in shown)
                out.append(f"- {t(key, ui)}{_colon(ui)}{items_said}")
        out.append("")
    asked = [i for i in items if i.id not in ahead]
    lacking = [i for i in asked if i.id not in done]
    if lacking:
        key = "ui.insight_lacked" if round_over else "ui.insight_lacks"
        out.append(f"**{t(key, ui, n=len(lacking), total=len(asked))}{_colon(ui)}**")
        out += [f"- {_md(i.text.get(lang))}" for i in lacking[:MISSING_SHOWN]]
        rest = lacking[MISSING_SHOWN:]
        if rest:
            more = "".join(f"<li>{_md(i.text.get(lang))}</li>" for i in rest)
            out.append(
                f"\n<details><summary>{t('ui.more', ui, n=len(rest))}</summary><ul>{more}</ul></details>"
            )
    else:
        out.append(t("ui.insight_all", ui))
    if next_label:
        out += ["", f"**{t('ui.insight_next', ui, label=next_label)}**"]
    return "\n".join(out)


def delivery_md(d: Delivery, ui: Lang) -> str:
    """A spoken answer's delivery figures (pace, fillers, long pauses) with a plain hint each, headings
    and hints in the interface language `ui`; said to be no part of the five content scores."""
    unit = t(f"ui.delivery_unit_{d.unit}", ui)
    c = _colon(ui)
    sep, dash, (po, pc) = ("，", "——", "（）") if ui == "zh" else (", ", " — ", "()")
    bands = {"slow": d.pace_bands.slow_below, "fast": d.pace_bands.fast_above, "unit": unit}
    if d.rate_per_min is None:
        pace = t("ui.delivery_too_short", ui)
    else:
        pace = (
            f"{t('ui.delivery_rate_value', ui, rate=d.rate_per_min, unit=unit, seconds=d.speaking_s)}{dash}"
        )
        pace += t(f"ui.delivery_{d.pace}", ui, **bands)
    if d.fillers:
        which = sep.join(f"{html.escape(u.text)} ×{u.count}" for u in d.filler_uses)
        fillers = t("ui.delivery_fillers_value", ui, n=d.fillers, which=which)
        if d.fillers_per_min is not None:
            fillers += f"{sep}{t('ui.delivery_fillers_rate', ui, per_min=d.fillers_per_min)}"
        if d.many_fillers:
            fillers += f"{dash}{t('ui.delivery_fillers_many', ui)}"
    else:
        fillers = t("ui.delivery_fillers_none", ui)
    if d.language == "en":
        fillers += f" <i>{po}{t('ui.delivery_fillers_en_note', ui)}{pc}</i>"
    if d.pauses is None:
        pauses = t("ui.delivery_pauses_unknown", ui)
    elif d.pauses and d.longest_pause_s is not None:
        pauses = t("ui.delivery_pauses_value", ui, n=d.pauses, longest=d.longest_pause_s)
    else:
        pauses = t("ui.delivery_pauses_none", ui)
    return "\n".join(
        [
            f"#### {t('ui.delivery_title', ui)}",
            "",
            f"<i>{t('ui.delivery_not_scored', ui)}</i>",
            "",
            f"- **{t('ui.delivery_rate', ui)}{c}** {pace}",
            f"- **{t('ui.delivery_fillers', ui)}{c}** {fillers}",
            f"- **{t('ui.delivery_pauses', ui, s=d.pause_s)}{c}** {pauses}",
        ]
    )


def _colon(lang: Lang) -> str:
    return "：" if lang == "zh" else ":"


def _cut(text: str, n: int = QUOTE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def distinct_quotes(ra: RoundAssessment) -> dict[str, str]:
    """One quote per dimension, none shown twice (a dimension whose quotes are all taken gets none)."""
    used: set[str] = set()
    out: dict[str, str] = {}
    for d in DIMENSIONS:
        for q in ra.quotes.get(d, []):
            key = " ".join(q.split())
            if key and key not in used:
                used.add(key)
                out[d] = q
                break
    return out


def dimension_note(rubric: Rubric, ra: RoundAssessment, dim: str, lang: Lang, ui: Lang) -> str:
    """How the answer did on one dimension, in plain words: expected items shown, the first one missing,
    and any cap, named."""
    items = [i for i in expected_items(rubric, ra) if dim in i.dimensions]
    done = set(covered_ids(ra))
    parts: list[str] = []
    if items:
        have = [i for i in items if i.id in done]
        parts.append(t("ui.dim_note", ui, covered=len(have), total=len(items)))
        miss = [i for i in items if i.id not in done]
        parts.append(
            t("ui.dim_note_missing", ui, item=miss[0].text.get(lang)) if miss else t("ui.dim_note_all", ui)
        )
    ds = next((x for x in ra.dimensions if x.dimension == dim), None)
    if ds and ds.caps:
        parts.append("; ".join(cap_text(c, ui) for c in ds.caps))
    return " ".join(parts)


def round_banner_md(rubric: Rubric, ra: RoundAssessment, lang: Lang, ui: Lang, *, last: bool) -> str:
    """The round-finished moment: its scores, one distinct quote and a plain note per dimension."""
    title = round_title(rubric, ra.round, ui)
    out = [f"### {t('ui.round_finished', ui, title=title, total=ra.total)}", ""]
    quotes = distinct_quotes(ra)
    out += [
        f"| {t('ui.dimension', ui)} | {t('ui.score', ui)} | {t('ui.quotes', ui)} | {t('ui.why', ui)} |",
        "|---|---|---|---|",
    ]
    for d in DIMENSIONS:
        q = quotes.get(d)
        shown = f"“{_md(_cut(q))}”" if q else f"<i>{t('ui.no_quote', ui)}</i>"
        note = dimension_note(rubric, ra, d, lang, ui)
        out.append(f"| {dim_title(rubric, d, ui)} | {ra.scores[d]}/5 | {shown} | {_md(note)} |")
    out.append("")
    if ra.flags:
        out.append(f"**{t('ui.flags', ui)}{_colon(ui)}**")
        out += [f"- {_md(flag_line(f, ui))}" for f in ra.flags]
        out.append("")
    if last:
        out.append(t("ui.round_finished_last", ui))
    return "\n".join(out)


def transcript_md(rubric: Rubric, transcript: Transcript) -> str:
    """The whole transcript for a Markdown export, in the session's language: each turn with its time
    in the session, and a retried answer's earlier attempts under it."""
    lang: Lang = transcript.language
    out = ["", f"## {t('ui.transcript_heading', lang)}", ""]
    for tr in transcript.rounds:
        out += [f"### {round_title(rubric, tr.round, lang)}", ""]
        for turn in tr.turns:
            who = t("ui.interviewer" if turn.role == "interviewer" else "ui.candidate", lang)
            at = f" ({clock(turn.at_s)})" if turn.at_s is not None else ""
            out += [f"**{who}**{at}{_colon(lang)} {_md(turn.text)}", ""]
            for e in (turn.model_extra or {}).get("earlier") or []:
                when = f" ({clock(e['at_s'])})" if e.get("at_s") is not None else ""
                out += [f"> *{t('ui.earlier_attempt', lang)}{when}:* {_md(str(e.get('text', '')))}", ""]
    return "\n".join(out)


def conversation_md(rubric: Rubric, transcript: Transcript, ui: Lang) -> str:
    """The session's question and answer pairs so far, round by round."""
    if not transcript.rounds:
        return ""
    out = [f"#### {t('ui.conversation', ui)}", ""]
    for tr in transcript.rounds:
        out += [f"**{round_title(rubric, tr.round, ui)}**", ""]
        for turn in tr.turns:
            who = t("ui.interviewer", ui) if turn.role == "interviewer" else t("ui.you", ui)
            mark = "Q" if turn.role == "interviewer" else "A"
            out.append(
                f"<p class='coach-turn coach-{mark.lower()}'><b>{html.escape(who)}:</b> {_md(turn.text)}</p>"
            )
        out.append("")
    return "\n".join(out)
