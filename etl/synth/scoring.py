"""Score files as the benchmark authors' scorers write them, computed from the records the
generator wrote (so every summary number can be recomputed from rows, except the planted
disagreements, which the truth file lists).

Each function follows one public scorer of UCSC-VLAA/ClinSeekAgent, rule for rule:
- ``mm_scored_rows`` / ``mm_summary``: clinseekagent/scoring/score_multimodal.py (routing by
  gold length, ``aggregate()``); its LLM judge is simulated by set equality of the
  normalized strings and its sentence-embedding vocabulary matcher by exact (whitespace- and
  case-insensitive) vocabulary hits.
- ``mm_rescore``: openresearcher_ehr/rescore_mm_vocab.py ``process_scored_file()``:
  rescored.jsonl rows and summary_vocab.json (incomplete rows only in unified_*).
- ``text_scores``: clinseekagent/scoring/score_text.py ``evaluate()`` + the summary payload
  of ``main()``: per_question.jsonl rows and the per_task / per_task_type / overall blocks.
  The real script writes that payload as summary.json; this tree stores it as scores.json
  (docs/SYNTH.md).
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from etl.synth.content import Question

M = ("precision", "recall", "f1", "accuracy", "subset_match")
M_ALL = M + tuple(f"{k}_raw" for k in M)
VOCAB_MODEL = "all-MiniLM-L6-v2"
VOCAB_THRESHOLD = 0.55
VOCAB_SKIP_TASKS = ("ehrxqa_table",)


def _avg(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


# ---- score_multimodal.py ----------------------------------------------------------------
FINISH_NAMES = {"ehr.finish", "finish"}


def mm_extract_prediction(rec: dict[str, Any]) -> tuple[Any, str]:
    """(prediction, note): the `response` of the last ehr.finish call."""
    last: Any = None
    for m in reversed(rec.get("messages") or []):
        if not isinstance(m, dict):
            continue
        for tc in m.get("tool_calls") or []:
            if not isinstance(tc, dict):
                continue
            name = tc.get("name") or (tc.get("function") or {}).get("name")
            if name in FINISH_NAMES:
                last = tc.get("arguments") or (tc.get("function") or {}).get("arguments")
                break
        if last is not None:
            break
    if last is None:
        return None, "no_finish_call"
    if isinstance(last, dict):
        args = last
    else:
        try:
            args = json.loads(last)
        except (TypeError, ValueError):
            return last, "bad_json_args"
    if isinstance(args, dict) and "response" in args:
        return args["response"], "ok"
    return args, "no_response_key"


def mm_pred_to_strings(pred: Any) -> list[str]:
    if pred is None:
        return []
    if isinstance(pred, list):
        out = []
        for x in pred:
            if isinstance(x, dict):
                val = x.get("name") or x.get("value") or x.get("text") or x.get("answer")
                if val is None:
                    val = json.dumps(x, ensure_ascii=False)
            else:
                val = x
            out.append(str(val))
        return out
    if isinstance(pred, str):
        return [pred]
    return [str(pred)]


def mm_gold_to_strings(gold: Any) -> list[str]:
    if not isinstance(gold, list):
        return [] if gold is None else [str(gold)]
    out = []
    for x in gold:
        if isinstance(x, dict):
            name = x.get("name")
            if name is None:
                name = x.get("value")
            out.append("" if name is None else str(name))
        else:
            out.append(str(x))
    return out


YESNO_SET = {"yes", "no", "true", "false", "0", "1"}
INT_RE = re.compile(r"^-?\d+$")
FLOAT_RE = re.compile(r"^-?\d+\.\d+$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
ID_RE = re.compile(r"^\d{6,10}$")
POLAR_PREFIXES = ("is ", "are ", "does ", "do ", "did ", "was ", "were ", "has ", "have ",
                  "can ", "could ", "should ", "will ", "would ")


def classify_subtype(gold_name: str, question: str, task: str) -> str:
    name_l = gold_name.strip().lower()
    q_l = question.strip().lower() if question else ""
    if name_l in YESNO_SET:
        return "yesno"
    if DATE_RE.match(gold_name.strip()):
        return "date_time"
    if task == "ehrxqa_table" and ID_RE.match(gold_name.strip()):
        return "id"
    if INT_RE.match(gold_name.strip()) or FLOAT_RE.match(gold_name.strip()):
        return "count"
    if any(q_l.startswith(p) for p in POLAR_PREFIXES) and len(name_l.split()) <= 3:
        return "label_name"
    return ("label_name" if task in {"medmod_radiology", "medmod_phenotyping", "ehrxqa_image"}
            else "generic_string")


def _norm(s: Any) -> str:
    return "" if s is None else str(s).strip().lower()


def _norm_collapse(s: Any) -> str:
    return "" if s is None else re.sub(r"\s+", " ", str(s).strip().lower())


def mm_set_f1(pred: list[str], gold: list[str], collapse: bool = False) -> dict[str, Any]:
    """score_multimodal.set_f1 (== rescore_mm_vocab.set_metrics with collapse=True):
    accuracy is the Jaccard overlap, subset_match is set equality."""
    norm = _norm_collapse if collapse else _norm
    p = {norm(x) for x in pred if norm(x)}
    g = {norm(x) for x in gold if norm(x)}
    tp = len(p & g)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    union = p | g
    return {"precision": precision, "recall": recall, "f1": f1,
            "accuracy": tp / len(union) if union else 0.0,
            "subset_match": 1.0 if p == g else 0.0, "tp": tp, "n_pred": len(p),
            "n_gold": len(g)}


def task_vocabularies(records: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """build_task_vocabularies: the gold `name` strings seen per task."""
    buckets: dict[str, set[str]] = defaultdict(set)
    for rec in records:
        for item in rec.get("label") or []:
            name = item.get("name") if isinstance(item, dict) else item
            if isinstance(name, str) and name.strip():
                buckets[rec.get("task", "?")].add(name.strip())
    return {t: sorted(v) for t, v in buckets.items() if t not in VOCAB_SKIP_TASKS}


def map_many(preds: list[str], task: str, vocabs: dict[str, list[str]]
             ) -> list[tuple[str, float]]:
    """VocabMatcher.map_many with a stand-in embedder: a prediction equal to a vocabulary
    entry up to case and whitespace has similarity 1.0 and maps to it; any other has 0.0
    (below the threshold, so the raw string is kept)."""
    if task not in vocabs:
        return [(p, 0.0) for p in preds]
    by_key = {_norm_collapse(v): v for v in vocabs[task]}
    return [(by_key[_norm_collapse(p)], 1.0) if _norm_collapse(p) in by_key else (p, 0.0)
            for p in preds]


def mm_scored_rows(records: list[dict[str, Any]], vocab: bool = True) -> list[dict[str, Any]]:
    """scored.jsonl rows of score_file(); vocab=False is a --no-vocab run."""
    vocabs = task_vocabularies(records) if vocab else {}
    out = []
    for rec in records:
        gold_names = [g for g in mm_gold_to_strings(rec.get("label") or []) if g.strip()]
        if not gold_names:
            continue  # the scorer skips empty-label rows
        prediction, note = mm_extract_prediction(rec)
        pred_strs = mm_pred_to_strings(prediction)
        row: dict[str, Any] = {
            "qid": rec.get("qid"), "run_index": rec.get("run_index"), "task": rec.get("task"),
            "scope": rec.get("scope"), "source_benchmark": rec.get("source_benchmark"),
            "len_gold": len(gold_names), "gold_names": gold_names,
            "prediction_raw": prediction, "prediction_strs": pred_strs,
            "prediction_flat": " | ".join(s.strip() for s in pred_strs if s),
            "note": note, "status": rec.get("status")}
        if note != "ok" or prediction is None:
            row.update(route="incomplete", correct=False, **{k: 0.0 for k in M})
        elif len(gold_names) >= 2:
            row["route"] = "set_f1"
            raw = mm_set_f1(pred_strs, gold_names)
            row.update({f"{k}_raw": v for k, v in raw.items()})
            if vocab:
                task = rec.get("task") or "?"
                mapped = pred_strs
                if task in vocabs:
                    pairs = map_many(pred_strs, task, vocabs)
                    mapped = [m for m, _ in pairs]
                    row["prediction_strs_mapped"] = mapped
                    row["mapping_similarity"] = [s for _, s in pairs]
                row["vocab_mapped"] = task in vocabs
                row.update(mm_set_f1(mapped, gold_names, collapse=True))
            else:
                row.update(raw)
                row["vocab_mapped"] = False
        else:
            gold = gold_names[0]
            match = {_norm(p) for p in pred_strs if _norm(p)} == {_norm(gold)}
            v = 1.0 if match else 0.0
            row.update(route="llm_judge",
                       judge_subtype=classify_subtype(gold, rec.get("question") or "",
                                                      rec.get("task") or ""),
                       judge_match=match,
                       judge_reason="same answer" if match else "different answer",
                       judge_raw=json.dumps({"match": match}), correct=match,
                       **{k: v for k in M})
        out.append(row)
    out.sort(key=lambda r: (r["qid"], r["run_index"] or 0))
    return out


def mm_summary(scored: list[dict[str, Any]], vocab: bool = True) -> dict[str, Any]:
    """summary.json: score_multimodal.aggregate() (+ the vocab keys of a --vocab run)."""
    single: dict[str, dict[str, Any]] = defaultdict(lambda: {
        "count": 0, "correct": 0, "incomplete": 0, "by_subtype": Counter(),
        "by_subtype_correct": Counter()})
    multi: dict[str, dict[str, Any]] = defaultdict(lambda: {
        "count": 0, "incomplete": 0, **{k: [] for k in M_ALL}})
    len1 = {"count": 0, "correct": 0}
    len2: dict[str, Any] = {"count": 0, **{k: [] for k in M_ALL}}
    incomplete = 0
    for r in scored:
        task = r.get("task") or "?"
        route = r.get("route")
        if route == "incomplete":
            incomplete += 1
            if r.get("len_gold", 0) >= 2:
                multi[task]["count"] += 1
                multi[task]["incomplete"] += 1
                len2["count"] += 1
                for k in M_ALL:
                    multi[task][k].append(0.0)
                    len2[k].append(0.0)
            else:
                single[task]["count"] += 1
                single[task]["incomplete"] += 1
                len1["count"] += 1
            continue
        if route == "llm_judge":
            d = single[task]
            d["count"] += 1
            len1["count"] += 1
            subtype = r.get("judge_subtype") or "?"
            d["by_subtype"][subtype] += 1
            if r.get("correct"):
                d["correct"] += 1
                len1["correct"] += 1
                d["by_subtype_correct"][subtype] += 1
        elif route == "set_f1":
            multi[task]["count"] += 1
            len2["count"] += 1
            for k in M:
                val = float(r.get(k, 0.0))
                raw = float(r.get(f"{k}_raw", r.get(k, 0.0)))
                for holder in (multi[task], len2):
                    holder[k].append(val)
                    holder[f"{k}_raw"].append(raw)
    unified: dict[str, dict[str, list[float]]] = defaultdict(lambda: {k: [] for k in M_ALL})
    totals: dict[str, list[float]] = {k: [] for k in M_ALL}
    for r in scored:
        route = r.get("route")
        if route == "set_f1":
            vals = {k: float(r.get(k, 0.0)) for k in M}
            vals.update({f"{k}_raw": float(r.get(f"{k}_raw", r.get(k, 0.0))) for k in M})
        elif route == "llm_judge":
            vals = dict.fromkeys(M_ALL, 1.0 if r.get("correct") else 0.0)
        elif route == "incomplete":
            vals = dict.fromkeys(M_ALL, 0.0)
        else:
            continue
        for k, x in vals.items():
            unified[r.get("task") or "?"][k].append(x)
            totals[k].append(x)
    out: dict[str, Any] = {
        "total": len(scored), "incomplete": incomplete,
        "len1_accuracy": len1["correct"] / len1["count"] if len1["count"] else 0.0,
        "len1_count": len1["count"],
        **{f"len2plus_{k}": _avg(len2[k]) for k in ("f1", "precision", "recall", "accuracy",
                                                    "subset_match")},
        "len2plus_count": len2["count"],
        **{f"len2plus_{k}_raw": _avg(len2[f"{k}_raw"])
           for k in ("f1", "precision", "recall", "accuracy", "subset_match")},
        "per_task_len1": {t: {
            "count": d["count"], "accuracy": d["correct"] / d["count"] if d["count"] else 0.0,
            "correct": d["correct"], "incomplete": d["incomplete"],
            "by_subtype": dict(d["by_subtype"]),
            "by_subtype_accuracy": {s: d["by_subtype_correct"][s] / n
                                    for s, n in d["by_subtype"].items()}}
            for t, d in single.items()},
        "per_task_len2plus": {t: {"count": d["count"], "incomplete": d["incomplete"],
                                  **{k: _avg(d[k]) for k in M_ALL}}
                              for t, d in multi.items()},
        "unified_count": len(totals["f1"]),
        **{f"unified_{k}": _avg(totals[k]) for k in M_ALL},
        "per_task_unified": {t: {"count": len(d["f1"]), **{k: _avg(d[k]) for k in M_ALL}}
                             for t, d in unified.items()},
    }
    if vocab:
        out.update(vocab_model=VOCAB_MODEL, vocab_threshold=VOCAB_THRESHOLD,
                   vocab_skip_tasks=sorted(VOCAB_SKIP_TASKS))
    return out


# ---- rescore_mm_vocab.py ----------------------------------------------------------------
def mm_rescore(scored: list[dict[str, Any]], vocabs: dict[str, list[str]]
               ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(rescored.jsonl rows, summary_vocab.json) of process_scored_file(): set rows are
    re-scored after vocabulary mapping; len1 counts are judge rows only, len2plus counts set
    rows only; incomplete rows count in unified_* alone (as zeros)."""
    unified: dict[str, list[dict[str, float]]] = defaultdict(list)
    len2: dict[str, list[dict[str, Any]]] = defaultdict(list)
    len1: dict[str, dict[str, int]] = defaultdict(lambda: {"count": 0, "correct": 0})
    total1 = {"count": 0, "correct": 0}
    rows = []
    for r in scored:
        task = r.get("task", "?")
        route = r.get("route")
        if route == "set_f1" and (r.get("gold_names") or []):
            pairs = map_many(r.get("prediction_strs") or [], task, vocabs)
            m = mm_set_f1([p for p, _ in pairs], r["gold_names"], collapse=True)
            new = dict(r)
            new["prediction_strs_mapped"] = [p for p, _ in pairs]
            new["mapping_similarity"] = [s for _, s in pairs]
            new.update(m)
            rows.append(new)
            len2[task].append(m)
            unified[task].append(m)
            continue
        rows.append(r)
        if route == "llm_judge":
            ok = bool(r.get("correct"))
            for holder in (len1[task], total1):
                holder["count"] += 1
                holder["correct"] += ok
            unified[task].append(dict.fromkeys(M, 1.0 if ok else 0.0))
        elif route == "incomplete":
            unified[task].append(dict.fromkeys(M, 0.0))

    def block(lst: list[dict[str, Any]]) -> dict[str, Any]:
        return {"count": len(lst), **{k: _avg([x[k] for x in lst]) for k in M}}

    all2 = [x for lst in len2.values() for x in lst]
    allu = [x for lst in unified.values() for x in lst]
    summary = {
        "len2plus_count": len(all2),
        **{f"len2plus_{k}": _avg([x[k] for x in all2]) for k in M},
        "len1_count": total1["count"],
        "len1_accuracy": total1["correct"] / total1["count"] if total1["count"] else 0.0,
        "per_task_len2plus_vocab": {t: block(lst) for t, lst in len2.items()},
        "per_task_len1": {t: {"count": d["count"],
                              "accuracy": d["correct"] / d["count"] if d["count"] else 0.0}
                          for t, d in len1.items()},
        "unified_count": len(allu),
        **{f"unified_{k}": _avg([x[k] for x in allu]) for k in M[:4]},
        "per_task_unified": {t: block(lst) for t, lst in unified.items()},
        "vocab_threshold": VOCAB_THRESHOLD,
        "vocab_model": VOCAB_MODEL,
    }
    return rows, summary


