"""Shapes the authors' own scripts write into or read from a results tree, each loaded as
what it is (UCSC-VLAA/ClinSeekAgent openresearcher_ehr/):

- raw QA rows of eval_ehrbench_qa.py (gold in ground_truth, no label, no status);
- a scored-only multimodal run as analysis/ingest_external_results.py stages one;
- scores.json + task_scores.jsonl of helper/score_diagnoses_ccs_results.py;
- tool.json of helper/analyze_tool_call_averages.py (success-only by default);
- results.repaired.jsonl + results.repaired.summary.json of
  helper/repair_diagnoses_ccs_results.py.

Each file is written here in the script's shape, its numbers computed by an oracle written
in this test from the script's formulas (never by the warehouse), with one number planted
off; the warehouse must reconcile every other number and flag the planted one."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pytest

from etl.ingest import IngestOptions, run_ingest

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


# --- oracles from the scripts' formulas --------------------------------------------------

def ccs_oracle(records: list[dict[str, Any]]) -> dict[str, Any]:
    """score_diagnoses_ccs_results.py summarize_scores over the results' own questions."""
    def preds(rec: dict[str, Any]) -> set[str]:
        for msg in reversed(rec["messages"]):
            for tc in reversed(msg.get("tool_calls") or []):
                if "finish" in tc["function"]["name"]:
                    response = json.loads(tc["function"]["arguments"])["response"]
                    return {p.lower() for p in response if isinstance(p, str)} \
                        if isinstance(response, list) else set()
        return set()

    def score(rec: dict[str, Any]) -> dict[str, float]:
        p = preds(rec)
        g = {a["name"].lower() for a in rec["label"]}
        if not p:
            return dict.fromkeys(("f1_score", "precision", "recall", "exact_match"), 0.0)
        tp = len(p & g)
        pr, rc = tp / len(p), tp / len(g)
        return {"f1_score": 2 * pr * rc / (pr + rc) if pr + rc else 0.0, "precision": pr,
                "recall": rc, "exact_match": float(p == g)}

    def best(values: list[float], k: int) -> float:
        v, n = sorted(values), len(values)
        k = min(k, n)
        return sum(math.comb(i - 1, k - 1) / math.comb(n, k) * v[i - 1] for i in range(k, n + 1))

    def summarize(recs: list[dict[str, Any]]) -> dict[str, Any]:
        by_q: dict[str, list[dict[str, float]]] = defaultdict(list)
        for r in recs:
            by_q[r["qid"]].append(score(r))
        k_max = max(len(v) for v in by_q.values())
        out: dict[str, Any] = {"sample_num": len(recs), "task_num": len(by_q),
                               "completed_task_num": len(by_q),
                               "score_denominator": "completed_task_num", "score": {}}
        for name, fn in [("avg", lambda v: sum(v) / len(v)), ("max", max),
                         *[(f"best@{k}", lambda v, k=k: best(v, k))
                           for k in range(1, k_max + 1)]]:
            out["score"][name] = {m: sum(fn([s[m] for s in runs]) for runs in by_q.values())
                                  / len(by_q) for m in ("f1_score", "precision", "recall",
                                                        "exact_match")}
        out["info"] = {"incomplete_run_count": sum(not r["completed"] for r in recs),
                       "non_success_run_count": sum(r["status"] != "success" for r in recs),
                       "max_runs_per_task": k_max, "missing_qids": []}
        return out

    summary = summarize(records)
    tasks = sorted({r["task"] for r in records})
    summary["by_task"] = {t: summarize([r for r in records if r["task"] == t]) for t in tasks}
    return summary


def tool_oracle(records: list[dict[str, Any]], success_only: bool) -> dict[str, Any]:
    """analyze_tool_call_averages.py output payload."""
    def norm(name: str) -> str:
        return "ehr." + name[4:] if name.startswith("ehr_") else name

    def block(recs: list[dict[str, Any]]) -> dict[str, Any]:
        tools, cats, tool_hits, cat_hits = Counter(), Counter(), Counter(), Counter()
        for r in recs:
            per = Counter(norm(tc["function"]["name"]) for m in r["messages"]
                          if m["role"] == "assistant" for tc in m.get("tool_calls") or [])
            tools.update(per)
            tool_hits.update(per.keys())
            pc = Counter()
            for name, n in per.items():
                pc[name.split(".", 1)[0] if "." in name else "other"] += n
            cats.update(pc)
            cat_hits.update(pc.keys())
        total = sum(tools.values())
        q = len(recs)

        def records_of(totals: Counter, hits: Counter) -> list[dict[str, Any]]:
            return [{"name": n, "total_calls": c, "avg_per_query": c / q,
                     "avg_when_used": c / hits[n], "used_queries": hits[n]}
                    for n, c in totals.most_common()]

        return {"summary": {"total_queries": q, "total_tool_calls": total,
                            "avg_total_tool_calls_per_query": total / q,
                            "browser_tool_calls": cats["browser"],
                            "browser_tool_call_ratio": cats["browser"] / total,
                            "browser_tool_call_percentage": cats["browser"] / total * 100},
                "by_category": records_of(cats, cat_hits),
                "by_exact_tool": records_of(tools, tool_hits)}

    kept = [r for r in records if not success_only or r["status"] == "success"]
    out = block(kept)
    out["summary"] = {"results_file": "results.jsonl",
                      "status_filter": "success_only" if success_only else "all_statuses",
                      **out["summary"]}
    out["by_task"] = {t: block([r for r in kept if r["task"] == t])
                      for t in sorted({r["task"] for r in kept})}
    return out


