"""Round 3 re-derived: the checker's reference, step by step with units, beside the candidate's values
and where the units failed to close."""

from __future__ import annotations

import math

from agent.contracts.checklist import Checklist
from agent.contracts.transcript import TranscriptRound
from agent.judge import capacity
from agent.package.model import Formulas, FormulaStep
from agent.package.question import capacity_params


def _g(x: float) -> str:
    """A value in a substituted formula: whole numbers in full, others to 6 significant digits."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e18 else f"{x:.6g}"


def derivation(p: capacity.CapacityParams) -> list[tuple[str, str, str, str, float]]:
    """(quantity, unit, formula, substituted, reference) for each step of the checker's reference."""
    r = capacity.reference(p)
    replica = p.kv_heads < p.tp
    return [
        ("weights_bytes", "B", "params × weight_bytes", f"{_g(p.params)} × {_g(p.weight_bytes)} B",
         r.weights_bytes),
        ("weights_gib", "GiB", "weights_bytes / 2^30 B/GiB", f"{_g(r.weights_bytes)} B / 2^30", r.weights_gib),
        ("weights_per_rank_gib", "GiB per rank", "weights_gib / tp", f"{_g(r.weights_gib)} GiB / {p.tp}",
         r.weights_per_rank_gib),
        ("kv_budget_per_rank_gib", "GiB per rank", "gpu_gib − weights_per_rank_gib − non_kv_gib − reserve_gib",
         f"{_g(p.gpu_gib)} − {_g(r.weights_per_rank_gib)} − {_g(p.non_kv_gib)} − {_g(p.reserve_gib)} GiB",
         r.kv_budget_per_rank_gib),
        ("kv_bytes_per_token", "B per token", "2 (K+V) × layers × kv_heads × head_dim × kv_bytes",
         f"2 × {p.layers} × {p.kv_heads} × {p.head_dim} × {_g(p.kv_bytes)} B", r.kv_bytes_per_token),
        ("request_tokens", "tokens", "input_tokens + output_tokens", f"{p.input_tokens} + {p.output_tokens}",
         float(r.request_tokens)),
        ("request_kv_bytes", "B per request", "kv_bytes_per_token × request_tokens",
         f"{_g(r.kv_bytes_per_token)} B × {r.request_tokens}", r.request_kv_bytes),
        ("request_kv_gib", "GiB per request", "request_kv_bytes / 2^30 B/GiB",
         f"{_g(r.request_kv_bytes)} B / 2^30", r.request_kv_gib),
        ("kv_heads_per_rank", "KV heads per rank",
         "1 (a replica per rank)" if replica else "kv_heads / tp",
         "1" if replica else f"{p.kv_heads} / {p.tp}", r.kv_heads_per_rank),
        ("request_kv_per_rank_gib", "GiB per request per rank",
         "request_kv_gib × kv_heads_per_rank / kv_heads",
         f"{_g(r.request_kv_gib)} GiB × {_g(r.kv_heads_per_rank)} / {p.kv_heads}", r.request_kv_per_rank_gib),
        ("max_requests_kv_only", "requests", "floor(kv_budget_per_rank_gib / request_kv_per_rank_gib)",
         f"floor({_g(r.kv_budget_per_rank_gib)} / {_g(r.request_kv_per_rank_gib)})",
         float(r.max_requests_kv_only)),
    ]  # fmt: skip


_CHECKED_UNIT = {
    "weights_gib": "gib-like",
    "weights_per_rank_gib": "gib-like",
    "kv_budget_per_rank_gib": "gib-like",
    "kv_bytes_per_token": "bytes",
    "request_kv_gib": "gib-like",
    "request_kv_per_rank_gib": "gib-like",
    "max_requests_kv_only": "count",
}
"""The quantities the checker reads from an answer, and the kind of number that can state each."""

_SIGNATURE_QUANTITY = {
    "weights_per_rank": "weights_per_rank_gib",
    "kv_budget": "kv_budget_per_rank_gib",
    "budget": "kv_budget_per_rank_gib",
    "max_requests": "max_requests_kv_only",
    "kv_bytes_per_token": "kv_bytes_per_token",
    "request_kv": "request_kv_gib",
}
"""The checker's error signatures (by the first word of their name) and the quantity each one misstates."""


def _fits(q: capacity.Quantity, unit: str) -> bool:
    return q.unit == unit or (unit == "count" and q.unit == "")


def _closest(qs: list[capacity.Quantity], unit: str, value: float) -> capacity.Quantity | None:
    best: tuple[float, capacity.Quantity] | None = None
    for q in qs:
        if not _fits(q, unit) or value == 0:
            continue
        candidates = [q.value]
        if q.exact_unit.lower() == "gb":
            candidates.append(q.value * capacity.GB / capacity.GIB)
        rel = min(abs(c - value) / abs(value) for c in candidates)
        if best is None or rel < best[0]:
            best = (rel, q)
    return best[1] if best is not None and best[0] <= 0.15 else None


def formulas(tr: TranscriptRound, cl: Checklist) -> Formulas | None:
    finding = cl.checks.capacity
    if finding is None:
        return None
    p = capacity_params(tr.variant_seed)
    pairs = tr.answer_turns()
    text = pairs[0][1] if pairs else ""
    qs = capacity.read_quantities(text)
    shown: dict[str, tuple[str, str]] = {}  # quantity -> (stated, the mistake)
    if finding.errors:
        r = capacity.reference(p)
        for kind, t in capacity._error_signatures(p, r):
            name = capacity.ERROR_NAMES[kind]
            qty = _SIGNATURE_QUANTITY.get(t.name.split(" ")[0])
            if name not in finding.errors or qty is None or qty in shown:
                continue
            q = next(
                (q for q in qs if _fits(q, t.unit) and math.isclose(q.value, t.value, rel_tol=0.01)), None
            )
            if q is not None:
                shown[qty] = (q.raw, name)
    slips = {s.split(":", 1)[0]: s for s in finding.off}
    steps: list[FormulaStep] = []
    for qty, unit, formula, substituted, ref in derivation(p):
        kind_unit = _CHECKED_UNIT.get(qty)
        stated: str | None = None
        error: str | None = None
        if kind_unit is None:
            status = "not_checked"
        elif qty in shown:
            status, (stated, error) = "unit_error", shown[qty]
        elif qty in finding.matched:
            status = "matched"
            q = _closest(qs, kind_unit, ref)
            stated = q.raw if q else None
        elif qty in slips:
            status = "slip"
            stated = slips[qty].split("stated ", 1)[-1].split(", reference", 1)[0]
        else:
            status = "not_stated"
        steps.append(
            FormulaStep(
                quantity=qty,
                unit=unit,
                formula=formula,
                substituted=substituted,
                reference=ref,
                candidate=stated,
                status=status,  # type: ignore[arg-type]
                error=error,
            )
        )
    return Formulas(
        round=tr.round,
        variant_seed=tr.variant_seed,
        verdict=finding.verdict,
        answer=text,
        steps=steps,
        unit_errors=list(finding.errors),
        slips=list(finding.off),
    )
