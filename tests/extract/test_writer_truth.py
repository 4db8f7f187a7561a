"""The writer shapes `etl synth` plants (docs/SYNTH.md "Writer shapes"), checked in the
ingested demo warehouse against the generator's truth file."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest


@pytest.fixture(scope="module")
def con(demo_db: Path):
    c = duckdb.connect(str(demo_db), read_only=True)
    yield c
    c.close()


def test_bare_nan_is_loaded_as_null_without_a_reject(con, demo_tree) -> None:
    _, truth = demo_tree
    planted = [n for n in truth["nonfinite"] if "results" in n["path"].rsplit("/", 1)[-1]
               or n["path"].endswith("merged_unique.jsonl")]
    assert planted, "the demo tree plants bare NaN in result files"
    for n in truth["nonfinite"]:
        assert con.execute("SELECT count(*) FROM rejects r JOIN files f USING (file_id) "
                           "WHERE f.path = ? AND r.line_no = ?",
                           [n["path"], n["line_no"]]).fetchone()[0] == 0, n
    for n in planted:
        row = con.execute(
            "SELECT r.nonfinite_keys FROM results r JOIN files f USING (file_id) "
            "WHERE f.path = ? AND r.line_no = ?", [n["path"], n["line_no"]]).fetchone()
        if row is None:  # a copy that lost to a preferred one
            continue
        assert n["key"] in json.loads(row[0]), n
    n_flagged = con.execute("SELECT count(*) FROM results WHERE nonfinite_keys IS NOT NULL"
                            ).fetchone()[0]
    assert 0 < n_flagged <= len(planted)


def test_tool_shapes_match_the_truth(con, demo_tree) -> None:
    _, truth = demo_tree
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT run_id, count(*) FILTER (WHERE is_error), count(*) FILTER (WHERE name_fixed), "
        "count(*) FILTER (WHERE paired_by = 'order'), "
        "count(*) FILTER (WHERE name_fixed AND NOT starts_with(tool, 'image.')) "
        "FROM tool_calls GROUP BY run_id").fetchall()}
    totals = {"n_error_results": 0, "n_name_fixed": 0, "n_fresh_id_results": 0}
    for run in truth["runs"]:
        shapes = run["tool_shapes"]
        for k in totals:
            totals[k] += shapes[k]
        errors, fixed, by_order, fixed_elsewhere = got.get(run["run_id"], (0, 0, 0, 0))
        assert (errors, fixed, by_order) == (
            shapes["n_error_results"], shapes["n_name_fixed"], shapes["n_fresh_id_results"]
        ), run["run_id"]
        assert fixed_elsewhere == 0
    assert all(totals.values()), f"the demo tree plants every tool shape: {totals}"


def test_fixed_names_agree_with_the_tool_name_fix_log_lines(con, demo_tree) -> None:
    # Kimi's raw shards: every ehr.-prefixed image call is one TOOL_NAME_FIX line in the
    # log of the process that wrote it (run.log, or run_steal_NN.log for stolen rows)
    run_id = "mm_bench/agentic/full2703/kimi_k2_5"
    logged = con.execute("SELECT sum(n_tool_name_fixes) FROM run_log_stats WHERE run_id = ?",
                         [run_id]).fetchone()[0]
    fixed = con.execute("SELECT count(*) FROM tool_calls WHERE run_id = ? AND name_fixed",
                        [run_id]).fetchone()[0]
    assert fixed > 0 and logged >= fixed


def test_leftover_fields_match_the_truth(con, demo_tree) -> None:
    _, truth = demo_tree
    got: dict[str, dict[str, int]] = {}
    for run_id, key, n in con.execute(
            "SELECT run_id, k, count(*) FROM (SELECT run_id, unnest(json_keys(extra)) AS k "
            "FROM results WHERE extra IS NOT NULL) GROUP BY run_id, k").fetchall():
        got.setdefault(run_id, {})[key] = n
    for run in truth["runs"]:
        assert got.get(run["run_id"], {}) == run["extra_keys"], run["run_id"]
    planted = {k for run in truth["runs"] for k in run["extra_keys"]}
    assert {"task_info", "ground_truth", "candidates", "multimodal_summary"} <= planted


def test_steal_logs_and_inputs_of_raw_runs(con, demo_tree) -> None:
    _, truth = demo_tree
    steal_logs = [log for run in truth["runs"] for log in run.get("run_logs", [])
                  if log["path"].rsplit("/", 1)[-1].startswith("run_steal_")]
    assert steal_logs, "raw runs have work-stealing helper logs"
    for log in steal_logs:
        row = con.execute("SELECT s.steal_run, s.n_tool_calls, s.n_written FROM run_log_stats s "
                          "JOIN files f USING (file_id) WHERE f.path = ?",
                          [log["path"]]).fetchone()
        assert row == (1, log["n_tool_calls"], log["n_written"]), log["path"]
    for raw in truth["raw_runs"]:
        by_run: dict[str, int] = {}
        for shard in raw["manifest"]["shards"]:
            slug = shard["model_tag"]
            by_run[slug] = by_run.get(slug, 0) + shard["rows"]
        for run in truth["runs"]:
            if run["run_id"].startswith("mm_bench/agentic/full2703/") and \
                    run["run_id"].rsplit("/", 1)[-1].replace("_", "-") in by_run:
                n_assigned, never = con.execute(
                    "SELECT n_assigned, assigned_never_answered FROM coverage WHERE run_id = ?",
                    [run["run_id"]]).fetchone()
                assert n_assigned == by_run[run["run_id"].rsplit("/", 1)[-1].replace("_", "-")]
                lost = run.get("assigned_never_answered", [])
                assert never == len(lost), run["run_id"]
                for qid in lost:
                    assert con.execute("SELECT count(*) FROM shard_inputs WHERE run_id = ? "
                                       "AND qid = ?", [run["run_id"], qid]).fetchone()[0] == 1
                    assert con.execute("SELECT count(*) FROM results WHERE run_id = ? "
                                       "AND qid = ?", [run["run_id"], qid]).fetchone()[0] == 0
    assert any(run.get("assigned_never_answered") for run in truth["runs"])


def test_every_backend_id_resolves_to_the_run_model(con) -> None:
    ids = con.execute(
        "SELECT DISTINCT r.backend_model_id, r.model, a.model FROM results r "
        "LEFT JOIN model_aliases a ON a.alias = lower(r.backend_model_id) "
        "WHERE r.backend_model_id IS NOT NULL").fetchall()
    assert ids and all(run_model == alias_model for _, run_model, alias_model in ids), ids
    assert any(i.startswith("eu.") for i, _, _ in ids)
    assert any(i.startswith("us.") for i, _, _ in ids)
