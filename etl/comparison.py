"""Paired comparisons of leaderboard runs, precomputed at ingest into `paired_comparisons`.

A bootstrap is too slow for a view, so this post-load step runs the SQL of
sql/load/comparison_*.sql once per ingest, after the views exist (it reads
`leaderboard_question_scores`). The views of sql/70_comparison.sql read the table.
Every number (the pairs, the Poisson bootstrap and its hash-drawn weights, the sign test) is
defined in docs/STATISTICS.md; tests/test_comparison.py recomputes them in pure Python."""

from __future__ import annotations

import duckdb

from etl.schema import load_sql

# The resampling scheme's two constants. Changing either changes every interval, so they are
# recorded on each row (paired_comparisons.seed, .n_resamples).
SEED = 13
RESAMPLES = 1000

# Pairs computed together (one pivoted column each). The bootstrap draws every question of
# a benchmark 1000 times per batch, so memory grows with the batch, not with the number of
# pairs. The time is the pairs x questions x resamples weighted sums however they are cut:
# on 100 runs x 90 questions (4,950 pairs) batches of 64 took 42 s of CPU, of 1024 68 s.
PAIRS_PER_BATCH = 64


def _run(con: duckdb.DuckDBPyConnection, name: str, params: dict[str, object]) -> None:
    """Run every statement of sql/load/<name> (split by DuckDB's own parser), binding the
    named parameters each one uses."""
    for statement in con.extract_statements(load_sql(name)):
        used = {key: params[key] for key in statement.named_parameters}
        con.execute(statement, used or None)


def build_comparisons(con: duckdb.DuckDBPyConnection, run_ids: list[str] | None = None,
                      seed: int = SEED, resamples: int = RESAMPLES,
                      pairs_per_batch: int = PAIRS_PER_BATCH) -> None:
    """Fill paired_comparisons from leaderboard_question_scores: every pair (run_ids None,
    replacing what the table held) or the pairs that hold one of run_ids (their rows
    replaced). Pairs are computed pairs_per_batch at a time; the batching changes no
    number."""
    params: dict[str, object] = {"seed": seed, "resamples": resamples, "run_ids": run_ids,
                                 "pairs_per_batch": pairs_per_batch}
    if run_ids is None:
        con.execute("DELETE FROM paired_comparisons")
    else:
        con.execute("DELETE FROM paired_comparisons WHERE list_contains($ids, run_a) "
                    "OR list_contains($ids, run_b)", {"ids": run_ids})
    _run(con, "comparison_inputs.sql", params)
    batches = [row[0] for row in con.execute(
        "SELECT DISTINCT batch FROM cmp_pairs ORDER BY batch").fetchall()]
    for batch in batches:
        params["batch"] = batch
        _run(con, "comparison_pair_questions.sql", params)
        if not con.execute("SELECT count(*) FROM cmp_pair_questions").fetchall()[0][0]:
            continue  # no pair of the batch shares a question: no rows, as before
        con.execute("CREATE OR REPLACE TEMP TABLE cmp_intervals (pair VARCHAR, scope VARCHAR, "
                    "task_group VARCHAR, task VARCHAR, ci_low DOUBLE, ci_high DOUBLE)")
        # One wide table per batch (a column per pair): PIVOT cannot take a bound parameter
        # in its source, so the batch's rows are selected into a table first.
        con.execute("CREATE OR REPLACE TEMP TABLE cmp_wide AS PIVOT (SELECT pair, qid, "
                    "task_group, task, qkey, d_fixed FROM cmp_pair_questions) ON pair "
                    "USING first(d_fixed) GROUP BY qid, task_group, task, qkey")
        _run(con, "comparison_bootstrap.sql", params)
        _run(con, "comparison_finish.sql", params)
    for table in ("cmp_question_scores", "cmp_pairs", "cmp_pair_questions", "cmp_intervals",
                  "cmp_wide", "cmp_boot_task", "cmp_boot_wide"):
        con.execute(f"DROP TABLE IF EXISTS {table}")  # fixed names, not data
