"""attempt_consistency on a tree written by hand: a question whose two attempts call the same
tools in the same order and give the same answer in another order agrees on all three; one
whose attempts differ agrees on none; a question with one attempt does not count. The
numbers equal the oracle's (tests/efficiency_oracle.py) too."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from tests import efficiency_oracle as oracle
from tests.conftest import run_etl

RUN = "ehr_bench/agentic/full1800/claude_opus_4_6"
CANDIDATES = ["Sepsis", "Pneumonia", "Anemia", "Delirium"]


def _record(qid: str, run_index: int, tools: list[str], answer: list[str]) -> dict:
    messages: list[dict] = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    for i, tool in enumerate([*tools, "ehr.finish"]):
        args = ({"response": answer} if tool == "ehr.finish" else
                {"subject_id": "1", "sql_query": f"SELECT {i}"} if tool.endswith("sql_query")
                else {"subject_id": "1", "timestamp": "2150-01-01 00:00:00"})
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": tool, "arguments": json.dumps(args)}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "rows"})
    return {"qid": qid, "run_index": run_index, "runs_per_question": 2, "messages": messages,
            "completed": True, "status": "success", "stop_reason": "finish_tool_call",
            "task": "labevents", "task_type": "decision_making", "label": ["Sepsis", "Anemia"],
            "candidates": CANDIDATES}


def test_attempts_agree_as_written(tmp_path: Path) -> None:
    sql, load = "ehr.run_sql_query", "ehr.load_ehr"
    records = [
        _record("labevents_1_1", 1, [load, sql, sql], ["Sepsis", "Anemia"]),
        _record("labevents_1_1", 2, [load, sql, sql], ["Anemia", "SEPSIS"]),  # same set
        _record("labevents_2_1", 1, [load, sql], ["Sepsis", "Anemia"]),
        _record("labevents_2_1", 2, [sql, load], ["Pneumonia"]),
        _record("labevents_3_1", 1, [load], ["Sepsis"]),
    ]
    run_dir = tmp_path / "tree" / RUN
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    db = tmp_path / "w.duckdb"
    run_etl("ingest", str(tmp_path / "tree"), "--db", str(db), "--quiet")
    with duckdb.connect(str(db), read_only=True) as con:
        got = con.execute("SELECT task, n_questions, n_attempts, outcome_agreement, "
                          "answer_agreement, tool_sequence_agreement FROM attempt_consistency "
                          "ORDER BY task NULLS FIRST").fetchall()
        want = oracle.consistency(con)
    assert got == [(None, 2, 4, 0.5, 0.5, 0.5), ("labevents", 2, 4, 0.5, 0.5, 0.5)]
    assert {(RUN, None): (2, 0.5, 0.5, 0.5), (RUN, "labevents"): (2, 0.5, 0.5, 0.5)} == {
        k: (v["n_questions"], v["outcome_agreement"], v["answer_agreement"],
            v["tool_sequence_agreement"]) for k, v in want.items()}
