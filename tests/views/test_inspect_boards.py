"""A tree holding a ClinSeek run and Inspect AI logs of the same models on the same
questions: one board per benchmark holding both sources, and paired comparisons across the
sources computed with the same statistics (recomputed here by the pure-Python statement of
docs/STATISTICS.md, tests/comparison_oracle.py)."""

from __future__ import annotations

import math

import duckdb
import pytest

from etl.comparison import RESAMPLES, SEED
from tests import comparison_oracle as oracle
from tests.conftest import run_etl
from tests.inspect_logs import write_log

CLINSEEK_RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


@pytest.fixture(scope="module")
def mixed(demo_tree, demo_db, tmp_path_factory) -> tuple[duckdb.DuckDBPyConnection, dict]:
    """EHR-Bench of the demo tree beside Inspect logs of Claude Opus 4.6 and Sonnet 4.6 on
    12 of its questions (the same qids and patients), the Inspect task mapped to ehr_bench."""
    con = duckdb.connect(str(demo_db), read_only=True)
    questions = con.execute("SELECT qid, subject_id FROM results WHERE run_id = ? "
                            "ORDER BY qid LIMIT 12", [CLINSEEK_RUN]).fetchall()
    con.close()
    root = tmp_path_factory.mktemp("mixed") / "tree"
    root.mkdir()
    (root / "ehr_bench").symlink_to(demo_tree[0] / "ehr_bench", target_is_directory=True)
    ids = [q for q, _ in questions]
    logs = {model: write_log(root / "inspect", model=f"mockllm/{model}", ids=ids, epochs=2,
                             name="ehr_qa", patients=dict(questions))
            for model in ("claude-opus-4-6", "claude-sonnet-4-6")}
    db = root.parent / "mixed.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet",
            "--inspect-benchmark", "ehr_qa=ehr_bench")
    runs = {model: path.relative_to(root).as_posix() for model, path in logs.items()}
    return duckdb.connect(str(db), read_only=True), runs


def test_one_board_per_benchmark_holds_both_sources(mixed) -> None:
    con, runs = mixed
    board = {r["run_id"]: r for r in _rows(
        con, "SELECT run_id, model, scorer, n_questions FROM leaderboard "
        "WHERE benchmark = 'ehr_bench' AND mode = 'agentic'")}
    assert CLINSEEK_RUN in board and set(runs.values()) <= set(board)
    assert {board[r]["model"] for r in runs.values()} == {"claude_opus_4_6",
                                                          "claude_sonnet_4_6"}
    assert {board[r]["scorer"] for r in runs.values()} == {"match"}
    assert board[CLINSEEK_RUN]["scorer"] == "authors_text"
    assert {board[r]["n_questions"] for r in runs.values()} == {12}
    boards = _rows(con, "SELECT DISTINCT benchmark, mode FROM leaderboard")
    assert {(b["benchmark"], b["mode"]) for b in boards} >= {("ehr_bench", "agentic")}
    assert not any(b["benchmark"] == "ehr_qa" for b in boards)
    ranked = {r["run_id"] for r in _rows(con, "SELECT run_id FROM leaderboard_ranked "
                                              "WHERE rank_group IS NOT NULL")}
    assert set(runs.values()) <= ranked


def test_a_comparison_across_the_sources_has_the_same_statistics(mixed) -> None:
    con, runs = mixed
    inspect_run = runs["claude-opus-4-6"]
    (row,) = _rows(con, "SELECT * FROM paired_comparisons WHERE kind = 'model' AND "
                        "scope = 'overall' AND run_a = ? AND run_b = ?",
                   [CLINSEEK_RUN, inspect_run])
    scores = {run: {r["qid"]: r["score"] for r in _rows(
        con, "SELECT qid, score FROM leaderboard_question_scores WHERE run_id = ?", [run])}
        for run in (CLINSEEK_RUN, inspect_run)}
    shared = sorted(set(scores[CLINSEEK_RUN]) & set(scores[inspect_run]))
    assert len(shared) == row["n_shared"] == 12
    diffs = {q: scores[CLINSEEK_RUN][q] - scores[inspect_run][q] for q in shared}
    assert row["diff"] == pytest.approx(sum(diffs.values()) / len(diffs), abs=1e-12)
    wins = (sum(d > 1e-12 for d in diffs.values()), sum(d < -1e-12 for d in diffs.values()))
    assert (row["wins_a"], row["wins_b"]) == wins
    assert row["p_value"] == pytest.approx(oracle.sign_test(*wins), rel=1e-9)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        oracle.bootstrap_interval(diffs, SEED, RESAMPLES), abs=1e-9)
    # clustered by the patients of run a's questions (docs/STATISTICS.md)
    patient = dict(con.execute("SELECT qid, subject_id FROM results WHERE run_id = ?",
                               [CLINSEEK_RUN]).fetchall())
    mean = row["diff"]
    sums: dict[int, float] = {}
    for q, d in diffs.items():
        sums[patient[q]] = sums.get(patient[q], 0.0) + d - mean
    assert row["n_clusters"] == len(sums)
    assert row["se_diff_clustered"] == pytest.approx(
        math.sqrt(sum(s * s for s in sums.values())) / len(diffs), abs=1e-9)