def summary_markdown(title: str, summary: dict[str, Any]) -> str:
    """summary.md / summary_vocab.md, after the two render_markdown() functions."""
    vocab = "per_task_len2plus_vocab" in summary
    lines = [f"# {title}", ""]
    if not vocab:
        lines += [f"- total rows: **{summary['total']}**",
                  f"- incomplete (no finish): **{summary['incomplete']}**"]
    if "vocab_model" in summary:
        lines.append(f"- vocab model: `{summary['vocab_model']}`, "
                     f"threshold={summary['vocab_threshold']:.2f}")
    lines += [f"- len=1 (judge) accuracy: **{summary['len1_accuracy']:.4f}** "
              f"(n={summary['len1_count']})",
              f"- len>=2 F1: **{summary['len2plus_f1']:.4f}** (n={summary['len2plus_count']})",
              f"- **unified F1: {summary['unified_f1']:.4f}** (n={summary['unified_count']})",
              "", "## Per-task unified F1 (len=1 judge + len>=2 set metrics)", "",
              "| task | n | precision | recall | F1 | jaccard |", "|---|---:|---:|---:|---:|---:|"]
    for task in sorted(summary["per_task_unified"]):
        v = summary["per_task_unified"][task]
        lines.append(f"| {task} | {v['count']} | {v['precision']:.4f} | {v['recall']:.4f} | "
                     f"{v['f1']:.4f} | {v['accuracy']:.4f} |")
    return "\n".join(lines) + "\n"


