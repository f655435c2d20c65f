"""Round 3: the capacity calculator, the checker of an answer's numbers, and fresh variants.

Units are explicit: bytes are bytes, GiB is 2**30 bytes, GB is 10**9 bytes. The checker reads
the numbers an answer states and says whether it got the reference quantities right, slipped
on arithmetic, or made a unit or sharding concept error (GB for GiB, query heads for KV heads,
layers multiplied twice, the whole-model KV compared with a per-rank budget).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from agent.config import repo_root
from agent.contracts.checklist import CapacityFinding
from agent.judge.numerals import with_digits
from agent.rubric.model import Lang

GIB = 2**30
GB = 10**9


class CapacityParams(BaseModel):
    """The round's inputs (题设). Defaults are the seed's numbers."""

    params: float = Field(default=40e9, gt=0, description="parameter count")
    weight_bytes: float = Field(default=2, gt=0, description="bytes per weight (BF16 = 2)")
    layers: int = Field(default=60, gt=0)
    kv_heads: int = Field(default=8, gt=0)
    head_dim: int = Field(default=128, gt=0)
    kv_bytes: float = Field(default=2, gt=0, description="bytes per KV element (BF16 = 2)")
    tp: int = Field(default=4, gt=0)
    gpu_gib: float = Field(default=80, gt=0)
    non_kv_gib: float = Field(default=12, ge=0)
    reserve_gib: float = Field(default=8, ge=0)
    input_tokens: int = Field(default=3000, gt=0)
    output_tokens: int = Field(default=1000, ge=0)


class CapacityReference(BaseModel):
    """Reference values, each labelled 'derived' from the given parameters."""

    weights_bytes: float
    weights_gib: float
    weights_per_rank_gib: float
    kv_budget_per_rank_gib: float
    kv_bytes_per_token: float
    request_tokens: int
    request_kv_bytes: float
    request_kv_gib: float
    kv_heads_per_rank: float
    request_kv_per_rank_gib: float
    max_requests_kv_only: int


def reference(p: CapacityParams | None = None) -> CapacityReference:
    p = p or CapacityParams()
    weights_bytes = p.params * p.weight_bytes
    weights_gib = weights_bytes / GIB
    per_rank = weights_gib / p.tp
    budget = p.gpu_gib - per_rank - p.non_kv_gib - p.reserve_gib
    per_token = 2 * p.layers * p.kv_heads * p.head_dim * p.kv_bytes
    tokens = p.input_tokens + p.output_tokens
    req_bytes = per_token * tokens
    # KV heads shard evenly when kv_heads >= tp; with fewer KV heads than ranks each rank keeps a replica.
    heads_per_rank = p.kv_heads / p.tp if p.kv_heads >= p.tp else 1.0
    req_rank_gib = req_bytes / GIB * heads_per_rank / p.kv_heads
    max_req = math.floor(budget / req_rank_gib) if budget > 0 else 0
    return CapacityReference(
        weights_bytes=weights_bytes,
        weights_gib=weights_gib,
        weights_per_rank_gib=per_rank,
        kv_budget_per_rank_gib=budget,
        kv_bytes_per_token=per_token,
        request_tokens=tokens,
        request_kv_bytes=req_bytes,
        request_kv_gib=req_bytes / GIB,
        kv_heads_per_rank=heads_per_rank,
        request_kv_per_rank_gib=req_rank_gib,
        max_requests_kv_only=max_req,
    )


# ---------------------------------------------------------------- reading numbers from an answer

_NUM = re.compile(
    r"(?<![A-Za-z0-9_.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s*(?:[eE]|[×x*]\s*10\^?)\s*([+-]?\d+))?"
    r"\s*(gibibytes?|gigabytes?|gigs?|mebibytes?|megabytes?|kibibytes?|kilobytes?|tebibytes?|terabytes?"
    r"|个\s?G(?:iB|B)?|GiB|GB|G|MiB|MB|M|KiB|KB|K|TiB|TB|bytes?|B|字节|requests?|reqs?|个请求|个|并发|concurrent)?",
)
#: unit words and 个G as said: the unit they stand for
_SAID_UNITS = {
    "gibibyte": "gib", "gigabyte": "gb", "gig": "gib", "mebibyte": "mib", "megabyte": "mb",
    "kibibyte": "kib", "kilobyte": "kb", "tebibyte": "tib", "terabyte": "tb",
}  # fmt: skip


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str  # "gib-like", "bytes", "count", ""
    raw: str
    exact_unit: str


_IN_LIST = re.compile(r"/\d")
_IN_LIST_END = re.compile(r"\d/$")


def _to_float(num: str, exp: str | None) -> float:
    v = float(num.replace(",", ""))
    if exp:
        v *= 10 ** int(exp)
    return v


def read_quantities(text: str) -> list[Quantity]:
    """Numbers with units, normalised: memory to GiB-or-GB scale ('gib-like'), bytes, counts. Numbers said in
    words (七十四点五 GiB, a hundred and eighty requests) count as digits; `raw` is the text as written."""
    out: list[Quantity] = []
    said = with_digits(text)
    for m in _NUM.finditer(said.text):
        v = _to_float(m.group(1), m.group(2))
        u = m.group(3) or ""
        ul = u.lower().rstrip("s") if len(u) > 3 else u.lower()
        if ul.startswith("个") and "g" in ul:
            ul = "gib"  # 74.5 个G: a gigabyte as said, read like G
        ul = _SAID_UNITS.get(ul, ul)
        raw = said.original(m.start(), m.end()).strip()
        if ul in ("gib", "gb", "g"):
            out.append(Quantity(v, "gib-like", raw, u))
        elif ul in ("tib", "tb"):
            out.append(Quantity(v * 1024, "gib-like", raw, u))
        elif ul in ("mib", "mb", "m"):
            out.append(Quantity(v / 1024 if ul == "mib" else v / 1000, "gib-like", raw, u))
            out.append(Quantity(v * (2**20 if ul == "mib" else 10**6), "bytes", raw, u))
        elif ul in ("kib", "kb", "k"):
            out.append(Quantity(v * (1024 if ul in ("kib", "k") else 1000), "bytes", raw, u))
        elif ul in ("b", "byte", "bytes", "字节"):
            if v >= 1000:  # "40B" is a parameter count, not bytes
                out.append(Quantity(v, "bytes", raw, u))
                out.append(Quantity(v / GIB, "gib-like", raw, "GiB"))
        elif ul in ("request", "requests", "req", "reqs", "个请求", "个", "并发", "concurrent"):
            out.append(Quantity(v, "count", raw, u))
        elif not _IN_LIST.match(said.text, m.end()) and not _IN_LIST_END.search(said.text, 0, m.start()):
            out.append(Quantity(v, "", raw, u))  # a bare number; one of a list "45/90/135/180" is a step, no count
    return out


def _near(a: float, b: float, tol: float) -> bool:
    return b != 0 and abs(a - b) / abs(b) <= tol


@dataclass(frozen=True)
class _Target:
    name: str
    value: float
    unit: str  # which Quantity.unit values may match ("" also matches a bare number for counts)
    binary_only: bool = False  # a signature that only a value labelled GiB (not GB) shows
    unless: str | None = None
    """a reference value (`_targets` name) that, stated right as well (in binary units), makes this value a step
    on the way or a slip the candidate corrected ("80 GiB, 20 per rank... no, wait: 74.5 GiB"), not the mistake"""


def _targets(r: CapacityReference) -> list[_Target]:
    return [
        _Target("weights_gib", r.weights_gib, "gib-like"),
        _Target("weights_per_rank_gib", r.weights_per_rank_gib, "gib-like"),
        _Target("kv_budget_per_rank_gib", r.kv_budget_per_rank_gib, "gib-like"),
        _Target("kv_bytes_per_token", r.kv_bytes_per_token, "bytes"),
        _Target("request_kv_gib", r.request_kv_gib, "gib-like"),
        _Target("request_kv_per_rank_gib", r.request_kv_per_rank_gib, "gib-like"),
        _Target("max_requests_kv_only", float(r.max_requests_kv_only), "count"),
    ]


def _error_signatures(p: CapacityParams, r: CapacityReference) -> list[tuple[str, _Target]]:
    """Values that only a named concept error produces."""
    sig: list[tuple[str, _Target]] = []
    # GB taken for GiB: 80e9 B called 80 GiB, so per-rank weights and the KV budget shift.
    per_rank_gb = r.weights_bytes / GB / p.tp
    budget_gb = p.gpu_gib - per_rank_gb - p.non_kv_gib - p.reserve_gib
    sig.append(
        (
            "gb_as_gib",
            _Target(
                "weights_per_rank (GB as GiB)", per_rank_gb, "gib-like", binary_only=True, unless="weights_per_rank_gib"
            ),
        )
    )
    if budget_gb > 0:
        # the budget and the count it gives follow from the per-rank weights: after 18.6 GiB per rank they
        # are a slip in the subtraction (80 − 18.6 − 12 − 8 written as 40.4), not the unit mistake
        derived = "weights_per_rank_gib"
        sig.append(("gb_as_gib", _Target("kv_budget (GB as GiB)", budget_gb, "gib-like", unless=derived)))
        sig.append(
            (
                "gb_as_gib",
                _Target(
                    "max_requests (GB as GiB)",
                    math.floor(budget_gb / r.request_kv_per_rank_gib),
                    "count",
                    unless=derived,
                ),
            )
        )
    # layers multiplied twice
    per_token = "kv_bytes_per_token"  # stated right too: the mistaken value was a step on the way to it, or corrected
    sig.append(
        (
            "layers_twice",
            _Target(
                "kv_bytes_per_token x layers", r.kv_bytes_per_token * p.layers, "bytes", unless="request_kv_gib"
            ),
        )
    )
    sig.append(("layers_twice", _Target("request_kv x layers", r.request_kv_gib * p.layers, "gib-like")))
    # forgot K and V (factor 2)
    if r.kv_bytes_per_token / 2 not in (r.kv_bytes_per_token,):
        sig.append(
            (
                "no_kv_factor",
                _Target("kv_bytes_per_token without K+V", r.kv_bytes_per_token / 2, "bytes", unless=per_token),
            )
        )
    # whole-model request KV compared with a per-rank budget
    if r.kv_budget_per_rank_gib > 0:
        whole = math.floor(r.kv_budget_per_rank_gib / r.request_kv_gib)
        if whole != r.max_requests_kv_only:
            sig.append(("unsharded_kv", _Target("max_requests with whole-model KV per rank", whole, "count")))
    # query heads instead of KV heads: bytes/token for typical query-head counts
    per_head = 2 * p.layers * p.head_dim * p.kv_bytes
    for hq in (16, 32, 40, 48, 52, 56, 64, 96, 128):
        if hq != p.kv_heads:
            sig.append(
                (
                    "query_heads",
                    _Target(f"kv_bytes_per_token with {hq} heads", per_head * hq, "bytes", unless=per_token),
                )
            )
    # weights not divided by TP
    sig.append(
        (
            "weights_not_sharded",
            _Target(
                "budget with unsharded weights",
                p.gpu_gib - r.weights_gib - p.non_kv_gib - p.reserve_gib,
                "gib-like",
            ),
        )
    )
    return sig


ERROR_NAMES = {
    "gb_as_gib": "decimal GB taken for binary GiB",
    "layers_twice": "layers multiplied twice",
    "no_kv_factor": "K and V factor of 2 left out",
    "unsharded_kv": "whole-model KV per request compared with a per-rank budget",
    "query_heads": "query heads used instead of KV heads",
    "weights_not_sharded": "weights not divided across TP ranks",
}


def check_answer(
    text: str, p: CapacityParams | None = None, exact: float = 0.02, slip: float = 0.15
) -> CapacityFinding:
    """Read the answer's numbers and compare them with the reference and with known mistakes."""
    p = p or CapacityParams()
    r = reference(p)
    qs = read_quantities(text)

    def hit(t: _Target, tol: float, binary: bool = False) -> Quantity | None:
        for q in qs:
            if not (q.unit == t.unit or (t.unit == "count" and q.unit == "")):
                continue
            decimal = q.exact_unit.lower() == "gb"
            if (t.binary_only or binary) and decimal:
                continue
            if _near(q.value, t.value, tol) or (
                decimal and not t.binary_only and _near(q.value, t.value * GIB / GB, tol)
            ):
                return q
        return None

    off: list[str] = []
    errors: list[str] = []
    right = {t.name for t in _targets(r) if hit(t, exact)}
    # "20 GB per rank" is right, and then taken from an 80 GiB card it is the unit mistake: only a value
    # stated in binary units makes what follows from it a slip
    in_gib = {t.name for t in _targets(r) if hit(t, exact, binary=True)}
    sigs = [(kind, t) for kind, t in _error_signatures(p, r) if t.unless not in in_gib]
    for kind, t in sigs:
        q = hit(t, 0.01)
        if q is not None and not any(
            _near(q.value, tt.value, exact) for tt in _targets(r) if tt.unit == q.unit
        ):
            name = ERROR_NAMES[kind]
            if name not in errors:
                errors.append(name)
    matched = [t.name for t in _targets(r) if t.name in right]
    for t in _targets(r):
        if t.name in right:
            continue
        if (q := hit(t, slip)) is not None and not any(_near(q.value, s.value, 0.01) for _, s in sigs):
            off.append(f"{t.name}: stated {q.raw}, reference {t.value:,.3g}")
    if errors:
        verdict = "unit_or_sharding_error"
    elif len(matched) >= 3 and not off:
        verdict = "correct"
    elif len(matched) + len(off) >= 3:
        verdict = "slip"
    else:
        verdict = "insufficient"
    return CapacityFinding(verdict=verdict, matched=matched, errors=errors, off=off)  # type: ignore[arg-type]


