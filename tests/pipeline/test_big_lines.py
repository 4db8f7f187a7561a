"""Lines of tens of MB (agentic trajectories with 100k-char tool results, base64 images)
load whole: nothing is cut, and the line next to a huge one is not disturbed."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import duckdb

from etl.pipeline.ingest import IngestOptions, run_ingest

RUN = "mm_bench/agentic/full2703/claude_opus_4_6"


def _huge_record(qid: str, n_tools: int, result_chars: int) -> dict:
    image = base64.b64encode(bytes(range(256)) * 4096).decode()  # ~1.4 MB of base64
    messages = [{"role": "system", "content": "s"},
                {"role": "user", "content": [{"type": "text", "text": "question"},
                                             {"type": "image", "source": {
                                                 "type": "base64", "media_type": "image/jpeg",
                                                 "data": image}}]}]
    for i in range(n_tools):
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "ehr.run_sql_query", "arguments": json.dumps({"q": i})}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}",
                         "content": ("row " + "x" * 96 + "\n") * (result_chars // 101)})
    messages.append({"role": "assistant", "content": "", "tool_calls": [
        {"id": "f", "type": "function",
         "function": {"name": "ehr.finish", "arguments": json.dumps({"response": ["a"]})}}]})
    return {"qid": qid, "run_index": 1, "task": "ehrxqa_image", "label": [{"name": "a"}],
            "status": "success", "messages": messages}


def test_a_line_of_tens_of_megabytes_loads_whole(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / RUN).mkdir(parents=True)
    huge = json.dumps(_huge_record("big", n_tools=200, result_chars=100_000))
    small = json.dumps(_huge_record("small", n_tools=1, result_chars=10))
    (root / RUN / "results.jsonl").write_text(f"{small}\n{huge}\n{small.replace('small', 's2')}\n")
    assert len(huge) > 20_000_000
    db = tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT qid, line_no, n_tool_calls, n_images, status FROM results "
                           "ORDER BY line_no").fetchall() == [
            ("small", 1, 2, 1, "success"), ("big", 2, 201, 1, "success"),
            ("s2", 3, 2, 1, "success")]
        chars = con.execute("SELECT sum(content_chars), max(content_chars) FROM messages "
                            "WHERE qid = 'big' AND role = 'tool'").fetchone()
        per_result = len(("row " + "x" * 96 + "\n") * (100_000 // 101))
        assert chars == (200 * per_result, per_result)
        assert con.execute("SELECT count(*) FROM rejects").fetchone()[0] == 0
        assert con.execute("SELECT f1 FROM question_scores WHERE qid = 'big' "
                           "AND scorer = 'set_f1'").fetchone()[0] == 1.0
    finally:
        con.close()
