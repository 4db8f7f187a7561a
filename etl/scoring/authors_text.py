"""Scorers ``authors_text`` and ``authors_text_fallback``: the benchmark authors' own text
scorer, clinseekagent/scoring/score_text.py of UCSC-VLAA/ClinSeekAgent, ported rule for rule
(the leaderboard default for the text benchmarks), and the same with the authors'
--extract-text-answer-without-finish option (an answer read from the last assistant text
when there is no finish call). Also ``true_best_at_k`` (calculate_true_best_at_k, best@k over
a question's runs: etl/best_at_k.py) and ``parse_json_or_python``, which the other ports of
the authors' finish rule share.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from etl.scoring.base import ResultInput, ScoreColumns
from etl.values import json_text

# === authors_text: the benchmark authors' text scorer, rule for rule ======================
#
# Specification: clinseekagent/scoring/score_text.py of UCSC-VLAA/ClinSeekAgent
# (``extract_finish_predictions_with_source``, ``parse_json_or_python``, ``f1_score``,
# ``calculate_true_best_at_k`` and the ``--extract-text-answer-without-finish`` fallback
# ``extract_fallback_predictions_from_last_assistant``). The leaderboard's default scorer for
# ehr_bench and agent_ehr_bench (sql/10_leaderboard.sql). Every function below names the
# authors' function it ports. Python semantics on purpose (str.lower, json.loads,
# ast.literal_eval): DuckDB's lower() and orjson differ on some inputs.
#
# Where the authors' code would crash (it assumes well-formed records), this port decides:
# - messages missing, null or not a list: no messages (source no_prediction).
# - a message that is not an object, tool_calls that is not a list, a tool call that is not
#   an object, a ``function`` that is not an object, a function name that is not a string:
#   that message / call is skipped (it is not a finish call). A call without ``function``
#   has the name "" in the authors' code, so the flat {"name", "arguments"} shape is not a
#   finish call either.
# - the text fallback reads a content or reasoning_content that is not a string as "".
# Everything else is the authors' behaviour, including the surprising parts: a finish call
# without ``arguments`` is a finish_tool_call with the empty prediction; null or numeric
# arguments are a finish_parse_error; JSON that Python's json rejects for other reasons
# than syntax (4300+ digit integers, deep nesting) is a parse error without a literal_eval
# attempt; the record's status is never consulted.

AUTHORS_TEXT = "authors_text"
AUTHORS_TEXT_FALLBACK = "authors_text_fallback"

# prediction_source values (the authors' names)
FINISH_TOOL_CALL = "finish_tool_call"
FINISH_PARSE_ERROR = "finish_parse_error"
FINISH_NON_LIST = "finish_tool_call_non_list"
NO_PREDICTION = "no_prediction"


@dataclass(slots=True, frozen=True)
class AuthorsScore:
    """One run scored by the authors' rules: the prediction list as extracted (items of
    any type, as the authors keep them), where it came from, and the f1_score numbers."""

    predictions: list[Any]
    prediction_source: str
    precision: float
    recall: float
    f1: float
    exact_match: float
    n_pred: int
    n_gold: int


def parse_json_or_python(value: Any) -> Any:
    """score_text.parse_json_or_python: dict/list as is, else JSON text, else a Python
    literal (ast.literal_eval, never eval). Raises on anything else, as the authors' does."""
    if isinstance(value, dict | list):
        return value
    if not isinstance(value, str):
        raise TypeError(f"Unsupported arguments type: {type(value)}")
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return ast.literal_eval(value)


def _messages_list(messages: Any) -> list[Any]:
    return messages if isinstance(messages, list) else []


def _function_of(call: Any) -> dict[str, Any] | None:
    """The call's ``function`` object ({} when absent, as ``tc.get("function", {})``), or
    None when the call or its function is not an object (the authors' code would crash)."""
    if not isinstance(call, dict):
        return None
    function = call.get("function", {})
    return function if isinstance(function, dict) else None


