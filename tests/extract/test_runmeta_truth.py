"""Run metadata of an ingested synthetic tree against what the generator planted: run.log
line counts, regions and backend model ids per run, and the raw run's manifest shards.

The generator writes manifest.json, status.json, cmd.txt, run.log and region_map.json the
way the public drivers do (docs/SYNTH.md); the truth file tallies each planted log line by
what it means, so the extractor's pattern counts are checked against an independent count."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest

from etl.synth.runlog import COLUMNS


def _rows(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def _metadata_files(truth: dict) -> list[dict]:
    kinds = {"manifest", "status", "region_map", "cmd", "run_log"}
    return [f for f in truth["files"] if f["kind"] in kinds]


def test_no_whole_file_rejects(demo_tree, demo_db) -> None:
    _, truth = demo_tree
    rejects = _rows(demo_db, "SELECT f.path, r.error FROM rejects AS r "
                             "LEFT JOIN files AS f ON f.file_id = r.file_id "
                             "WHERE r.line_no IS NULL AND r.severity = 'error'")
    assert rejects == []
    # and every metadata file the generator wrote is in the warehouse, none rejected
    loaded = {p for (p,) in _rows(demo_db, "SELECT path FROM files WHERE kind IN "
                                           "('manifest', 'status', 'region_map', 'cmd', "
                                           "'run_log')")}
    assert loaded == {f["path"] for f in _metadata_files(truth)}
    assert len(loaded) > 0


def test_run_log_counts_equal_the_planted_lines(demo_tree, demo_db) -> None:
    _, truth = demo_tree
    planted = {log["path"]: log for run in truth["runs"] for log in run["run_logs"]}
    assert planted, "the demo tree has run.log files"
    cols = ", ".join(f"s.{c}" for c in ("n_lines", *COLUMNS, "backend_model_id",
                                        "backend_region"))
    got = {row[0]: row[1:] for row in _rows(
        demo_db, f"SELECT f.path, s.run_id, {cols} FROM run_log_stats AS s "
                 "JOIN files AS f ON f.file_id = s.file_id")}
    assert got.keys() == planted.keys()
    for path, log in planted.items():
        run_id = next(r["run_id"] for r in truth["runs"] if log in r["run_logs"])
        expected = (run_id, log["n_lines"], *(log[c] for c in COLUMNS),
                    log["backend_model_id"], log["backend_region"])
        assert got[path] == expected, path
    # the check has teeth: every counted line kind was planted somewhere
    for column in COLUMNS:
        assert sum(log[column] for log in planted.values()) > 0, column
    # run_log_summary adds the logs up per run
    summary = {r[0]: r[1:] for r in _rows(
        demo_db, "SELECT run_id, n_logs, n_tool_calls, n_written FROM run_log_summary")}
    for run in truth["runs"]:
        if run["run_logs"]:
            assert summary[run["run_id"]] == (
                len(run["run_logs"]), sum(x["n_tool_calls"] for x in run["run_logs"]),
                sum(x["n_written"] for x in run["run_logs"]))


def test_regions_and_backend_ids_per_run(demo_tree, demo_db) -> None:
    _, truth = demo_tree
    got_regions: dict[str, set[str]] = {}
    got_ids: dict[str, set[str]] = {}
    for run_id, region, model_id in _rows(
            demo_db, "SELECT run_id, region, backend_model_id FROM run_backends "
                     "WHERE source <> 'results'"):
        assert run_id is not None, (region, model_id)  # every manifest shard maps to a run
        if region is not None:
            got_regions.setdefault(run_id, set()).add(region)
        if model_id is not None:
            got_ids.setdefault(run_id, set()).add(model_id)
    want_regions = {r["run_id"]: set(r["meta_regions"]) for r in truth["runs"]
                    if r["meta_regions"]}
    want_ids = {r["run_id"]: set(r["meta_backend_model_ids"]) for r in truth["runs"]
                if r["meta_backend_model_ids"]}
    assert want_regions and want_ids
    assert got_regions == want_regions
    assert got_ids == want_ids
    # run_regions holds them too, by source: each raw shard's status.json names its region
    status = _rows(demo_db, "SELECT run_id, region, backend_model_id, input_rows, returncode "
                            "FROM run_regions WHERE source = 'status'")
    manifest_shards = [s for raw in truth["raw_runs"] for s in raw["manifest"]["shards"]]
    assert len(status) == len(manifest_shards)
    assert all(rc == 0 for *_, rc in status)
    # one-shot records name a region the run's region_map.json lists (runs of the older
    # runner have no region_map.json)
    checked = 0
    for run_id, region in _rows(demo_db, "SELECT DISTINCT run_id, region FROM run_backends "
                                         "WHERE source = 'results' AND region IS NOT NULL"):
        if run_id in want_regions:
            assert region in want_regions[run_id], (run_id, region)
            checked += 1
    assert checked > 0


def test_run_meta_has_the_manifest_shards(demo_tree, demo_db) -> None:
    _, truth = demo_tree
    assert truth["raw_runs"]
    for raw in truth["raw_runs"]:
        rows = _rows(demo_db, "SELECT m.key, m.value FROM run_meta AS m "
                              "JOIN files AS f ON f.file_id = m.file_id "
                              "WHERE m.source = 'manifest' AND f.path = ?",
                     raw["manifest_path"])
        shards: dict[int, dict[str, str]] = {}
        for key, value in rows:
            found = re.fullmatch(r"shards\[(\d+)\]\.(\w+)", key)
            if found:
                shards.setdefault(int(found.group(1)), {})[found.group(2)] = value
        want = raw["manifest"]["shards"]
        assert [shards[i] for i in sorted(shards)] == [
            {k: str(v) for k, v in s.items()} for s in want]
        # the manifest rows of run_regions give each shard's region and backend id
        manifest_rows = _rows(
            demo_db, "SELECT rr.model_tag, rr.region, rr.backend_model_id, rr.input_rows "
                     "FROM run_regions AS rr JOIN files AS f ON f.file_id = rr.file_id "
                     "WHERE rr.source = 'manifest' AND f.path = ?", raw["manifest_path"])
        assert sorted(manifest_rows) == sorted(
            (s["model_tag"], s["region"], s["model_id"], s["rows"]) for s in want)


@pytest.mark.parametrize("column", ["n_tool_name_fixes", "n_synthetic_finish"])
def test_raw_summary_counts_what_the_logs_hold(demo_tree, column: str) -> None:
    """summary.json salvage / name_fix per shard are the counts of the shard's run.log plus
    its run_steal_NN.log files (run_multi_model_eval.py aggregate() reads both)."""
    root, truth = demo_tree
    key = {"n_tool_name_fixes": "name_fix", "n_synthetic_finish": "salvage"}[column]
    logs: dict[str, int] = {}
    for run in truth["runs"]:
        for log in run["run_logs"]:
            logs[log["source_dir"]] = logs.get(log["source_dir"], 0) + log[column]
    for raw in truth["raw_runs"]:
        summary = json.loads((root / raw["summary_path"]).read_text())
        for row in summary["shards"]:
            model = next(r["model_dir"] for r in truth["runs"] if r["run_id"].endswith(
                "/" + row["model_tag"].replace("-", "_")) and "full2703" in r["run_id"])
            assert row[key] == logs[f"mm_bench/agentic/full2703/{model}/{row['region']}"]
