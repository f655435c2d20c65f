"""What the interviewer asks after an answer, besides closing the round: the listed follow-ups that probe
evidence still missing (`rank_followups`), a project question's trigger follow-up for what its answer
lacks (`question_missing`, `trigger_followup`), the hidden inputs an answer asks for (`matched_facts`),
each with the seed's round-3 numbers rewritten for a fresh variant (`localise`); and, in co-pilot, which
of them the interviewer chose (`chosen`) and which project question comes next (`next_question`). The
`choose` and `record` nodes (agent/graph/nodes.py) use them; what was asked already is `asked.py`'s.
"""

from __future__ import annotations

from typing import Any

from agent.contracts.report import RoundAssessment
from agent.graph.asked import asked_already, interviewer_turns, picked, said
from agent.graph.state import (
    GraphContext,
    InterviewState,
    PlannedRound,
    RoundRun,
    Suggestion,
    current_round,
    planned,
)
from agent.judge import capacity
from agent.judge.matching import match_cues, sentences
from agent.rubric.model import Lang, ProjectQuestion, Round

# The seed's round-3 quantities as written in rubric texts, and the variant quantity that replaces each.
_SEED_TEXTS: tuple[tuple[str, str], ...] = (
    ("41.4 GiB", "kv_budget_per_rank_gib"),
    ("18.6 GiB", "weights_per_rank_gib"),
    ("74.5 GiB", "weights_gib"),
)


def localise(text: str, plan: PlannedRound) -> str:
    """A follow-up or given fact that quotes the seed's numbers, rewritten for a fresh variant."""
    seed = plan["variant_seed"]
    if plan["round"] != "capacity" or seed is None:
        return text
    v = capacity.variant(seed)
    ref = v.reference.model_dump()
    for old, field in _SEED_TEXTS:
        text = text.replace(old, f"{ref[field]:.1f} GiB")
    p = v.params
    for old, new in ((" 12 GiB", f" {p.non_kv_gib:g} GiB"), (" 8 GiB", f" {p.reserve_gib:g} GiB")):
        text = text.replace(old, new)
    return text


def missing_ids(ra: RoundAssessment, ctx: GraphContext) -> list[str]:
    covered = ra.checklist.covered() if ra.checklist else set()
    return [i.id for i in ctx.rubric.evidence(ra.round) if i.id not in covered]


def rank_followups(
    ctx: GraphContext, rnd: Round, plan: PlannedRound, missing: list[str], asked: list[str], lang: Lang
) -> list[Suggestion]:
    """Listed follow-ups not asked yet: those probing still-missing evidence first (most items first)."""
    texts = {i.id: i.text.get(lang) for i in ctx.rubric.evidence(rnd.id)}
    miss = set(missing)
    ranked: list[tuple[int, int, Suggestion]] = []
    for k, f in enumerate(rnd.followups):
        if f.id in asked:
            continue
        hit = [texts.get(p, p) for p in f.probes if p in miss]
        ranked.append(
            (-len(hit), k, Suggestion(text=localise(f.text.get(lang), plan), why=hit, followup=f.id))
        )
    ranked.sort(key=lambda t: (t[0], t[1]))
    return [s for _, _, s in ranked]


def question_missing(ctx: GraphContext, rnd: Round, q: ProjectQuestion, answer: str) -> list[str]:
    """Evidence a project question asks for that its answer lacks (the cue matcher, as the embedded judge)."""
    items = {i.id: i for i in ctx.rubric.evidence(rnd.id)}
    sents = sentences(answer)
    return [e for e in q.evidence if e in items and not match_cues(items[e].cues, answer, sents).found]


def trigger_followup(q: ProjectQuestion, missing: list[str], lang: Lang) -> str | None:
    """The project question's follow-up for what the answer lacks: paired with the evidence when the lists align."""
    if not missing or not q.followup_if_missing:
        return None
    fus = q.followup_if_missing
    if len(fus) == len(q.evidence):
        picked = [fus[k].get(lang) for k, e in enumerate(q.evidence) if e in missing]
    else:
        picked = [f.get(lang) for f in fus]
    sep = "" if lang == "zh" else " "
    return sep.join(picked) if picked else None


def matched_facts(rnd: Round, answer: str, given: list[str]) -> list[str]:
    sents = sentences(answer)
    return [f.id for f in rnd.given if f.id not in given and match_cues(f.asked_by, answer, sents).found]


def chosen(
    ctx: GraphContext, state: InterviewState, text: str, run: RoundRun, started_from: str | None = None
) -> tuple[dict[str, Any], RoundRun]:
    """Co-pilot: which listed follow-up or question the interviewer chose, or their own question.

    A question that asks one of the suggestions on offer (`asked.picked`: its words, or the interviewer's
    own close to them, or edited from the one they picked, `started_from`) is that suggestion; a project question's follow-up is that question's before it
    is the listed follow-up of the same words, so the question counts as followed up."""
    lang = state["language"]
    rnd = current_round(ctx, state)
    plan = planned(state)
    offer = picked(state["suggestions"], text, started_from=started_from)
    norm = said(offer["text"] if offer else text)
    run = RoundRun(**run)
    for k, q in enumerate(rnd.questions):
        if said(q.text.get(lang)) == norm:
            turns = state["transcript"][-1].get("turns", [])
            run["question"], run["question_followed"], run["segment"] = k, False, len(turns)
            return {"question_id": q.id}, run
        if k == run["question"] and any(said(f.get(lang)) in norm for f in q.followup_if_missing):
            run["question_followed"] = True
            return {"question_id": q.id, "trigger": True}, run
    for f in rnd.followups:
        if said(localise(f.text.get(lang), plan)) == norm:
            run["followups"] = [*run["followups"], f.id]
            return {"followup": f.id}, run
    return {"own": True}, run


def next_question(qs: list[ProjectQuestion], current: int, tr: dict[str, Any], lang: Lang) -> int | None:
    """Co-pilot: the index of the round's next question not asked yet (by its id on a turn, or its words),
    after the current one first, then one the interviewer skipped; None once every question was asked."""
    turns = [t for t in tr.get("turns", []) if t.get("role") == "interviewer"]
    ids = {t.get("question_id") for t in turns if not t.get("trigger")}
    said_ = interviewer_turns(tr)
    order = [*range(current + 1, len(qs)), *range(0, max(current, 0))]
    return next(
        (k for k in order if qs[k].id not in ids and not asked_already(qs[k].text.get(lang), said_)), None
    )
