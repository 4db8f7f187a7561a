"""Student-t quantiles for the paper's intervals (views paper_table, paper_mode_delta).

compute_ci_from_per_sample_scores.py takes ``scipy.stats.t.ppf(0.975, df=n - 1)``; DuckDB
has no t quantile and the project does not depend on scipy, so the quantiles the views need
(view paper_t_needed) are computed here after load, in pure Python, into the table
student_t_quantiles: the regularized incomplete beta function by its continued fraction
(modified Lentz), inverted by Newton's method on the t CDF inside a bisection bracket.
Accurate to about 1e-12 relative for every df (tests/scoring/test_paper_stats.py checks the CDF at
the quantile against the exact finite series of the t CDF for integer df)."""

from __future__ import annotations

import math

import duckdb

from etl.rows import insert_rows

_EPS = 1e-16
_TINY = 1e-300


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta continued fraction did not converge ({a}, {b}, {x})")


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def _t_pdf(t: float, df: int) -> float:
    return math.exp(math.lgamma((df + 1) / 2.0) - math.lgamma(df / 2.0)
                    - 0.5 * math.log(df * math.pi)
                    - (df + 1) / 2.0 * math.log1p(t * t / df))


def t_quantile(p: float, df: int) -> float:
    """The p quantile (0.5 < p < 1) of Student's t: Newton from the normal quantile, kept
    inside a shrinking bisection bracket, until the step is below 1e-15 relative."""
    if df == 1:  # Cauchy: exact
        return math.tan(math.pi * (p - 0.5))
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2.0
    t = min(max(_normal_quantile(p), low), high)
    for _ in range(200):
        value = t_cdf(t, df) - p
        if value < 0:
            low = t
        else:
            high = t
        step = value / _t_pdf(t, df)
        candidate = t - step
        if not low < candidate < high:
            candidate = (low + high) / 2.0
        if abs(candidate - t) <= 1e-15 * max(1.0, abs(t)):
            return candidate
        t = candidate
    return t


def _normal_quantile(p: float) -> float:
    """A starting point only (Newton refines it): Acklam's rational approximation."""
    q = math.sqrt(-2.0 * math.log(1.0 - p))
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
         -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
         3.754408661907416e+00)
    num = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]
    den = (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0
    return -num / den


def add_student_t_quantiles(con: duckdb.DuckDBPyConnection) -> None:
    """Post-load step: the 0.975 quantile for every df the paper views need
    (paper_t_needed), and no other. The table is keyed by df, not by run, so an update
    computes only the dfs it does not hold yet and drops those no cell needs any more (the
    table then equals a cold build's)."""
    # The view is evaluated once (it reads every paper cell: half a second on a 2.5 GB
    # bench tree, twice that when the delete asked it again).
    needed = {row[0] for row in con.execute("SELECT df FROM paper_t_needed").fetchall()
              if row[0] is not None and row[0] >= 1}
    con.execute("DELETE FROM student_t_quantiles WHERE NOT list_contains(?, df)",
                [sorted(needed)])
    have = {row[0] for row in con.execute("SELECT df FROM student_t_quantiles").fetchall()}
    insert_rows(con, "student_t_quantiles",
                [{"df": df, "q975": t_quantile(0.975, df)} for df in sorted(needed - have)])
