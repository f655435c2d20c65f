"""A round's scores as the tabs show them (why, quotes, what is missing), the judge by name, a report's
totals, a finished session's report, the source snippets and the co-pilot's suggested follow-ups."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.contracts import labels
from agent.contracts.labels import flag_line, why_text
from agent.contracts.report import JudgeInfo, Report, RoundAssessment
from agent.grading.effective import risks_and_actions_after
from agent.grading.render import bullets, quote_items, score_table_head
from agent.graph.report import SessionReport, session_markdown, shown_in
from agent.overrides import EffectiveScore, effective_totals
from agent.package.labels import name as package_name
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang
from agent.ui.views.text import MISSING_SHOWN, bold_label, colon, dim_title, round_title, safe_md
from agent.util.messages import t, then

if TYPE_CHECKING:
    from agent.graph import Suggestion
    from agent.knowledge import Snippet


def assessment_md(ra: RoundAssessment, rubric: Rubric, lang: Lang, *, heading: str) -> str:
    """Scores with why, the verbatim quotes behind them, and the evidence still missing."""
    title = round_title(rubric, ra.round, lang)
    out = [f"### {t(heading, lang, title=title)} — {ra.total}/25", ""]
    reasons = {d.dimension: d for d in ra.dimensions}
    out += score_table_head(lang)
    for d in DIMENSIONS:
        ds = reasons.get(d)
        why = ""
        if ds:  # the level reached, then how the checklist got there (missing items are listed below)
            why = then(ds.level, why_text(ds, lang, missing=False), lang)
        out.append(f"| {dim_title(rubric, d, lang)} | {ra.scores[d]} | {safe_md(why)} |")
    out.append("")
    if ra.flags:
        out += bullets(t("ui.flags", lang), [safe_md(flag_line(f, lang)) for f in ra.flags], lang)
    if any(ra.quotes.values()):
        out += bullets(t("ui.quotes", lang), quote_items(ra, rubric, lang, safe_md), lang)
    if ra.missing_evidence:
        out.append(bold_label(t("ui.missing", lang), lang))
        out += [f"- {safe_md(m)}" for m in ra.missing_evidence[:MISSING_SHOWN]]
        rest = ra.missing_evidence[MISSING_SHOWN:]
        if rest:
            items = "".join(f"<li>{safe_md(m)}</li>" for m in rest)
            out.append(
                f"\n<details><summary>{t('ui.more', lang, n=len(rest))}</summary><ul>{items}</ul></details>"
            )
        out.append("")
    if ra.judge:
        out.append(_judge_sub(ra.judge, lang))
    return "\n".join(out)


def judge_name(kind: str, lang: Lang) -> str:
    return package_name("judge", kind, lang)


def judge_line(judge: JudgeInfo, lang: Lang) -> str:
    """The judge by name and what it does, in words; its model id, rubric version and hashes (what reproduces
    the scores) are in the JSON only."""
    return html.escape(labels.judge_line(judge, lang), quote=False)


def _judge_sub(judge: JudgeInfo, lang: Lang) -> str:
    """ "Judge: Embedded judge — …" in small print, under a round's scores or a report's totals."""
    return f"<sub>{t('ui.judge', lang)}{colon(lang)}{judge_line(judge, lang)}</sub>"


def report_summary_md(report: Report, rubric: Rubric, lang: Lang, effective: Sequence[EffectiveScore]) -> str:
    """Totals per round (judge → effective), risks and next actions, in the interface language `lang`
    (`shown_in`: the language switch renders them again)."""
    # risks and next actions of the scores after overrides, the items an action names in the session's language
    risks, actions = risks_and_actions_after(rubric, report, effective, lang, items=report.language)
    report = shown_in(report, rubric, lang)
    totals = effective_totals(effective)
    out = [f"### {safe_md(report.id)}", _judge_sub(report.judge, lang), ""]
    out += [
        f"| {t('ui.round', lang)} | {t('ui.col_judge', lang)} | {t('ui.col_effective', lang)} |",
        "|---|---|---|",
    ]
    for rid, (jt, et) in totals.items():
        out.append(f"| {round_title(rubric, rid, lang)} | {jt}/25 | {et}/25 |")
    out.append("")
    if risks:
        out += bullets(t("ui.risks", lang), [safe_md(r) for r in risks], lang)
    if actions:
        out += bullets(t("ui.next_actions", lang), [safe_md(a) for a in actions], lang)
    return "\n".join(out)


def finished_report_md(
    report: SessionReport, effective: Sequence[EffectiveScore], rubric: Rubric, ui: Lang
) -> str:
    """A finished session's report in the interface language `ui` (the language switch renders it again),
    its scores as Review has them: after its heading, every overridden score (`effective`), judge →
    effective, with who changed it and why. The candidate's words and quotes stay as they were said."""
    shown = shown_in(report, rubric, ui)
    heading, _, rest = session_markdown(shown, rubric, effective).partition("\n")
    changed = effective_md(shown, effective, rubric)
    return f"{heading}\n\n{changed}{rest}" if changed else f"{heading}\n{rest}"


def effective_md(report: Report, effective: Sequence[EffectiveScore], rubric: Rubric) -> str:
    """The section a downloaded report adds: every override that changed a score, latest first wins (an
    accepted draft score changed none)."""
    lang = report.language
    changed = [e for e in effective if e.override is not None and e.effective != e.judge]
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


def snippets_md(snippets: Sequence[Snippet], lang: Lang) -> str:
    if not snippets:
        return t("ui.no_sources", lang)
    out = [bold_label(t("ui.sources", lang), lang), ""]
    for s in snippets:
        out.append(f"- [{safe_md(s.location)}]({s.permalink}) `{safe_md(s.symbol)}`")
        out.append("")
        out.append("  ```python")
        out += [f"  {line}" for line in s.excerpt(8).splitlines()]
        out.append("  ```")
    return "\n".join(out)


def suggestions_md(suggestions: Sequence[Suggestion], lang: Lang) -> str:
    if not suggestions:
        return t("ui.no_suggestions", lang)
    out = [bold_label(t("ui.suggestions", lang), lang), ""]
    for i, s in enumerate(suggestions, 1):
        out.append(f"{i}. **{safe_md(s.text)}**")
        out += [f"   - {safe_md(w)}" for w in s.why]
    return "\n".join(out)