def finish_prediction(messages: Any) -> tuple[list[Any], str | None]:
    """score_text.extract_finish_predictions_with_source without the text fallback:
    (predictions, source) from the LAST tool call (messages and their tool_calls walked in
    reverse, whatever the message role) whose function name contains "finish"
    (case-insensitive); ([], None) when there is no such call."""
    for msg in reversed(_messages_list(messages)):
        if not isinstance(msg, dict):
            continue
        calls = msg.get("tool_calls") or []
        if not isinstance(calls, list):
            continue
        for call in reversed(calls):
            function = _function_of(call)
            if function is None:
                continue
            name = function.get("name", "")
            if not isinstance(name, str) or "finish" not in name.lower():
                continue
            try:
                args = parse_json_or_python(function.get("arguments", {}))
            except Exception:  # noqa: BLE001 - the authors' scorer catches everything here
                return [], FINISH_PARSE_ERROR
            preds = args.get("response", []) if isinstance(args, dict) else args
            if isinstance(preds, list):
                return preds, FINISH_TOOL_CALL
            if isinstance(preds, str) and preds.strip():
                return [preds.strip()], FINISH_TOOL_CALL
            return [], FINISH_NON_LIST
    return [], None


def authors_gold(label: Any) -> set[str]:
    """The gold set of score_text.f1_score, before lower-casing: a string label is one
    item; a list gives its string items and, for objects, ``atc_name`` when ANY object of
    the list has a truthy one (objects without a string atc_name then add nothing), else
    ``name``; anything else is empty."""
    gold: set[str] = set()
    if isinstance(label, str):
        gold.add(label)
    elif isinstance(label, list):
        has_atc = any(isinstance(a, dict) and a.get("atc_name") for a in label)
        for ans in label:
            if isinstance(ans, str):
                gold.add(ans)
            elif isinstance(ans, dict):
                value = ans.get("atc_name") if has_atc else ans.get("name")
                if isinstance(value, str):
                    gold.add(value)
    return gold


def authors_f1(predictions: Iterable[Any], label: Any) -> tuple[float, float, float, float,
                                                                  int, int]:
    """score_text.f1_score: (precision, recall, f1, exact_match, n_pred, n_gold). Only
    string predictions count; items and gold are lower-cased, never stripped; an empty
    prediction scores 0 on everything (exact match too, even against an empty gold)."""
    pred_set = {p for p in predictions if isinstance(p, str)}
    gold = authors_gold(label)
    gl = {g.lower() for g in gold}
    if not pred_set:
        return 0.0, 0.0, 0.0, 0.0, 0, len(gl)
    pl = {p.lower() for p in pred_set}
    inter = pl & gl
    precision = len(inter) / len(pl)
    recall = len(inter) / len(gl) if gl else 0.0
    f1 = 2 * precision * recall / (precision + recall) if (precision + recall) > 0 else 0.0
    return precision, recall, f1, 1.0 if pl == gl else 0.0, len(pl), len(gl)


def authors_text_score(messages: Any, label: Any, *, allow_text: bool = False) -> AuthorsScore:
    """One run by the authors' rules (scorer authors_text; with allow_text, the
    --extract-text-answer-without-finish option, scorer authors_text_fallback)."""
    preds, source = finish_prediction(messages)
    if source is None:
        if allow_text:
            preds, source = fallback_prediction(_messages_list(messages))
        source = source or NO_PREDICTION
    precision, recall, f1, em, n_pred, n_gold = authors_f1(preds, label)
    return AuthorsScore(preds, source, precision, recall, f1, em, n_pred, n_gold)


def _columns(name: str, score: AuthorsScore, status: str) -> ScoreColumns:
    return {"route": name, "precision": score.precision, "recall": score.recall,
            "f1": score.f1, "exact_match": score.exact_match, "correct": score.exact_match,
            "n_pred": score.n_pred, "n_gold": score.n_gold, "status": status,
            "prediction_source": score.prediction_source,
            "predictions": json_text(score.predictions)}


def score_result(result: ResultInput) -> ScoreColumns:
    """authors_text of one result: read from the record itself, not from the normalized
    reading (the authors' rules for which call counts and how arguments parse are theirs)."""
    return _columns(AUTHORS_TEXT, authors_text_score(result.record.get("messages"),
                                                     result.label), result.status)


def score_result_fallback(result: ResultInput) -> ScoreColumns:
    """authors_text_fallback of one result: equal to authors_text whenever the run has a
    finish call."""
    return _columns(AUTHORS_TEXT_FALLBACK, authors_text_score(
        result.record.get("messages"), result.label, allow_text=True), result.status)


