"""One answer through the judge: checks, checklist, verification, score. Live and batch both call this."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.contracts.checklist import Checklist, MisconceptionFinding
from agent.contracts.report import JudgeInfo, RoundAssessment
from agent.judge import capacity
from agent.judge.answer import Answer
from agent.judge.base import Fill, Judge, JudgeUnavailable
from agent.judge.checks import PathChecker, injected, run_checks
from agent.judge.embedded import EmbeddedJudge
from agent.judge.matching import quote_in
from agent.judge.misconceptions import find_misconceptions
from agent.judge.questions import QuestionMatch, evidence_scope, match_question
from agent.judge.scoring import score_round
from agent.judge.sources import Sources, prompt_text, refs
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId

if TYPE_CHECKING:
    from agent.knowledge import Snippet


def verify(fill: Fill, answer: str) -> Fill:
    """Every quote must occur verbatim (whitespace aside) in the answer, or its item is not covered."""
    items = [
        i
        if not i.covered or (i.quote and quote_in(i.quote, answer))
        else i.model_copy(update={"covered": False, "note": "quote not found verbatim in the answer"})
        for i in fill.items
    ]
    strong = [
        s
        if not s.present or (s.quote and quote_in(s.quote, answer))
        else s.model_copy(update={"present": False})
        for s in fill.strong
    ]
    # a weak signal the model reports stays reported only with a real quote, too
    weak = [
        s
        if not s.present or (s.quote and quote_in(s.quote, answer))
        else s.model_copy(update={"present": False})
        for s in fill.weak
    ]
    return Fill(items=items, strong=strong, weak=weak, holistic=fill.holistic)


def without_wrong_claims(fill: Fill, wrong: Sequence[MisconceptionFinding]) -> Fill:
    """An item whose quote holds a sentence that asserts a wrong mechanism (or lies inside one) is not covered:
    the words of "the seed makes it reproducible on any batch" would otherwise cover the very item it gets wrong,
    and the report would show the wrong claim as evidence. Either judge's quotes are held to this."""
    bad = [m.quote for m in wrong if "accuracy" in m.dimensions]
    if not bad:
        return fill

    def holds(quote: str) -> bool:
        return any(quote_in(b, quote) or quote_in(quote, b) for b in bad)

    items = [
        i.model_copy(update={"covered": False, "note": "the quote asserts a wrong claim"})
        if i.covered and i.quote and holds(i.quote)
        else i
        for i in fill.items
    ]
    return Fill(items=items, strong=fill.strong, weak=fill.weak, holistic=fill.holistic)


def _scope(
    rubric: Rubric, round_id: RoundId, matches: list[QuestionMatch | None], outside: set[int]
) -> set[str] | None:
    """Every question outside the rubric: only the shared items (what any answer shows) are judged."""
    if matches and len(outside) == len(matches):
        return {e.id for e in rubric.common.evidence}
    return evidence_scope(rubric, round_id, matches)


def given_text(rubric: Rubric, round_id: RoundId, params: capacity.CapacityParams | None) -> str:
    """The round's prompt in both languages (a fresh round-3 variant's own when one was asked), and the prompts
    of the rounds its own rubric names in `givens_from` (the self-check asks about the design round's SLOs)."""
    if round_id == "capacity" and params is not None:
        return " ".join(f"{v:g}" for v in params.model_dump().values() if isinstance(v, (int, float)))
    rounds = [round_id, *rubric.round(round_id).givens_from]
    return " ".join(rubric.round(r).prompt.get(lang) for r in rounds for lang in ("zh", "en"))


def topic_terms(rubric: Rubric, round_id: RoundId) -> tuple[str, ...]:
    """The words of the round's evidence cues (plain terms of 5+ letters, 3+ characters in Chinese: short
    ones such as "team" or 所以, and `topic_stopwords`, are everyday words): a sentence that uses none of them is not about the
    round's subject."""
    key = (id(rubric), round_id)
    if key not in _TOPIC or _TOPIC[key][0] is not rubric:  # the rubric kept: its id is never reused
        stop = {w.lower() for w in rubric.lexicon.topic_stopwords}
        words = {
            t
            for item in rubric.evidence(round_id)
            for group in item.cues.groups
            for t in group
            if not t.startswith("/")
            and len(t.strip()) >= (5 if t.isascii() else 3)
            and t.strip().lower() not in stop
        }
        _TOPIC[key] = (rubric, tuple(sorted(words)))
    return _TOPIC[key][1]


