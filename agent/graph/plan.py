"""Interview plans: which rounds a session runs, in what order, with what time budget.

- `full`: the five rounds with the seed's minutes (5 + 15 + 15 + 30 + 20), then five minutes of
  the candidate's own questions;
- a round id (`concepts`, `source-trace`, `capacity`, `system-design`, `incident`, `project-experience`,
  `self-check`);
- `project`: the project-experience interview (docs/interview.md): the candidate describes the project first,
  then the eleven questions, each with its trigger follow-up when the answer lacks the evidence;
- `self-check`: the seed's four self-check questions (自检) on their own, graded like any round;
- `redo SESSION`: the two weakest interview rounds of a previous session, compared dimension by
  dimension with that attempt (docs/interview.md).

Add the word `fresh` (`full fresh`, `capacity fresh`) for a fresh variant of the round-3 numbers;
a redo always uses a fresh variant, since the candidate has seen the numbers. Add the word
`self-check` (`full self-check`, `capacity self-check`, `redo SESSION self-check`) for the self-check
round after the plan's last round (before the candidate's own questions in `full`).
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
from agent.rubric.model import ROUND_IDS, SELF_CHECK, RoundId

FULL_MOCK: tuple[RoundId, ...] = ("concepts", "source-trace", "capacity", "system-design", "incident")
ADD_SELF_CHECK = SELF_CHECK
"""The plan word that adds the self-check round after a plan's rounds (`full self-check`)."""
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


def with_self_check(plan: str) -> tuple[str, bool]:
    """A plan name without the added self-check round, and whether it adds it:
    "full self-check" -> ("full", True); "self-check" (the round alone) -> ("self-check", False)."""
    words = plan.split()
    if len(words) > 1 and ADD_SELF_CHECK in words[1:]:
        return " ".join(w for w in words if w != ADD_SELF_CHECK), True
    return plan, False


def weakest(assessments: list[RoundAssessment], n: int = REDO_ROUNDS) -> list[RoundAssessment]:
    """The n weakest rounds: lowest total, then lowest weighted score, then earliest. The self-check is
    left out when the session has interview rounds: a redo repeats the interview (docs/interview.md)."""
    interview = [a for a in assessments if a.round != SELF_CHECK]
    assessments = interview or assessments
    ranked = sorted(
        enumerate(assessments),
        key=lambda p: (p[1].total, p[1].weighted if p[1].weighted is not None else p[1].total, p[0]),
    )
    return [a for _, a in ranked[:n]]


def usage() -> str:
    return (
        "full | "
        + " | ".join(ROUND_IDS)
        + " | project | redo SESSION_ID  (add 'fresh' for new round-3 numbers, 'self-check' for the"
        " self-check round at the end: 'full self-check')"
    )


def make_plan(spec: str, rubric: Rubric, session_id: str, previous: PreviousLookup | None = None) -> Plan:
    words = spec.replace(":", " ").split()
    if not words:
        raise PlanError(f"empty plan; choose one of: {usage()}")
    if words[0].lower() != ADD_SELF_CHECK and ADD_SELF_CHECK in (w.lower() for w in words[1:]):
        base = make_plan(
            " ".join(w for w in words if w.lower() != ADD_SELF_CHECK), rubric, session_id, previous
        )
        added = [] if any(r["round"] == SELF_CHECK for r in base.rounds) else [SELF_CHECK]
        return Plan(
            name=f"{base.name} {ADD_SELF_CHECK}",
            rounds=[*base.rounds, *(_planned(rubric, rid, session_id, False) for rid in added)],
            candidate_questions=base.candidate_questions,
            previous=base.previous,
        )
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
