"""The round-finished banner: the round's scores, one distinct quote and a plain note per dimension."""

from __future__ import annotations

from agent.contracts.flag_evidence import ABSENT, Evidence, flag_evidence
from agent.contracts.labels import cap_text, flag_line, is_demonstration, judge_line
from agent.contracts.report import RoundAssessment
from agent.grading.render import same_passage
from agent.package.labels import name as package_name
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Dimension, Lang
from agent.ui.views.insight import covered_ids, expected_items
from agent.ui.views.text import bold_label, cut, dim_title, round_title, safe_md
from agent.util.messages import colon, listed, sentences, t

QUOTE_CHARS = 180
"""A quote in the round banner is cut to this many characters."""


def distinct_quotes(ra: RoundAssessment) -> dict[str, str]:
    """One quote per dimension, no passage shown twice (a dimension whose quotes are all shown, or inside one
    shown, gets none: `repeated_from` names where)."""
    out: dict[str, str] = {}
    for d in DIMENSIONS:
        q = next((q for q in ra.quotes.get(d, []) if q.strip() and not _shown(q, out)), None)
        if q is not None:
            out[d] = q
    return out


def _shown(q: str, shown: dict[str, str]) -> str | None:
    return next((d for d, s in shown.items() if same_passage(q, s)), None)


def repeated_from(ra: RoundAssessment, dim: Dimension, shown: dict[str, str]) -> str | None:
    """The dimension whose shown quote is `dim`'s passage, for a dimension with quotes and none of its own
    shown (`distinct_quotes`); None when it has none."""
    return next((at for q in ra.quotes.get(dim, []) if (at := _shown(q, shown))), None)


def dimension_note(rubric: Rubric, ra: RoundAssessment, dim: str, lang: Lang, ui: Lang) -> str:
    """How the answer did on one dimension, in plain words: expected items shown, the first one missing,
    and any cap, named."""
    items = [i for i in expected_items(rubric, ra) if dim in i.dimensions]
    done = set(covered_ids(ra))
    ds = next((x for x in ra.dimensions if x.dimension == dim), None)
    parts: list[str] = []
    if items:
        have = [i for i in items if i.id in done]
        # the judge's own count when it has one (the scores below show it: the two must agree)
        covered, total = (
            (ds.coverage.covered, ds.coverage.expected) if ds and ds.coverage else (len(have), len(items))
        )
        parts.append(t("ui.dim_note", ui, covered=covered, total=total))
        miss = [i for i in items if i.id not in done]
        parts.append(
            t("ui.dim_note_missing", ui, item=miss[0].text.get(lang)) if miss else t("ui.dim_note_all", ui)
        )
    if ds and ds.caps:
        parts.append(listed([cap_text(c, ui) for c in ds.caps], ui))
    return sentences(parts, ui)


def _evidence_md(e: Evidence, lang: Lang, ui: Lang) -> str:
    if e.kind == "path":
        return t("ui.flag_path", ui, path=safe_md(e.text))
    if e.kind == "mistake":
        return t("ui.flag_mistake", ui, mistake=safe_md(package_name("error", e.text, ui)))
    quote = safe_md(cut(e.text, QUOTE_CHARS))
    if e.claim is not None:
        return t("ui.flag_claim", ui, quote=quote, claim=safe_md(e.claim.get(lang)))
    return t("ui.flag_quote", ui, quote=quote)


def flag_evidence_md(ra: RoundAssessment, flag: str, lang: Lang, ui: Lang) -> list[str]:
    """What in the answer raised `flag`, a line each: the candidate's own words (verbatim, cut to
    `QUOTE_CHARS`), the path cited, the mistake named; for a flag raised by what the answer leaves out, that
    there is nothing to quote. A wrong claim's rubric text is in the session's language `lang`."""
    found = flag_evidence(ra, flag)
    if found:
        return [_evidence_md(e, lang, ui) for e in found]
    return [f"<i>{t('ui.flag_absent', ui)}</i>"] if flag in ABSENT and ra.checklist is not None else []


