"""Rules of the authors' text scorer that are not a score: its per-run tool statistics
(results.authors_tool_calls, authors_browser_calls, authors_turns) and the per-line tool
counts of analyze_tool_call_averages.py (line_tool_counts).

- Per-run tool statistics (``count_tool_calls``, ``count_turns``, ``normalize_tool_name`` of
  ``clinseekagent/scoring/score_text.py``, the same in every version): they give
  ``tool_calls_avg``, ``turns_avg`` and ``browser_tool_pct`` of scores.json. Every
  ``tool_calls`` entry of every assistant message counts; its name is ``function.name``
  (``unknown`` when missing: a flat ``{"name"}`` call is not a browser call), cut to its
  leading ``[A-Za-z0-9_.]`` run after stripping, with ``ehr_`` / ``browser_`` prefixes read
  as ``ehr.`` / ``browser.``; a browser call is one whose name then starts with ``browser.``.
  Turns are the assistant messages.

Where the authors' code would raise on a malformed record (a message or call that is not an
object, a null function), these functions treat the piece as absent instead.
"""

from __future__ import annotations

import functools
import re
from typing import Any

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


def record_messages(record: dict[str, Any]) -> list[dict[str, Any]]:
    messages = record.get("messages")
    if not isinstance(messages, list):
        return []
    return [m for m in messages if isinstance(m, dict)]


def run_stats(record: dict[str, Any]) -> tuple[int, int, int]:
    """(tool calls, browser calls, assistant turns) of one result record."""
    total = browser = turns = 0
    for message in record_messages(record):
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
    for message in record_messages(record):
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or []
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function", {}) if isinstance(call, dict) else None
            name = function.get("name", "unknown") if isinstance(function, dict) else "unknown"
            tool = normalize_tool_name(name)
            counts[tool] = counts.get(tool, 0) + 1
    return counts
