"""A session's report: the Report contract plus timing, the project narrative and the redo comparison.

`SessionReport` is a `Report` (every field of the Report contract in agent/contracts/report.py) with additions; the Markdown
adds the sections `agent.grading.render` does not know about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, TypeVar

from pydantic import BaseModel, Field

from agent.contracts.report import Report, RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.grading.render import report_markdown
from agent.graph.notice import Notice
from agent.graph.state import Previous
from agent.judge.matching import sentences
from agent.judge.scoring import risks_and_actions
from agent.overrides import EffectiveScore
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Dimension, Lang, RoundId
from agent.util import messages


class RoundTime(BaseModel):
    round: RoundId
    minutes: int
    used_s: float | None = None
    over_budget: bool = False
    notes: list[Notice] = Field(
        default_factory=list,
        description="the notes the session added to the round's (over budget, inputs asked for), keyed: "
        "shown in the reader's language",
    )


class DimensionChange(BaseModel):
    dimension: Dimension
    before: int
    after: int
    change: int


class RoundComparison(BaseModel):
    round: RoundId
    before_total: int
    after_total: int
    change: int
    dimensions: list[DimensionChange]


class Comparison(BaseModel):
    """The second attempt compared with the first, rubric dimension by dimension (docs/interview.md)."""

    previous_session: str
    rounds: list[RoundComparison]


class NarrativeField(BaseModel):
    label: str
    text: str
    collected: bool = Field(description="False: the candidate gave nothing for it; text is 'not collected'")


class NarrativeSectionFilled(BaseModel):
    id: str
    title: str
    fields: list[NarrativeField]


class FilledNarrative(BaseModel):
    """The narrative template filled from the candidate's own words; missing data is 'not collected', never
invented (docs/interview.md)."""

    sections: list[NarrativeSectionFilled]


class SessionReport(Report):
    session: str | None = None
    plan: str | None = None
    mode: Literal["practice", "copilot", "grade"] | None = None
    timing: list[RoundTime] = Field(default_factory=list)
    narrative: FilledNarrative | None = None
    comparison: Comparison | None = None
    candidate_questions: list[str] = Field(default_factory=list)


R = TypeVar("R", bound=Report)
"""A report, or a session's report with its additions (`shown_in` returns the kind it is given)."""


# ---------------------------------------------------------------- comparison


def compare(
    rubric: Rubric, previous: Previous | None, rounds: list[RoundAssessment], lang: Lang
) -> Comparison | None:
    if previous is None:
        return None
    out: list[RoundComparison] = []
    for ra in rounds:
        old = previous["rounds"].get(ra.round)
        if old is None:
            continue
        before: dict[str, int] = old["scores"]
        dims = [
            DimensionChange(
                dimension=d, before=before[d], after=ra.scores[d], change=ra.scores[d] - before[d]
            )
            for d in DIMENSIONS
        ]
        total = int(old["total"])
        out.append(
            RoundComparison(
                round=ra.round,
                before_total=total,
                after_total=ra.total,
                change=ra.total - total,
                dimensions=dims,
            )
        )
    return Comparison(previous_session=previous["session"], rounds=out)


# ---------------------------------------------------------------- narrative

# The narrative's sections, in order (docs/interview.md), and the project question groups that feed each (by position:
# 0 what you did, 1 how it runs, 2 why this choice, 3 how you proved it, 4 what broke,
# 5 how it went live, 6 what if conditions change). The project description feeds the first.
_SECTION_GROUPS: tuple[tuple[int, ...], ...] = ((0, 1), (3, 4), (2, 6), (5, 3), (3, 5), (4, 6))

_STOP = {
    "the", "and", "for", "with", "what", "which", "how", "that", "this", "real", "when", "who", "did", "not",
    "any", "are", "was", "were", "from", "into", "have", "has", "its", "their", "there", "you", "your", "say",
    "only", "two", "least", "then", "them", "they", "each", "per", "one", "also", "would", "state", "write",
}  # fmt: skip
_WORD = re.compile(r"[a-z][a-z0-9_/-]{2,}")
_CJK = re.compile(r"[\u4e00-\u9fff]+")


def _keywords(text: str) -> set[str]:
    low = re.sub(r"\[[^\]]*\]", lambda m: m.group(0)[1:-1], text.lower())
    words = {w.strip("/-_") for w in _WORD.findall(low)} - _STOP
    for run in _CJK.findall(low):
        words |= {run[k : k + 2] for k in range(len(run) - 1)}
    return {w for w in words if len(w) >= 2}


