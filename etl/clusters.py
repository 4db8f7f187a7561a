"""The cluster (patient) of every question, a post-load step: table question_clusters.

Questions about one patient are not independent, so the clustered standard errors
(leaderboard_clustered*, paired_comparisons.se_diff_clustered; docs/STATISTICS.md) sum
deviations per patient. The rule lives in sql/load/question_clusters.sql: every question a
board scores (view board_results, so the step runs after the views) has one, its patient or
else itself. A table rather
than a view: the cluster label holds the (possibly redacted) patient id, which no view
exposes, and the paired comparisons read it at ingest."""

from __future__ import annotations

import duckdb

from etl.rows import runs_to_recompute
from etl.schema import load_sql


def build_question_clusters(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute question_clusters for the runs the load re-ranked (temp table load_runs;
    every run when called on its own)."""
    runs_to_recompute(con)
    con.execute("DELETE FROM question_clusters WHERE run_id IN (SELECT run_id FROM load_runs)")
    con.execute(load_sql("question_clusters.sql"))
