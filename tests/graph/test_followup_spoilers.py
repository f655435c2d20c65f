"""No capacity follow-up hands the candidate a figure the round asks them to compute.

The round asks for the KV budget per rank, the weights per rank and the p95 request's KV; a follow-up that
names one of those numbers ("How would you confirm that 41.4 GiB is really available for KV?") gives the
answer away when it is asked before the candidate worked it out. Checked on the seed's numbers and on fresh
variants (`localise` rewrites the seed's figures), in both languages.
"""

from __future__ import annotations

import re

import pytest

from agent.graph.followups import localise
from agent.graph.state import PlannedRound
from agent.judge import capacity
from agent.rubric import Rubric

COMPUTED = (
    "weights_gib",
    "weights_per_rank_gib",
    "kv_budget_per_rank_gib",
    "request_kv_gib",
    "request_kv_per_rank_gib",
)


def _figures(ref: capacity.CapacityReference) -> set[str]:
    d = ref.model_dump()
    return {f"{d[k]:.1f}" for k in COMPUTED} | {str(ref.max_requests_kv_only)}


@pytest.mark.parametrize("seed", [None, 1, 7, 42])
def test_no_followup_names_a_computed_figure(rubric: Rubric, seed: int | None) -> None:
    plan = PlannedRound(round="capacity", minutes=rubric.round("capacity").minutes, variant_seed=seed)
    ref = capacity.reference() if seed is None else capacity.variant(seed).reference
    figures = _figures(ref)
    for f in rubric.round("capacity").followups:
        for lang in ("en", "zh"):
            text = localise(f.text.get(lang), plan)
            said = set(re.findall(r"\d+(?:\.\d+)?", text))
            assert not said & figures, f"{f.id} ({lang}) gives away {said & figures}: {text}"
