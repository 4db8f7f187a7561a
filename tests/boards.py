"""Warehouses of hand-made boards: runs with given per-question scores, loaded into the
real schema and views as an ingest loads them (the scores of the default text scorer), for
the tests of the statistics the views compute."""

from __future__ import annotations

from typing import Any

import duckdb

from etl.clusters import build_question_clusters
from etl.comparison import build_comparisons
from etl.views import apply_schema, apply_views

BENCH, MODE = "ehr_bench", "agentic"
TASKS = {"t1": "risk_prediction", "t2": "risk_prediction", "t3": "decision_making"}
# Intervals are not under test here: few resamples keep each generated board fast.
RESAMPLES = 20

# qid -> (task, patient id or None)
Meta = dict[str, tuple[str, int | None]]
# model -> qid -> [(score, exact) per run]
Runs = dict[str, dict[str, list[tuple[float, float]]]]


def make_warehouse(scores: dict[tuple[str, str], dict[str, float]],
                   tasks: dict[str, tuple[str, str]] | None = None,
                   benchmark: str = "ehr_bench") -> duckdb.DuckDBPyConnection:
    """A warehouse whose leaderboard runs have exactly these per-question scores:
    scores[(model, mode)] = {qid: f1}. tasks[qid] = (task_group, task)."""
    con = duckdb.connect()
    apply_schema(con)
    for (model, mode), per_question in scores.items():
        run_id = f"{benchmark}/{mode}/full1800/{model}"
        con.execute("INSERT INTO runs (run_id, benchmark, mode, split, model, is_archived, "
                    "expected_questions) VALUES (?, ?, ?, 'full1800', ?, false, ?)",
                    [run_id, benchmark, mode, model, len(per_question)])
        for qid, f1 in per_question.items():
            group, task = (tasks or {}).get(qid, ("decision_making", "t1"))
            con.execute("INSERT INTO results (run_id, benchmark, mode, split, model, task, "
                        "task_group, qid, run_index, status) VALUES (?, ?, ?, 'full1800', ?, "
                        "?, ?, ?, 1, 'success')",
                        [run_id, benchmark, mode, model, task, group, qid])
            con.execute("INSERT INTO question_scores (run_id, qid, run_index, scorer, task, f1)"
                        " VALUES (?, ?, 1, 'authors_text', ?, ?)", [run_id, qid, task, f1])
    apply_views(con)
    build_comparisons(con)
    return con


def run_id(model: str) -> str:
    return f"{BENCH}/{MODE}/full1800/{model}"


def load(con: duckdb.DuckDBPyConnection, runs: Runs, meta: Meta, compare: bool = True) -> None:
    """Replace the warehouse's rows by these runs (authors_text scores, one row per run of a
    question), then fill the question clusters and (compare) the paired comparisons as an
    ingest does."""
    for table in ("runs", "results", "question_scores", "question_clusters",
                  "paired_comparisons"):
        con.execute(f"DELETE FROM {table}")  # fixed names
    for model, questions in runs.items():
        con.execute("INSERT INTO runs (run_id, benchmark, mode, split, model, is_archived, "
                    "expected_questions) VALUES (?, ?, ?, 'full1800', ?, false, ?)",
                    [run_id(model), BENCH, MODE, model, len(questions)])
        results, scores = [], []
        for qid, attempts in questions.items():
            task, patient = meta[qid]
            for index, (score, exact) in enumerate(attempts, 1):
                results.append([run_id(model), BENCH, MODE, model, task, TASKS[task], qid,
                                index, patient])
                scores.append([run_id(model), qid, index, task, score, exact])
        insert(con, "results", ["run_id", "benchmark", "mode", "model", "task", "task_group",
                                "qid", "run_index", "subject_id"], results)
        insert(con, "question_scores", ["run_id", "qid", "run_index", "task", "f1",
                                        "exact_match"], scores)
    con.execute("UPDATE results SET split = 'full1800', status = 'success'")
    con.execute("UPDATE question_scores SET scorer = 'authors_text'")
    build_question_clusters(con)
    if compare:
        build_comparisons(con, resamples=RESAMPLES)


def insert(con: duckdb.DuckDBPyConnection, table: str, columns: list[str],
           values: list[list[Any]]) -> None:
    """Insert rows in one statement, each column bound as a list (executemany goes row by
    row, a quarter second for forty rows). Table and column names are fixed by the caller."""
    if values:
        unnested = ", ".join(f"unnest(${i})" for i in range(1, len(columns) + 1))
        con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {unnested}",
                    [list(column) for column in zip(*values, strict=True)])


def single_runs(scores: dict[str, float]) -> dict[str, list[tuple[float, float]]]:
    return {qid: [(s, float(s == 1.0))] for qid, s in scores.items()}
