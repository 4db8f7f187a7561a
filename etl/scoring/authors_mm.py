"""The authors' multimodal scorer, recomputed: scorer ``authors_mm_set`` for mm_bench results.

The specification is ``clinseekagent/scoring/score_multimodal.py`` of UCSC-VLAA/ClinSeekAgent
(``extract_prediction``, ``pred_to_strings``, ``gold_to_strings``, ``set_f1``,
``classify_subtype`` and the routing in ``score_file``). Its rules differ from the text
scorer's (etl/scoring/authors_text.py) in these places, all kept here:

- Which finish call counts: messages are scanned from the LAST to the first; within one
  message the FIRST tool call whose name is exactly ``ehr.finish`` or ``finish`` (no
  substring match: ``image.finish_x`` is no finish call) decides. The name is the call's
  own ``name``, else ``function.name``.
- Its arguments are the call's ``arguments``, else ``function.arguments`` (an empty value
  falls through to the second). When both are missing the scan goes on to earlier messages.
- A dict is used as is; anything else goes through ``json.loads`` (stdlib, so bare NaN is
  accepted as the authors' parser accepts it); a failure gives note ``bad_json_args`` and the
  raw value as prediction. A dict with a ``response`` key gives that value (note ``ok``), any
  other parsed value is the prediction with note ``no_response_key``; no finish call at all
  is note ``no_finish_call``.
- Prediction strings: a list maps item by item (an object gives its first truthy
  ``name`` / ``value`` / ``text`` / ``answer``, falling back to the last of them unless that
  is None, then to its JSON text; anything else ``str()``); a string is one item; None is
  none; any other value is its ``str()``. No stripping here, no string-only filter.
- Gold strings: ``label or []``; a list maps objects to ``name``, else ``value`` (None ->
  ""), other items to ``str()``; a non-list label is ``[str(label)]`` (None -> []). Blank
  strings are dropped. A question whose gold is then empty is skipped by the authors (no
  scored row); here it gets a row with route ``no_gold`` and NULL metrics, so it is not lost.
- Route: ``incomplete`` when the note is not ``ok`` or the prediction is None (every metric
  0, correct 0; the record's status is not consulted otherwise); ``set_f1`` when there are
  two or more gold names; ``llm_judge`` for one gold name.
- set_f1: both sides ``str(x).strip().lower()``, empty strings dropped, as sets; precision,
  recall, F1, accuracy = |P∩G| / |P∪G| (Jaccard), subset_match = set equality, tp, n_pred,
  n_gold. These are the scorer's raw (``*_raw``) numbers. With vocabulary mapping on (the
  scorer's default) the primary numbers of scored.jsonl come from predictions mapped to the
  gold vocabulary by a sentence-embedding model, and rescore_mm_vocab.py does the same:
  that needs the embedding model and is not recomputed; the raw numbers always are (for a
  ``--no-vocab`` run the primary numbers equal them).
- llm_judge: the verdict comes from an LLM (Claude Sonnet on Bedrock) and cannot be
  recomputed. Such rows carry the judge sub-type the scorer would pick
  (``classify_subtype``) and NULL precision / recall / f1 / accuracy / correct; their
  ``note`` is the extraction note and route ``llm_judge`` marks them.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from etl.scoring.base import ResultInput, ScoreColumns
from etl.values import gold_label

NAME = "authors_mm_set"

FINISH_NAMES = frozenset({"ehr.finish", "finish"})


def _mapping(value: Any) -> dict[str, Any]:
    # (tc.get("function") or {}) in the authors' code; a non-object function would make their
    # .get() fail, here it simply has no name and no arguments.
    return value if isinstance(value, dict) else {}


def _finish_arguments(record: dict[str, Any]) -> Any:
    """Raw arguments of the finish call that decides, or None when there is none."""
    messages = record.get("messages") or []
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            continue
        found = False
        arguments = None
        for call in calls:
            if not isinstance(call, dict):
                continue
            name = call.get("name") or _mapping(call.get("function")).get("name")
            if isinstance(name, str) and name in FINISH_NAMES:
                arguments = call.get("arguments") or _mapping(call.get("function")).get(
                    "arguments")
                found = True
                break
        if found and arguments is not None:
            return arguments
    return None


def extract_prediction(record: dict[str, Any]) -> tuple[Any, str]:
    """(prediction, note) as score_multimodal.extract_prediction gives them."""
    raw = _finish_arguments(record)
    if raw is None:
        return None, "no_finish_call"
    if isinstance(raw, dict):
        parsed: Any = raw
    else:
        try:
            parsed = json.loads(raw)
        except Exception:  # TypeError for non-text, ValueError for bad JSON: both are notes
            return raw, "bad_json_args"
    if isinstance(parsed, dict) and "response" in parsed:
        return parsed["response"], "ok"
    return parsed, "no_response_key"


def _object_answer(item: dict[str, Any]) -> str:
    value = item.get("name") or item.get("value") or item.get("text") or item.get("answer")
    if value is None:
        return json.dumps(item, ensure_ascii=False)
    return str(value)


def prediction_strings(prediction: Any) -> list[str]:
    """The prediction as the list of strings the set metrics use (not normalized)."""
    if prediction is None:
        return []
    if isinstance(prediction, list):
        return [_object_answer(x) if isinstance(x, dict) else str(x) for x in prediction]
    if isinstance(prediction, str):
        return [prediction]
    return [str(prediction)]


def gold_strings(label: Any) -> list[str]:
    """Gold names of a label, blank ones dropped (the scorer's gold_names)."""
    label = label or []
    if isinstance(label, list):
        names = []
        for item in label:
            if isinstance(item, dict):
                name = item.get("name")
                if name is None:
                    name = item.get("value")
                names.append("" if name is None else str(name))
            else:
                names.append(str(item))
    else:
        names = [str(label)]
    return [name for name in names if name.strip()]


def _normalized_set(items: list[str]) -> set[str]:
    out = set()
    for item in items:
        text = "" if item is None else str(item).strip().lower()
        if text:
            out.add(text)
    return out


def set_metrics(pred: list[str], gold: list[str]) -> dict[str, float | int]:
    """The scorer's set_f1 without vocabulary mapping (its raw metrics)."""
    p, g = _normalized_set(pred), _normalized_set(gold)
    tp = len(p & g)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    union = p | g
    return {"precision": precision, "recall": recall, "f1": f1,
            "accuracy": tp / len(union) if union else 0.0,
            "exact_match": 1.0 if p == g else 0.0,
            "tp": tp, "n_pred": len(p), "n_gold": len(g)}


_YESNO = frozenset({"yes", "no", "true", "false", "0", "1"})
_INTEGER = re.compile(r"^-?\d+$")
_DECIMAL = re.compile(r"^-?\d+\.\d+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
_MIMIC_ID = re.compile(r"^\d{6,10}$")
_POLAR_STARTS = ("is ", "are ", "does ", "do ", "did ", "was ", "were ", "has ", "have ",
                 "can ", "could ", "should ", "will ", "would ")
_LABEL_TASKS = frozenset({"medmod_radiology", "medmod_phenotyping", "ehrxqa_image"})


def judge_subtype(gold_name: str, question: str, task: str) -> str:
    """Judge template the scorer picks for a one-name gold (classify_subtype)."""
    name = gold_name.strip()
    if name.lower() in _YESNO:
        return "yesno"
    if _DATE.match(name):
        return "date_time"
    if task == "ehrxqa_table" and _MIMIC_ID.match(name):
        return "id"
    if _INTEGER.match(name) or _DECIMAL.match(name):
        return "count"  # with or without a counting keyword in the question
    if (question.strip().lower().startswith(_POLAR_STARTS)
            and len(name.lower().split()) <= 3):
        return "label_name"
    return "label_name" if task in _LABEL_TASKS else "generic_string"


def score_record(record: dict[str, Any]) -> dict[str, Any]:
    """One question_scores row (without key columns) for a multimodal result record."""
    gold = gold_strings(gold_label(record)[0])
    prediction, note = extract_prediction(record)
    pred = prediction_strings(prediction)
    raw_status = record.get("status")
    row: dict[str, Any] = {
        "scorer": NAME,
        "note": note,
        "status": raw_status if isinstance(raw_status, str) else None,
        "len_gold": len(gold),
        "gold_names": orjson.dumps(gold).decode(),
        "prediction_strs": orjson.dumps(pred).decode(),
    }
    if not gold:
        row["route"] = "no_gold"
        return row
    if note != "ok" or prediction is None:
        row.update(route="incomplete", correct=0.0, precision=0.0, recall=0.0, f1=0.0,
                   accuracy=0.0, exact_match=0.0)
        return row
    if len(gold) >= 2:
        m = set_metrics(pred, gold)
        row.update(route="set_f1", **m, precision_raw=m["precision"], recall_raw=m["recall"],
                   f1_raw=m["f1"], accuracy_raw=m["accuracy"],
                   exact_match_raw=m["exact_match"], vocab_mapped=False)
        return row
    question = record.get("question")
    task = record.get("task")
    row.update(route="llm_judge",
               judge_subtype=judge_subtype(gold[0], question if isinstance(question, str)
                                           else "", task if isinstance(task, str) else ""))
    return row


def score_result(result: ResultInput) -> ScoreColumns:
    """authors_mm_set of one multimodal result (its status column is the record's status as
    written, which the route rules read)."""
    return score_record(result.record)
