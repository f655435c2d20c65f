"""The agreement metrics against values computed by hand (the working is in the comments)."""

from __future__ import annotations

import math

import pytest

from agent.calibration import metrics as m


def test_exact_and_within_one_with_labels_and_ranges() -> None:
    # labels 3,3,3,3: judge 3 exact; 2 and 4 within one; 5 neither
    assert m.exact_agreement([3, 2, 4, 5], [3, 3, 3, 3]) == m.Metric(value=0.25, n=4)
    assert m.within_one([3, 2, 4, 5], [3, 3, 3, 3]) == m.Metric(value=0.75, n=4)
    # ranges [4,5], [1,2], [2,3]: judge 5 in, 3 one above, 5 two above
    assert m.exact_agreement([5, 3, 5], [4, 1, 2], [5, 2, 3]).value == pytest.approx(1 / 3)
    assert m.within_one([5, 3, 5], [4, 1, 2], [5, 2, 3]).value == pytest.approx(2 / 3)
    assert m.exact_agreement([], []) == m.Metric(value=None, n=0)
    with pytest.raises(ValueError):
        m.exact_agreement([1, 2], [1])


def test_kappa_perfect_and_reversed() -> None:
    # identical ratings: no observed disagreement -> 1
    assert m.quadratic_weighted_kappa([1, 2, 3], [1, 2, 3]).value == pytest.approx(1.0)
    # reversed: observed (4 + 0 + 4) / 3 = 8/3, chance 12/9 = 4/3 -> 1 - 2 = -1
    assert m.quadratic_weighted_kappa([1, 2, 3], [3, 2, 1]).value == pytest.approx(-1.0)


def test_kappa_two_categories_equals_cohens_kappa() -> None:
    # a = 1,1,2,2; b = 1,2,2,2. Cohen: p_o = 3/4, p_e = .5*.25 + .5*.75 = .5 -> (.75 - .5) / .5 = .5
    # (with two categories the quadratic weights are 0/1, so weighted = unweighted)
    assert m.quadratic_weighted_kappa([1, 1, 2, 2], [1, 2, 2, 2]).value == pytest.approx(0.5)


def test_kappa_matches_the_confusion_matrix_form() -> None:
    # a = 1,2,3,3; b = 1,3,3,2; K = 3, w_ij = (i - j)^2 / 4.
    # O (counts): (1,1) (2,3) (3,3) (3,2) -> sum w*O = 1/4 + 1/4 = 0.5
    # E_ij = row_i * col_j / N with rows (1,1,2), cols (1,1,2), N = 4:
    #   [[.25,.25,.5],[.25,.25,.5],[.5,.5,1]] -> sum w*E = .5625 + .1875 + .625 = 1.375
    # kappa = 1 - 0.5 / 1.375 = 7/11
    assert m.quadratic_weighted_kappa([1, 2, 3, 3], [1, 3, 3, 2]).value == pytest.approx(7 / 11)


def test_kappa_undefined_cases_and_half_points() -> None:
    assert m.quadratic_weighted_kappa([], []) == m.Metric(value=None, n=0)
    assert m.quadratic_weighted_kappa([3, 3], [3, 3]) == m.Metric(value=None, n=2)
    # midpoint labels: a = 1,5; b = 1.5,4.5. observed (.25 + .25) / 2 = .25;
    # chance (.25 + 12.25 + 12.25 + .25) / 4 = 6.25 -> 1 - .25 / 6.25 = 24/25
    assert m.quadratic_weighted_kappa([1, 5], [1.5, 4.5]).value == pytest.approx(24 / 25)


def test_ranks_average_ties() -> None:
    assert m.ranks([5, 6, 7, 8, 7]) == [1.0, 2.0, 3.5, 5.0, 3.5]
    assert m.ranks([2, 2, 2]) == [2.0, 2.0, 2.0]


def test_spearman_without_and_with_ties() -> None:
    # no ties: d = -1, 1, -1, 1, 0, sum d^2 = 4 -> 1 - 6*4 / (5*24) = 0.8
    assert m.spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).value == pytest.approx(0.8)
    # ties: ranks b = 1, 2, 3.5, 5, 3.5; deviations a -2,-1,0,1,2 and b -2,-1,.5,2,.5:
    # cov 8, var_a 10, var_b 9.5 -> 8 / sqrt(95)
    assert m.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]).value == pytest.approx(8 / math.sqrt(95))
    assert m.spearman([1, 2, 3], [3, 2, 1]).value == pytest.approx(-1.0)
    assert m.spearman([1, 1, 1], [1, 2, 3]) == m.Metric(value=None, n=3)
    assert m.spearman([1], [1]).value is None


def test_pair_order_ties_are_misses() -> None:
    got = m.pair_order_accuracy([(3, 2), (2, 2), (1, 4)])
    assert got.value == pytest.approx(1 / 3) and got.n == 3
    assert m.pair_order_accuracy([]).value is None


def test_flag_precision_and_recall() -> None:
    items = [
        m.flag_counts(["a", "b"], must=["a"], must_not=["b"]),  # a hit, b forbidden
        m.flag_counts(["c"], must=["a"], must_not=[]),  # a missed, c unlabelled
    ]
    total = m.FlagCounts()
    for it in items:
        for c in it.values():
            total = total.add(c)
    assert total == m.FlagCounts(expected=2, hit=1, forbidden_raised=1, unlabelled_raised=1)
    assert m.recall(total) == m.Metric(value=0.5, n=2)
    assert m.precision(total) == m.Metric(value=0.5, n=2)
    assert m.strict_precision(total).value == pytest.approx(1 / 3)
    assert m.strict_precision(total).n == 3
    assert m.recall(m.FlagCounts()).value is None


def test_spread() -> None:
    # item 0 always 1; item 1 scores 2, 3, 2: range 1, sd sqrt(2/9)
    worst, mean_sd = m.spread([[1, 2], [1, 3], [1, 2]])
    assert worst == 1
    assert mean_sd == pytest.approx(math.sqrt(2 / 9) / 2)
    assert m.spread([[4, 4], [4, 4]]) == (0, 0.0)


def test_metric_format() -> None:
    assert m.Metric(value=0.825, n=40).fmt(pct=True) == "82.5 % (n=40)"
    assert m.Metric(value=0.8512, n=40).fmt() == "0.85 (n=40)"
    assert m.Metric(value=None, n=0).fmt() == "— (n=0)"
