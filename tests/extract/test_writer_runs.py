"""Multi-region run files the writer leaves (run_multi_model_eval.py of UCSC-VLAA/
ClinSeekAgent): input.jsonl per shard and input_steal_NN.jsonl (build_shards /
try_steal_work), run_steal_NN.log beside run.log. Hand-built tree, hand-counted answers."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from etl.pipeline.discover import classify_kind
from tests.conftest import run_etl

RUN = "mm_bench/agentic/full2703/kimi_k2_5"


def jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def result(qid: str) -> dict:
    return {"qid": qid, "run_index": 1, "status": "success", "completed": True,
            "task": "ehrxqa_image", "messages": []}


def test_steal_files_are_classified() -> None:
    assert classify_kind(["us-east-1", "run_steal_01.log"]) == "run_log"
    assert classify_kind(["us-east-1", "run_steal_12.log"]) == "run_log"
    assert classify_kind(["us-east-1", "input_steal_03.jsonl"]) == "input"
    assert classify_kind(["us-east-1", "run_steal.log"]) == "text"
    assert classify_kind(["us-east-1", "input.jsonl"]) == "input"


def test_shard_inputs_coverage_and_steal_logs(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    run = root / RUN
    # 7 questions round-robin over two regions; us-west-2 helped us-east-1 with its tail
    east = [{"qid": f"q{i}", "task": "ehrxqa_image", "question": "?"} for i in (0, 2, 4, 6)]
    west = [{"qid": f"q{i}", "task": "ehrxqa_image", "question": "?"} for i in (1, 3, 5)]
    jsonl(run / "us-east-1" / "input.jsonl", east)
    jsonl(run / "us-west-2" / "input.jsonl", west)
    jsonl(run / "us-west-2" / "input_steal_01.jsonl", east[2:])          # q4, q6
    # answered: q0 (east), q1 q3 (west), q4 (steal); never answered: q2, q5, q6
    jsonl(run / "us-east-1" / "results.jsonl", [result("q0")])
    jsonl(run / "us-west-2" / "results.jsonl", [result("q1"), result("q3")])
    jsonl(run / "us-west-2" / "results_steal_01.jsonl", [result("q4")])
    (run / "us-west-2" / "run.log").write_text(
        "Using AWS Bedrock: moonshotai.kimi-k2.5 @ us-west-2 | thinking=auto\n"
        "[qid=q1] Round 1 TOOL_NAME_FIX: 'ehr.chest_xray_classifier' -> "
        "'image.chest_xray_classifier'\n")
    (run / "us-west-2" / "run_steal_01.log").write_text(
        "Using AWS Bedrock: moonshotai.kimi-k2.5 @ us-west-2 | thinking=auto\n"
        + "[qid=q4] Round 2 TOOL_NAME_FIX: 'ehr.dicom_processor' -> 'image.dicom_processor'\n"
        * 2 + "[qid=q4] \u2705 Round 3: synthesized ehr.finish from 1-line plain-text answer\n")
    db = tmp_path / "w.duckdb"
    run_etl("ingest", str(root), "--db", str(db), "--quiet")
    con = duckdb.connect(str(db), read_only=True)
    try:
        kinds = dict(con.execute("SELECT path, kind FROM files").fetchall())
        assert kinds[f"{RUN}/us-west-2/run_steal_01.log"] == "run_log"
        assert kinds[f"{RUN}/us-west-2/input_steal_01.jsonl"] == "input"
        inputs = con.execute("SELECT region, qid, line_no FROM shard_inputs WHERE run_id = ? "
                             "ORDER BY region, qid, line_no", [RUN]).fetchall()
        assert inputs == sorted(
            [("us-east-1", r["qid"], i + 1) for i, r in enumerate(east)]
            + [("us-west-2", r["qid"], i + 1) for i, r in enumerate(west)]
            + [("us-west-2", r["qid"], i + 1) for i, r in enumerate(east[2:])])
        cov = con.execute("SELECT present, n_assigned, assigned_never_answered FROM coverage "
                          "WHERE run_id = ?", [RUN]).fetchone()
        assert cov == (4, 7, 3)
        logs = con.execute("SELECT steal_run, n_tool_name_fixes, n_synthetic_finish "
                           "FROM run_log_stats WHERE run_id = ? ORDER BY steal_run NULLS FIRST",
                           [RUN]).fetchall()
        assert logs == [(None, 1, 0), (1, 2, 1)]
        # the authors' aggregate() sums both logs of a shard: name_fix 3, salvage 1
        assert con.execute("SELECT sum(n_tool_name_fixes), sum(n_synthetic_finish) FROM "
                           "run_log_stats WHERE source_dir = ?",
                           [f"{RUN}/us-west-2"]).fetchone() == (3, 1)
        other = con.execute("SELECT n_assigned, assigned_never_answered FROM coverage "
                            "WHERE n_assigned IS NULL").fetchall()
        assert all(r == (None, None) for r in other)
    finally:
        con.close()
