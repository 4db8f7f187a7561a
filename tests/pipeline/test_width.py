"""Whole at any width: many runs on one board (the paired comparisons grow with the square of
the runs) and many run directories, within a memory bound. Full size is `make bench-width`
(tests/width_bench.py); these are the scaled-down versions.

- The comparison step holds at most a batch of pairs at once: under a DuckDB memory limit
  that the all-pairs-at-once step exceeded, it completes, and the batch size changes no
  number (every pair's row is the same cut into batches of 1, 5 or 64), nor does
  recomputing only the pairs of some runs.
- An ingest of 100 runs on one board stays under its memory bound (the process tree,
  workers included) with `--memory-limit`.
- An ingest of many run directories: the load no longer unifies the schemas of every staged
  file (union_by_name), which held them all in memory."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from etl.comparison import build_comparisons
from tests.boards import make_warehouse
from tests.wide_tree import measure, write_wide_tree

TASKS = {f"q{i:03d}": ("decision_making" if i % 2 else "risk_prediction", f"t{i % 3}")
         for i in range(30)}


def _board(n_runs: int) -> dict[tuple[str, str], dict[str, float]]:
    """n_runs runs of one board, each with its own scores on 30 questions."""
    return {(f"model_{r:03d}", "agentic"): {q: ((i * 7 + r * 13) % 11) / 10
                                            for i, q in enumerate(TASKS)}
            for r in range(n_runs)}


def _rows(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return sorted(con.execute("SELECT * FROM paired_comparisons").fetchall(), key=repr)


def test_many_pairs_under_a_small_memory_limit() -> None:
    # 40 runs of one board: 780 pairs. Drawn all at once, the bootstrap held 30 questions
    # x 1000 resamples x 780 pair columns (187 MB); a batch holds 64 columns.
    con = make_warehouse(_board(40), TASKS)
    con.execute("SET memory_limit = '96MB'")
    con.execute("SET threads = 1")
    build_comparisons(con)
    n_pairs = con.execute("SELECT count(*) FROM paired_comparisons WHERE scope = 'overall'"
                          ).fetchone()[0]
    assert n_pairs == 40 * 39 // 2


def test_batches_change_no_number() -> None:
    con = make_warehouse(_board(9), TASKS)
    every = {}
    for size in (1, 5, 64):
        build_comparisons(con, pairs_per_batch=size)
        every[size] = _rows(con)
    assert every[1] == every[5] == every[64]
    cells = 1 + len({g for g, _ in TASKS.values()}) + len(set(TASKS.values()))
    assert len(every[1]) == 36 * cells  # 36 pairs x (overall, each group, each task)
    # Only the pairs of some runs, recomputed after their rows were spoiled: the same table.
    runs = ["ehr_bench/agentic/full1800/model_002", "ehr_bench/agentic/full1800/model_007"]
    con.execute("UPDATE paired_comparisons SET diff = 99 WHERE list_contains(?, run_a) "
                "OR list_contains(?, run_b)", [runs, runs])
    # only their pairs (the temp table load_runs: the runs an ingest re-ranked)
    con.execute("DROP VIEW IF EXISTS load_runs")
    con.execute("CREATE TEMP TABLE load_runs AS SELECT unnest(?::VARCHAR[]) AS run_id", [runs])
    build_comparisons(con)
    con.execute("DROP TABLE load_runs")
    assert _rows(con) == every[1]


@pytest.fixture(scope="module")
def wide_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wide") / "tree"
    write_wide_tree(root, n_runs=100, n_questions=8)
    return root


BOARD_RSS_BOUND_MB = 700  # with --memory-limit 256MB: the load's DuckDB, Python, 2 workers


def test_100_runs_on_one_board_within_the_memory_bound(wide_board: Path,
                                                       tmp_path: Path) -> None:
    import sys

    db = tmp_path / "w.duckdb"
    result = measure([sys.executable, "-m", "etl.cli", "ingest", str(wide_board), "--db",
                      str(db), "--quiet", "--jobs", "2", "--memory-limit", "256MB"])
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.peak_tree_rss_mb < BOARD_RSS_BOUND_MB, result
    with duckdb.connect(str(db), read_only=True) as con:
        pairs = con.execute("SELECT count(*) FROM paired_comparisons WHERE kind = 'model' "
                            "AND scope = 'overall'").fetchone()[0]
        ranked = con.execute("SELECT count(*) FROM leaderboard_ranked").fetchone()[0]
    assert pairs == 100 * 99 // 2 and ranked == 100


@pytest.mark.slow
def test_many_run_directories_within_the_memory_bound(tmp_path: Path) -> None:
    import sys

    root = tmp_path / "tree"
    write_wide_tree(root, n_runs=600, n_questions=3, split="smoke20")
    db = tmp_path / "w.duckdb"
    result = measure([sys.executable, "-m", "etl.cli", "ingest", str(root), "--db", str(db),
                      "--quiet", "--jobs", "2", "--memory-limit", "256MB"])
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.peak_tree_rss_mb < BOARD_RSS_BOUND_MB, result
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 600
        assert con.execute("SELECT count(*) FROM results").fetchone()[0] == 1800
