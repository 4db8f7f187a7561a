"""How a value the writer wrote is read: the scalar converters (they never raise), a
record's identity (qid, run_index) and its gold label. One home for each of these rules:
normalize (results rows), the scorers (etl/scoring/), the authors' score files
(etl/extract/scores.py), the run metadata and the archive overrides all read them here.

Not a place for any rule that depends on a file kind: those stay with their extractor."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Collection
from typing import Any

import orjson

BIGINT_MAX = 2**63 - 1
# The largest run_index: question_scores.run_index and results.run_index are INTEGER.
RUN_INDEX_MAX = 2**31 - 1

# --- scalar converters (never raise) ---------------------------------------------------

def to_text(value: Any) -> str | None:
    """Text as is; numbers and booleans as their text; objects and arrays as JSON text."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json_text(value)


def json_text(value: Any) -> str | None:
    """Compact JSON text of a decoded value (None stays None)."""
    if value is None:
        return None
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        pass
    # orjson stops at integers beyond 64 bits and at nesting deeper than 255; the stdlib
    # encoder writes both (and its own limits end in a marker, never an exception).
    try:
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return "[value not representable as JSON]"


def to_int(value: Any) -> int | None:
    """An integer, an integral float, or a string of digits (an optional sign, blanks
    around); anything else, a bool or a value beyond BIGINT too, -> None. The one "int or
    None" rule of the warehouse."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -BIGINT_MAX <= value <= BIGINT_MAX else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) <= BIGINT_MAX else None
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] in "+-" else text
        if digits.isascii() and digits.isdigit():
            number = int(text)
            return number if -BIGINT_MAX <= number <= BIGINT_MAX else None
    return None


def to_number(value: Any) -> float | None:
    """A number as a float: bools become 1/0, numeric strings are parsed; anything else
    (null, text, lists, NaN / infinity) is no number."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    try:
        if isinstance(value, int | float):
            number = float(value)
        elif isinstance(value, str):
            number = float(value.strip())
        else:
            return None
    except (ValueError, OverflowError):  # OverflowError: an integer beyond a double
        return None
    return number if math.isfinite(number) else None


def to_bool(value: Any) -> bool | None:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
    return None


def to_timestamp(value: Any) -> dt.datetime | None:
    """'YYYY-MM-DD HH:MM:SS' (or any ISO form) -> naive datetime; unparsable -> None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        stamp = dt.datetime.fromisoformat(value.strip())
        if stamp.tzinfo is not None:  # the column is a plain TIMESTAMP: store UTC wall time
            stamp = stamp.astimezone(dt.UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):  # OverflowError: 9999-12-31T23:00-05:00 in UTC
        return None
    return stamp


# --- gold ---------------------------------------------------------------------------------

def gold_label(record: dict[str, Any]) -> tuple[Any, str | None]:
    """(gold as written, where it came from): the record's ``label``; a record without that
    key gives its ``ground_truth`` (the raw rows of eval_ehrbench_qa.py / eval_mm_qa.py keep
    the gold there, and analysis/ingest_external_results.py copies it to ``label`` only when
    ``label`` is absent); (None, None) when it has neither."""
    if "label" in record:
        return record["label"], "label"
    if "ground_truth" in record:
        return record["ground_truth"], "ground_truth"
    return None, None


# --- identity -------------------------------------------------------------------------

def qid_of(record: dict[str, Any]) -> str | None:
    """The qid as text, or None when missing, empty or neither a string nor an int."""
    qid = record.get("qid")
    if isinstance(qid, str):
        return qid if qid.strip() else None
    if isinstance(qid, int) and not isinstance(qid, bool):
        return str(qid)
    return None


def run_index_of(record: dict[str, Any], nonfinite: Collection[str] = ()
                 ) -> tuple[int | None, str | None]:
    """(run_index, None), or (None, reason) when the value is unusable. Missing -> 1.
    nonfinite: the paths of the record that held a bare NaN / Infinity (etl/read.py loads
    them as null): a run_index written so is no more a run than 1.5 is, never run 1."""
    if "run_index" in nonfinite:
        return None, NONFINITE_RUN_INDEX
    return run_index_value(record.get("run_index"))


NONFINITE_RUN_INDEX = "run_index NaN or Infinity is not a positive integer"
# The run entries of a per_question record: runs[0].run_index, ...
_RUN_ENTRY_INDEX = re.compile(r"runs\[\d+\]\.run_index")


def nonfinite_run_index(nonfinite: Collection[str]) -> str | None:
    """The reason a score record is rejected when its run_index, or that of an entry of its
    runs list, was written as a bare NaN / Infinity (loaded as null, see run_index_of)."""
    for path in nonfinite:
        if path == "run_index" or _RUN_ENTRY_INDEX.fullmatch(path):
            return f"{path}: {NONFINITE_RUN_INDEX}"
    return None


def run_index_value(raw: Any) -> tuple[int | None, str | None]:
    """run_index_of for a value already taken out of its record (the run entries of the
    authors' per_question.jsonl, a scored row), so a score row and the result it scores agree
    on which run a value names."""
    if raw is None:
        return 1, None
    number = to_int(raw)
    if number is None or number < 1 or number > RUN_INDEX_MAX:
        return None, f"run_index {json_text(raw)[:50]} is not a positive integer"
    return number, None
