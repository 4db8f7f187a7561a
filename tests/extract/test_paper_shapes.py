"""Shapes the authors' own scripts write into or read from a results tree, each loaded as
what it is (UCSC-VLAA/ClinSeekAgent openresearcher_ehr/):

- raw QA rows of eval_ehrbench_qa.py (gold in ground_truth, no label, no status);
- a scored-only multimodal run as analysis/ingest_external_results.py stages one;
- scores.json + task_scores.jsonl of helper/score_diagnoses_ccs_results.py;
- tool.json of helper/analyze_tool_call_averages.py (success-only by default);
- results.repaired.jsonl + results.repaired.summary.json of
  helper/repair_diagnoses_ccs_results.py.

Each file is written in the script's shape, its numbers computed from the records by the
scripts' formulas in the synthetic-tree generator (etl/synth/helper_outputs.py, which shares
no code with the warehouse), with one number planted off; the warehouse must reconcile every
other number and flag the planted one."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest
from etl.synth.helper_outputs import ccs_scores, qa_row, repaired, tool_json

AGENT_RUN = "agent_ehr_bench/agentic/subset600/kimi_k2_5"
QA_RUN = "ehr_bench/oneshot/full1800/medgemma_27b_it"
SCORED_ONLY = "mm_bench/agentic/scored/gemma4_26b_a4b_it"


def finish(response: Any, name: str = "ehr.finish") -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function",
         "function": {"name": name, "arguments": json.dumps({"response": response})}}]}


def call(name: str) -> dict[str, Any]:
    return {"id": name, "type": "function", "function": {"name": name, "arguments": "{}"}}


def agent_records() -> list[dict[str, Any]]:
    """A diagnoses_ccs-style run: several lines per question, a string answer (no
    prediction for the helper), an incomplete run, tool calls of several families."""
    gold = {"q1": [{"name": "Sepsis"}, {"name": "Shock"}], "q2": [{"name": "Pneumonia"}],
            "q3": [{"name": "Asthma", "atc_name": "x"}], "q4": [{"name": "Gout"}]}
    plan = [("q1", ["sepsis"], "success", True), ("q1", ["Sepsis", "Shock"], "success", True),
            ("q1", ["x"], "incomplete", False), ("q2", "Pneumonia", "success", True),
            ("q2", ["pneumonia", "flu"], "success", True), ("q3", ["Asthma"], "error", False),
            ("q4", None, "incomplete", False)]
    out = []
    for i, (qid, response, status, completed) in enumerate(plan):
        task = "labevents" if qid == "q4" else "diagnoses_ccs"
        messages = [{"role": "assistant", "content": "", "tool_calls": [
            call("ehr_load_ehr"), call("browser.search"), call("ehr.run_sql_query")][: 1 + i % 3]},
            {"role": "tool", "content": "ok"}]
        if response is not None:
            messages.append(finish(response))
        else:
            messages.append({"role": "assistant", "content": "Final: Gout", "tool_calls": None})
        out.append({"qid": qid, "task": task, "label": gold[qid], "messages": messages,
                    "status": status, "completed": completed, "run_index": 1,
                    "stop_reason": "finish_tool_call" if completed else "no_final_answer"})
    return out


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


SCORED_ROWS = [
    {"qid": "m1", "run_index": 1, "task": "medmod_phenotyping", "route": "set_f1",
     "status": "success", "f1": 0.5, "precision": 0.5, "recall": 0.5, "len_gold": 2},
    {"qid": "m2", "run_index": 1, "task": "ehrxqa_image", "route": "llm_judge",
     "status": "success", "correct": True, "f1": 1.0, "len_gold": 1},
    {"qid": "m3", "run_index": 1, "task": "medmod_radiology", "route": "incomplete",
     "status": "incomplete", "correct": False, "f1": 0.0, "len_gold": 2},
]
QA_ROWS = [  # eval_ehrbench_qa.py build_result_record
    qa_row("Inpatient_Mortality_1_2", "Inpatient_Mortality", "risk_prediction", "Yes", ["Yes"],
           "Q"),
    qa_row("labevents_3_4", "labevents", "decision_making", ["Sodium", "Potassium"],
           ["sodium"], "Q"),
    qa_row("labevents_5_6", "labevents", "decision_making", None, [], "Q",
           error="APIConnectionError"),
]


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("shapes") / "tree"
    records = agent_records()
    run = root / AGENT_RUN
    write_jsonl(run / "results.jsonl", records)
    ccs = ccs_scores(records)
    ccs["score"]["avg"]["recall"] += 0.25  # planted
    (run / "scores.json").write_text(json.dumps(ccs))
    write_jsonl(run / "task_scores.jsonl", [{"qid": "q1", "task": "diagnoses_ccs"}])
    tool = tool_json(records, success_only=True)
    tool["by_exact_tool"][0]["total_calls"] += 1  # planted
    (run / "tool.json").write_text(json.dumps(tool))
    fixed, summary = repaired(records)
    write_jsonl(run / "results.repaired.jsonl", fixed)
    (run / "results.repaired.summary.json").write_text(json.dumps(summary))
    other = root / "agent_ehr_bench/agentic/subset600/glm_4_7"
    write_jsonl(other / "results.jsonl", records)
    (other / "tool.json").write_text(json.dumps(tool_json(records, success_only=False)))
    write_jsonl(root / QA_RUN / "results.jsonl", QA_ROWS)
    write_jsonl(root / SCORED_ONLY / "scored.jsonl", SCORED_ROWS)
    (root / SCORED_ONLY / "summary.json").write_text(json.dumps({"total": 3}))
    db = root.parent / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))
    connection = duckdb.connect(str(db), read_only=True)
    yield connection
    connection.close()


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None
         ) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def test_derived_files_are_recognised_never_runs(con) -> None:
    kinds = {r["path"].rsplit("/", 1)[-1]: r["kind"] for r in rows(
        con, "SELECT path, kind FROM files WHERE path LIKE ?", [f"{AGENT_RUN}/%"])}
    assert kinds == {"results.jsonl": "results_top", "scores.json": "scores_json",
                     "task_scores.jsonl": "ccs_task_scores", "tool.json": "tool_json",
                     "results.repaired.jsonl": "repaired_results",
                     "results.repaired.summary.json": "repair_summary"}
    [(n,)] = con.execute("SELECT count(*) FROM results WHERE run_id = ?", [AGENT_RUN]).fetchall()
    assert n == 4  # one per (qid, run_index): the repaired copy adds none
    assert not rows(con, "SELECT * FROM rejects")


def test_ccs_scores_reconciled_best_at_k_too(con) -> None:
    got = rows(con, "SELECT metric, task, status FROM summary_reconciliation "
                    "WHERE run_id = ? AND scoring = 'ccs_scores'", [AGENT_RUN])
    status = {(r["metric"], r["task"]): r["status"] for r in got}
    assert status[("score.avg.recall", None)] == "mismatch"
    assert status[("task_num", None)] == "not_recomputable"  # needs the benchmark file
    best = [k for k in status if "best@" in k[0]]
    assert len(best) == 4 * 3 + 4 * 3 + 4 * 1  # overall k<=3, diagnoses_ccs k<=3, labevents 1
    matched = [k for k, s in status.items() if s == "match"]
    assert len(matched) > 50
    assert {k for k, s in status.items() if s == "mismatch"} == {("score.avg.recall", None)}
    for metric in ("sample_num", "completed_task_num", "info.incomplete_run_count",
                   "info.non_success_run_count", "info.max_runs_per_task"):
        assert status[(metric, None)] == "match"


def test_tool_json_reconciled_with_its_status_filter(con) -> None:
    got = rows(con, "SELECT run_id, metric, scope, task, status, writer_rule FROM "
                    "summary_reconciliation WHERE scoring = 'tool_json'")
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in got:
        by_run[r["run_id"]].append(r)
    mine, other = by_run[AGENT_RUN], by_run["agent_ehr_bench/agentic/subset600/glm_4_7"]
    assert {r["writer_rule"] for r in mine} == {"analyze_tool_call_averages:success_only"}
    assert {r["writer_rule"] for r in other} == {"analyze_tool_call_averages:all_statuses"}
    assert all(r["status"] == "match" for r in other) and len(other) > 30
    bad = [r for r in mine if r["status"] != "match"]
    assert len(bad) == 1 and bad[0]["scope"] == "by_exact_tool" and bad[0]["task"] is None
    assert bad[0]["metric"].endswith(".total_calls")


def test_repair_summary_reconciled(con) -> None:
    got = rows(con, "SELECT scope, metric, status, reported FROM summary_reconciliation "
                    "WHERE scoring = 'repair_summary'")
    status = {(r["scope"], r["metric"]): r["status"] for r in got}
    assert status[("overall", "total_records")] == "match"
    assert status[("after", "repaired_count")] == "match"
    assert status[("after", "status_counts.success")] == "match"
    assert status[("before", "status_counts.incomplete")] == "match"
    assert status[("repair_reason_counts", "not_incomplete")] == "match"
    assert status[("repair_reason_counts", "repaired")] == "match"
    assert status[("repair_reason_counts", "no_candidate_mentions_in_assistant_text")] == \
        "not_recomputable"
    assert not [k for k, s in status.items() if s == "mismatch"]


def test_raw_qa_rows_scored_from_ground_truth(con) -> None:
    got = {r["qid"]: r for r in rows(
        con, "SELECT r.qid, r.label_source, r.status, q.f1 FROM results AS r JOIN "
             "question_scores AS q USING (run_id, qid, run_index) WHERE r.run_id = ? AND "
             "q.scorer = 'authors_text'", [QA_RUN])}
    assert got["Inpatient_Mortality_1_2"]["label_source"] == "ground_truth"
    assert got["Inpatient_Mortality_1_2"]["f1"] == 1.0
    assert got["labevents_3_4"]["f1"] == pytest.approx(2 * 1 * 0.5 / 1.5)  # P 1, R 1/2
    assert got["labevents_5_6"]["label_source"] is None
    assert got["labevents_5_6"]["status"] == "error"
    [cov] = rows(con, "SELECT present, no_gold_questions, scorable_questions FROM coverage "
                      "WHERE run_id = ?", [QA_RUN])
    assert cov == {"present": 3, "no_gold_questions": 1, "scorable_questions": 2}


def test_scored_only_run_is_on_the_board(con) -> None:
    [run] = rows(con, "SELECT split, expected_questions FROM runs WHERE run_id = ?",
                 [SCORED_ONLY])
    assert run == {"split": "full2703", "expected_questions": 2703}
    [board] = rows(con, "SELECT l.n_questions, l.score, r.scored_elsewhere FROM leaderboard "
                        "AS l JOIN leaderboard_runs AS r USING (run_id) WHERE run_id = ?",
                   [SCORED_ONLY])
    # the unified score: set rows f1, judge rows the verdict, incomplete rows 0
    assert board == {"n_questions": 3, "score": pytest.approx((0.5 + 1.0 + 0.0) / 3),
                     "scored_elsewhere": True}
