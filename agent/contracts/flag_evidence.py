"""What in the answer raised each of a round's flags, as the scoring recorded it in the round's checklist
(`Checks` in `agent/contracts/checklist.py`): the verbatim sentence, number or path of the answer, a wrong
claim's sentence with the claim in the rubric's words, or the capacity checker's name for a mistake. Nothing
here is written for the occasion: a flag the answer raises by what it leaves out (`ABSENT`) has no passage,
and a flag raised by the scores or by the judge (`accuracy_1`, `judge_fallback`) none either.

The round-finished banner in Practice shows it beside each flag (`agent/ui/views/banner.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.contracts.report import RoundAssessment
from agent.rubric.model import Text

ABSENT: frozenset[str] = frozenset({"happy_path_only", "no_alternative"})
"""Flags raised by what the answer does not say: there is no passage to quote."""

SHOWN = 2
"""At most this many passages a flag."""


@dataclass(frozen=True)
class Evidence:
    """One passage behind a flag."""

    kind: Literal["quote", "path", "mistake"]
    text: str
    """`quote` and `path`: verbatim from the answer; `mistake`: the capacity checker's (English) name of it."""
    claim: Text | None = None
    """For a wrong claim's sentence: the claim, in the rubric's words."""


def _distinct(texts: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for x in texts:
        key = " ".join(x.split())
        if key and key not in seen:
            seen.add(key)
            out.append(x)
    return out


def flag_evidence(ra: RoundAssessment, flag: str) -> list[Evidence]:
    """The passages of the round's answer that raised `flag` (at most `SHOWN`), as its checklist records them;
    none when the round has no checklist (a report of an older version) or the flag has no passage."""
    cl = ra.checklist
    if cl is None:
        return []
    c = cl.checks
    out: list[Evidence] = []
    if flag == "misconception":  # the flag is the wrong mechanisms' (the claims that cost accuracy)
        out = [Evidence("quote", m.quote, m.claim) for m in c.misconceptions if "accuracy" in m.dimensions]
    elif flag == "nonexistent_path":
        wrong = [p.cited for p in c.paths if p.status in ("missing", "symbol_missing", "moved")]
        out = [Evidence("path", p) for p in _distinct(wrong)]
    elif flag == "unlabeled_numbers":
        unlabeled = set(c.unlabeled_numbers)
        said = [n.sentence for n in c.numbers if n.label is None and n.text in unlabeled]
        out = [Evidence("quote", s) for s in _distinct(said)]
    elif flag == "fabricated_metrics":
        out = [Evidence("quote", s) for s in _distinct(c.fabricated)]
    elif flag == "prompt_injection":
        out = [Evidence("quote", s) for s in _distinct(c.injection)]
    elif flag == "mutation_before_evidence" and c.mutation_before_evidence:
        out = [Evidence("quote", c.mutation_before_evidence)]
    elif flag == "unit_error" and c.capacity is not None:
        out = [Evidence("mistake", e) for e in c.capacity.errors]
    return out[:SHOWN]