def repair(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """repair_diagnoses_ccs_results.py: q4's incomplete run gets a synthetic finish."""
    repaired = []
    for r in records:
        if r["qid"] == "q4":
            r = {**r, "messages": [*r["messages"], finish(["Gout"])], "completed": True,
                 "status": "success", "stop_reason": "repair_finish_tool_call",
                 "repair_info": {"repaired": True}}
        repaired.append(r)

    def counts(recs: list[dict[str, Any]]) -> dict[str, Any]:
        return {"status_counts": dict(Counter(r["status"] for r in recs)),
                "completed_counts": {str(k).lower(): v for k, v in
                                     Counter(r["completed"] for r in recs).items()},
                "stop_reason_counts": dict(Counter(r["stop_reason"] for r in recs)),
                "repaired_count": sum(1 for r in recs if r.get("repair_info"))}

    not_incomplete = sum(r["status"] != "incomplete" or r["completed"] for r in records)
    summary = {"input_results": "results.jsonl", "output_results": "results.repaired.jsonl",
               "total_records": len(records), "before": counts(records),
               "after": counts(repaired),
               "repair_reason_counts": {"repaired": 1, "not_incomplete": not_incomplete,
                                        "no_official_candidates_found": 1},
               "repaired_qids": ["q4"]}
    return repaired, summary


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
    {"qid": "Inpatient_Mortality_1_2", "task": "Inpatient_Mortality",
     "task_type": "risk_prediction", "ground_truth": "Yes", "completed": True,
     "stop_reason": "finish_tool_call", "qa_mode": True, "parse_mode": "final_answer_list",
     "predictions": ["Yes"], "error": None,
     "messages": [{"role": "user", "content": "Q"}, finish(["Yes"])]},
    {"qid": "labevents_3_4", "task": "labevents", "task_type": "decision_making",
     "ground_truth": ["Sodium", "Potassium"], "completed": True,
     "stop_reason": "finish_tool_call", "qa_mode": True, "parse_mode": "json_list",
     "predictions": ["sodium"], "error": None,
     "messages": [{"role": "user", "content": "Q"}, finish(["sodium"])]},
    {"qid": "labevents_5_6", "task": "labevents", "task_type": "decision_making",
     "completed": False, "stop_reason": "error", "qa_mode": True, "parse_mode": "empty",
     "predictions": [], "error": "APIConnectionError",
     "messages": [{"role": "user", "content": "Q"}, finish([])]},
]


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("shapes") / "tree"
    records = agent_records()
    run = root / AGENT_RUN
    write_jsonl(run / "results.jsonl", records)
    ccs = ccs_oracle(records)
    ccs["score"]["avg"]["recall"] += 0.25  # planted
    (run / "scores.json").write_text(json.dumps(ccs))
    write_jsonl(run / "task_scores.jsonl", [{"qid": "q1", "task": "diagnoses_ccs"}])
    tool = tool_oracle(records, success_only=True)
    tool["by_exact_tool"][0]["total_calls"] += 1  # planted
    (run / "tool.json").write_text(json.dumps(tool))
    fixed, summary = repair(records)
    write_jsonl(run / "results.repaired.jsonl", fixed)
    (run / "results.repaired.summary.json").write_text(json.dumps(summary))
    other = root / "agent_ehr_bench/agentic/subset600/glm_4_7"
    write_jsonl(other / "results.jsonl", records)
    (other / "tool.json").write_text(json.dumps(tool_oracle(records, success_only=False)))
    write_jsonl(root / QA_RUN / "results.jsonl", QA_ROWS)
    write_jsonl(root / SCORED_ONLY / "scored.jsonl", SCORED_ROWS)
    (root / SCORED_ONLY / "summary.json").write_text(json.dumps({"total": 3}))
    db = root.parent / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1, progress=False))
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
    assert status[("repair_reason_counts", "no_official_candidates_found")] == \
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
