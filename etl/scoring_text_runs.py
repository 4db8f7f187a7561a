"""Rules of the authors' text scorer that are not the set-F1 score itself.

- Per-run tool statistics (``count_tool_calls``, ``count_turns``, ``normalize_tool_name`` of
  ``clinseekagent/scoring/score_text.py``, the same in every version): they give
  ``tool_calls_avg``, ``turns_avg`` and ``browser_tool_pct`` of scores.json. Every
  ``tool_calls`` entry of every assistant message counts; its name is ``function.name``
  (``unknown`` when missing: a flat ``{"name"}`` call is not a browser call), cut to its
  leading ``[A-Za-z0-9_.]`` run after stripping, with ``ehr_`` / ``browser_`` prefixes read
  as ``ehr.`` / ``browser.``; a browser call is one whose name then starts with ``browser.``.
  Turns are the assistant messages.
- The older scorer that wrote flat ``{task: {...}}`` scores.json files
  (``openresearcher_ehr/helper/evaluate_results.py`` as of commit 09dce89, scorer name
  ``authors_text_legacy``): the LAST call whose function name contains ``finish`` decides;
  its arguments parse as JSON, else as a Python literal (failure: ``finish_parse_error``);
  ``response`` of a dict, else the parsed value, counts only when it is a list
  (``finish_tool_call``), anything else, a string too, is ``finish_tool_call_non_list``; no
  finish call is ``no_prediction``. Gold is the union of every object's ``name`` AND
  ``atc_name`` strings. Only string predictions count, both sides lower-cased, not stripped;
  an empty prediction scores 0; exact match is set equality.

Where the authors' code would raise on a malformed record (a message or call that is not an
object, a null function), these functions treat the piece as absent instead.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from typing import Any

from etl.normalize import gold_label

LEGACY_SCORER = "authors_text_legacy"

_TOOL_NAME_HEAD = re.compile(r"^[A-Za-z0-9_.]+")


def normalize_tool_name(name: Any) -> str:
    """score_text.py normalize_tool_name."""
    text = (name or "unknown").strip() if isinstance(name, str) or not name else str(name)
    return _normalized_tool_text(text)


@functools.lru_cache(maxsize=4096)  # a run names a handful of tools, on every call
def _normalized_tool_text(text: str) -> str:
    head = _TOOL_NAME_HEAD.match(text)
    if head:
        text = head.group(0)
    if text.startswith("ehr_"):
        return "ehr." + text[4:]
    if text.startswith("browser_"):
        return "browser." + text[8:]
    return text


def _messages(record: dict[str, Any]) -> list[dict[str, Any]]:
    messages = record.get("messages")
    if not isinstance(messages, list):
        return []
    return [m for m in messages if isinstance(m, dict)]


def run_stats(record: dict[str, Any]) -> tuple[int, int, int]:
    """(tool calls, browser calls, assistant turns) of one result record."""
    total = browser = turns = 0
    for message in _messages(record):
        if message.get("role") != "assistant":
            continue
        turns += 1
        calls = message.get("tool_calls") or []
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name", "unknown") if isinstance(function, dict) else "unknown"
            total += 1
            if normalize_tool_name(name).startswith("browser."):
                browser += 1
    return total, browser, turns


def tool_name_counts(record: dict[str, Any]) -> dict[str, int]:
    """Calls per tool name of one record as analyze_tool_call_averages.py analyze_queries
    counts them: every tool_calls entry of the assistant messages, its function name (else
    ``unknown``) through normalize_tool_name (the same function as score_text.py's)."""
    counts: dict[str, int] = {}
    for message in _messages(record):
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or []
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function", {}) if isinstance(call, dict) else None
            name = function.get("name", "unknown") if isinstance(function, dict) else "unknown"
            tool = normalize_tool_name(name)
            counts[tool] = counts.get(tool, 0) + 1
    return counts


def _parse_json_or_python(value: Any) -> Any:
    if isinstance(value, dict | list):
        return value
    if not isinstance(value, str):
        raise TypeError(type(value).__name__)
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return ast.literal_eval(value)


def legacy_predictions(record: dict[str, Any]) -> tuple[list[Any], str]:
    """(predictions, prediction_source) under the legacy evaluate_results.py rule."""
    for message in reversed(_messages(record)):
        calls = message.get("tool_calls") or []
        for call in reversed(calls if isinstance(calls, list) else []):
            function = call.get("function", {}) if isinstance(call, dict) else {}
            if not isinstance(function, dict):
                function = {}
            name = function.get("name", "")
            if "finish" not in (name if isinstance(name, str) else "").lower():
                continue
            try:
                args = _parse_json_or_python(function.get("arguments", {}))
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


def legacy_score(record: dict[str, Any]) -> dict[str, Any]:
    """A question_scores row (without key columns) under the legacy rule."""
    predictions, source = legacy_predictions(record)
    pred = {p.lower() for p in predictions if isinstance(p, str)}
    gold = {g.lower() for g in legacy_gold(gold_label(record)[0])}
    row: dict[str, Any] = {"scorer": LEGACY_SCORER, "note": source, "route": "legacy_set_f1",
                           "n_pred": len(pred), "n_gold": len(gold)}
    if not pred:
        return {**row, "precision": 0.0, "recall": 0.0, "f1": 0.0, "exact_match": 0.0}
    hits = len(pred & gold)
    precision = hits / len(pred)
    recall = hits / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {**row, "precision": precision, "recall": recall, "f1": f1,
            "exact_match": 1.0 if pred == gold else 0.0}
