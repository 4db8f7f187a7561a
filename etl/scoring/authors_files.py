"""Scorers read from the authors' per-question score files, not computed here: ``scored``
(clinseekagent/scoring/score_multimodal.py's scored.jsonl), ``rescored``
(openresearcher_ehr/rescore_mm_vocab.py's rescored.jsonl: a copy of scored.jsonl whose set
rows are re-scored after vocabulary mapping), ``per_question`` (clinseekagent/scoring/
score_text.py's per_question.jsonl), and ``paper_mm``, each scored / rescored line as the
paper's chain reads it (line_scores). etl/extract/scores.py reads the files and hands each
line with its qid to the scorers registered for its kind (etl/scoring/registry.py).

- ``scored`` / ``rescored``: one object per (qid, run_index) with route (incomplete | set_f1 |
  llm_judge), len_gold, gold_names, correct, precision, recall, f1, accuracy, subset_match,
  set rows also tp / n_pred / n_gold and ``*_raw`` variants, judge rows judge_subtype /
  judge_match. One question_scores row per object; the scorer is the file kind.
- ``per_question``: one object per qid with ``runs: [{predictions, prediction_source, f1,
  precision, recall, em, tool_calls, turns}]`` and question-level avg_f1 / avg_precision /
  avg_recall / avg_em. One row per run entry (run_index = the entry's own run_index, else its
  1-based position); the question-level averages are repeated on every run row of the
  question so nothing of the file is lost and a question's average stays one GROUP BY away.
  A question the scorer found no result for (``runs: []``) still gets one row, with
  run_index NULL, status 'no_runs' and NULL metrics, because the authors' scores.json counts
  it in ``total``.
"""

from __future__ import annotations

from typing import Any

from etl.scoring.base import ScoreColumns
from etl.statuses import normalize_status
from etl.tasks import task_group
from etl.values import json_text, run_index_value, to_int, to_number

# Keys of a scored / rescored row that scored_row maps to columns; every other key
# (gold_names, prediction_strs, judge_reason, prediction_strs_mapped, mapping_similarity,
# ...) is kept in question_scores.extra, so nothing the authors' scorer wrote is dropped.
SCORED_KEYS_MAPPED: frozenset[str] = frozenset({
    "qid", "run_index", "task", "route", "status", "note", "judge_subtype", "judge_match",
    "correct", "precision", "recall", "f1", "accuracy", "subset_match", "precision_raw",
    "recall_raw", "f1_raw", "accuracy_raw", "subset_match_raw", "tp", "n_pred", "n_gold",
    "len_gold", "vocab_mapped"})
# per_question.jsonl: the question's keys per_question_rows maps, and each run's. A run's
# predictions are only counted (n_pred), so the list itself is a leftover.
PER_QUESTION_KEYS_MAPPED: frozenset[str] = frozenset({
    "qid", "task", "task_type", "avg_f1", "avg_precision", "avg_recall", "avg_em", "runs"})
PER_QUESTION_RUN_KEYS_MAPPED: frozenset[str] = frozenset({
    "run_index", "prediction_source", "precision", "recall", "f1", "em", "tool_calls",
    "turns"})


def _extra(obj: dict[str, Any], mapped: frozenset[str], prefix: str = "") -> dict[str, Any]:
    return {f"{prefix}{k}": v for k, v in obj.items() if k not in mapped}


def _extra_text(extra: dict[str, Any]) -> str | None:
    # json_text: the one JSON writer that also takes what orjson refuses (nesting deeper
    # than 255, integers beyond 64 bits), so a leftover never costs its record
    return json_text(extra) if extra else None


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def list_text(value: Any) -> str | None:
    """A list field as compact JSON text (kept as written); None for anything else."""
    return json_text(value) if isinstance(value, list) else None


def scored_rows(obj: dict[str, Any], qid: str, scorer: str
                ) -> tuple[list[ScoreColumns], str | None]:
    """The question_scores row of one scored / rescored line, or the problem that rejects it
    (a run_index that is not a positive integer; missing is run 1)."""
    run_index, problem = run_index_value(obj.get("run_index"))
    if problem:
        return [], problem
    return [scored_row(obj, scorer, qid, run_index or 1)], None


