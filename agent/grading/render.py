"""Reports as files: Markdown for people, in the transcript's language, and JSON for tools. The pieces of a
round's Markdown that the app shows too (the score table's head, the quotes, a labelled list) are made here
and used by `agent/ui/views/scores.py`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from agent.contracts.labels import flag_line, flag_name, judge_line, why_text
from agent.contracts.report import Report, RoundAssessment, SampleSpread
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang
from agent.util.messages import bold_label, colon, enumerated, labelled, t


def report_json(r: Report) -> str:
    """The report as `interview grade --format json` writes it (the Report contract, fields in order)."""
    return json.dumps(r.model_dump(mode="json"), ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def bullets(label: str, items: Iterable[str], lang: Lang) -> list[str]:
    """A bold label with its colon, its items as a Markdown list, then a blank line."""
    return [bold_label(label, lang), *[f"- {x}" for x in items], ""]


def score_table_head(lang: Lang) -> list[str]:
    """The head of a round's table of scores: dimension, score, why."""
    return [
        f"| {t('report.dimension', lang)} | {t('report.score', lang)} | {t('report.why', lang)} |",
        "|---|---|---|",
    ]


def quote_items(ra: RoundAssessment, rubric: Rubric, lang: Lang, text: Callable[[str], str]) -> list[str]:
    """The verbatim quotes behind a round's scores, at most two a dimension: "*Accuracy*: “…”"; `text` makes
    a quote fit where it is shown."""
    return [
        f"*{rubric.dimensions[d].title.get(lang)}*{colon(lang)}“{text(q)}”"
        for d, qs in ra.quotes.items()
        for q in qs[:2]
    ]


def report_markdown(report: Report, rubric: Rubric) -> str:
    lang = report.language
    j = report.judge
    out = [f"# {t('report.report', lang)}{colon(lang)}{report.id}", ""]
    # the judge by name and what it does; its ids (model, rubric version, hashes) are in the JSON
    out.append(labelled(t("report.judge", lang), judge_line(j, lang), lang))
    if j.fallback:
        out.append(f"\n> **{t('report.fallback', lang)}** ({j.fallback_reason or ''})")
    out.append("")
    out.append(
        f"| {t('report.round', lang)} | "
        + " | ".join(rubric.dimensions[d].title.get(lang) for d in DIMENSIONS)
        + f" | {t('report.total', lang)} | {t('report.flags', lang)} |"
    )
    out.append("|---" * (len(DIMENSIONS) + 3) + "|")
    for ra in report.rounds:
        title = rubric.round(ra.round).title.get(lang)
        cells = " | ".join(str(ra.scores[d]) for d in DIMENSIONS)
        flags = enumerated((flag_name(f, lang) for f in ra.flags), lang)
        out.append(f"| {title} | {cells} | {ra.total}/25 | {flags or '—'} |")
    out.append("")
    raised = list(dict.fromkeys(f for ra in report.rounds for f in ra.flags))
    if raised:
        out += bullets(t("report.flag_meanings", lang), [flag_line(f, lang) for f in raised], lang)
    out += _samples(report, rubric)
    if report.risks:
        out += [f"## {t('report.risks', lang)}", *[f"- {r}" for r in report.risks], ""]
    for ra in report.rounds:
        title = rubric.round(ra.round).title.get(lang)
        out += [f"## {title} — {ra.total}/25", ""]
        if ra.passed is not None:
            out.append(labelled(t("report.passed", lang), "✓" if ra.passed else "✗", lang))
        if ra.notes:
            out += bullets(t("report.notes", lang), ra.notes, lang)
        out += score_table_head(lang)
        for ds in ra.dimensions:
            why = why_text(ds, lang)
            out.append(
                f"| {rubric.dimensions[ds.dimension].title.get(lang)} | {ds.score} | {why.replace('|', '/')} |"
            )
        out.append("")
        if ra.quotes:
            out += bullets(t("report.quotes", lang), quote_items(ra, rubric, lang, str.strip), lang)
        if ra.missing_evidence:
            out += bullets(t("report.missing", lang), ra.missing_evidence, lang)
        if ra.next_followups:
            out += bullets(t("report.followups", lang), ra.next_followups, lang)
        if ra.snippets:
            out.append(bold_label(t("report.sources", lang), lang))
            for s in ra.snippets:
                out.append(f"- [{s.path}:{s.start_line}-{s.end_line}]({s.permalink}) `{s.symbol}`")
            out.append("")
    if report.next_actions:
        out += [f"## {t('report.actions', lang)}", *[f"- {a}" for a in report.next_actions], ""]
    return "\n".join(out) + "\n"


def _samples(report: Report, rubric: Rubric) -> list[str]:
    """The median and the spread of each dimension, when the report is K > 1 samples."""
    sp: SampleSpread | None = report.samples
    if sp is None:
        return []
    lang = report.language
    out = [f"## {t('report.samples', lang, k=sp.k)}", "", t("report.samples_how", lang)]
    if sp.seeds is not None:
        out.append(
            t("report.samples_seeds", lang, seeds=", ".join(map(str, sp.seeds)), temperature=sp.temperature)
        )
    if sp.deterministic:
        out.append(t("report.deterministic", lang))
    if sp.fallback_samples:
        out.append(f"**{t('report.sample_fallbacks', lang, n=len(sp.fallback_samples), k=sp.k)}**")
    out.append("")
    for rs in sp.rounds:
        title = rubric.round(rs.round).title.get(lang)
        note = t("report.counted", lang, n=len(rs.counted), k=sp.k)
        if rs.all_fallback:
            note = f"**{t('report.all_fallback', lang)}**"
        out += [f"### {title} — {note}", ""]
        out.append(
            f"| {t('report.dimension', lang)} | {t('report.median', lang)} | {t('report.range', lang)} | {t('report.per_sample', lang)} |"
        )
        out.append("|---|---|---|---|")
        for d in DIMENSIONS:
            ds = rs.dimensions[d]
            med = str(ds.score) if ds.median == ds.score else f"{ds.score} ({ds.median:g})"
            out.append(
                f"| {rubric.dimensions[d].title.get(lang)} | {med} | {ds.min}–{ds.max} | "
                f"{', '.join(map(str, ds.scores))} |"
            )
        out.append("")
    return out
