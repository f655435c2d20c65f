"""Which of the rubric's questions an interviewer's question is: the round prompt, a listed follow-up,
one of the project round's questions, or none (a question outside the rubric).

Matching is by character bigrams of the folded text, so it works for Chinese and English and for a
question paraphrased or translated from the rubric's wording. An answer is judged against the evidence
its question asks for: a project answer to "what broke" is not scored on evidence for "why vLLM".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from agent.judge.matching import fold
from agent.rubric.loader import Rubric
from agent.rubric.model import Text

MATCH_MIN = 0.22
"""Bigram overlap (Dice) from which a question is taken to be the rubric's question."""

QuestionKind = Literal["prompt", "followup", "project", "outside"]


@dataclass(frozen=True)
class QuestionMatch:
    kind: QuestionKind
    id: str | None
    similarity: float
    evidence: tuple[str, ...] = ()
    """ids of the evidence items the matched question asks for (project questions and follow-ups)"""


_WORD = re.compile(r"[a-z0-9_]+(?:[.'/-][a-z0-9_]+)*")
_CJK = re.compile(r"[\u3400-\u9fff]+")
_STOP = frozenset(
    ["the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "with", "is", "are", "be", "how", "what", "why", "which", "when", "does", "do", "you", "your", "it", "its", "this", "that", "from", "by", "as", "at", "into", "than", "then", "can", "could", "would", "should", "if", "not", "no", "we", "our", "i", "my", "me", "they", "them", "their", "there"]
)


def _features(text: str) -> frozenset[str]:
    """Content words of Latin text and character bigrams of Chinese: what two phrasings of a question share."""
    t = fold(text)
    words = {w for w in _WORD.findall(t) if w not in _STOP and len(w) > 1}
    grams = {run[i : i + 2] for run in _CJK.findall(t) for i in range(max(1, len(run) - 1))}
    return frozenset(words | grams)


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


@dataclass(frozen=True)
class _Known:
    kind: QuestionKind
    id: str
    grams: tuple[frozenset[str], ...]
    evidence: tuple[str, ...]


def _texts(t: Text) -> tuple[frozenset[str], ...]:
    return (_features(t.zh), _features(t.en))


_CACHE: dict[tuple[str, str], tuple[_Known, ...]] = {}


def _known(rubric: Rubric, round_id: str) -> tuple[_Known, ...]:
    key = (rubric.version, round_id)
    if key in _CACHE:
        return _CACHE[key]
    rnd = rubric.round(round_id)
    out = [_Known("prompt", rnd.id, _texts(rnd.prompt), ())]
    if rnd.given:
        # the interviewer's reply with the inputs a candidate asked for (any of them, in any number) goes on
        # with the round's own question: one known text holding every input, which such a reply is contained in
        together = (frozenset().union(*(_texts(f.text)[k] for f in rnd.given)) for k in (0, 1))
        out.append(_Known("prompt", rnd.id, tuple(together), ()))
    out += [_Known("followup", f.id, _texts(f.text), tuple(f.probes)) for f in rnd.followups]
    out += [_Known("project", q.id, _texts(q.text), tuple(q.evidence)) for q in rnd.questions]
    _CACHE[key] = tuple(out)
    return _CACHE[key]


def match_question(rubric: Rubric, round_id: str, question: str) -> QuestionMatch | None:
    """The rubric question `question` is, or kind "outside"; None when there is no question text."""
    grams = _features(question)
    if not grams:
        return None
    best_sim, best = 0.0, None
    for k in _known(rubric, round_id):
        sim = max(_dice(grams, g) for g in k.grams)
        # a long prompt shares fewer words with a short restatement of it: containment counts too
        sim = max(sim, max((len(grams & g) / len(grams) for g in k.grams), default=0.0) * 0.9)
        if sim > best_sim:
            best_sim, best = sim, k
    if best is None or best_sim < MATCH_MIN:
        return QuestionMatch("outside", None, round(best_sim, 3))
    return QuestionMatch(best.kind, best.id, round(best_sim, 3), best.evidence)


def evidence_scope(rubric: Rubric, round_id: str, matches: Iterable[QuestionMatch | None]) -> set[str] | None:
    """The evidence items a round is judged on: for a project round whose questions are known, what those
    questions ask for plus the items no question claims (and the shared ones); otherwise every item (None)."""
    rnd = rubric.round(round_id)
    if not rnd.questions:
        return None
    asked = [m for m in matches if m is not None and m.kind == "project"]
    if not asked:
        return None
    claimed = {e for q in rnd.questions for e in q.evidence}
    every = {i.id for i in rubric.evidence(round_id)}
    return {e for m in asked for e in m.evidence} | (every - claimed)
