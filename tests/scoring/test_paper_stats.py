"""The Student-t quantile behind the paper's intervals (etl/paper_stats.py), checked against
an oracle that shares nothing with it: the exact finite series of the t distribution for an
integer number of degrees of freedom (Abramowitz & Stegun 26.7.3 / 26.7.4), and the closed
forms for df 1 and 2."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from etl.paper_stats import t_quantile
from tests.budgets import examples


def two_sided_mass(t: float, df: int) -> float:
    """A(t | df) = P(|T| <= t) by the finite series in theta = atan(t / sqrt(df))."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:  # odd: 2/pi (theta + sin cos (1 + 2/3 c2 + 2.4/(3.5) c2^2 + ...))
        total, term = 0.0, 1.0
        for j in range(1, (df - 1) // 2 + 1):
            total += term
            term *= (2 * j) / (2 * j + 1) * c2
        inner = total if df > 1 else 0.0
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * inner)
    total, term = 0.0, 1.0  # even: sin (1 + 1/2 c2 + 1.3/(2.4) c2^2 + ...)
    for j in range(1, df // 2 + 1):
        total += term
        term *= (2 * j - 1) / (2 * j) * c2
    return math.sin(theta) * total


def test_closed_forms() -> None:
    assert math.isclose(t_quantile(0.975, 1), math.tan(0.475 * math.pi), rel_tol=1e-14)
    p = 0.975
    assert math.isclose(t_quantile(p, 2), (2 * p - 1) / math.sqrt(2 * p * (1 - p)),
                        rel_tol=1e-13)


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(min_value=1, max_value=4000))
def test_quantile_holds_95_percent_of_the_mass(df: int) -> None:
    q = t_quantile(0.975, df)
    assert abs(two_sided_mass(q, df) - 0.95) < 1e-12
    # and it sits between the normal quantile and the df - 1 quantile (monotone in df)
    assert 1.959963984540054 < q
    if df > 1:
        assert q < t_quantile(0.975, df - 1)