def true_best_at_k(values: Iterable[float], k: int) -> float:
    """score_text.calculate_true_best_at_k: the expected best of k runs drawn without
    replacement from a question's n run scores (k > n counts as n; no runs -> 0)."""
    vals = sorted(values)
    n = len(vals)
    if n == 0:
        return 0.0
    if k > n:
        k = n
    total = math.comb(n, k)
    return sum(math.comb(i - 1, k - 1) / total * vals[i - 1] for i in range(k, n + 1))


# --- the text fallback (--extract-text-answer-without-finish) ---------------------------

def _normalize_text(text: Any) -> str:
    """score_text.normalize_text."""
    return re.sub(r"\s+", " ", (text or "")).strip().lower()


def _text_or_empty(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dedupe_string_predictions(values: Iterable[Any]) -> list[str]:
    """score_text.dedupe_string_predictions."""
    deduped: list[str] = []
    seen: set[str] = set()
    for v in values:
        if not isinstance(v, str):
            continue
        cleaned = re.sub(r"\s+", " ", v).strip().strip('"').strip("'")
        if not cleaned:
            continue
        key = _normalize_text(cleaned)
        if key in seen:
            continue
        seen.add(key)
        deduped.append(cleaned)
    return deduped


_CANDIDATE_ROW_SCORED = re.compile(r"^\s*(\S+)\s+(\d{1,2})\s+(.+?)\s+(\d+(?:\.\d+)?)\s*$")
_CANDIDATE_ROW = re.compile(r"^\s*(\S+)\s+(\d{1,2})\s+(.+?)\s*$")


def _candidate_names_from_tool_output(text: str) -> list[str]:
    """score_text.extract_candidate_names_from_tool_output."""
    names: list[str] = []
    single_column_mode = False
    for raw_line in (text or "").splitlines():
        line = raw_line.rstrip("\n")
        stripped = line.strip()
        lower = stripped.lower()
        if not stripped:
            single_column_mode = False
            continue
        if stripped.startswith("--- Results for keyword "):
            single_column_mode = False
            continue
        if stripped.startswith("Error:") or stripped.startswith("No records found"):
            single_column_mode = False
            continue
        if lower == "candidate":
            single_column_mode = True
            continue
        if "icd_code" in lower and "candidate" in lower:
            single_column_mode = False
            continue
        if single_column_mode:
            if not any(t in lower for t in ("similarity_score", "columns:", "table:",
                                             "description:")):
                names.append(stripped)
            continue
        m = _CANDIDATE_ROW_SCORED.match(line)
        if m:
            names.append(m.group(3).strip())
            continue
        m = _CANDIDATE_ROW.match(line)
        if m:
            names.append(m.group(3).strip())
    return _dedupe_string_predictions(names)


def _official_candidate_names(messages: list[Any]) -> list[str]:
    """score_text.collect_official_candidate_names: candidates listed by get_candidates* /
    run_sql_query results whose arguments mention "_candidates"; tool results are paired
    with calls by order (a FIFO of the assistant calls), as the authors do."""
    pending: deque[Any] = deque()
    official: list[str] = []
    seen: set[str] = set()
    for msg in messages:
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        if role == "assistant":
            calls = msg.get("tool_calls") or []
            if isinstance(calls, list):
                pending.extend(calls)
            continue
        if role != "tool":
            continue
        tc = pending.popleft() if pending else None
        tool_name = _text_or_empty(msg.get("name", ""))
        tool_args: Any = ""
        if tc and isinstance(tc, dict):
            fn = tc.get("function", {})
            fn = fn if isinstance(fn, dict) else {}
            tool_name = tool_name or _text_or_empty(fn.get("name", ""))
            tool_args = fn.get("arguments", "")
        if not isinstance(tool_args, str):
            try:
                tool_args = json.dumps(tool_args, ensure_ascii=False)
            except (TypeError, ValueError):
                tool_args = ""
        if "_candidates" not in tool_args:
            continue
        if "get_candidates" not in tool_name and "run_sql_query" not in tool_name:
            continue
        for cand in _candidate_names_from_tool_output(_text_or_empty(msg.get("content", ""))):
            key = _normalize_text(cand)
            if not key or key in seen:
                continue
            seen.add(key)
            official.append(cand)
    return official


_ANSWER_TAG = re.compile(r"<answer>\s*(.*?)\s*</answer>", re.I | re.DOTALL)
_BRACKETED = re.compile(r"\[[\s\S]{1,2000}?\]", re.DOTALL)


def _explicit_string_list(text: str) -> list[str]:
    """score_text.extract_explicit_string_list_from_text."""
    snippets = [m.group(1).strip() for m in reversed(list(_ANSWER_TAG.finditer(text or "")))]
    for m in reversed(list(_BRACKETED.finditer(text or ""))):
        s = m.group(0)
        if '"' not in s and "'" not in s:
            continue
        snippets.append(s)
    for snippet in snippets:
        try:
            parsed = parse_json_or_python(snippet)
        except Exception:  # noqa: BLE001 - as the authors' code
            continue
        if isinstance(parsed, dict):
            for k in ("response", "answer", "answers", "predictions"):
                if isinstance(parsed.get(k), list):
                    parsed = parsed[k]
                    break
        if isinstance(parsed, list):
            cleaned = _dedupe_string_predictions(parsed)
            if cleaned:
                return cleaned
    return []


_BULLET_CUE = re.compile(
    r"(final answer|answer should|plausible diagnoses include|list of strings|list like)", re.I)
_BULLET = re.compile(r"^[-*]\s+(.+?)\s*$")


def _bullet_list(text: str) -> list[str]:
    """score_text.extract_bullet_list_from_text."""
    if not text:
        return []
    collecting, bullets, best = False, [], []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            if collecting and bullets:
                best = bullets
                break
            continue
        if _BULLET_CUE.search(stripped):
            collecting = True
            bullets = []
            continue
        m = _BULLET.match(stripped)
        if collecting and m:
            bullets.append(m.group(1).strip())
            continue
        if collecting and bullets:
            best = bullets
            break
    if not best and bullets:
        best = bullets
    return _dedupe_string_predictions(best)


def _align_to_official(predictions: list[str], official: list[str]) -> list[str]:
    """score_text.align_predictions_to_official_candidates."""
    if not predictions:
        return []
    by_key = {_normalize_text(c): c for c in official if _normalize_text(c)}
    aligned: list[str] = []
    seen: set[str] = set()
    for pred in predictions:
        pk = _normalize_text(pred)
        if not pk:
            continue
        canon = by_key.get(pk)
        if canon is None:
            for o in official:
                ok = _normalize_text(o)
                if not ok:
                    continue
                if ok in pk or pk in ok:
                    canon = o
                    break
        final = canon or pred
        fk = _normalize_text(final)
        if fk in seen:
            continue
        seen.add(fk)
        aligned.append(final)
    return aligned


def _official_mentions(text: str, official: list[str]) -> list[str]:
    """score_text.extract_official_candidate_mentions."""
    norm = _normalize_text(text)
    if not norm or not official:
        return []
    matches = []
    for c in official:
        ck = _normalize_text(c)
        if not ck:
            continue
        pos = norm.find(ck)
        if pos != -1:
            matches.append((pos, c))
    matches.sort(key=lambda x: x[0])
    return _dedupe_string_predictions([c for _, c in matches])


_ANSWER_CUES = ("ehr.finish", "final answer", "thus, the answer", "list of strings",
                "plausible diagnoses", "use ehr.finish")


def fallback_prediction(messages: list[Any]) -> tuple[list[str], str | None]:
    """score_text.extract_fallback_predictions_from_last_assistant: an answer read from the
    last assistant message's text (content, then reasoning_content), aligned to the
    official candidates the run's tools listed. (predictions, source) with source
    fallback_explicit_string_list / fallback_bullet_list /
    fallback_official_candidate_mentions, or ([], None)."""
    last = None
    for msg in reversed(messages):
        if isinstance(msg, dict) and msg.get("role") == "assistant":
            last = msg
            break
    if last is None:
        return [], None
    parts = (_text_or_empty(last.get("content")).strip(),
             _text_or_empty(last.get("reasoning_content")).strip())
    text = "\n".join(p for p in parts if p).strip()
    if not text:
        return [], None
    official = _official_candidate_names(messages)
    explicit = _explicit_string_list(text)
    if explicit:
        aligned = _align_to_official(explicit, official)
        return aligned or explicit, "fallback_explicit_string_list"
    bullets = _bullet_list(text)
    if bullets:
        aligned = _align_to_official(bullets, official)
        if aligned:
            return aligned, "fallback_bullet_list"
    if not any(cue in _normalize_text(text) for cue in _ANSWER_CUES):
        return [], None
    mentioned = _official_mentions(text, official)
    if mentioned:
        return mentioned, "fallback_official_candidate_mentions"
    return [], None