_TOPIC: dict[tuple[int, str], tuple[Rubric, tuple[str, ...]]] = {}


def assess_answer(
    rubric: Rubric,
    round_id: RoundId,
    answer: str | Answer,
    lang: Lang,
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    path_checker: PathChecker | None = None,
    capacity_params: capacity.CapacityParams | None = None,
    sources: Sources | None = None,
) -> RoundAssessment:
    """Assess one round's answer. A judge that fails falls back to the embedded judge, flagged.

    `answer` is the round's text, or an `Answer` with each turn and the question it replies to.

    With `sources`, snippets of the pinned vLLM source go to the judge and into the assessment,
    and cited `file.py:Symbol` paths are checked against the index's symbols.
    """
    judge = judge or EmbeddedJudge()
    info = info or JudgeInfo(kind="embedded", model=judge.model, rubric_version=rubric.version)
    whole = Answer.of(answer)
    text = whole.text
    all_sents = list(whole.sents)
    addressed = injected(all_sents, rubric.lexicon, text)
    inj = {s.idx for s in addressed}
    clean = [s for s in all_sents if s.idx not in inj]
    found: list[Snippet] = []
    if sources is not None:
        path_checker = path_checker or sources.path_checker()
        # retrieval reads what the judge reads: not the sentences addressed to a grader
        found = sources.for_answer(rubric, round_id, " ".join(s.text for s in clean))
        if sources.commit:
            info = info.model_copy(update={"index_commit": sources.commit})
    hp = rubric.lexicon.happy_path
    common = {e.id: e.cues for e in rubric.common.evidence}
    checks = run_checks(
        round_id,
        text,
        rubric.lexicon,
        path_checker=path_checker,
        capacity_params=capacity_params,
        sents=all_sents,
        failure_cues=common.get(hp.failure_item or ""),
        rollback_cues=common.get(hp.rollback_item or ""),
        given_text=given_text(rubric, round_id, capacity_params),
        topic=topic_terms(rubric, round_id),
        injected_sents=addressed,
    )
    checks.misconceptions = find_misconceptions(rubric, round_id, clean)
    matches = [match_question(rubric, round_id, q) for q in whole.questions]
    outside = {k for k, m in enumerate(matches) if m is not None and m.kind == "outside"}
    if outside and len(outside) < len(matches):
        # an answer to a question the rubric does not ask is not scored against evidence for another one
        clean = [s for s in clean if s.turn not in outside]
    try:
        fill = judge.fill(rubric, round_id, text, lang, checks, clean, snippets=prompt_text(found))
        served = getattr(fill, "served_by", None)  # a judge pool says which server answered each part
        if served:
            info = info.model_copy(update={"replicas": list(served)})
    except JudgeUnavailable as e:
        fill = EmbeddedJudge().fill(rubric, round_id, text, lang, checks, clean)
        info = info.model_copy(update={"fallback": True, "fallback_reason": str(e)[:300]})
    fill = without_wrong_claims(verify(fill, text), checks.misconceptions)
    checklist = Checklist(
        round=round_id,
        language=lang,
        items=fill.items,
        strong=fill.strong,
        weak=fill.weak,
        checks=checks,
        holistic=fill.holistic,
        scope=sorted(scope) if (scope := _scope(rubric, round_id, matches, outside)) is not None else None,
        outside=[whole.questions[k] for k in sorted(outside)],
    )
    ra = score_round(rubric, checklist, info, lang)
    ra.snippets = refs(found)
    if sources is not None and sources.note:
        ra = ra.with_notes([sources.note], lang)
    return ra
