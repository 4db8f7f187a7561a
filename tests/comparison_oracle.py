"""A pure-Python statement of docs/STATISTICS.md, written from the document (not from the
SQL): Poisson-bootstrap weights drawn from md5 + the MurmurHash3 32-bit finalizer, the
ratio mean of a resample, linear-interpolation percentiles, the exact sign test, Holm.
Shared by the comparison tests only; it never imports etl."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

MASK32 = 0xFFFFFFFF


def question_key(seed: int, qid: str) -> int:
    return int(hashlib.md5(f"{seed}:{qid}".encode()).hexdigest()[:8], 16)


def fmix32(h: int) -> int:
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & MASK32
    h ^= h >> 16
    return h


def poisson_thresholds(max_k: int = 8) -> list[int]:
    """floor(2^32 * F(k)) for the Poisson(1) CDF F, k = 0 .. max_k - 1."""
    out, cdf = [], 0.0
    for k in range(max_k):
        cdf += math.exp(-1.0) / math.factorial(k)
        out.append(math.floor(cdf * 2**32))
    return out


THRESHOLDS = poisson_thresholds()


def weight(seed: int, qid: str, b: int) -> int:
    u = fmix32((question_key(seed, qid) + b * 0x9E3779B9) & MASK32)
    for k, limit in enumerate(THRESHOLDS):
        if u < limit:
            return k
    return len(THRESHOLDS)


def quantile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * p
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def bootstrap_interval(diffs: dict[str, float], seed: int, resamples: int
                       ) -> tuple[float, float]:
    """95% percentile interval of the Poisson-bootstrap mean of per-question differences."""
    means = []
    for b in range(resamples):
        total = weights = 0
        for qid, d in diffs.items():
            w = weight(seed, qid, b)
            total += w * d
            weights += w
        if weights:
            means.append(total / weights)
    return quantile(means, 0.025), quantile(means, 0.975)


def sign_test(wins_a: int, wins_b: int) -> float:
    n = wins_a + wins_b
    if n == 0:
        return 1.0
    k = min(wins_a, wins_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def holm(p_values: Sequence[float]) -> list[float]:
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p_values[i])
        adjusted[i] = min(1.0, running)
    return adjusted