# ---- score_text.py ----------------------------------------------------------------------
def _parse_json_or_python(value: Any) -> Any:
    if isinstance(value, dict | list):
        return value
    if not isinstance(value, str):
        raise TypeError(f"Unsupported arguments type: {type(value)}")
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return ast.literal_eval(value)


def text_predictions(rec: dict[str, Any], *, string_answer: bool = True
                     ) -> tuple[list[Any], str]:
    """extract_finish_predictions_with_source (without the text fallback, the default).
    string_answer=False: the legacy evaluate_results.py as of 09dce89, where a string answer
    is no list and so no prediction."""
    for msg in reversed(rec.get("messages") or []):
        for tc in reversed(msg.get("tool_calls") or []):
            fn = tc.get("function", {})
            if "finish" not in fn.get("name", "").lower():
                continue
            try:
                args = _parse_json_or_python(fn.get("arguments", {}))
            except Exception:  # noqa: BLE001 - the scorer catches everything here
                return [], "finish_parse_error"
            preds = args.get("response", []) if isinstance(args, dict) else args
            if isinstance(preds, list):
                return preds, "finish_tool_call"
            if string_answer and isinstance(preds, str) and preds.strip():
                return [preds.strip()], "finish_tool_call"
            return [], "finish_tool_call_non_list"
    return [], "no_prediction"


