"""The one builder of the failure rows of a result: call_failures (one row per tool call and
label) and result_checks (one row per result and label decided at parse time), from the
rows an extractor made of the record (etl/normalize.py RecordRows) and the question's
candidates. Called by etl/extract/results.py for every result record; any input whose
extractor fills RecordRows gets its calls labelled the same way."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson

from etl.failures import registry, texts
from etl.failures.rules import CallFacts, ResultFacts, arguments_key
from etl.normalize import RecordRows, parse_arguments
from etl.scoring.normalized import prediction_items


def candidate_items(candidates: Any) -> list[str] | None:
    """The question's candidates in the normalized reading (stripped, lower-cased; an
    object is its name), or None when the record has no list of them."""
    if not isinstance(candidates, list) or not candidates:
        return None
    if all(isinstance(c, str) for c in candidates):  # the usual list: read once per worker
        return _string_candidates(tuple(candidates))
    try:
        items = prediction_items(candidates)
    except (TypeError, ValueError, RecursionError):
        return None
    return items or None


@lru_cache(maxsize=4096)
def _string_candidates(candidates: tuple[str, ...]) -> list[str] | None:
    return prediction_items(list(candidates)) or None


class _Candidates:
    """The candidates, normalized only when a rule asks for them (most results never do:
    an error, or no answer)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def __call__(self) -> list[str] | None:
        return candidate_items(self.raw)


def _answer_items(rows: RecordRows) -> list[str] | None:
    text = rows.results.get("prediction_items")
    if text is None:
        return None
    try:
        items = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return [str(i) for i in items] if isinstance(items, list) else None


# (name, rule) of the registry's labels, in registry order, read once
_CALL_RULES = [(f.name, f.call_rule) for f in registry.call_failures() if f.call_rule]
_RESULT_RULES = [(f.name, f.result_rule) for f in registry.result_failures() if f.result_rule]


def failure_rows(rows: RecordRows, *, candidates: Any = None,
                 known_tools: frozenset[str] | None = None
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(call_failures rows, result_checks rows) of one result. `known_tools` is the
    benchmark's tool set (etl/failures/tools.py tools_of), None when it is not known."""
    key = {"qid": rows.results["qid"], "run_index": rows.results["run_index"],
           "rec_no": rows.results.get("rec_no")}
    text_of = {m["msg_idx"]: m.get("content") for m in rows.messages
               if m.get("role") == "tool"}
    call_rows: list[dict[str, Any]] = []
    compared: list[tuple[str | None, str]] = []
    finish_called = False
    verdict = texts.verdict
    for call in rows.tool_calls:
        tool = call.get("tool")
        raw = call.get("arguments")
        valid = bool(call.get("arguments_valid"))
        parsed = parse_arguments(raw)[1] if valid else None
        result_at = call.get("result_msg_idx")
        result = text_of.get(result_at) if result_at is not None else None
        facts = CallFacts(tool, parsed, valid, result, call.get("result_chars"),
                          bool(call.get("is_error")), verdict(result), known_tools)
        for name, rule in _CALL_RULES:
            detail = rule(facts)
            if detail is not None:
                call_rows.append({**key, "msg_idx": call["msg_idx"],
                                  "call_idx": call["call_idx"], "tool": tool,
                                  "failure": name, "detail": detail})
        if tool is not None and tool.endswith("finish"):
            finish_called = True
        if not call.get("is_synthetic"):
            compared.append((tool, arguments_key(parsed, raw)))
    facts_of_result = ResultFacts(
        status=rows.results.get("status"),
        has_answer=rows.results.get("prediction") is not None,
        finish_called=finish_called, answer_items=_answer_items(rows),
        candidates=_Candidates(candidates), calls=compared)
    result_rows = []
    for name, result_rule in _RESULT_RULES:
        outcome = result_rule(facts_of_result)
        if outcome is not None:
            detail, n_calls = outcome
            result_rows.append({**key, "failure": name, "detail": detail, "n_calls": n_calls})
    return call_rows, result_rows
