"""Run metadata extractor on hand-written files shaped like the ones the public driver
(run_multi_model_eval.py / deploy_agent_mm.py) writes, and on damaged ones."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from etl.extract import EXTRACTORS, FileInfo, load_all
from etl.extract.runmeta import flatten
from tests.recording import TableRecorder


def run(tmp_path: Path, rel: str, content: str | bytes, kind: str) -> TableRecorder:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    info = FileInfo(file_id="f1", path=rel, abs_path=path, real_path=str(path), kind=kind,
                    run_id="mm_bench/agentic/full2703/kimi_k2_5", model="kimi_k2_5")
    load_all()
    rec = TableRecorder()
    EXTRACTORS[kind](info, rec)
    return rec


STATUS = {"friendly_name": "Kimi K2.5", "model_tag": "kimi-k2-5", "region": "us-west-2",
          "model_id": "moonshotai.kimi-k2.5", "input_rows": 541, "pid": 4242,
          "returncode": 0, "results_rows": 539}


def test_status_json_gives_meta_and_one_region_row(tmp_path: Path) -> None:
    rec = run(tmp_path, "mm/kimi/us-west-2/status.json", json.dumps(STATUS, indent=2), "status")
    assert rec.rejects == []
    meta = {r["key"]: (r["value"], r["value_type"]) for r in rec.rows["run_meta"]}
    assert set(meta) == set(STATUS)
    assert meta["returncode"] == (str(STATUS["returncode"]), "number")
    assert all(r["source_dir"] == "mm/kimi/us-west-2" for r in rec.rows["run_meta"])
    [region] = rec.rows["run_regions"]
    assert (region["region"], region["backend_model_id"]) == (STATUS["region"],
                                                              STATUS["model_id"])
    assert region["model"] == "kimi_k2_5"
    assert (region["input_rows"], region["results_rows"], region["returncode"], region["pid"]) \
        == (STATUS["input_rows"], STATUS["results_rows"], STATUS["returncode"], STATUS["pid"])


def test_manifest_gives_one_region_row_per_shard(tmp_path: Path) -> None:
    shards = [{"friendly_name": name, "model_tag": tag, "region": region, "model_id": mid,
               "input_path": f"/x/{tag}/{region}/input.jsonl", "shard_dir": f"/x/{tag}/{region}",
               "rows": rows}
              for name, tag, mid, region, rows in [
                  ("GLM-4.7", "glm-4-7", "zai.glm-4.7", "us-east-1", 900),
                  ("GLM-4.7", "glm-4-7", "zai.glm-4.7", "us-west-2", 901),
                  ("Claude Sonnet 4.6", "claude-sonnet-4-6", "us.anthropic.claude-sonnet-4-6-v1",
                   "us-east-1", 1351)]]
    manifest = {"generated_at": "2026-04-21T09:15:17+00:00", "mode": "full", "data": "/d.jsonl",
                "output_root": "/x", "models": ["GLM-4.7", "Claude Sonnet 4.6"],
                "per_shard_concurrency": 6, "max_parallel_shards": 6, "shards": shards}
    rec = run(tmp_path, "raw/full5_x/manifest.json", json.dumps(manifest), "manifest")
    assert rec.rejects == []
    got = [(r["model"], r["region"], r["backend_model_id"], r["input_rows"])
           for r in rec.rows["run_regions"]]
    assert got == [("glm_4_7", s["region"], s["model_id"], s["rows"]) for s in shards[:2]] + [
        ("claude_sonnet_4_6", shards[2]["region"], shards[2]["model_id"], shards[2]["rows"])]
    keys = {r["key"] for r in rec.rows["run_meta"]}
    assert "shards[2].model_tag" in keys and "models[1]" in keys
    assert len(rec.rows["run_meta"]) == len(list(flatten(manifest)))


def test_region_map_shapes(tmp_path: Path) -> None:
    by_region = {"us-east-1": "zai.glm-4.7", "eu-central-1": "zai.glm-4.7", "note": "x"}
    rec = run(tmp_path, "r/region_map.json", json.dumps(by_region), "region_map")
    assert sorted((r["region"], r["backend_model_id"]) for r in rec.rows["run_regions"]) == \
        sorted((k, v) for k, v in by_region.items() if k != "note")
    by_model = {"moonshotai.kimi-k2.5": ["us-east-1", "us-west-2"]}
    rec = run(tmp_path, "r2/region_map.json", json.dumps(by_model), "region_map")
    assert [(r["region"], r["model"]) for r in rec.rows["run_regions"]] == [
        ("us-east-1", "kimi_k2_5"), ("us-west-2", "kimi_k2_5")]


def test_bad_json_is_a_reject_naming_the_file(tmp_path: Path) -> None:
    rec = run(tmp_path, "a/status.json", '{"region": "us-east-1", "pid": ', "status")
    assert "run_meta" not in rec.rows
    [(line_no, severity, error, _)] = rec.rejects
    assert (line_no, severity) == (None, "error") and "a/status.json" in error
    rec = run(tmp_path, "b/manifest.json", '["not", "a", "manifest"]', "manifest")
    assert any("no shards" in r[2] and "b/manifest.json" in r[2] for r in rec.rejects)
    rec = run(tmp_path, "c/status.json", '{"region": "us-east-1", "pid": NaN}', "status")
    assert rec.rejects == []  # bare NaN is what json.dumps writes: not damage
    assert rec.rows["run_regions"][0]["pid"] is None


def test_cmd_txt_options_and_region(tmp_path: Path) -> None:
    argv = ["/venv/bin/python", "/repo/deploy_agent_mm.py", "--data_path", "/s/in put.jsonl",
            "--bedrock_model_id", "qwen.qwen3-vl-235b-a22b", "--bedrock_region", "us-west-2",
            "--verbose", "--max_rounds", "200", "--disable_thinking"]
    rec = run(tmp_path, "s/cmd.txt", shlex.join(argv) + "\n", "cmd")
    meta = {r["key"]: (r["value"], r["value_type"]) for r in rec.rows["run_meta"]}
    assert meta["command"][0] == shlex.join(argv)
    assert meta["--data_path"] == ("/s/in put.jsonl", "string")
    assert meta["--verbose"] == (None, "flag") and meta["--disable_thinking"] == (None, "flag")
    assert meta["argv[1]"] == (argv[1], "string")
    [region] = rec.rows["run_regions"]
    assert (region["region"], region["backend_model_id"], region["model"]) == (
        "us-west-2", "qwen.qwen3-vl-235b-a22b", "qwen3_vl_235b")
    rec = run(tmp_path, "e/cmd.txt", "\n", "cmd")
    assert rec.rejects and "e/cmd.txt" in rec.rejects[0][2]


def test_run_log_counts_follow_the_driver_lines(tmp_path: Path) -> None:
    # Lines as deploy_agent_mm.py (and run_text.py) print them; each kind a different number
    # of times.
    plan = {
        "Using AWS Bedrock: zai.glm-4.7 @ us-east-2 | thinking=auto": 1,
        "Processing task 3/10 | question 3/10 | run 1/1 | qid=q3: What...": 4,
        "[qid=q3] Round 2 TOOL_NAME_FIX: 'ehr_load_ehr' -> 'ehr.load_ehr'": 3,
        "[qid=q3] Round 2 TOOL_CALL[0]: ehr.load_ehr({})": 7,
        "[qid=q3] Round 2 TOOL_RESULT_TRUNCATED[0]: 120000 -> 100000 chars": 2,
        "[qid=q3] Round 4 TOOL_ERROR[1]: Error executing ehr.run_sql_query: boom": 5,
        "[qid=q3] \u2705 Round 9: synthesized ehr.finish from 2-line plain-text answer": 6,
        "[qid=q4] DONE Round 3: synthesized ehr.finish from plain-text answer (1 item(s))": 1,
        "[qid=q5] \u2705 Round 5: ehr.finish called - DONE": 8,
        # clinseekagent/run_text.py words the same event differently
        "[qid=q8__q_8__run_1] DONE Round 3: ehr.finish called": 2,
        "[qid=q6] ERROR: ThrottlingException": 2,
        "[qid=q7] ERROR before completion: boom": 1,
        "Traceback (most recent call last):": 3,
        "[qid=q5] task 5/10 | run 1/1 written to out/results.jsonl": 9,
        "  File \"deploy_agent_mm.py\", line 1, in <module>": 3,
    }
    lines = [line for line, n in plan.items() for _ in range(n)]
    rec = run(tmp_path, "s/us-east-2/run.log", "\n".join(lines) + "\n", "run_log")
    [stats] = rec.rows["run_log_stats"]

    def count(*needles: str) -> int:
        return sum(n for line, n in plan.items() if any(s in line for s in needles))

    assert stats["n_lines"] == len(lines) == rec.stats["n_lines"]
    assert stats["n_tool_name_fixes"] == count("TOOL_NAME_FIX")
    assert stats["n_tool_calls"] == count("TOOL_CALL[")
    assert stats["n_truncated_results"] == count("TRUNCATED")
    assert stats["n_tool_errors"] == count("TOOL_ERROR")
    assert stats["n_synthetic_finish"] == count("synthesized ehr.finish")
    assert stats["n_finish_called"] == count("finish called")
    assert stats["n_errors"] == count("] ERROR")
    assert stats["n_exceptions"] == count("Traceback")
    assert stats["n_written"] == count("written to")
    assert stats["n_questions_started"] == count("Processing task")
    assert (stats["backend_model_id"], stats["backend_region"]) == ("zai.glm-4.7", "us-east-2")
    assert rec.rows["run_regions"][0]["model"] == "glm_4_7"


def test_run_log_with_invalid_utf8_and_no_backend_line(tmp_path: Path) -> None:
    rec = run(tmp_path, "s/run.log", b"\xff\xfe garbage\n[qid=1] ERROR: x\nno newline", "run_log")
    [stats] = rec.rows["run_log_stats"]
    assert (stats["n_lines"], stats["n_errors"], stats["backend_model_id"]) == (3, 1, None)
    assert "run_regions" not in rec.rows and rec.rejects == []
