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


def counted_ids(rubric: Rubric, ra: RoundAssessment) -> list[str]:
    """The ids of the round's items `ra` counts (`expected_items`), for the next answer's insight to say
    when its total moved (`insight_md`'s `counted_before`)."""
    return [i.id for i in expected_items(rubric, ra)]


def recount_key(rubric: Rubric, before: set[str], now: set[str]) -> str:
    """Why the round's total moved between two answers, as a message key: figures given (or gone), which make
    labelling them count (lexicon `moot_without_numbers`), or the questions answered (a round's scope)."""
    moot = set(rubric.lexicon.scoring.moot_without_numbers)
    if (before ^ now) <= moot:
        return "ui.insight_recount_figures" if now - before else "ui.insight_recount_no_figures"
    return "ui.insight_recount_questions"


def _ticked(items: Sequence[EvidenceItem], lang: Lang, ui: Lang) -> list[str]:
    """Items ticked, the first `MISSING_SHOWN` openly and the rest folded away."""
    out = [f"- ✓ {safe_md(i.text.get(lang))}" for i in items[:MISSING_SHOWN]]
    rest = items[MISSING_SHOWN:]
    if rest:
        more = "".join(f"<li>✓ {safe_md(i.text.get(lang))}</li>" for i in rest)
        out.append(f"\n<details><summary>{t('ui.more', ui, n=len(rest))}</summary><ul>{more}</ul></details>")
    return out


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
    counted_before: Sequence[str] | None = None,
) -> str:
    """Right after an answer: the expected items it covered (✓), those covered earlier in the round (✓) and
    those the round still lacks, in the rubric's words in the session's language `lang`; headings in the
    interface language `ui`. One set of items counts (`expected_items`, the judge's, as the banner's): what is
    ticked and what is lacking add up to its total. While the round is open, the lacking items its questions
    may still ask are counted but not named (they would give the next answers away); when none is named, one
    sentence says how many. `earlier`: the items a
    retried answer's earlier attempt covered, compared with this one. `counted_before`: the items the
    previous answer's insight counted; when the total moved since, it says so and why."""
    items = expected_items(rubric, ra)
    ids = {i.id for i in items}
    ahead = set() if round_over else not_asked_yet(rubric, ra)
    done = set(covered_ids(ra)) & ids
    mine = set(covered)
    out = [f"#### {t('ui.insight_title', ui)}", ""]
    got = [i for i in items if i.id in mine]
    if got:
        out.append(bold_label(t("ui.insight_covered", ui), ui))
        out += [f"- ✓ {safe_md(i.text.get(lang))}" for i in got]
    else:
        out.append(t("ui.insight_none", ui))
    out.append("")
    had_before = [i for i in items if i.id in done and i.id not in mine]
    if had_before:
        out.append(bold_label(t("ui.insight_covered_earlier", ui), ui))
        out += [*_ticked(had_before, lang, ui), ""]
    if earlier is not None:
        before = set(earlier)
        had = len(before & ids)
        out.append(f"**{t('ui.retry_compare', ui, before=had, now=len(got))}**")
        gained = [i for i in got if i.id not in before]
        lost = [i for i in items if i.id in before and i.id not in mine]
        for key, shown in (("ui.retry_gained", gained), ("ui.retry_lost", lost)):
            if shown:
                items_said = listed([safe_md(i.text.get(lang).rstrip("。.")) for i in shown], lang)
                out.append(f"- {t(key, ui)}{colon(ui)}{items_said}")  # "New this time: …" / "这次新覆盖：…"
        out.append("")
    lacking = [i for i in items if i.id not in done]
    named = [i for i in lacking if i.id not in ahead]
    if lacking and not named:  # none named (all still to be asked): how many, no heading over an empty list
        out.append(t("ui.insight_lacks_held", ui, n=len(lacking), total=len(items)))
    elif lacking:
        key = "ui.insight_lacked" if round_over else "ui.insight_lacks"
        out.append(bold_label(t(key, ui, n=len(lacking), total=len(items)), ui))
        out += [f"- {safe_md(i.text.get(lang))}" for i in named[:MISSING_SHOWN]]
        rest = named[MISSING_SHOWN:]
        if rest:
            more = "".join(f"<li>{safe_md(i.text.get(lang))}</li>" for i in rest)
            out.append(
                f"\n<details><summary>{t('ui.more', ui, n=len(rest))}</summary><ul>{more}</ul></details>"
            )
        if len(named) < len(lacking):
            out += ["", f"<i>{t('ui.insight_held', ui, n=len(lacking) - len(named))}</i>"]
    else:
        out.append(t("ui.insight_all", ui))
    if counted_before is not None and set(counted_before) != ids:
        why = t(recount_key(rubric, set(counted_before), ids), ui)
        out += ["", t("ui.insight_recount", ui, total=len(items), before=len(set(counted_before)), why=why)]
    if next_label:
        out += ["", f"**{t('ui.insight_next', ui, label=next_label)}**"]
    return "\n".join(out)
