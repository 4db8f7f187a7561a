"""results.error_kind (sql/load/error_kind.sql), result_error_class and
leaderboard_without_infra_errors on results written the way the
ClinSeekAgent writers write them (deploy_agent.py: status error + str(exception) with
stop_reason exception / exception_before_completion, status incomplete + no_final_answer;
one-shot: "[ERROR] <exception>")."""

from __future__ import annotations

import duckdb
import pytest

from etl.schema import load_sql
from etl.views import apply_schema, apply_views

CASES = [
    # (status, stop_reason, error, expected class, expected kind)
    ("success", "finish_tool_call", None, "none", "none"),
    ("error", "exception", "[ERROR] ThrottlingException: An error occurred "
     "(ThrottlingException) when calling the InvokeModel operation: Too many requests",
     "infrastructure", "throttling"),
    ("error", "exception", "ReadTimeoutError: Read timed out. (read timeout=120)",
     "infrastructure", "timeout"),
    ("error", "exception_before_completion",
     "ConnectionResetError: [Errno 104] Connection reset by peer", "infrastructure",
     "connection"),
    ("error", "exception", "SSLError: EOF occurred in violation of protocol (_ssl.c:2427)",
     "infrastructure", "ssl"),
    ("error", "exception", "An error occurred (ServiceUnavailableException) when calling the "
     "ConverseStream operation", "infrastructure", "server"),
    ("incomplete", "no_final_answer", None, "model", "no_final_answer"),
    ("error", "exception", "ValidationException: Input is too long for requested model.",
     "model", "context_length"),
    ("error", "exception", "JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
     "model", "parse_error"),
    ("error", "exception", "KeyError: 'choices'", "other", "other"),
]


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    apply_schema(con)
    run_id = "ehr_bench/agentic/full1800/m"
    con.execute("INSERT INTO runs (run_id, benchmark, mode, split, model, is_archived) VALUES "
                "(?, 'ehr_bench', 'agentic', 'full1800', 'm', false)", [run_id])
    for i, (status, stop, error, _, _) in enumerate(CASES):
        qid = f"q{i}"
        con.execute("INSERT INTO results (run_id, benchmark, mode, split, model, task, "
                    "task_group, qid, run_index, status, stop_reason, error) VALUES "
                    "(?, 'ehr_bench', 'agentic', 'full1800', 'm', 't', 'g', ?, 1, ?, ?, ?)",
                    [run_id, qid, status, stop, error])
        # The answer of a successful result scores 1, everything else scores 0 anyway.
        con.execute("INSERT INTO question_scores (run_id, qid, run_index, scorer, f1) "
                    "VALUES (?, ?, 1, 'authors_text', ?)", [run_id, qid, 1.0 if status == "success"
                                                      else 0.0])
    # The load computes error_kind from the raw row (sql/load/error_kind.sql, over alias s).
    con.execute(f"UPDATE results AS s SET error_kind = {load_sql('error_kind.sql')}")
    apply_views(con)
    return con


def test_classes_of_the_writers_texts(con: duckdb.DuckDBPyConnection) -> None:
    got = dict((qid, (cls, kind)) for qid, cls, kind in con.execute(
        "SELECT qid, error_class, error_kind FROM result_error_class").fetchall())
    for i, (_, _, _, cls, kind) in enumerate(CASES):
        assert got[f"q{i}"] == (cls, kind), CASES[i]


def test_leaderboard_without_infra_errors(con: duckdb.DuckDBPyConnection) -> None:
    row = con.execute("SELECT n_questions, score, n_infra_results, default_n_questions, "
                      "default_score FROM leaderboard_without_infra_errors").fetchone()
    n_infra = sum(cls == "infrastructure" for *_, cls, _ in CASES)
    kept = len(CASES) - n_infra
    assert row == (kept, pytest.approx(1 / kept), n_infra, len(CASES),
                   pytest.approx(1 / len(CASES)))
