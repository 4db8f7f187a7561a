"""Scorer ``authors_text_legacy``: the older text scorer of the authors that wrote flat
``{task: {...}}`` scores.json files (``openresearcher_ehr/helper/evaluate_results.py`` as of
commit 09dce89). Its rows are never a leaderboard score; summary_reconciliation checks the
summaries it wrote against them.

The LAST call whose function name contains ``finish`` decides; its arguments parse as JSON,
else as a Python literal (failure: ``finish_parse_error``); ``response`` of a dict, else the
parsed value, counts only when it is a list (``finish_tool_call``), anything else, a string
too, is ``finish_tool_call_non_list``; no finish call is ``no_prediction``. Gold is the union
of every object's ``name`` AND ``atc_name`` strings. Only string predictions count, both
sides lower-cased, not stripped; an empty prediction scores 0; exact match is set equality.

Where the authors' code would raise on a malformed record (a message or call that is not an
object, a null function), these functions treat the piece as absent instead.
"""

from __future__ import annotations

from typing import Any

from etl.scoring.authors_text import parse_json_or_python
from etl.scoring.base import ResultInput, ScoreColumns
from etl.scoring.text_runs import record_messages

NAME = "authors_text_legacy"


def legacy_predictions(record: dict[str, Any]) -> tuple[list[Any], str]:
    """(predictions, prediction_source) under the legacy evaluate_results.py rule."""
    for message in reversed(record_messages(record)):
        calls = message.get("tool_calls") or []
        for call in reversed(calls if isinstance(calls, list) else []):
            function = call.get("function", {}) if isinstance(call, dict) else {}
            if not isinstance(function, dict):
                function = {}
            name = function.get("name", "")
            if "finish" not in (name if isinstance(name, str) else "").lower():
                continue
            try:
                args = parse_json_or_python(function.get("arguments", {}))
            except Exception:  # JSON, then literal_eval: any failure is the source below
                return [], "finish_parse_error"
            predictions = args.get("response", []) if isinstance(args, dict) else args
            if isinstance(predictions, list):
                return predictions, "finish_tool_call"
            return [], "finish_tool_call_non_list"
    return [], "no_prediction"


def legacy_gold(label: Any) -> set[str]:
    """Gold under the legacy rule: every object's name and atc_name strings."""
    gold: set[str] = set()
    for answer in label if isinstance(label, list) else []:
        if not isinstance(answer, dict):
            continue
        for key in ("name", "atc_name"):
            value = answer.get(key)
            if isinstance(value, str):
                gold.add(value)
    return gold


def score_result(result: ResultInput) -> ScoreColumns:
    """authors_text_legacy of one result (its row has no status: the rule never reads it)."""
    predictions, source = legacy_predictions(result.record)
    pred = {p.lower() for p in predictions if isinstance(p, str)}
    gold = {g.lower() for g in legacy_gold(result.label)}
    row: ScoreColumns = {"note": source, "route": "legacy_set_f1", "n_pred": len(pred),
                         "n_gold": len(gold)}
    if not pred:
        return {**row, "precision": 0.0, "recall": 0.0, "f1": 0.0, "exact_match": 0.0}
    hits = len(pred & gold)
    precision = hits / len(pred)
    recall = hits / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {**row, "precision": precision, "recall": recall, "f1": f1,
            "exact_match": 1.0 if pred == gold else 0.0}
