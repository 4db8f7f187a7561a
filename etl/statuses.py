"""The status of a result: what the writers spell (ok, success, incomplete, error, in any
case, with spaces around), what it means (success | incomplete | error, the vocabulary of
results.status), and which statuses a board whose scorer reads the status scores 0
(status_rule failed_zero, etl/scoring/registry.py).

One home for the map: normalize reads a record's status through it, the readers of the
authors' score files read a score row's (question_scores.result_status), and every build
writes it into table result_statuses (schema/12_scorers.sql), which the views read instead
of naming statuses (etl/views.py write_rule_tables)."""

from __future__ import annotations

from typing import Any

SUCCESS = "success"
INCOMPLETE = "incomplete"
ERROR = "error"

# spelling as written (stripped, lower-cased) -> status
STATUS_MAP: dict[str, str] = {
    "ok": SUCCESS,
    "success": SUCCESS,
    "incomplete": INCOMPLETE,
    "error": ERROR,
}
# Statuses of a result that never reached a scored answer: a board whose scorer reads the
# status (failed_zero) scores them 0.
FAILED = frozenset({INCOMPLETE, ERROR})


def normalize_status(raw: Any, completed: bool | None = None, error: Any = None,
                     stop_reason: Any = None) -> str:
    """The status a record means. A spelling of STATUS_MAP (any case, spaces around) says it;
    any other or missing value is derived from the record: completed true -> success, else an
    error text or an exception stop_reason -> error, else incomplete."""
    if isinstance(raw, str):
        known = STATUS_MAP.get(raw.strip().lower())
        if known is not None:
            return known
    if completed is True:
        return SUCCESS
    if error or (isinstance(stop_reason, str) and stop_reason.startswith("exception")):
        return ERROR
    return INCOMPLETE


def status_rows() -> list[dict[str, Any]]:
    """Rows of table result_statuses (schema/12_scorers.sql)."""
    return [{"written": written, "status": status, "failed": status in FAILED}
            for written, status in STATUS_MAP.items()]
