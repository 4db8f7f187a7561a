"""Warehouse.failures / failure_kinds / efficiency / consistency / comparison_failures (and
`etl failures`, `etl compare --by-failure`) on the demo warehouse: the rows are the views'
rows, filtered as asked; bad filters are refused by name; the questions A lost are the ones
the per-question comparison calls b_better, grouped by A's labels recomputed here."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

import etl
from etl.cli.compare import compare_command
from etl.cli.failures import failures_command
from etl.errors import UnknownName

OPUS = "ehr_bench/agentic/full1800/claude_opus_4_6"
GLM = "ehr_bench/agentic/full1800/glm_4_7"


def _view(db: Path, sql: str, params: list | None = None) -> list[dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(sql, params or [])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def test_failures_are_the_profile_rows_asked_for(demo_db: Path) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        runs = wh.failures("ehr_bench", "agentic", model="Claude Opus 4.6").to_pylist()
        tasks = wh.failures("ehr_bench", "agentic", model="glm_4_7", by_task=True).to_pylist()
        one = wh.failures("ehr_bench", "agentic", task="labevents").to_pylist()
    want = _view(demo_db, "SELECT failure, n_results, share, points_lost FROM failure_profile "
                          "WHERE run_id = ? AND all_tasks", [OPUS])
    assert sorted((r["failure"], r["n_results"], r["share"], r["points_lost"]) for r in runs) \
        == sorted(tuple(w.values()) for w in want)
    assert {r["display_name"] for r in runs} == {"Claude Opus 4.6"}
    # in registry order (table failures), none where the registry puts it
    order = [f for f, in duckdb.connect(str(demo_db), read_only=True).execute(
        "SELECT failure FROM failures ORDER BY position").fetchall()]
    assert [r["failure"] for r in runs] == [f for f in order if f in {r["failure"]
                                                                       for r in runs}]
    assert tasks and all(r["task"] is not None and r["run_id"] == GLM for r in tasks)
    assert one and {r["task"] for r in one} == {"labevents"}


def test_kinds_efficiency_and_consistency_are_their_views(demo_db: Path) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        kinds = wh.failure_kinds("ehr_bench", "agentic", failure="tool_error").to_pylist()
        efficiency = wh.efficiency("ehr_bench", "agentic").to_pylist()
        consistency = wh.consistency().to_pylist()
    assert kinds and {k["failure"] for k in kinds} == {"tool_error"}
    assert sum(k["n_calls"] for k in kinds) == _view(
        demo_db, "SELECT count(*) AS n FROM call_failures AS c JOIN runs AS u USING (run_id) "
                 "WHERE c.failure = 'tool_error' AND u.run_id IN (SELECT run_id FROM "
                 "leaderboard_runs WHERE benchmark = 'ehr_bench' AND mode = 'agentic')")[0]["n"]
    frontier = {r["run_id"]: r["on_frontier"] for r in _view(
        demo_db, "SELECT run_id, on_frontier FROM efficiency_frontier WHERE benchmark = "
                 "'ehr_bench' AND mode = 'agentic'")}
    assert {r["run_id"]: r["on_frontier"] for r in efficiency} == frontier
    assert [r["score"] for r in efficiency] == sorted((r["score"] for r in efficiency),
                                                      reverse=True)
    assert [(r["run_id"], r["n_questions"]) for r in consistency] == [
        (r["run_id"], r["n_questions"]) for r in _view(
            demo_db, "SELECT run_id, n_questions FROM attempt_consistency WHERE all_tasks "
                     "ORDER BY benchmark, mode, model")]


def test_bad_filters_are_refused_with_the_closest_names(demo_db: Path) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        with pytest.raises(UnknownName, match="labevent"):
            wh.failures(task="labevent")
        with pytest.raises(UnknownName, match="tool_error"):
            wh.failure_kinds(failure="tool_eror")
        with pytest.raises(UnknownName):
            wh.efficiency(benchmark="ehr_bnch")


def test_the_questions_a_lost_grouped_by_its_labels(demo_db: Path) -> None:
    with etl.open(demo_db, frames="arrow") as wh:
        got = wh.comparison_failures("glm_4_7", "claude_opus_4_6", "ehr_bench",
                                     "agentic").to_pylist()
        questions = wh.compare("glm_4_7", "claude_opus_4_6", "ehr_bench", "agentic").to_pylist()
    lost = {q["qid"]: q["score_b"] - q["score_a"] for q in questions
            if q["outcome"] == "b_better"}
    labels = defaultdict(set)
    for row in _view(demo_db, "SELECT qid, failure FROM result_failures WHERE run_id = ?",
                     [GLM]):
        labels[row["qid"]].add(row["failure"])
    want: dict[str, list[float]] = defaultdict(list)
    for qid, diff in lost.items():
        for failure in labels[qid]:
            want[failure].append(diff)
    assert {r["failure"]: (r["n_questions"], pytest.approx(r["points"])) for r in got} == {
        f: (len(v), pytest.approx(sum(v))) for f, v in want.items()}
    assert all(r["n_lost"] == len(lost) for r in got)
    assert [r["n_questions"] for r in got] == sorted((r["n_questions"] for r in got),
                                                     reverse=True)


def test_the_commands_print_the_same_rows(demo_db: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(failures_command, ["--db", str(demo_db), "--benchmark", "ehr_bench",
                                           "--mode", "agentic", "--format", "json"])
    assert out.exit_code == 0, out.output
    with etl.open(demo_db, frames="arrow") as wh:
        api = wh.failures("ehr_bench", "agentic").to_pylist()
    assert [(r["run_id"], r["failure"], r["n_results"]) for r in json.loads(out.output)] == \
        [(r["run_id"], r["failure"], r["n_results"]) for r in api]
    table = runner.invoke(failures_command, ["--db", str(demo_db), "--show", "efficiency"])
    assert table.exit_code == 0 and "calls_per_question" in table.output
    refused = runner.invoke(failures_command, ["--db", str(demo_db), "--failure", "x"])
    assert refused.exit_code == 2 and "--show kinds" in refused.output
    unknown = runner.invoke(failures_command, ["--db", str(demo_db), "--show", "kinds",
                                               "--failure", "tool_eror"])
    assert unknown.exit_code == 2 and "tool_error" in unknown.output
    losses = runner.invoke(compare_command, ["glm_4_7", "claude_opus_4_6", "--db", str(demo_db),
                                             "--benchmark", "ehr_bench", "--mode", "agentic",
                                             "--by-failure"])
    assert losses.exit_code == 0 and "n_questions" in losses.output \
        and "invalid_arguments" in losses.output