def text_f1(predictions: list[Any], standard_answer: Any) -> dict[str, float]:
    """score_text.f1_score: string predictions, lower-cased (not stripped)."""
    pred_set = {p for p in predictions if isinstance(p, str)}
    gt: set[str] = set()
    if isinstance(standard_answer, str):
        gt.add(standard_answer)
    elif isinstance(standard_answer, list):
        has_atc = any(isinstance(a, dict) and a.get("atc_name") for a in standard_answer)
        for ans in standard_answer:
            if isinstance(ans, str):
                gt.add(ans)
            elif isinstance(ans, dict):
                val = ans.get("atc_name") if has_atc else ans.get("name")
                if isinstance(val, str):
                    gt.add(val)
    if not pred_set:
        return {"f1": 0.0, "prec": 0.0, "rec": 0.0, "em": 0.0}
    pl, gl = {p.lower() for p in pred_set}, {g.lower() for g in gt}
    inter = pl & gl
    prec = len(inter) / len(pl)
    rec = len(inter) / len(gl) if gl else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
    return {"f1": f1, "prec": prec, "rec": rec, "em": 1.0 if pl == gl else 0.0}


def _tool_name(name: Any) -> str:
    name = (name or "unknown").strip()
    m = re.match(r"^[A-Za-z0-9_.]+", name)
    if m:
        name = m.group(0)
    if name.startswith("ehr_"):
        return "ehr." + name[4:]
    if name.startswith("browser_"):
        return "browser." + name[8:]
    return name


