"""Agreement metrics between a judge and a human, each small, typed and returning its n.

Implemented here (no scipy/sklearn) so the definitions are visible and tested against hand-computed
values. Every metric returns a `Metric`: its value (None when undefined, e.g. n = 0 or no variance)
and the number of items it was computed on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel


class Metric(BaseModel):
    value: float | None
    n: int

    def fmt(self, pct: bool = False, digits: int = 2) -> str:
        """`0.82 (n=40)`, `82.0 % (n=40)`, or `— (n=0)`."""
        if self.value is None:
            return f"— (n={self.n})"
        v = f"{self.value:.1%}".replace("%", " %") if pct else f"{self.value:.{digits}f}"
        return f"{v} (n={self.n})"


def _check_lengths(a: Sequence[float], b: Sequence[float]) -> None:
    if len(a) != len(b):
        raise ValueError(f"length mismatch: {len(a)} vs {len(b)}")


def _share_within(
    judge: Sequence[int], lo: Sequence[float], hi: Sequence[float] | None, slack: int
) -> Metric:
    """Share of items where the judge's score lies in [lo - slack, hi + slack] (hi: lo when None)."""
    hi = lo if hi is None else hi
    _check_lengths(judge, lo)
    _check_lengths(judge, hi)
    n = len(judge)
    if n == 0:
        return Metric(value=None, n=0)
    return Metric(
        value=sum(1 for j, a, b in zip(judge, lo, hi, strict=True) if a - slack <= j <= b + slack) / n, n=n
    )


def exact_agreement(judge: Sequence[int], lo: Sequence[float], hi: Sequence[float] | None = None) -> Metric:
    """Share of items where the judge's score equals the label, or lies in [lo, hi] when a range is given."""
    return _share_within(judge, lo, hi, 0)


def within_one(judge: Sequence[int], lo: Sequence[float], hi: Sequence[float] | None = None) -> Metric:
    """Share of items where the judge's score is at most 1 away from the label (or from the range)."""
    return _share_within(judge, lo, hi, 1)


def quadratic_weighted_kappa(a: Sequence[float], b: Sequence[float]) -> Metric:
    """Cohen's kappa with quadratic weights: 1 - observed / expected squared disagreement.

    Observed: mean of (a_i - b_i)^2. Expected (chance, from the two marginals): mean over all
    (i, j) of (a_i - b_j)^2. For integer ratings this is exactly the textbook confusion-matrix
    form with weights (i - j)^2 / (K - 1)^2 (the constant (K - 1)^2 cancels), and it also accepts
    half-point labels such as a range midpoint of 4.5. None when n = 0 or chance disagreement is 0
    (both raters constant and equal).
    """
    _check_lengths(a, b)
    n = len(a)
    if n == 0:
        return Metric(value=None, n=0)
    observed = sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) / n
    expected = sum((x - y) ** 2 for x in a for y in b) / (n * n)
    if expected == 0:
        return Metric(value=None, n=n)
    return Metric(value=1.0 - observed / expected, n=n)


def ranks(xs: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties given the mean of the ranks they span (as Spearman needs)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        mean_rank = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = mean_rank
        i = j + 1
    return out


def pearson(a: Sequence[float], b: Sequence[float]) -> Metric:
    _check_lengths(a, b)
    n = len(a)
    if n < 2:
        return Metric(value=None, n=n)
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    if va == 0 or vb == 0:
        return Metric(value=None, n=n)
    return Metric(value=cov / math.sqrt(va * vb), n=n)


def spearman(a: Sequence[float], b: Sequence[float]) -> Metric:
    """Spearman's rho: Pearson's r of the (tie-averaged) ranks. None when either side is constant."""
    return pearson(ranks(a), ranks(b))


def pair_order_accuracy(pairs: Sequence[tuple[float, float]]) -> Metric:
    """Share of (better, worse) pairs where the better one scored strictly higher (a tie is a miss)."""
    n = len(pairs)
    if n == 0:
        return Metric(value=None, n=0)
    return Metric(value=sum(1 for b, w in pairs if b > w) / n, n=n)


class FlagCounts(BaseModel):
    """Counts behind flag precision and recall for one flag (or all of them)."""

    expected: int = 0
    """flags a label says must be raised"""
    hit: int = 0
    """... and the judge raised"""
    forbidden_raised: int = 0
    """raised although a label says it must not be"""
    unlabelled_raised: int = 0
    """raised where the label neither requires nor forbids it"""

    def add(self, other: FlagCounts) -> FlagCounts:
        return FlagCounts(
            expected=self.expected + other.expected,
            hit=self.hit + other.hit,
            forbidden_raised=self.forbidden_raised + other.forbidden_raised,
            unlabelled_raised=self.unlabelled_raised + other.unlabelled_raised,
        )


def flag_counts(raised: Sequence[str], must: Sequence[str], must_not: Sequence[str]) -> dict[str, FlagCounts]:
    """Per flag, for one item: was it expected, hit, raised against a label, raised unlabelled."""
    out: dict[str, FlagCounts] = {}
    for f in {*raised, *must, *must_not}:
        out[f] = FlagCounts(
            expected=int(f in must),
            hit=int(f in must and f in raised),
            forbidden_raised=int(f in must_not and f in raised),
            unlabelled_raised=int(f in raised and f not in must and f not in must_not),
        )
    return out


def recall(c: FlagCounts) -> Metric:
    """hit / expected."""
    return Metric(value=c.hit / c.expected if c.expected else None, n=c.expected)


def precision(c: FlagCounts) -> Metric:
    """Among raised flags that a label speaks about (required or forbidden): the share that was required."""
    n = c.hit + c.forbidden_raised
    return Metric(value=c.hit / n if n else None, n=n)


def strict_precision(c: FlagCounts) -> Metric:
    """Among all raised flags: the share a label required (unlabelled ones count as false)."""
    n = c.hit + c.forbidden_raised + c.unlabelled_raised
    return Metric(value=c.hit / n if n else None, n=n)


def spread(runs: Sequence[Sequence[int]]) -> tuple[int, float]:
    """For one dimension: runs[k][i] = run k's score of item i. Returns (max over items of max - min,
    mean over items of the population standard deviation across runs)."""
    if not runs or not runs[0]:
        return 0, 0.0
    n_items = len(runs[0])
    for r in runs:
        if len(r) != n_items:
            raise ValueError("every run must score the same items")
    worst = 0
    sds: list[float] = []
    for i in range(n_items):
        xs = [r[i] for r in runs]
        worst = max(worst, max(xs) - min(xs))
        m = sum(xs) / len(xs)
        sds.append(math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs)))
    return worst, sum(sds) / n_items