# ---------------------------------------------------------------- fresh variants


class CapacityVariant(BaseModel):
    seed: int
    params: CapacityParams
    reference: CapacityReference
    prompt: dict[str, str]


def _template(root: Path | None = None) -> dict[str, str]:
    path = (root or repo_root() / "rubrics") / "capacity_variant.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {"zh": data["prompt"]["zh"], "en": data["prompt"]["en"]}


_MODELS = [  # (params, layers, kv_heads, head_dim): shapes of real dense GQA models
    (8e9, 32, 8, 128),
    (14e9, 48, 8, 128),
    (32e9, 64, 8, 128),
    (34e9, 48, 8, 128),
    (40e9, 60, 8, 128),
    (70e9, 80, 8, 128),
    (72e9, 80, 8, 128),
]


def variant(seed: int, lang: Lang | None = None) -> CapacityVariant:
    """A fresh round-3 variant with its reference values, reproducible from `seed`."""
    rng = random.Random(seed)
    for _ in range(1000):
        params, layers, kvh, hd = rng.choice(_MODELS)
        p = CapacityParams(
            params=params,
            layers=layers,
            kv_heads=kvh,
            head_dim=hd,
            tp=rng.choice([2, 4, 8]),
            gpu_gib=rng.choice([48, 80, 96, 141]),
            non_kv_gib=rng.choice([6, 8, 10, 12]),
            reserve_gib=rng.choice([4, 6, 8]),
            input_tokens=rng.choice([1000, 2000, 3000, 6000, 8000]),
            output_tokens=rng.choice([256, 500, 1000, 2000]),
        )
        ref = reference(p)
        if ref.kv_budget_per_rank_gib > 4 and ref.max_requests_kv_only >= 8:
            break
    tmpl = _template()
    fields = {
        "params_b": f"{p.params / 1e9:g}",
        "layers": p.layers,
        "kv_heads": p.kv_heads,
        "head_dim": p.head_dim,
        "input_tokens": f"{p.input_tokens:,}",
        "output_tokens": f"{p.output_tokens:,}",
        "gpus": p.tp,
        "gpu_gib": f"{p.gpu_gib:g}",
        "tp": p.tp,
        "non_kv_gib": f"{p.non_kv_gib:g}",
        "reserve_gib": f"{p.reserve_gib:g}",
    }
    prompt = {k: v.format(**fields) for k, v in tmpl.items() if lang is None or k == lang}
    return CapacityVariant(seed=seed, params=p, reference=ref, prompt=prompt)
