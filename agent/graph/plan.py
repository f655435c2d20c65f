"""Interview plans: which rounds a session runs, in what order, with what time budget.

- `full`: the five rounds with the seed's minutes (5 + 15 + 15 + 30 + 20), then five minutes of
  the candidate's own questions;
- a round id (`concepts`, `source-trace`, `capacity`, `system-design`, `incident`, `project-experience`);
- `project`: the project-experience interview (seed 004): the candidate describes the project first,
  then the eleven questions, each with its trigger follow-up when the answer lacks the evidence;
- `redo SESSION`: the two weakest rounds of a previous session, compared dimension by dimension
  with that attempt (seed 000 §4).

Add the word `fresh` (`full fresh`, `capacity fresh`) for a fresh variant of the round-3 numbers;
a redo always uses a fresh variant, since the candidate has seen the numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.contracts.report import RoundAssessment
from agent.graph.errors import PlanError
from agent.graph.state import PlannedRound, Previous
from agent.rubric.loader import Rubric
from agent.rubric.model import ROUND_IDS, RoundId

FULL_MOCK: tuple[RoundId, ...] = ("concepts", "source-trace", "capacity", "system-design", "incident")
CANDIDATE_QUESTIONS_MINUTES = 5
REDO_ROUNDS = 2

PreviousLookup = Callable[[str], list[dict[str, Any]]]
"""session id -> the RoundAssessment JSON of its scored rounds (raises when the session is not visible)."""


@dataclass(frozen=True)
class Plan:
    name: str
    rounds: list[PlannedRound]
    candidate_questions: bool = False
    previous: Previous | None = None


def variant_seed(session_id: str, round_id: str = "capacity") -> int:
    """A reproducible seed for a fresh round-3 variant, from the session id."""
    return int(hashlib.sha256(f"{session_id}:{round_id}".encode()).hexdigest()[:8], 16)


def _planned(rubric: Rubric, rid: RoundId, session_id: str, fresh: bool) -> PlannedRound:
    rnd = rubric.round(rid)
    seed = variant_seed(session_id, rid) if fresh and rid == "capacity" else None
    return PlannedRound(round=rid, minutes=rnd.minutes, variant_seed=seed)


def weakest(assessments: list[RoundAssessment], n: int = REDO_ROUNDS) -> list[RoundAssessment]:
    """The n weakest rounds: lowest total, then lowest weighted score, then earliest."""
    ranked = sorted(
        enumerate(assessments),
        key=lambda p: (p[1].total, p[1].weighted if p[1].weighted is not None else p[1].total, p[0]),
    )
    return [a for _, a in ranked[:n]]


def usage() -> str:
    return (
        "full | "
        + " | ".join(ROUND_IDS)
        + " | project | redo SESSION_ID  (add 'fresh' for new round-3 numbers)"
    )


def make_plan(spec: str, rubric: Rubric, session_id: str, previous: PreviousLookup | None = None) -> Plan:
    words = spec.replace(":", " ").split()
    if not words:
        raise PlanError(f"empty plan; choose one of: {usage()}")
    fresh = "fresh" in words[1:]
    head = words[0].lower()
    rest = [w for w in words[1:] if w != "fresh"]
    if head == "full" and not rest:
        rounds = [_planned(rubric, rid, session_id, fresh) for rid in FULL_MOCK]
        return Plan(name="full" + (" fresh" if fresh else ""), rounds=rounds, candidate_questions=True)
    if head in ("project", "project-experience") and not rest:
        return Plan(name="project", rounds=[_planned(rubric, "project-experience", session_id, False)])
    if head in ROUND_IDS and not rest:
        rid: RoundId = next(r for r in ROUND_IDS if r == head)
        name = rid + (" fresh" if fresh and rid == "capacity" else "")
        return Plan(name=name, rounds=[_planned(rubric, rid, session_id, fresh)])
    if head == "redo":
        if len(rest) != 1:
            raise PlanError("redo needs the id of a previous session: --plan 'redo SESSION_ID'")
        if previous is None:
            raise PlanError("redo needs access to previous sessions")
        prev_id = rest[0]
        done = [RoundAssessment.model_validate(a) for a in previous(prev_id)]
        if not done:
            raise PlanError(f"session {prev_id} has no scored round yet; nothing to redo")
        picked = {a.round for a in weakest(done)}
        order = [a.round for a in done]
        chosen = [rid for rid in dict.fromkeys(order) if rid in picked]
        rounds = [_planned(rubric, rid, session_id, True) for rid in chosen]
        prev = Previous(
            session=prev_id,
            rounds={
                a.round: a.model_dump(mode="json", exclude={"checklist"}) for a in done if a.round in picked
            },
        )
        return Plan(name=f"redo {prev_id}", rounds=rounds, previous=prev)
    raise PlanError(f"unknown plan {spec!r}; choose one of: {usage()}")
