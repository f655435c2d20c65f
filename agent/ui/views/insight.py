"""Right after an answer: what it covered of the round's expected items and what the round still lacks,
and what kind of question comes next ("Follow-up 1 of 2")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.judge.scoring import scored_items
from agent.rubric.loader import Rubric
from agent.rubric.model import EvidenceItem, Lang
from agent.ui.views.text import MISSING_SHOWN, bold_label, colon, safe_md
from agent.util.messages import listed, t


def expected_items(rubric: Rubric, ra: RoundAssessment) -> list[EvidenceItem]:
    """The round's expected items the assessment was measured against: the judge's own set
    (`judge.scoring.scored_items`: its scope, less the items moot in an answer with no quantities), so what
    is counted and what is suggested or listed as lacking are the same items; every item without a checklist."""
    return scored_items(rubric, ra.checklist) if ra.checklist else rubric.evidence(ra.round)


def not_asked_yet(rubric: Rubric, ra: RoundAssessment) -> set[str]:
    """The items a question or follow-up of the round may still ask for, kept off the "still lacks" list while
    the round is open (listing them gives the next answer away: "Does continuous batching mean prefill and
    decode always share a step?" followed by "still lacks: … does not mean they always share a step"): every
    item a follow-up probes, and in a round with questions (the project interview, the self-check), before
    the first of them is answered (the assessment has no scope yet), every item a question claims; once one
    is, the scope already leaves the others out."""
    rnd = rubric.round(ra.round)
    ahead = {e for f in rnd.followups for e in f.probes}
    if rnd.questions and (ra.checklist is None or ra.checklist.scope is None):
        ahead |= {e for q in rnd.questions for e in q.evidence}
    return ahead


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
        out.append(bold_label(t("ui.insight_covered", ui), ui))
        out += [f"- ✓ {safe_md(i.text.get(lang))}" for i in got]
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
                items_said = listed([safe_md(i.text.get(lang).rstrip("。.")) for i in shown], lang)
                out.append(f"- {t(key, ui)}{colon(ui)}{items_said}")  # "New this time: …" / "这次新覆盖：…"
        out.append("")
    asked = [i for i in items if i.id not in ahead]
    lacking = [i for i in asked if i.id not in done]
    if lacking:
        key = "ui.insight_lacked" if round_over else "ui.insight_lacks"
        out.append(bold_label(t(key, ui, n=len(lacking), total=len(asked)), ui))
        out += [f"- {safe_md(i.text.get(lang))}" for i in lacking[:MISSING_SHOWN]]
        rest = lacking[MISSING_SHOWN:]
        if rest:
            more = "".join(f"<li>{safe_md(i.text.get(lang))}</li>" for i in rest)
            out.append(
                f"\n<details><summary>{t('ui.more', ui, n=len(rest))}</summary><ul>{more}</ul></details>"
            )
    else:
        out.append(t("ui.insight_all", ui))
    if next_label:
        out += ["", f"**{t('ui.insight_next', ui, label=next_label)}**"]
    return "\n".join(out)
