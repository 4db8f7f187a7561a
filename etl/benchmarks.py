"""The benchmarks the warehouse knows by name: the full split of each (the split its
leaderboard runs, its size) and which one is multimodal. Every other benchmark directory is
data, read as a text benchmark.

One home for these lists: discover (a split's expected question count, the split of a
scored-only run), the archive name rules (a name without a split means the full one), the
scorer registry (which scorers apply to a benchmark) and, through the table benchmarks
written at every build (etl/views.py apply_views), the views (sql/05_full_splits.sql)."""

from __future__ import annotations

from typing import Any

# benchmark -> (its full split, the questions of that split) (DESIGN.md keys)
FULL_SPLITS: dict[str, tuple[str, int]] = {
    "ehr_bench": ("full1800", 1800),
    "agent_ehr_bench": ("subset600", 600),
    "mm_bench": ("full2703", 2703),
}
# full split -> its question count
SPLIT_SIZES: dict[str, int] = dict(FULL_SPLITS.values())

# The multimodal benchmark: its results are scored by the authors' multimodal rules and its
# leaderboard default is the authors' per-question rows (etl/scoring/registry.py).
MULTIMODAL_BENCHMARKS = frozenset({"mm_bench"})
TEXT, MULTIMODAL = "text", "multimodal"


def benchmark_kind(benchmark: str | None) -> str:
    """multimodal for mm_bench, text for any other benchmark (a new one, or none known)."""
    return MULTIMODAL if benchmark in MULTIMODAL_BENCHMARKS else TEXT


def benchmark_rows() -> list[dict[str, Any]]:
    """Rows of table benchmarks (schema/12_scorers.sql)."""
    return [{"benchmark": benchmark, "kind": benchmark_kind(benchmark), "full_split": split,
             "n_questions": size} for benchmark, (split, size) in FULL_SPLITS.items()]
