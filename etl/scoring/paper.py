"""The rules of the paper's analysis chain: the scorers behind the published tables.

The paper's tables are not made by the authors' scorer (etl/scoring/authors_text.py,
score_text.py) but by the analysis chain of UCSC-VLAA/ClinSeekAgent
``openresearcher_ehr/analysis/``: ``reorganize_results.py`` ->
``statistic_significance/compute_ci_from_per_sample_scores.py`` ->
``findings_20260501/scripts/build_report.py``. Each rule below is a port of one function
of that code, read as the specification; the views of sql/82_paper.sql aggregate their rows
the way the chain does.

- ``paper_text`` (reorganize_results.py ``load_ehr_bench_rows``: ``_label_to_strings``,
  ``_extract_finish_predictions``, ``_f1_prec_rec``): the EHR-Bench table rows. Gold is the
  ``name`` of each object (else ``value``, ``text``, ``answer``: the first truthy one, else
  the object's JSON text), ``atc_name`` never; every item ``str()``-ed and stripped, blanks
  dropped. The prediction is the LAST call whose name contains ``finish`` whose arguments
  give a list or a non-blank string (an earlier finish call decides when the last one gives
  neither); unparsable arguments are the argument text itself; list items are ``str()``-ed
  and stripped. Both sides are stripped and lower-cased as sets; an empty side scores 0.
- ``paper_agentehr`` (compute_ci_from_per_sample_scores.py ``_agent_ehr_bedrock_rows``): the
  AgentEHR table rows. The prediction of the authors' evaluate_results.py
  (``extract_finish_predictions_with_source``, the rule of score_text.py:
  etl/scoring/authors_text.py ``finish_prediction``), the gold the ``name`` of each object
  (``str()`` of any other item, a string label one item), scored by its ``f1_score``
  (string items only, lower-cased, never stripped).
- ``ccs_helper`` (helper/score_diagnoses_ccs_results.py ``extract_finish_predictions``,
  ``f1_score``): only a list response counts (a string response is no prediction), gold the
  ``name`` strings of the label's objects; string items only, lower-cased, not stripped.
  Its ``scores.json`` is reconciled from these rows (sql/82_paper.sql).

Gold is the record's ``label``; a record without that key (the raw rows of
eval_ehrbench_qa.py) gives its ``ground_truth``, as analysis/ingest_external_results.py
stages them before the chain reads them (etl/normalize.py ``gold_label``).

Where the authors' code would crash on a malformed record (a message or call that is not an
object, a function name that is not a string), the piece is skipped here: it is not a finish
call. Every rule returns a ``LineScore`` and is registered in etl/scoring/registry.py: all
three for every line of a run's results.jsonl (table line_scores), paper_text and
paper_agentehr also for every text result (question_scores, so every board can show them).
"""

from __future__ import annotations

import ast
import json
from typing import Any

from etl.scoring.authors_text import authors_f1, finish_prediction, parse_json_or_python
from etl.scoring.base import LineScore, ResultInput, ScoreColumns
from etl.values import gold_label, json_text

PAPER_TEXT = "paper_text"
PAPER_AGENTEHR = "paper_agentehr"
CCS_HELPER = "ccs_helper"


# --- paper_text: reorganize_results.py ------------------------------------------------

def _parse_json_or_py(raw: Any) -> Any:
    """reorganize_results._parse_json_or_py: dict/list as is, other non-strings as is, a
    stripped string as JSON, else a Python literal, else the string itself."""
    if isinstance(raw, dict | list):
        return raw
    if not isinstance(raw, str):
        return raw
    raw = raw.strip()
    try:
        return json.loads(raw)
    except Exception:  # noqa: BLE001 - as the authors' code
        try:
            return ast.literal_eval(raw)
        except Exception:  # noqa: BLE001 - as the authors' code
            return raw


def label_strings(label: Any) -> list[str]:
    """reorganize_results._label_to_strings."""
    if label is None:
        return []
    if isinstance(label, str):
        return [label.strip()]
    if isinstance(label, list):
        out: list[str] = []
        for x in label:
            if isinstance(x, dict):
                v = x.get("name") or x.get("value") or x.get("text") or x.get("answer")
                if v is None:
                    v = json.dumps(x)
                out.append(str(v).strip())
            else:
                out.append(str(x).strip())
        return [s for s in out if s]
    return [str(label).strip()]


def paper_finish_predictions(messages: Any) -> list[str]:
    """reorganize_results._extract_finish_predictions."""
    for msg in reversed(messages if isinstance(messages, list) else []):
        if not isinstance(msg, dict):
            continue
        calls = msg.get("tool_calls") or []
        for tc in reversed(calls if isinstance(calls, list) else []):
            if not isinstance(tc, dict):
                continue
            function = tc.get("function") or {}
            if not isinstance(function, dict):
                continue
            name = function.get("name", "")
            if not isinstance(name, str) or "finish" not in name.lower():
                continue
            args = _parse_json_or_py(function.get("arguments", {}))
            preds = args.get("response", []) if isinstance(args, dict) else args
            if isinstance(preds, list):
                return [str(p).strip() for p in preds if str(p).strip()]
            if isinstance(preds, str) and preds.strip():
                return [preds.strip()]
    return []


