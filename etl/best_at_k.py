"""best@k over the runs of each question (after load): the authors' calculate_true_best_at_k
(etl/scoring/authors_text.py true_best_at_k) over a question's authors_text F1 values, for
k = 1..K where K is the most runs any question of the run has. Only runs with a question of
2+ runs get rows (table question_best_at_k, view leaderboard_best_at_k). Computed in Python,
as the scorer itself, so the arithmetic is the authors' (math.comb, float sums in their
order)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import duckdb

from etl.rows import insert_rows, runs_to_recompute
from etl.schema import load_sql
from etl.scoring import authors_text


def best_at_k_rows(per_question: list[tuple[str, str, list[float]]],
                   scorer: str = authors_text.AUTHORS_TEXT) -> list[dict[str, Any]]:
    """(run_id, qid, F1 per run) -> question_best_at_k rows, k = 1..the run's largest n."""
    max_runs: dict[str, int] = defaultdict(int)
    for run_id, _, f1s in per_question:
        max_runs[run_id] = max(max_runs[run_id], len(f1s))
    rows = []
    for run_id, qid, f1s in per_question:
        values = [0.0 if v is None else float(v) for v in f1s]
        for k in range(1, max_runs[run_id] + 1):
            rows.append({"run_id": run_id, "qid": qid, "scorer": scorer, "k": k,
                         "n_runs": len(values),
                         "best_at_k": authors_text.true_best_at_k(values, k)})
    return rows


def add_best_at_k(con: duckdb.DuckDBPyConnection) -> None:
    """Post-load hook: the question_best_at_k rows of the runs the load re-ranked (temp table
    load_runs), from their loaded authors_text rows."""
    scorer = authors_text.AUTHORS_TEXT
    runs_to_recompute(con)
    con.execute("DELETE FROM question_best_at_k WHERE run_id IN (SELECT run_id FROM load_runs)")
    fetched = con.execute(load_sql("best_at_k.sql"), {"scorer": scorer}).fetchall()
    insert_rows(con, "question_best_at_k",
                 best_at_k_rows([(r[0], r[1], list(r[2])) for r in fetched], scorer))
