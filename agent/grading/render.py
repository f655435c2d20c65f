"""Reports as files: Markdown for people, in the transcript's language, and JSON for tools. The pieces of a
round's Markdown that the app shows too (the score table's head, the quotes, a labelled list) are made here
and used by `agent/ui/views/scores.py`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence

from agent.contracts.labels import flag_line, flag_name, judge_line, why_text
from agent.contracts.report import Report, RoundAssessment, SampleSpread
from agent.grading.effective import EffectiveRound, OverriddenScore, effective_rounds, risks_and_actions_after
from agent.overrides import EffectiveScore
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang
from agent.util.messages import bold_label, bracketed, colon, enumerated, labelled, listed, t


def report_json(r: Report, rubric: Rubric | None = None, effective: Sequence[EffectiveScore] | None = None) -> str:
    """The report as `interview grade --format json` writes it (the Report contract, fields in order). With
    `effective` (its scores after human overrides) each round also has `effective`: its scores, total and
    pass line after them and the overrides (who, from what, why); the judge's stay in `scores`, `total` and
    `passed`."""
    doc = r.model_dump(mode="json")
    if rubric is not None and effective is not None:
        for shown, er in zip(doc["rounds"], effective_rounds(rubric, r, effective), strict=True):
            shown["effective"] = er.model_dump(mode="json", include={"scores", "total", "passed", "overridden"})
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def bullets(label: str, items: Iterable[str], lang: Lang) -> list[str]:
    """A bold label with its colon, its items as a Markdown list, then a blank line."""
    return [bold_label(label, lang), *[f"- {x}" for x in items], ""]


def score_table_head(lang: Lang) -> list[str]:
    """The head of a round's table of scores: dimension, score, why."""
    return [
        f"| {t('report.dimension', lang)} | {t('report.score', lang)} | {t('report.why', lang)} |",
        "|---|---|---|",
    ]


def same_passage(a: str, b: str) -> bool:
    """Whether two quotes show one passage: the same words, or one inside the other (whitespace aside)."""
    x, y = " ".join(a.split()), " ".join(b.split())
    return bool(x and y) and (x in y or y in x)


def quote_items(ra: RoundAssessment, rubric: Rubric, lang: Lang, text: Callable[[str], str]) -> list[str]:
    """The verbatim quotes behind a round's scores, at most two a dimension: "*Accuracy*: “…”"; `text` makes
    a quote fit where it is shown. A passage listed under an earlier dimension is not listed again: a
    dimension with only such quotes names where it is ("*Trade-offs*: the same passage as Accuracy")."""
    listed_under: list[tuple[str, str]] = []  # (dimension title, quote) as listed
    out: list[str] = []
    for d, qs in ra.quotes.items():
        title = rubric.dimensions[d].title.get(lang)
        new = [q for q in qs if q.strip() and not any(same_passage(q, x) for _, x in listed_under)][:2]
        if new:
            out += [f"*{title}*{colon(lang)}“{text(q)}”" for q in new]
            listed_under += [(title, q) for q in new]
            continue
        at = next((at for q in qs for at, x in listed_under if same_passage(q, x)), None)
        if at is not None:
            out.append(f"*{title}*{colon(lang)}{t('report.quote_above', lang, dim=at)}")
    return out


def overridden_text(o: OverriddenScore, lang: Lang) -> str:
    """ "overridden by Rui Chen: 2 → 4" / "由 Rui Chen 人工改分：2 → 4", and when it was made against another
    judge score, that too."""
    said = t("report.overridden_by", lang, reviewer=o.reviewer, judge=o.judge, human=o.effective)
    return listed([said, t("report.override_stale", lang)], lang) if o.stale else said


def total_text(er: EffectiveRound, lang: Lang) -> str:
    """A round's total after overrides, the judge's beside it when they differ: "16/25 (judge: 14)"."""
    if er.total == er.judge_total:
        return f"{er.total}/25"
    return f"{er.total}/25" + bracketed(t("report.judge_total", lang, total=er.judge_total), lang)


def _mark(passed: bool | None) -> str:
    return "✓" if passed else "✗"


def report_markdown(report: Report, rubric: Rubric, effective: Sequence[EffectiveScore] | None = None) -> str:
    """The report as Markdown. `effective`: the report's scores after human overrides
    (`overrides.effective_scores`): the totals and pass lines count them, an overridden score reads
    judge → reviewer with who and why; without it, the judge's scores as they are."""
    lang = report.language
    j = report.judge
    after = {er.round: er for er in effective_rounds(rubric, report, effective)}
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
        er = after[ra.round]
        cells = " | ".join(
            f"{o.judge} → {o.effective}" if (o := er.override_of(d)) else str(er.scores[d]) for d in DIMENSIONS
        )
        flags = enumerated((flag_name(f, lang) for f in ra.flags), lang)
        out.append(f"| {title} | {cells} | {total_text(er, lang)} | {flags or '—'} |")
    out.append("")
    if any(er.changed for er in after.values()):
        out += [t("report.overrides_applied", lang), ""]
    # risks and next actions of the scores after overrides (the two lowest dimensions may have changed)
    risks, actions = risks_and_actions_after(rubric, report, effective, lang)
    raised = list(dict.fromkeys(f for ra in report.rounds for f in ra.flags))
    if raised:
        out += bullets(t("report.flag_meanings", lang), [flag_line(f, lang) for f in raised], lang)
    out += _samples(report, rubric)
    if risks:
        out += [f"## {t('report.risks', lang)}", *[f"- {r}" for r in risks], ""]
    for ra in report.rounds:
        title = rubric.round(ra.round).title.get(lang)
        er = after[ra.round]
        out += [f"## {title} — {total_text(er, lang)}", ""]
        if er.passed is not None:
            mark = _mark(er.passed)
            if er.passed != er.judge_passed:
                mark = t("report.passed_after", lang, mark=mark, judge=_mark(er.judge_passed))
            out.append(labelled(t("report.passed", lang), mark, lang))
        if ra.notes:  # the judge's: after an override, said to be (a "not passed" may no longer hold)
            out += bullets(t("report.notes_judge" if er.changed else "report.notes", lang), ra.notes, lang)
        out += score_table_head(lang)
        for ds in ra.dimensions:
            why = why_text(ds, lang)
            score = str(ds.score)
            o = er.override_of(ds.dimension)
            if o is not None:  # the reviewer's score, marked, with who, from what, and why
                score = f"**{o.effective}**" + bracketed(overridden_text(o, lang), lang)
                why = listed([t("report.override_why", lang, reason=" ".join(o.reason.split())), why], lang)
            out.append(
                f"| {rubric.dimensions[ds.dimension].title.get(lang)} | {score} | {why.replace('|', '/')} |"
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
    if actions:
        out += [f"## {t('report.actions', lang)}", *[f"- {a}" for a in actions], ""]
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