def scored_row(obj: dict[str, Any], scorer: str, qid: str, run_index: int) -> ScoreColumns:
    gold_names = obj.get("gold_names")
    len_gold = to_int(obj.get("len_gold"))
    if len_gold is None and isinstance(gold_names, list):
        len_gold = len(gold_names)
    judge_match = obj.get("judge_match")
    return {
        "qid": qid,
        "run_index": run_index,
        "scorer": scorer,
        "task": text_or_none(obj.get("task")),
        "route": text_or_none(obj.get("route")),
        "status": text_or_none(obj.get("status")),
        # what a results row of the question would say (a scored-only run has none):
        # its status by the one status map, its task's group by the one task list
        "result_status": normalize_status(obj.get("status")),
        "task_group": task_group(text_or_none(obj.get("task"))),
        "note": text_or_none(obj.get("note")),
        "judge_subtype": text_or_none(obj.get("judge_subtype")),
        "judge_match": judge_match if isinstance(judge_match, bool) else None,
        "correct": to_number(obj.get("correct")),
        "precision": to_number(obj.get("precision")),
        "recall": to_number(obj.get("recall")),
        "f1": to_number(obj.get("f1")),
        "accuracy": to_number(obj.get("accuracy")),
        "exact_match": to_number(obj.get("subset_match")),
        "precision_raw": to_number(obj.get("precision_raw")),
        "recall_raw": to_number(obj.get("recall_raw")),
        "f1_raw": to_number(obj.get("f1_raw")),
        "accuracy_raw": to_number(obj.get("accuracy_raw")),
        "exact_match_raw": to_number(obj.get("subset_match_raw")),
        "tp": to_int(obj.get("tp")),
        "n_pred": to_int(obj.get("n_pred")),
        "n_gold": to_int(obj.get("n_gold")),
        "len_gold": len_gold,
        "vocab_mapped": obj.get("vocab_mapped") if isinstance(obj.get("vocab_mapped"), bool)
        else None,
        "extra": _extra_text(_extra(obj, SCORED_KEYS_MAPPED)),
        "gold_names": list_text(gold_names),
        "prediction_strs": list_text(obj.get("prediction_strs")),
    }


def per_question_rows(obj: dict[str, Any], qid: str, scorer: str
                      ) -> tuple[list[ScoreColumns], str | None]:
    """The run rows of one per_question record, or a problem that rejects the line."""
    runs = obj.get("runs", [])
    if runs is None:
        runs = []
    if not isinstance(runs, list):
        return [], "runs is not a list"
    question = {
        "qid": qid,
        "scorer": scorer,
        "task": text_or_none(obj.get("task")),
        "task_type": text_or_none(obj.get("task_type")),
        "n_runs": len(runs),
        "avg_f1": to_number(obj.get("avg_f1")),
        "avg_precision": to_number(obj.get("avg_precision")),
        "avg_recall": to_number(obj.get("avg_recall")),
        "avg_em": to_number(obj.get("avg_em")),
    }
    question_extra = _extra(obj, PER_QUESTION_KEYS_MAPPED, "question.")
    if not runs:
        return [{**question, "run_index": None, "status": "no_runs",
                 "extra": _extra_text(question_extra)}], None
    rows = []
    for position, run in enumerate(runs, start=1):
        if not isinstance(run, dict):
            return [], f"runs[{position - 1}] is not an object"
        run_index, problem = run_index_value(run.get("run_index", position))
        if problem:
            return [], f"runs[{position - 1}]: {problem}"
        predictions = run.get("predictions")
        rows.append({
            **question,
            "run_index": run_index,
            "note": text_or_none(run.get("prediction_source")),
            "precision": to_number(run.get("precision")),
            "recall": to_number(run.get("recall")),
            "f1": to_number(run.get("f1")),
            "exact_match": to_number(run.get("em")),
            "n_pred": len(predictions) if isinstance(predictions, list) else None,
            "tool_calls": to_int(run.get("tool_calls")),
            "turns": to_int(run.get("turns")),
            "extra": _extra_text({**_extra(run, PER_QUESTION_RUN_KEYS_MAPPED),
                                  **question_extra}),
            "browser_calls": to_int(run.get("browser_calls")),
            "prediction_strs": list_text(predictions),
        })
    return rows, None


def paper_mm_line(obj: dict[str, Any]) -> ScoreColumns:
    """The line as reorganize_results.py load_mm_bench_rows reads it (scorer paper_mm): the
    authors' f1 / precision / recall with a missing (or zero) value 0, gold_names and
    prediction_strs (else prediction_flat) each item str()-ed."""
    def number(key: str) -> float:
        return to_number(obj.get(key)) or 0.0

    def items(value: Any) -> list[str]:  # the authors iterate whatever is there
        return [str(x) for x in value] if isinstance(value, list | str) else []

    predictions = obj.get("prediction_strs") or obj.get("prediction_flat") or []
    return {"run_index": to_int(obj.get("run_index")), "task": text_or_none(obj.get("task")),
            "f1": number("f1"), "precision": number("precision"),
            "recall": number("recall"),
            "gold": json_text(items(obj.get("gold_names") or [])),
            "predictions": json_text(items(predictions)),
            "raw_status": text_or_none(obj.get("status"))}
