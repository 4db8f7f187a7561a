"""etl.open (etl/api.py) and `etl compare` on the demo warehouse, checked against numbers
recomputed here from the raw tables (results, question_scores), not from the views."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from click.testing import CliRunner

import etl
from etl.api import WarehouseError
from etl.cli.compare import compare_command
from etl.comparison import RESAMPLES, SEED
from tests import comparison_oracle as oracle

PROJECT_DIR = Path(__file__).resolve().parents[2]
OPUS = "ehr_bench/agentic/full1800/claude_opus_4_6"
SONNET = "ehr_bench/agentic/full1800/claude_sonnet_4_6"


def raw_question_scores(db: Path, benchmark: str) -> dict[str, dict[str, float]]:
    """run_id -> qid -> score, from results and the authors_text rows of question_scores:
    the leaderboard rule of a text benchmark (the authors' F1 whatever the status, unscored
    0, mean over run_index) for its current full-split runs."""
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.run_id, r.qid, r.run_index, r.status, s.f1 FROM results AS r "
        "JOIN runs AS u ON u.run_id = r.run_id LEFT JOIN question_scores AS s "
        "ON s.run_id = r.run_id AND s.qid = r.qid AND s.run_index = r.run_index "
        "AND s.scorer = 'authors_text' WHERE u.benchmark = ? "
        "AND NOT coalesce(u.is_archived, false) AND u.split LIKE 'full%'", [benchmark]).fetchall()
    con.close()
    per_result: dict[tuple[str, str], list[float]] = defaultdict(list)
    for run_id, qid, _, _status, f1 in rows:
        per_result[(run_id, qid)].append(0.0 if f1 is None else f1)
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (run_id, qid), values in per_result.items():
        out[run_id][qid] = sum(values) / len(values)
    return out


def test_model_comparison_equals_a_recomputation_from_the_raw_tables(demo_db: Path) -> None:
    scores = raw_question_scores(demo_db, "ehr_bench")
    with etl.open(demo_db, frames="arrow") as wh:
        table = wh.model_comparison("ehr_bench")
    rows = table.to_pylist()
    modes = {run.split("/")[1] for run in scores}
    expected_pairs = sum(
        len(runs) * (len(runs) - 1)
        for runs in [[r for r in scores if r.split("/")[1] == m] for m in modes])
    assert len(rows) == expected_pairs  # both orientations
    for row in rows:
        a, b = scores[row["run_a"]], scores[row["run_b"]]
        shared = sorted(set(a) & set(b))
        d = [a[q] - b[q] for q in shared]
        wins = sum(v > 1e-12 for v in d), sum(v < -1e-12 for v in d)
        assert row["n_shared"] == len(shared)
        assert row["diff"] == pytest.approx(sum(d) / len(d), abs=1e-12)
        assert (row["wins_a"], row["wins_b"], row["ties"]) == (*wins, len(d) - sum(wins))
        assert row["p_value"] == pytest.approx(oracle.sign_test(*wins), rel=1e-9)
    # The interval of the pair the issue asked about, by the pure-Python bootstrap.
    row = next(r for r in rows if (r["run_a"], r["run_b"]) == (OPUS, SONNET))
    d = {q: scores[OPUS][q] - scores[SONNET][q] for q in set(scores[OPUS]) & set(scores[SONNET])}
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        oracle.bootstrap_interval(d, SEED, RESAMPLES), abs=1e-9)


def test_compare_table_and_summary(demo_db: Path) -> None:
    scores = raw_question_scores(demo_db, "ehr_bench")
    with etl.open(demo_db, frames="arrow") as wh:
        result = wh.comparison("claude_opus_4_6", "claude_sonnet_4_6", "ehr_bench", "agentic")
        disagreements = wh.compare(OPUS, SONNET, only="disagreements")
    assert (result.run_a, result.run_b) == (OPUS, SONNET)
    questions = result.questions
    assert isinstance(questions, pa.Table)
    assert set(questions["qid"].to_pylist()) == set(scores[OPUS]) | set(scores[SONNET])
    for row in questions.to_pylist():
        if row["score_a"] is not None:
            assert row["score_a"] == pytest.approx(scores[OPUS][row["qid"]], abs=1e-12)
    outcomes = questions["outcome"].to_pylist()
    summary = result.summary
    assert outcomes.count("a_better") == summary["wins_a"]
    assert outcomes.count("b_better") == summary["wins_b"]
    assert disagreements.num_rows == summary["wins_a"] + summary["wins_b"]
    assert summary["ci_low"] < summary["diff"] < summary["ci_high"]


def test_names_that_mean_no_run_or_several(demo_db: Path) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        with pytest.raises(WarehouseError, match="matches 5 leaderboard runs"):
            wh.comparison("claude_opus_4_6", "claude_sonnet_4_6")
        with pytest.raises(WarehouseError, match="no leaderboard run matches"):
            wh.comparison("nobody", "claude_sonnet_4_6", "ehr_bench", "agentic")
        # Agentic against one-shot of one model: --mode-b.
        delta = wh.comparison("claude_opus_4_6", "claude_opus_4_6", "ehr_bench", "agentic",
                              mode_b="oneshot").summary
        row = wh.mode_delta("ehr_bench", "claude_opus_4_6", "overall").to_pylist()[0]
        assert delta["diff"] == pytest.approx(row["delta"])


def test_other_readers_and_read_only(demo_db: Path) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        board = wh.leaderboard("ehr_bench", "agentic", by="ranked")
        assert board.column("rank_group").to_pylist()[0] == 1
        trajectory = wh.messages(OPUS, board.num_rows and wh.results(run=OPUS)["qid"][0].as_py())
        assert trajectory.num_rows > 0
        assert trajectory["msg_idx"].to_pylist() == sorted(trajectory["msg_idx"].to_pylist())
        assert wh.tool_calls(run=OPUS).num_rows > 0
        with pytest.raises(duckdb.Error):
            wh.sql("CREATE TABLE scratch (a INTEGER)")
        with pytest.raises(duckdb.Error):
            wh.sql("SELECT * FROM read_text('/etc/hostname')")


def test_compare_command_formats(demo_db: Path) -> None:
    runner = CliRunner()
    base = ["claude_opus_4_6", "claude_sonnet_4_6", "--db", str(demo_db), "--benchmark",
            "ehr_bench", "--mode", "agentic"]
    # wins, losses and ties recomputed from the raw tables, not taken from the command
    scores = raw_question_scores(demo_db, "ehr_bench")
    d = [scores[OPUS][q] - scores[SONNET][q] for q in set(scores[OPUS]) & set(scores[SONNET])]
    wins_a, wins_b = sum(v > 1e-12 for v in d), sum(v < -1e-12 for v in d)
    table = runner.invoke(compare_command, base)
    assert table.exit_code == 0, table.output
    summary = " ".join(table.output.split())  # the summary is wrapped to the table's width
    assert f"A wins {wins_a}, B wins {wins_b}, ties {len(d) - wins_a - wins_b}" in summary
    as_json = runner.invoke(compare_command, [*base, "--format", "json", "--only",
                                              "disagreements"])
    assert as_json.exit_code == 0
    rows = json.loads(as_json.stdout)
    assert len(rows) == wins_a + wins_b
    assert {r["outcome"] for r in rows} == {"a_better", "b_better"}
    # each side's prediction source is its authors_text row's (first run_index)
    con = duckdb.connect(str(demo_db), read_only=True)
    sources = dict(((run, qid), src) for run, qid, src in con.execute(
        "SELECT run_id, qid, arg_min(prediction_source, run_index) FROM question_scores "
        "WHERE scorer = 'authors_text' GROUP BY run_id, qid").fetchall())
    con.close()
    for r in rows:
        assert r["prediction_source_a"] == sources[(OPUS, r["qid"])]
        assert r["prediction_source_b"] == sources[(SONNET, r["qid"])]
    assert "sign test p" in as_json.stderr
    for fmt in ("csv", "md"):
        assert runner.invoke(compare_command, [*base, "--format", fmt]).exit_code == 0
    missing = runner.invoke(compare_command, ["x", "y", "--db", str(demo_db)])
    assert missing.exit_code == 1 and "no leaderboard run matches 'x'" in missing.output


@pytest.mark.needs_registry
def test_frames_with_and_without_pandas(demo_db: Path, tmp_path: Path) -> None:
    """In a fresh interpreter: pyarrow Tables without pandas, DataFrames with pandas
    installed (the environment's, or else pip install --target from the registry)."""
    import importlib.util

    site = PROJECT_DIR / "build" / "pandas-site"
    have_pandas = importlib.util.find_spec("pandas") is not None
    if not have_pandas and not (site / "pandas").is_dir():
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target",
                               str(site), "pandas"], capture_output=True, text=True)
        if proc.returncode != 0:
            message = f"cannot install pandas: {proc.stderr.strip()[-500:]}"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    probe = ("import sys, etl; wh = etl.open(sys.argv[1]); "
             "print(type(wh.leaderboard()).__module__.split('.')[0], "
             "type(wh.compare(sys.argv[2], sys.argv[3])).__name__)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    plain = subprocess.run([sys.executable, "-c", probe, str(demo_db), OPUS, SONNET],
                           capture_output=True, text=True, env=env)
    assert plain.returncode == 0, plain.stderr
    if not have_pandas:  # the project venv has no pandas
        assert plain.stdout.split() == ["pyarrow", "Table"]
    with_pandas = subprocess.run([sys.executable, "-c", probe, str(demo_db), OPUS, SONNET],
                                 capture_output=True, text=True,
                                 env=env if have_pandas else {**env, "PYTHONPATH": str(site)})
    assert with_pandas.returncode == 0, with_pandas.stderr
    assert with_pandas.stdout.split() == ["pandas", "DataFrame"]


def test_leaderboard_boards_share_the_api_query(demo_db: Path) -> None:
    from etl.cli.leaderboard import leaderboard_command

    runner = CliRunner()
    ranked = runner.invoke(leaderboard_command, ["--db", str(demo_db), "--board", "ranked",
                                                 "--format", "json"])
    assert ranked.exit_code == 0, ranked.output
    with etl.open(demo_db, frames="arrow") as wh:
        # Two executions of the leaderboard view may differ in the last bits of a float
        # (parallel aggregation), so numbers are compared to 1e-12.
        api_rows = wh.leaderboard(by="ranked").to_pylist()
        cli_rows = json.loads(ranked.stdout)
        assert len(cli_rows) == len(api_rows)
        for cli_row, api_row in zip(cli_rows, api_rows, strict=True):
            assert cli_row.keys() == api_row.keys()
            for key, value in api_row.items():
                if isinstance(value, float):
                    assert cli_row[key] == pytest.approx(value, abs=1e-12), key
                else:
                    assert cli_row[key] == value, key
    clash = runner.invoke(leaderboard_command, ["--db", str(demo_db), "--board", "common",
                                                "--by", "task"])
    assert clash.exit_code == 2 and "drop --by" in clash.output
