"""The cluster (patient) of every question, a post-load step: table question_clusters.

Questions about one patient are not independent, so the clustered standard errors
(leaderboard_clustered*, paired_comparisons.se_diff_clustered; docs/STATISTICS.md) sum
deviations per patient. The rule lives in sql/load/question_clusters.sql. A table rather
than a view: the cluster label holds the (possibly redacted) patient id, which no view
exposes, and the paired comparisons read it at ingest."""

from __future__ import annotations

import duckdb

from etl.schema import load_sql


def build_question_clusters(con: duckdb.DuckDBPyConnection,
                            run_ids: list[str] | None = None) -> None:
    """Recompute question_clusters for these runs (None: every run)."""
    if run_ids is None:
        con.execute("DELETE FROM question_clusters")
    else:
        con.execute("DELETE FROM question_clusters WHERE list_contains(?, run_id)", [run_ids])
    con.execute(load_sql("question_clusters.sql"), {"run_ids": run_ids})
