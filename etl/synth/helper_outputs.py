"""What the authors' helper and analysis scripts leave in a results tree, generated for the
synthetic tree (and the shape tests) from the records as written, by the scripts' formulas
(UCSC-VLAA/ClinSeekAgent openresearcher_ehr/helper/, analysis/, eval_ehrbench_qa.py),
independently of the warehouse code:

- ccs_scores: scores.json of helper/score_diagnoses_ccs_results.py (its own rule: only a
  list response counts, gold the label objects' names; score avg / max / best@k over a
  question's lines, overall and by_task);
- tool_json: tool.json of helper/analyze_tool_call_averages.py (success-only by default);
- repaired: results.repaired.jsonl + results.repaired.summary.json of
  helper/repair_diagnoses_ccs_results.py (a synthetic ehr.finish for incomplete runs that
  named a candidate; here: those of the question's gold they named);
- qa_row: a raw row of eval_ehrbench_qa.py (gold in ground_truth, no label, no status);
- classification_row: a line of the multimodal task classifier's output
  (analysis/mm_bench_classify/classification_*.jsonl)."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from typing import Any

CCS_METRICS = ("f1_score", "precision", "recall", "exact_match")


def _finish_response(rec: dict[str, Any]) -> tuple[bool, Any]:
    for msg in reversed(rec.get("messages") or []):
        for tc in reversed(msg.get("tool_calls") or []):
            function = tc.get("function") or {}
            if "finish" in str(function.get("name", "")).lower():
                args = function.get("arguments", {})
                try:
                    args = json.loads(args) if isinstance(args, str) else args
                except ValueError:
                    return True, None
                return True, args.get("response", []) if isinstance(args, dict) else args
    return False, None


def ccs_line_score(rec: dict[str, Any]) -> dict[str, float]:
    """score_diagnoses_ccs_results.py f1_score of extract_finish_predictions."""
    _, response = _finish_response(rec)
    preds = {p.lower() for p in response if isinstance(p, str)} \
        if isinstance(response, list) else set()
    label = rec.get("label")
    gold = {a["name"].lower() for a in (label if isinstance(label, list) else [])
            if isinstance(a, dict) and isinstance(a.get("name"), str)}
    if not preds:
        return dict.fromkeys(CCS_METRICS, 0.0)
    tp = len(preds & gold)
    pr = tp / len(preds)
    rc = tp / len(gold) if gold else 0.0
    return {"f1_score": 2 * pr * rc / (pr + rc) if pr + rc else 0.0, "precision": pr,
            "recall": rc, "exact_match": float(preds == gold)}


def _best_at_k(values: list[float], k: int) -> float:
    v, n = sorted(values), len(values)
    k = min(k, n)
    return sum(math.comb(i - 1, k - 1) / math.comb(n, k) * v[i - 1] for i in range(k, n + 1))


def ccs_scores(records: list[dict[str, Any]]) -> dict[str, Any]:
    """scores.json of score_diagnoses_ccs_results.py over the results' own questions (the
    benchmark file is the set of questions the results hold)."""
    def summarize(recs: list[dict[str, Any]]) -> dict[str, Any]:
        by_q: dict[str, list[dict[str, float]]] = defaultdict(list)
        for r in recs:
            by_q[r["qid"]].append(ccs_line_score(r))
        k_max = max(len(v) for v in by_q.values())
        out: dict[str, Any] = {"sample_num": len(recs), "task_num": len(by_q),
                               "completed_task_num": len(by_q),
                               "score_denominator": "completed_task_num", "score": {}}
        for name, fn in [("avg", lambda v: sum(v) / len(v)), ("max", max),
                         *[(f"best@{k}", lambda v, k=k: _best_at_k(v, k))
                           for k in range(1, k_max + 1)]]:
            out["score"][name] = {m: sum(fn([s[m] for s in runs]) for runs in by_q.values())
                                  / len(by_q) for m in CCS_METRICS}
        n = len(recs)
        incomplete = sum(r.get("completed") is not True for r in recs)
        non_success = sum(r.get("status") != "success" for r in recs)
        out["info"] = {"completed_task_count": len(by_q), "missing_task_count": 0,
                       "incomplete_run_count": incomplete, "incomplete_run_rate": incomplete / n,
                       "non_success_run_count": non_success,
                       "non_success_run_rate": non_success / n, "max_runs_per_task": k_max,
                       "avg_runs_per_completed_task": n / len(by_q), "missing_qids": []}
        return out

    summary = summarize(records)
    summary["by_task"] = {t: summarize([r for r in records if r.get("task") == t])
                          for t in sorted({r.get("task") for r in records})}
    return summary


def ccs_task_scores(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """task_scores.jsonl (--details-output) of the same script: one row per question."""
    by_q: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_q[r["qid"]].append(r)
    out = []
    for qid, runs in by_q.items():
        scores = [ccs_line_score(r) for r in runs]
        out.append({"qid": qid, "task": runs[0].get("task"), "num_runs": len(runs),
                    "aggregated": {"avg": {m: sum(s[m] for s in scores) / len(scores)
                                           for m in CCS_METRICS},
                                   "max": {m: max(s[m] for s in scores) for m in CCS_METRICS}}})
    return out


def _tool_name(name: Any) -> str:
    name = str(name or "unknown").strip()
    if name.startswith("ehr_"):
        return "ehr." + name[4:]
    if name.startswith("browser_"):
        return "browser." + name[8:]
    return name


def tool_json(records: list[dict[str, Any]], success_only: bool = True) -> dict[str, Any]:
    """tool.json of analyze_tool_call_averages.py (names here are plain [A-Za-z0-9_.])."""
    def block(recs: list[dict[str, Any]]) -> dict[str, Any]:
        tools, cats, tool_hits, cat_hits = Counter(), Counter(), Counter(), Counter()
        for r in recs:
            per = Counter(_tool_name((tc.get("function") or {}).get("name", "unknown"))
                          for m in r.get("messages") or [] if m.get("role") == "assistant"
                          for tc in m.get("tool_calls") or [])
            tools.update(per)
            tool_hits.update(per.keys())
            pc: Counter = Counter()
            for name, n in per.items():
                pc[name.split(".", 1)[0] if "." in name else "other"] += n
            cats.update(pc)
            cat_hits.update(pc.keys())
        total, q = sum(tools.values()), len(recs)

        def records_of(totals: Counter, hits: Counter) -> list[dict[str, Any]]:
            return [{"name": n, "total_calls": c, "avg_per_query": c / q if q else 0.0,
                     "avg_when_used": c / hits[n], "used_queries": hits[n]}
                    for n, c in totals.most_common()]

        ratio = cats["browser"] / total if total else 0.0
        return {"summary": {"total_queries": q, "total_tool_calls": total,
                            "avg_total_tool_calls_per_query": total / q if q else 0.0,
                            "browser_tool_calls": cats["browser"],
                            "browser_tool_call_ratio": ratio,
                            "browser_tool_call_percentage": ratio * 100.0},
                "by_category": records_of(cats, cat_hits),
                "by_exact_tool": records_of(tools, tool_hits)}

    kept = [r for r in records if not success_only or r.get("status") == "success"]
    out = block(kept)
    out["summary"] = {"results_file": "results.jsonl",
                      "status_filter": "success_only" if success_only else "all_statuses",
                      **out["summary"]}
    out["by_task"] = {t: block([r for r in kept if r.get("task") == t])
                      for t in sorted({str(r.get("task")) for r in kept})}
    return out


def repaired(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """results.repaired.jsonl and its summary: every incomplete run whose messages name a
    gold item gets a synthetic ehr.finish with those items (the script's reason
    'repaired'); the others keep their reason as not_incomplete or
    no_candidate_mentions_in_assistant_text."""
    out, reasons, qids = [], Counter(), []
    for r in records:
        if r.get("status") != "incomplete" or r.get("completed") is True:
            reasons["not_incomplete"] += 1
            out.append(r)
            continue
        text = " ".join(str(m.get("content") or "") for m in r.get("messages") or []).lower()
        label = r.get("label")
        names = [a["name"] for a in (label if isinstance(label, list) else [])
                 if isinstance(a, dict) and isinstance(a.get("name"), str)]
        matched = [n for n in names if n.lower() in text]
        if not matched:
            reasons["no_candidate_mentions_in_assistant_text"] += 1
            out.append(r)
            continue
        reasons["repaired"] += 1
        qids.append(r["qid"])
        call_id = f"repair_synthetic_finish_{r['qid']}"
        out.append({**r, "messages": [*r["messages"], {
            "role": "assistant", "content": "", "repair_synthetic": True,
            "tool_calls": [{"id": call_id, "type": "function", "function": {
                "name": "ehr.finish", "arguments": json.dumps({"response": matched})}}]},
            {"role": "tool", "tool_call_id": call_id, "repair_synthetic": True,
             "content": "Finish (repaired from parseable historical output)"}],
            "completed": True, "status": "success", "stop_reason": "repair_finish_tool_call",
            "repair_info": {"repaired": True, "matched_predictions": matched}})

    def counts(recs: list[dict[str, Any]]) -> dict[str, Any]:
        return {"status_counts": dict(Counter(r.get("status", "unknown") for r in recs)),
                "completed_counts": {str(k).lower(): v for k, v in
                                     Counter(r.get("completed", False) for r in recs).items()},
                "stop_reason_counts": dict(Counter(r.get("stop_reason", "unknown")
                                                   for r in recs)),
                "repaired_count": sum(1 for r in recs
                                      if (r.get("repair_info") or {}).get("repaired"))}

    return out, {"input_results": "results.jsonl", "output_results": "results.repaired.jsonl",
                 "total_records": len(records), "before": counts(records),
                 "after": counts(out), "repair_reason_counts": dict(reasons),
                 "repaired_qids": qids}


def qa_row(qid: str, task: str, task_type: str | None, gold: Any, predictions: list[str],
           question: str, error: str | None = None, n: int = 0) -> dict[str, Any]:
    """eval_ehrbench_qa.py build_result_record (gold None: a row without ground_truth); its
    usage is call_vllm_once's (prompt_tokens, completion_tokens, total_tokens of the vLLM
    response; {} when the call failed)."""
    prompt = 600 + 37 * n % 400
    completion = 30 + 11 * len(predictions)
    usage = {} if error else {"prompt_tokens": prompt, "completion_tokens": completion,
                              "total_tokens": prompt + completion}
    assistant = {"role": "assistant", "content": f"Final Answer: {predictions!r}",
                 "tool_calls": [{"id": "call_qa_finish", "type": "function", "function": {
                     "name": "ehr.finish",
                     "arguments": json.dumps({"response": predictions})}}]}
    row: dict[str, Any] = {"qid": qid, "subject_id": None, "hadm_id": None, "task": task,
                           "task_type": task_type}
    if gold is not None:
        row["ground_truth"] = gold
    row.update({"prediction_time": None, "latest_event_time": None,
                "messages": [{"role": "user", "content": question}, assistant],
                "completed": error is None,
                "stop_reason": "finish_tool_call" if error is None else "error",
                "qa_mode": True, "parse_mode": "final_answer_list" if predictions else "empty",
                "predictions": predictions, "elapsed_seconds": 1.0, "usage": usage,
                "error": error})
    return row


CXR_TASKS = ("cxr_finding_presence", "cxr_finding_enumeration", "cxr_change_comparison")
CLASSIFIED = {"medmod_decompensation": "mortality_24h",
              "medmod_in_hospital_mortality": "Inpatient_Mortality",
              "medmod_phenotyping": "phenotype_group_assignment",
              "medmod_radiology": "cxr_finding_enumeration"}


def classification_row(qid: str, coarse_task: str, n: int) -> dict[str, Any]:
    """One classifier line: ehrxqa_image questions spread over the three CXR tasks,
    ehrxqa_table over patient lookup / cohort query, medmod tasks one to one."""
    if coarse_task == "ehrxqa_image":
        task = CXR_TASKS[n % 3]
    elif coarse_task == "ehrxqa_table":
        task = ("ehrxqa_patient_lookup", "ehrxqa_cohort_query")[n % 2]
    else:
        task = CLASSIFIED.get(coarse_task, "other")
    cls = {"task": task, "is_multimodal": coarse_task != "ehrxqa_table",
           "multimodal_kind": "none" if coarse_task == "ehrxqa_table" else "cxr_image",
           "confidence": "high", "reason": "synthetic label"}
    return {"qid": qid, "coarse_task": coarse_task,
            "source_benchmark": coarse_task.split("_", 1)[0], "scope": "patient_scope",
            "_status": "ok", "raw_response": f"<classification>{json.dumps(cls)}"
                                             "</classification>", "classification": cls}
