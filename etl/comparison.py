"""Paired comparisons of leaderboard runs, precomputed at ingest into `paired_comparisons`.

A bootstrap is too slow for a view, so this post-load step runs the SQL of
sql/load/comparison_*.sql once per ingest, after the views exist (it reads
`leaderboard_question_scores`). The views of sql/70_comparison.sql read the table.
Every number (the pairs, the Poisson bootstrap and its hash-drawn weights, the sign test) is
defined in docs/STATISTICS.md; tests/views/test_comparison.py recomputes them in pure Python."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from etl.rows import runs_to_recompute
from etl.schema import load_sql

# The resampling scheme's two constants. Changing either changes every interval, so they are
# recorded on each row (paired_comparisons.seed, .n_resamples).
SEED = 13
RESAMPLES = 1000

# The mark of a paired difference smaller than its minimum detectable effect (the view
# column not_detectable), as the report, the explorer and `etl compare` print it.
NOT_DETECTABLE = "not detectable with this n"


def detectability(row: Mapping[str, Any]) -> str:
    """The minimum detectable effect beside a paired difference and, when the difference is
    below it, the mark: 'MDE 0.090' or 'MDE 0.090, not detectable with this n (n needed
    452)'; just the mark (or '') when there is no MDE (a single shared question)."""
    mde = row.get("mde_80")
    if mde is None:
        return NOT_DETECTABLE if row.get("not_detectable") else ""
    if not row.get("not_detectable"):
        return f"MDE {mde:.3f}"
    needed = row.get("n_needed")
    return f"MDE {mde:.3f}, {NOT_DETECTABLE}" + (
        f" (n needed {needed})" if needed is not None else "")


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


def build_comparisons(con: duckdb.DuckDBPyConnection, seed: int = SEED,
                      resamples: int = RESAMPLES,
                      pairs_per_batch: int = PAIRS_PER_BATCH) -> None:
    """Replace the paired_comparisons rows of every pair with a run the load re-ranked (temp
    table load_runs; every run in a cold build) from leaderboard_question_scores. A pair's
    numbers depend on its two runs alone (the bootstrap weights are drawn from the qid), so
    the pairs of other runs keep their rows. Pairs are computed pairs_per_batch at a time;
    the batching changes no number."""
    params: dict[str, object] = {"seed": seed, "resamples": resamples,
                                 "pairs_per_batch": pairs_per_batch}
    runs_to_recompute(con)
    params["paired_runs"] = [row[0] for row in con.execute(
        load_sql("comparison_runs.sql")).fetchall()]
    con.execute("DELETE FROM paired_comparisons WHERE run_a IN (SELECT run_id FROM load_runs) "
                "OR run_b IN (SELECT run_id FROM load_runs)")
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
    for macro in ("cmp_scope", "cmp_label"):
        con.execute(f"DROP MACRO IF EXISTS {macro}")
