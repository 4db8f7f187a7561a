"""Score files as the benchmark authors' scorers write them, computed from the records the
generator wrote (so every summary number can be recomputed from rows, except the planted
disagreements, which the truth file lists)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from etl.synth.content import Question, gold_names
from etl.synth.records import normalized_set, prediction_of


def set_scores(pred: list[str], gold: list[str]) -> dict[str, float | int]:
    p, g = normalized_set(pred), normalized_set(gold)
    tp = len(p & g)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"tp": tp, "n_pred": len(p), "n_gold": len(g), "precision": precision,
            "recall": recall, "f1": f1, "exact_match": float(bool(p) and p == g)}


def mm_scored_row(rec: dict[str, Any], vocab: bool) -> dict[str, Any]:
    gold = gold_names(rec.get("label"))
    pred = prediction_of(rec)
    status = rec.get("status")
    ok = status in ("success", "ok") and bool(pred)
    row: dict[str, Any] = {"qid": rec["qid"], "run_index": rec.get("run_index", 1),
                           "task": rec.get("task"), "gold_names": gold, "prediction_strs": pred,
                           "note": "" if ok else "no prediction", "status": status}
    s = set_scores(pred, gold)
    if not ok:
        row.update(route="incomplete", correct=0, precision=0.0, recall=0.0, f1=0.0,
                   accuracy=0.0, subset_match=0.0)
    elif len(gold) == 1:
        match = s["exact_match"] == 1.0
        row.update(route="llm_judge", correct=int(match), precision=float(match),
                   recall=float(match), f1=float(match), accuracy=float(match),
                   subset_match=float(match),
                   judge_subtype="binary" if gold[0] in ("yes", "no") else "categorical",
                   judge_match=match)
    else:
        subset = float(bool(pred) and normalized_set(pred) <= normalized_set(gold))
        row.update(route="set_f1", correct=int(s["exact_match"]), precision=s["precision"],
                   recall=s["recall"], f1=s["f1"], accuracy=s["exact_match"],
                   subset_match=subset, tp=s["tp"], n_pred=s["n_pred"], n_gold=s["n_gold"],
                   precision_raw=s["precision"], recall_raw=s["recall"], f1_raw=s["f1"])
    if vocab and ok:
        row["prediction_strs_mapped"] = sorted(normalized_set(pred))
        row["mapping_similarity"] = 1.0
    return row


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def mm_summary(rows: list[dict[str, Any]], vocab: bool) -> dict[str, Any]:
    """summary.json (vocab=False) or summary_vocab.json (vocab=True) of scored rows."""
    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_task[r["task"]].append(r)
    len1 = [r for r in rows if len(r["gold_names"]) == 1]
    len2 = [r for r in rows if len(r["gold_names"]) > 1]
    if vocab:  # the vocab scorer leaves incomplete rows out of the set-F1 counts
        len2 = [r for r in len2 if r["route"] != "incomplete"]
    out: dict[str, Any] = {"total": len(rows),
                           "incomplete": sum(r["route"] == "incomplete" for r in rows),
                           "len1_accuracy": _mean([r["accuracy"] for r in len1]),
                           "len1_count": len(len1)}
    suffix = "_vocab" if vocab else ""
    for m in ("f1", "precision", "recall", "accuracy", "subset_match"):
        out[f"len2plus{suffix}_{m}"] = _mean([r[m] for r in len2])
    out[f"len2plus{suffix}_count"] = len(len2)
    if not vocab:
        for m in ("f1", "precision", "recall"):
            out[f"len2plus_{m}_raw"] = _mean([r.get(f"{m}_raw", 0.0) for r in len2])
    per1: dict[str, Any] = {}
    per2: dict[str, Any] = {}
    peru: dict[str, Any] = {}
    for task in sorted(by_task):
        trows = by_task[task]
        t1 = [r for r in trows if len(r["gold_names"]) == 1]
        t2 = [r for r in trows if len(r["gold_names"]) > 1]
        if vocab:
            t2 = [r for r in t2 if r["route"] != "incomplete"]
        if t1:
            per1[task] = {"count": len(t1), "accuracy": _mean([r["accuracy"] for r in t1]),
                          "correct": sum(r["correct"] for r in t1),
                          "incomplete": sum(r["route"] == "incomplete" for r in t1)}
        if t2:
            per2[task] = {"count": len(t2), **{m: _mean([r[m] for r in t2]) for m in (
                "f1", "precision", "recall", "accuracy", "subset_match")},
                "incomplete": sum(r["route"] == "incomplete" for r in t2)}
        peru[task] = {"count": len(trows), **{m: _mean([r[m] for r in trows]) for m in (
            "precision", "recall", "f1", "accuracy", "subset_match")}}
    out["per_task_len1"] = per1
    out[f"per_task_len2plus{suffix}"] = per2
    out["unified_count"] = len(rows)
    for m in ("precision", "recall", "f1", "accuracy", "subset_match"):
        out[f"unified_{m}"] = _mean([r[m] for r in rows])
    out["per_task_unified"] = peru
    if vocab:
        out["vocab_model"] = "sentence-transformers/all-MiniLM-L6-v2"
        out["vocab_threshold"] = 0.6
    return out


def summary_markdown(title: str, summary: dict[str, Any]) -> str:
    lines = [f"# {title}", "", f"Total rows: {summary['total']}  ",
             f"Incomplete: {summary['incomplete']}  ",
             f"Unified F1: {summary['unified_f1']:.4f}", "",
             "| task | count | precision | recall | f1 | accuracy |", "|---|---|---|---|---|---|"]
    for task, v in summary["per_task_unified"].items():
        lines.append(f"| {task} | {v['count']} | {v['precision']:.4f} | {v['recall']:.4f} | "
                     f"{v['f1']:.4f} | {v['accuracy']:.4f} |")
    return "\n".join(lines) + "\n"


def text_scores(winners: list[dict[str, Any]], questions: dict[str, Question]
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """scores.json and per_question.jsonl rows of a text run, from its winning records."""
    runs_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in winners:
        runs_of[rec["qid"]].append(rec)
    per_question: list[dict[str, Any]] = []
    for qid in sorted(runs_of):
        q = questions[qid]
        runs = []
        for rec in sorted(runs_of[qid], key=lambda r: r.get("run_index", 1)):
            s = set_scores(prediction_of(rec), gold_names(rec.get("label")))
            msgs = rec.get("messages") or []
            runs.append({"run_index": rec.get("run_index", 1), "status": rec.get("status"),
                         "precision": s["precision"], "recall": s["recall"], "f1": s["f1"],
                         "em": s["exact_match"],
                         "tool_calls": sum(len(m.get("tool_calls") or []) for m in msgs),
                         "turns": sum(m.get("role") == "assistant" for m in msgs)})
        per_question.append({
            "qid": qid, "task": q.task, "task_type": q.group, "runs": runs,
            "avg_f1": _mean([r["f1"] for r in runs]), "avg_em": _mean([r["em"] for r in runs]),
            "avg_precision": _mean([r["precision"] for r in runs]),
            "avg_recall": _mean([r["recall"] for r in runs])})

    def block(rows: list[dict[str, Any]]) -> dict[str, Any]:
        allruns = [r for pq in rows for r in pq["runs"]]
        return {"total": len(rows),
                "completed": sum(r["status"] in ("success", "ok") for r in allruns),
                "runs": len(allruns),
                "precision": _mean([pq["avg_precision"] for pq in rows]),
                "recall": _mean([pq["avg_recall"] for pq in rows]),
                "f1": _mean([pq["avg_f1"] for pq in rows]),
                "exact_match": _mean([pq["avg_em"] for pq in rows]),
                "tool_calls_avg": _mean([r["tool_calls"] for r in allruns]),
                "turns_avg": _mean([r["turns"] for r in allruns])}

    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for pq in per_question:
        by_task[pq["task"]].append(pq)
        by_type[pq["task_type"]].append(pq)
    scores = {"per_task": {t: block(v) for t, v in sorted(by_task.items())},
              "per_task_type": {t: block(v) for t, v in sorted(by_type.items())},
              "overall": block(per_question)}
    return scores, per_question