def retry_off(*, last: bool, by_finish: bool) -> str | None:
    """Why a round's banner has no Retry, as a message key: the round finished the session, or the candidate
    ended it with Finish (the banner's Retry takes back only the answer a round closed on); None when it has
    one."""
    return "ui.retry_off_finished" if last else "ui.retry_off_finish" if by_finish else None


def judge_caveat(ra: RoundAssessment, ui: Lang) -> list[str]:
    """Who scored the round, when its scores are not the configured judge's grade: a fallback (the configured
    judge failed) or a demonstration model (its scores check the setup). Nothing for the usual judge."""
    j = ra.judge
    if j is None or not (j.fallback or is_demonstration(j)):
        return []
    out = [f"<sub>{t('ui.judge', ui)}{colon(ui)}{safe_md(judge_line(j, ui))}</sub>"]
    if j.fallback:
        why = safe_md(j.fallback_reason or "")
        out.append(f"<sub><b>{t('report.fallback', ui)}</b>{colon(ui)}{why}</sub>")
    return [*out, ""]


def round_banner_md(
    rubric: Rubric,
    ra: RoundAssessment,
    lang: Lang,
    ui: Lang,
    *,
    last: bool,
    before: int | None = None,
    by_finish: bool = False,
) -> str:
    """The round-finished moment: its scores, one distinct quote and a plain note per dimension.

    `last`: the round finished the session (the report is below); `by_finish`: the candidate ended the round
    with Finish. Either way its answers can no longer be retried, and the banner says why (`retry_off`).
    `before`: the round closed again on a retried answer, and had this total before (the title shows
    before → now)."""
    title = round_title(rubric, ra.round, ui)
    head = (
        t("ui.round_finished", ui, title=title, total=ra.total)
        if before is None
        else t("ui.round_finished_again", ui, title=title, before=before, total=ra.total)
    )
    out = [f"### {head}", ""]
    quotes = distinct_quotes(ra)
    out += [
        f"| {t('ui.dimension', ui)} | {t('ui.score', ui)} | {t('ui.quotes', ui)} | {t('ui.why', ui)} |",
        "|---|---|---|---|",
    ]
    for d in DIMENSIONS:
        q = quotes.get(d)
        if q:
            shown = f"“{safe_md(cut(q, QUOTE_CHARS))}”"
        elif ra.quotes.get(d):  # its quotes are shown under an earlier dimension: say so, not "no quote"
            at = repeated_from(ra, d, quotes)
            shown = (
                f"<i>{t('ui.quote_above', ui, dim=dim_title(rubric, at, ui))}</i>"
                if at
                else f"<i>{t('ui.no_quote', ui)}</i>"
            )
        else:
            shown = f"<i>{t('ui.no_quote', ui)}</i>"
        note = dimension_note(rubric, ra, d, lang, ui)
        out.append(f"| {dim_title(rubric, d, ui)} | {ra.scores[d]}/5 | {shown} | {safe_md(note)} |")
    out.append("")
    # the round as a whole, counted on the same items as the insight after each answer
    items = {i.id for i in expected_items(rubric, ra)}
    shown_items = len(items & set(covered_ids(ra)))
    out += [t("ui.banner_items", ui, covered=shown_items, total=len(items)), ""]
    out += judge_caveat(ra, ui)
    if ra.flags:
        out.append(bold_label(t("ui.flags", ui), ui))
        for f in ra.flags:
            out.append(f"- {safe_md(flag_line(f, ui))}")
            out += [f"  - {x}" for x in flag_evidence_md(ra, f, lang, ui)]
        out.append("")
    if last:
        out += [t("ui.round_finished_last", ui), ""]
    why = retry_off(last=last, by_finish=by_finish)
    if why:
        out.append(f"<i>{t(why, ui)}</i>")
    return "\n".join(out)
