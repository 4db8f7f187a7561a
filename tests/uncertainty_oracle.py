"""A pure-Python statement of the uncertainty formulas of docs/STATISTICS.md, written from the
document (not from the SQL) and never importing etl: clustered standard errors (Miller
2024), the paired moments, the minimum detectable effect and the questions needed,
Benjamini-Hochberg, and reliability over repeated runs by enumeration (every k-subset of a
question's runs), independent of the closed forms the warehouse uses.

Sums are exact (fractions of the float inputs) and rounded once, so "0 by algebra" is 0."""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

Z_975 = 1.959964  # two-sided alpha 0.05
Z_80 = 0.841621  # power 0.8
TIE = 1e-12  # |diff| at or below this is a difference of 0


def _mean(values: Sequence[float]) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0)) / len(values)


def sample_sd(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1); None for fewer than 2 values."""
    if len(values) < 2:
        return None
    m = _mean(values)
    return math.sqrt(sum((Fraction(v) - m) ** 2 for v in values) / (len(values) - 1))


def se_clustered(values: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """sqrt(sum over clusters c of (sum over i in c of (x_i - mean))^2) / n."""
    m = _mean(values)
    per_cluster: dict[Hashable, Fraction] = {}
    for value, cluster in zip(values, clusters, strict=True):
        per_cluster[cluster] = per_cluster.get(cluster, Fraction(0)) + Fraction(value) - m
    return math.sqrt(sum(s * s for s in per_cluster.values())) / len(values)


def clustered_row(scores: Sequence[float], clusters: Sequence[Hashable]) -> dict[str, Any]:
    """One row of leaderboard_clustered for these per-question scores and their patients."""
    n = len(scores)
    n_clusters = len(set(clusters))
    sd = sample_sd(scores)
    se_naive = None if sd is None else sd / math.sqrt(n)
    se = se_clustered(scores, clusters)
    single = n_clusters == 1
    score = float(_mean(scores))
    return {
        "n_questions": n, "n_clusters": n_clusters, "score": score,
        "se_naive": se_naive, "se_clustered": se,
        "design_effect": (se / se_naive) ** 2 if not single and se_naive else None,
        "ci_low": None if single else score - Z_975 * se,
        "ci_high": None if single else score + Z_975 * se,
        "single_cluster": single,
    }


def paired_row(a: Sequence[float], b: Sequence[float], clusters: Sequence[Hashable]
               ) -> dict[str, Any]:
    """The paired moments, MDE and questions needed of model_comparison for run A's and run
    B's scores of the shared questions (same order) and the questions' patients."""
    n = len(a)
    d = [x - y for x, y in zip(a, b, strict=True)]
    ma, mb = _mean(a), _mean(b)
    ss_a = sum((Fraction(x) - ma) ** 2 for x in a)
    ss_b = sum((Fraction(y) - mb) ** 2 for y in b)
    sp = sum((Fraction(x) - ma) * (Fraction(y) - mb) for x, y in zip(a, b, strict=True))
    correlation = float(sp) / math.sqrt(ss_a * ss_b) if ss_a and ss_b else None
    sd_diff = sample_sd(d)
    diff = float(_mean(d))
    mde = None if sd_diff is None else (Z_975 + Z_80) * sd_diff / math.sqrt(n)
    if abs(diff) <= TIE or sd_diff is None:
        needed = None
    else:
        needed = math.ceil(((Z_975 + Z_80) * sd_diff / abs(diff)) ** 2)
    not_detectable = True if abs(diff) <= TIE else (None if mde is None else abs(diff) < mde)
    return {"n_shared": n, "diff": diff, "correlation": correlation, "sd_diff": sd_diff,
            "se_diff_clustered": se_clustered(d, clusters), "n_clusters": len(set(clusters)),
            "mde_80": mde, "n_needed": needed, "not_detectable": not_detectable}


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """BH adjusted p: the i-th smallest of m becomes min over j >= i of min(1, m p_(j) / j)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, m * p_values[i] / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


def pass_hat_k(outcomes: Sequence[Sequence[bool]], k: int) -> float | None:
    """Mean over the questions with at least k runs of the share of their k-subsets of runs
    that are all correct (enumerated)."""
    shares = []
    for runs in outcomes:
        if len(runs) >= k:
            subsets = list(itertools.combinations(runs, k))
            shares.append(Fraction(sum(all(s) for s in subsets), len(subsets)))
    return float(sum(shares) / len(shares)) if shares else None


def worst_of_k(scores: Sequence[Sequence[float]], k: int) -> float | None:
    """Mean over the questions with at least k runs of the mean, over their k-subsets of
    runs, of the subset's lowest score (enumerated)."""
    means = []
    for runs in scores:
        if len(runs) >= k:
            subsets = list(itertools.combinations(runs, k))
            means.append(sum(Fraction(min(s)) for s in subsets) / len(subsets))
    return float(sum(means) / len(means)) if means else None


def flip_rate(outcomes: Sequence[Sequence[bool]]) -> float | None:
    """Mean over the questions with 2+ runs of the share of their pairs of runs that
    disagree (enumerated)."""
    shares = []
    for runs in outcomes:
        if len(runs) >= 2:
            pairs = list(itertools.combinations(runs, 2))
            shares.append(Fraction(sum(x != y for x, y in pairs), len(pairs)))
    return float(sum(shares) / len(shares)) if shares else None