def _tool_counts(rec: dict[str, Any]) -> tuple[int, int, int]:
    """(tool calls, browser calls, turns): count_tool_calls and count_turns."""
    total = browser = turns = 0
    for msg in rec.get("messages") or []:
        if msg.get("role") != "assistant":
            continue
        turns += 1
        for tc in msg.get("tool_calls") or []:
            total += 1
            browser += _tool_name(tc.get("function", {}).get("name", "unknown")).startswith(
                "browser.")
    return total, browser, turns


def text_scores(winners: list[dict[str, Any]], questions: list[Question]
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(summary payload, per_question.jsonl rows) of score_text.py over the run's benchmark
    questions; a question without a result is in per_question with runs [] and counts in
    total but not in completed."""
    runs_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in sorted(winners, key=lambda r: (r["qid"], r.get("run_index") or 0)):
        runs_of[rec["qid"]].append(rec)
    per_question: list[dict[str, Any]] = []
    for q in questions:
        item = q.inputs
        runs = runs_of.get(q.qid, [])
        task = next((r["task"] for r in runs if isinstance(r.get("task"), str) and r["task"]),
                    item.get("task") or "unknown")
        cat = item.get("task_type") if isinstance(item.get("task_type"), str) else None
        record: dict[str, Any] = {
            "qid": q.qid, "task": task, "task_type": cat or None,
            "subject_id": item.get("subject_id"), "hadm_id": item.get("hadm_id"),
            "label": item["label"], "completed": bool(runs), "num_runs": len(runs),
            "runs": [], "avg_f1": 0.0, "avg_precision": 0.0, "avg_recall": 0.0, "avg_em": 0.0,
            "avg_tool_calls": 0.0, "avg_browser_calls": 0.0, "avg_turns": 0.0}
        for run in runs:
            preds, src = text_predictions(run)
            sc = text_f1(preds, item["label"])
            tools, browser, turns = _tool_counts(run)
            record["runs"].append({"predictions": preds, "prediction_source": src,
                                   "f1": sc["f1"], "precision": sc["prec"],
                                   "recall": sc["rec"], "em": sc["em"], "tool_calls": tools,
                                   "browser_calls": browser, "turns": turns})
        if runs:
            rr = record["runs"]
            for key, field in (("avg_f1", "f1"), ("avg_precision", "precision"),
                               ("avg_recall", "recall"), ("avg_em", "em"),
                               ("avg_tool_calls", "tool_calls"),
                               ("avg_browser_calls", "browser_calls"), ("avg_turns", "turns")):
                record[key] = _avg([x[field] for x in rr])
        per_question.append(record)

    def block(recs: list[dict[str, Any]], sources: bool) -> dict[str, Any]:
        done = [r for r in recs if r["runs"]]
        runs = [x for r in done for x in r["runs"]]
        tools = sum(x["tool_calls"] for x in runs)
        out = {"total": len(recs), "completed": len(done), "runs": len(runs),
               "precision": _avg([r["avg_precision"] for r in done]),
               "recall": _avg([r["avg_recall"] for r in done]),
               "f1": _avg([r["avg_f1"] for r in done]),
               "tool_calls_avg": _avg([x["tool_calls"] for x in runs]),
               "turns_avg": _avg([x["turns"] for x in runs]),
               "browser_tool_pct": (sum(x["browser_calls"] for x in runs) / tools * 100
                                    if tools else 0.0)}
        if sources:
            out["prediction_sources"] = dict(Counter(x["prediction_source"] for x in runs))
        return out

    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for pq in per_question:
        by_task[pq["task"]].append(pq)
        if pq["task_type"]:
            by_type[pq["task_type"]].append(pq)
    scores = {"overall": block(per_question, False),
              "per_task": {t: block(v, True) for t, v in sorted(by_task.items())},
              "per_task_type": {t: block(v, True) for t, v in sorted(by_type.items())}}
    return scores, per_question


# ---- the legacy evaluate_results.py (flat scores.json) ---------------------------------
def _legacy_predictions(rec: dict[str, Any]) -> tuple[list[Any], str]:
    """evaluate_results.py as of 09dce89 (see text_predictions)."""
    return text_predictions(rec, string_answer=False)


def _legacy_f1(predictions: list[Any], label: Any) -> dict[str, float]:
    """Its f1_score: gold is every object's name AND atc_name."""
    pred_set = {p for p in predictions if isinstance(p, str)}
    gt = {v for ans in label if isinstance(ans, dict)
          for v in (ans.get("name"), ans.get("atc_name")) if isinstance(v, str)}
    if not pred_set:
        return {"f1": 0.0, "prec": 0.0, "rec": 0.0}
    pl, gl = {p.lower() for p in pred_set}, {g.lower() for g in gt}
    inter = pl & gl
    prec = len(inter) / len(pl)
    rec = len(inter) / len(gl) if gl else 0.0
    return {"f1": 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0,
            "prec": prec, "rec": rec}


def text_scores_legacy(winners: list[dict[str, Any]], questions: list[Question]
                       ) -> dict[str, Any]:
    """The flat {task: {...}} payload of the legacy evaluate_results.py --output: a question
    without runs counts 0 in precision / recall / f1; no turns_avg, no per_task_type."""
    runs_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in sorted(winners, key=lambda r: (r["qid"], r.get("run_index") or 0)):
        runs_of[rec["qid"]].append(rec)
    acc: dict[str, dict[str, Any]] = defaultdict(lambda: {
        "total": 0, "completed": 0, "runs": 0, "p": [], "r": [], "f": [], "tc": [], "bc": [],
        "src": Counter()})
    for q in questions:
        runs = runs_of.get(q.qid, [])
        task = next((r["task"] for r in runs if isinstance(r.get("task"), str) and r["task"]),
                    q.inputs.get("task") or "unknown")
        a = acc[task]
        a["total"] += 1
        if not runs:
            for k in ("p", "r", "f"):
                a[k].append(0.0)
            continue
        a["completed"] += 1
        a["runs"] += len(runs)
        scores = []
        for run in runs:
            preds, src = _legacy_predictions(run)
            a["src"][src] += 1
            scores.append(_legacy_f1(preds, q.inputs["label"]))
            tools, browser, _ = _tool_counts(run)
            a["tc"].append(tools)
            a["bc"].append(browser)
        a["p"].append(_avg([s["prec"] for s in scores]))
        a["r"].append(_avg([s["rec"] for s in scores]))
        a["f"].append(_avg([s["f1"] for s in scores]))
    return {task: {"total": a["total"], "completed": a["completed"], "runs": a["runs"],
                   "precision": _avg(a["p"]), "recall": _avg(a["r"]), "f1": _avg(a["f"]),
                   "tool_calls_avg": _avg(a["tc"]),
                   "browser_tool_pct": sum(a["bc"]) / sum(a["tc"]) * 100 if sum(a["tc"]) else 0.0,
                   "prediction_sources": dict(a["src"])}
            for task, a in sorted(acc.items())}


def text_summary_table(scores: dict[str, Any]) -> str:
    """summary.txt of score_text.py --output-dir: the table it prints (per task, Overall,
    By task_type), numbers in percent with one decimal."""
    def row(name: str, b: dict[str, Any]) -> str:
        return (f"{name:<22s} {b['total']:>5d} {b['completed']:>5d} {b['runs']:>5d} "
                f"{b['precision']*100:>7.1f} {b['recall']*100:>7.1f} {b['f1']*100:>7.1f} "
                f"{b['tool_calls_avg']:>8.1f} {b['browser_tool_pct']:>6.1f}% "
                f"{b['turns_avg']:>8.1f}")

    def sources(b: dict[str, Any]) -> list[str]:
        src = b.get("prediction_sources") or {}
        other = {k: v for k, v in src.items() if k != "finish_tool_call"}
        if not other:
            return []
        parts = ", ".join(f"{k}={v}" for k, v in sorted(other.items()))
        return [f"  \u2514\u2500 sources: finish={src.get('finish_tool_call', 0)}, {parts}"]

    lines = [f"{'Task':<22s} {'Total':>5s} {'Done':>5s} {'Runs':>5s} {'Prec':>7s} "
             f"{'Rec':>7s} {'F1':>7s} {'ToolAvg':>8s} {'Brows%':>7s} {'TurnAvg':>8s}", "-" * 89]
    for task, b in scores["per_task"].items():
        lines += [row(task, b), *sources(b)]
    lines += ["-" * 89, row("Overall", scores["overall"])]
    if scores["per_task_type"]:
        lines += ["-" * 89, "By task_type:"]
        for cat, b in scores["per_task_type"].items():
            lines += [row(cat, b), *sources(b)]
    return "\n".join(lines) + "\n"