def _norm_set(xs: list[str]) -> set[str]:
    return {x.strip().lower() for x in xs if x and x.strip()}


def paper_text_score(record: dict[str, Any]) -> LineScore:
    """One result line as reorganize_results.load_ehr_bench_rows scores it (_f1_prec_rec:
    no exact match)."""
    gold = label_strings(gold_label(record)[0])
    pred = paper_finish_predictions(record.get("messages") or [])
    p, g = _norm_set(pred), _norm_set(gold)
    if not p or not g:
        return LineScore(gold, pred, 0.0, 0.0, 0.0, None)
    tp = len(p & g)
    precision, recall = tp / len(p), tp / len(g)
    f1 = 2 * precision * recall / (precision + recall) if (precision + recall) else 0.0
    return LineScore(gold, pred, f1, precision, recall, None)


# --- paper_agentehr: compute_ci_from_per_sample_scores.py table 3 ------------------------

def agentehr_gold_names(label: Any) -> list[Any]:
    """_agent_ehr_bedrock_rows: a list gives each object's name (None when it has none) and
    str() of any other item; a string is one item; anything else nothing."""
    if isinstance(label, list):
        return [x.get("name") if isinstance(x, dict) else str(x) for x in label]
    if isinstance(label, str):
        return [label]
    return []


def paper_agentehr_score(record: dict[str, Any]) -> LineScore:
    """One result line as the AgentEHR table scores it (evaluate_results.f1_score of
    extract_finish_predictions_with_source(allow_text=False) against the gold names)."""
    gold = agentehr_gold_names(gold_label(record)[0])
    preds, _source = finish_prediction(record.get("messages", []))
    precision, recall, f1, em, _, _ = authors_f1(preds or [], gold)
    return LineScore(gold, preds, f1, precision, recall, em)


# --- ccs_helper: helper/score_diagnoses_ccs_results.py ---------------------------------

def ccs_helper_predictions(messages: Any) -> list[Any]:
    """score_diagnoses_ccs_results.extract_finish_predictions: the LAST finish call decides;
    a parse failure or anything but a list (a string too) is no prediction."""
    for message in reversed(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict):
            continue
        calls = message.get("tool_calls") or []
        for call in reversed(calls if isinstance(calls, list) else []):
            function = call.get("function", {}) if isinstance(call, dict) else None
            if not isinstance(function, dict):
                continue
            name = function.get("name", "")
            if not isinstance(name, str) or "finish" not in name.lower():
                continue
            try:
                arguments = parse_json_or_python(function.get("arguments", {}))
            except Exception:  # noqa: BLE001 - as the authors' code
                return []
            predictions = (arguments.get("response", []) if isinstance(arguments, dict)
                           else arguments)
            return predictions if isinstance(predictions, list) else []
    return []


def ccs_helper_score(record: dict[str, Any]) -> LineScore:
    """score_diagnoses_ccs_results.f1_score: gold the label objects' ``name`` strings."""
    label = gold_label(record)[0]
    gold = [a.get("name") for a in (label if isinstance(label, list) else [])
            if isinstance(a, dict) and isinstance(a.get("name"), str)]
    preds = ccs_helper_predictions(record.get("messages", []))
    pl = {p.lower() for p in preds if isinstance(p, str)}
    if not pl:
        return LineScore(gold, preds, 0.0, 0.0, 0.0, 0.0)
    gl = {g.lower() for g in gold}
    inter = pl & gl
    precision = len(inter) / len(pl)
    recall = len(inter) / len(gl) if gl else 0.0
    f1 = 2 * (precision * recall) / (precision + recall) if (precision + recall) > 0 else 0.0
    return LineScore(gold, preds, f1, precision, recall, 1.0 if pl == gl else 0.0)


def result_columns(name: str, score: LineScore, status: str) -> ScoreColumns:
    """A rule's score of one line as the question_scores row of that result."""
    return {"route": name, "precision": score.precision, "recall": score.recall,
            "f1": score.f1, "exact_match": score.exact_match, "correct": score.exact_match,
            "status": status, "predictions": json_text(score.predictions),
            "gold_names": json_text(score.gold)}


def paper_text_result(result: ResultInput) -> ScoreColumns:
    return result_columns(PAPER_TEXT, paper_text_score(result.record), result.status)


def paper_agentehr_result(result: ResultInput) -> ScoreColumns:
    return result_columns(PAPER_AGENTEHR, paper_agentehr_score(result.record), result.status)