_NOTHING = {
    "no",
    "none",
    "n/a",
    "na",
    "not collected",
    "未采集",
    "没有",
    "无",
    "不知道",
    "i don't know",
    "no data",
}


def _says_nothing(sentence: str) -> bool:
    """A bare "no" / "not collected": honest, but nothing to put in a field."""
    core = re.sub(r"[\s\W_]+$|^[\s\W_]+", "", sentence.lower())
    return core in _NOTHING or len(core) < 2


def _field_label(text: str) -> str:
    """The field's name: the part before the colon (the bracketed hint is what the candidate fills)."""
    for sep in ("：", ":"):
        if sep in text:
            return text.split(sep, 1)[0].strip()
    return text.strip()


def _answers_by_group(rubric: Rubric, tr: TranscriptRound) -> tuple[str, dict[str, list[str]]]:
    """The project description, and each question group's answers (follow-up answers included)."""
    rnd = rubric.round("project-experience")
    group_of = {q.id: q.group for q in rnd.questions}
    text_of = {" ".join(txt.split()): q.id for q in rnd.questions for txt in (q.text.zh, q.text.en)}
    description: list[str] = []
    groups: dict[str, list[str]] = {}
    current: str | None = None
    for t in tr.turns:
        if t.role == "interviewer":
            extra = t.model_extra or {}
            qid = extra.get("question_id") or text_of.get(" ".join(t.text.split()))
            if isinstance(qid, str) and qid in group_of:
                current = group_of[qid]
            continue
        if not t.text.strip():
            continue
        if current is None:
            description.append(t.text.strip())
        else:
            groups.setdefault(current, []).append(t.text.strip())
    return "\n".join(description), groups


def fill_narrative(rubric: Rubric, tr: TranscriptRound, lang: Lang) -> FilledNarrative:
    """Each field gets the candidate's own sentence that best matches it, or the rubric's 'not collected'."""
    nar = rubric.narrative
    rnd = rubric.round("project-experience")
    order = list(dict.fromkeys(q.group for q in rnd.questions))
    description, by_group = _answers_by_group(rubric, tr)
    if not rnd.questions:  # no question structure: the whole round feeds every section
        by_group = {}
        description = tr.candidate_text()
    sections: list[NarrativeSectionFilled] = []
    for k, sec in enumerate(nar.sections):
        feeds = _SECTION_GROUPS[k] if k < len(_SECTION_GROUPS) else ()
        texts = [by_group.get(order[g], []) for g in feeds if g < len(order)]
        pool = [s for t in texts for a in t for s in sentences(a)]
        if k == 0 or not rnd.questions:
            pool = [*sentences(description), *pool]
        pool = [s for s in pool if not _says_nothing(s.text)]
        used: set[str] = set()
        fields: list[NarrativeField] = []
        for f in sec.fields:
            keys = _keywords(f.zh) | _keywords(f.en)
            best, best_hits = None, 0
            for s in pool:
                if s.text in used:
                    continue
                hits = sum(1 for w in keys if w in s.lower)
                if hits > best_hits:
                    best, best_hits = s.text, hits
            label = _field_label(f.get(lang))
            if best is None:
                fields.append(NarrativeField(label=label, text=nar.not_collected.get(lang), collected=False))
            else:
                used.add(best)
                fields.append(NarrativeField(label=label, text=best, collected=True))
        sections.append(NarrativeSectionFilled(id=sec.id, title=sec.title.get(lang), fields=fields))
    return FilledNarrative(sections=sections)


