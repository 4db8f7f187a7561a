"""The rules of the failure labels decided when a file is parsed: one function per label,
per tool call (CallFacts) or per result (ResultFacts). Each returns the label's detail (the
kind of failure, in a word) when the call or result carries the label, else None; a result
rule also says how many calls show it. The registry (etl/failures/registry.py) lists them.

The facts are read from the rows every input fills (tool_calls: tool, arguments_valid,
is_error, result_chars; the answering tool message's text; results: status, prediction),
so a new input that fills those rows gets its calls judged the same way; the writer's
texts (etl/failures/texts.py) and tools (etl/failures/tools.py) add what they can tell.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from etl.failures import texts
from etl.failures.texts import Verdict
from etl.failures.tools import WRITER_RESULT_CAP, missing_arguments


@dataclass(slots=True)
class CallFacts:
    """What one tool call did, as the tool_calls row and its answering message say."""

    tool: str | None
    arguments: dict[str, Any] | None  # parsed; None when they do not parse to an object
    arguments_valid: bool
    result: str | None  # the answering tool message's text; None when none answers
    result_chars: int | None
    is_error: bool
    verdict: Verdict | None  # texts.verdict(result)
    known_tools: frozenset[str] | None  # the benchmark's tools; None when not known


@dataclass(slots=True)
class ResultFacts:
    """What one result says: its status, its answer and the question's candidates."""

    status: str | None
    has_answer: bool  # a finish call with a readable response (results.prediction)
    finish_called: bool  # some call whose tool ends in finish
    answer_items: list[str] | None  # results.prediction_items
    # the normalized candidate items, None when the question has none (asked lazily)
    candidates: Callable[[], list[str] | None]
    calls: list[tuple[str | None, str]] = field(default_factory=list)  # (tool, arguments key)


Outcome = tuple[str, int] | None  # (detail, calls showing it)


# ---- per call ----------------------------------------------------------------------------

def _from_text(call: CallFacts, failure: str) -> str | None:
    found = call.verdict
    return found.detail if found is not None and found.failure == failure else None


def invalid_arguments(call: CallFacts) -> str | None:
    """Arguments that do not parse to a JSON object, that lack an argument the tool
    requires, or that the tool refused."""
    if not call.arguments_valid:
        return "unparseable_arguments"
    if missing_arguments(call.tool, call.arguments):
        return "missing_argument"
    return _from_text(call, texts.INVALID_ARGUMENTS)


def unknown_tool(call: CallFacts) -> str | None:
    """A tool name the benchmark's tools do not have, or a result saying so."""
    if call.known_tools is not None and call.tool is not None \
            and call.tool not in call.known_tools:
        return "not_a_benchmark_tool"
    if call.known_tools is not None and call.tool is None:
        return "no_tool_name"
    return _from_text(call, texts.UNKNOWN_TOOL)


def tool_error(call: CallFacts) -> str | None:
    """The tool ran and returned an error (detail: which kind); a result an input marks as
    an error in a text no rule knows is a tool error of kind other."""
    found = _from_text(call, texts.TOOL_ERROR)
    if found is not None:
        return found
    known_error = call.verdict is not None and call.verdict.failure in texts.ERROR_FAILURES
    return "other" if call.is_error and not known_error else None


def empty_result(call: CallFacts) -> str | None:
    """The tool answered with nothing: no rows, no candidates, no search hits, no text (a
    call its input marks failed is an error, not an empty answer)."""
    return None if call.is_error else _from_text(call, texts.EMPTY_RESULT)


def truncated_result(call: CallFacts) -> str | None:
    """The result is exactly the writer's cap long: truncate_tool_result cut it (with an
    empty notice, so its length is the only trace)."""
    return "at_writer_cap" if call.result_chars == WRITER_RESULT_CAP else None


def infrastructure(call: CallFacts) -> str | None:
    """The service around the tool failed: a timeout, a connection, the MCP session or
    protocol, an HTTP status, the tools switched off."""
    return _from_text(call, texts.INFRASTRUCTURE)


# ---- per result --------------------------------------------------------------------------

def repeated_call(result: ResultFacts) -> Outcome:
    """The same tool with the same arguments again (parsed arguments compared as JSON
    objects, whatever their key order or spacing); detail: the tool repeated most."""
    seen = Counter(result.calls)
    repeats = {key: n - 1 for key, n in seen.items() if n > 1}
    if not repeats:
        return None
    tools = Counter()
    for (tool, _), n in repeats.items():
        tools[tool or "?"] += n
    top = sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return top, sum(repeats.values())


def no_final_answer(result: ResultFacts) -> Outcome:
    """A result that did not fail with an error but left no answer to read: no finish
    call, or a finish call whose arguments hold no readable response."""
    if result.status == "error" or result.has_answer:
        return None
    return ("unreadable_finish" if result.finish_called else "no_finish_call"), 0


def empty_answer(result: ResultFacts) -> Outcome:
    """A finish answer with no items (an empty list, an empty or blank string)."""
    if result.status == "error" or not result.has_answer or result.answer_items is None:
        return None
    return ("no_items", 0) if not result.answer_items else None


def answer_outside_candidates(result: ResultFacts) -> Outcome:
    """An answer item that is not one of the question's candidates (the EHR-Bench prompt:
    "Your answer must be chosen only from the candidate list"), items and candidates
    compared as the normalized reading compares them (stripped, lower-cased)."""
    if result.status == "error" or not result.answer_items:
        return None
    candidates = result.candidates()
    if not candidates:
        return None
    allowed = set(candidates)
    outside = [item for item in result.answer_items if item not in allowed]
    if not outside:
        return None
    return f"{len(outside)} of {len(result.answer_items)} items", 0


def arguments_key(arguments: dict[str, Any] | None, raw: str | None) -> str:
    """What two calls' arguments are compared by: the parsed object as canonical JSON (keys
    sorted), else the text as written."""
    if arguments is not None:
        try:
            return orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):
            pass
    return "\x00raw:" + (raw or "")