def shown_in(report: R, rubric: Rubric, lang: Lang) -> R:
    """The report as shown in the interface language `lang`: its own words there (headings, the risks, the
    next actions' sentences, the rounds' notes, the narrative's section titles, field labels and 'not
    collected'); a Practice session's notes worded to the candidate ("you"). The candidate's words and the
    rubric's items it names (missing evidence, the items of a next action) stay in the session's language, as
    stored; so do the notes of a report written before notes were kept in every language (except a session's
    own, `RoundTime.notes`)."""
    shown = report.model_copy(update={"language": lang, "rounds": _notes_in(report, lang)})
    if lang == report.language:
        return shown
    risks, actions = risks_and_actions(rubric, report.rounds, lang, items=report.language)
    update: dict[str, object] = {"risks": risks, "next_actions": actions}
    if not isinstance(report, SessionReport):
        return shown.model_copy(update=update)
    if report.narrative is not None:
        nar = rubric.narrative
        by_id = {sec.id: sec for sec in nar.sections}
        sections: list[NarrativeSectionFilled] = []
        for filled in report.narrative.sections:
            sec = by_id.get(filled.id)
            if sec is None or len(sec.fields) != len(filled.fields):  # another rubric's narrative: as it is
                sections.append(filled)
                continue
            fields = [
                NarrativeField(
                    label=_field_label(f.get(lang)),
                    text=x.text if x.collected else nar.not_collected.get(lang),
                    collected=x.collected,
                )
                for f, x in zip(sec.fields, filled.fields, strict=True)
            ]
            sections.append(NarrativeSectionFilled(id=filled.id, title=sec.title.get(lang), fields=fields))
        update["narrative"] = FilledNarrative(sections=sections)
    return shown.model_copy(update=update)


def _notes_in(report: Report, lang: Lang) -> list[RoundAssessment]:
    """The rounds with their notes in `lang`, a Practice session's worded to the candidate; in a report
    written before notes were kept in every language, the notes the session added (`RoundTime.notes`) in
    `lang` and the judge's as stored."""
    to_candidate = isinstance(report, SessionReport) and report.mode == "practice"
    rounds = [
        ra if ra.noted is None else ra.model_copy(update={"notes": ra.notes_in(lang, to_candidate=to_candidate)})
        for ra in report.rounds
    ]
    for t in report.timing if isinstance(report, SessionReport) else []:
        said = {n.text(report.language): n.text(lang) for n in t.notes}
        for k, ra in enumerate(rounds):
            if ra.noted is None and said and ra.round == t.round and any(n in said for n in ra.notes):
                rounds[k] = ra.model_copy(update={"notes": [said.get(n, n) for n in ra.notes]})
    return rounds


# ---------------------------------------------------------------- Markdown


def session_markdown(report: Report, rubric: Rubric, effective: Sequence[EffectiveScore] | None = None) -> str:
    """The session's report as Markdown; `effective`: its scores after human overrides (`report_markdown`)."""
    lang = report.language
    report = report.model_copy(update={"rounds": _notes_in(report, lang)})  # a Practice session's to "you"
    out = [report_markdown(report, rubric, effective).rstrip("\n"), ""]
    if not isinstance(report, SessionReport):
        return "\n".join(out)
    if report.timing:
        out.append(f"## {messages.t('report.session.timing', lang)}")
        for t in report.timing:
            title = rubric.round(t.round).title.get(lang)
            used = (
                messages.t("report.session.minutes", lang, m=f"{t.used_s / 60:.1f}")
                if t.used_s is not None
                else "—"
            )
            flag = f" — **{messages.t('report.session.over', lang)}**" if t.over_budget else ""
            budget = messages.t("report.session.minutes", lang, m=t.minutes)
            out.append(
                f"- {title}{messages.colon(lang)}{used} / {messages.t('report.session.budget', lang)} {budget}{flag}"
            )
        out.append("")
    if report.comparison and report.comparison.rounds:
        out.append(
            f"## {messages.t('report.session.comparison', lang, s=report.comparison.previous_session)}"
        )
        for rc in report.comparison.rounds:
            title = rubric.round(rc.round).title.get(lang)
            out += [
                f"### {title}{messages.colon(lang)}{rc.before_total} → {rc.after_total} ({rc.change:+d})",
                f"| | {messages.t('report.session.before', lang)} | {messages.t('report.session.after', lang)} | Δ |",
                "|---|---|---|---|",
            ]
            for dc in rc.dimensions:
                name = rubric.dimensions[dc.dimension].title.get(lang)
                out.append(f"| {name} | {dc.before} | {dc.after} | {dc.change:+d} |")
            out.append("")
    if report.narrative:
        out.append(f"## {messages.t('report.session.narrative', lang)}")
        for sec in report.narrative.sections:
            out.append(f"### {sec.title}")
            out += [f"- **{f.label}**{messages.colon(lang)}{f.text}" for f in sec.fields]
            out.append("")
    if report.candidate_questions:
        out += [
            f"## {messages.t('report.session.questions', lang)}",
            *[f"- {q}" for q in report.candidate_questions],
            "",
        ]
    return "\n".join(out) + "\n"
