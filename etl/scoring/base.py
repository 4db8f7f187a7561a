"""What a scorer is handed and what it returns, by how its rows are made (etl/scoring/registry.py
says which of these each scorer has). A scorer module imports this module and etl.values only,
never the registry or the extractors, so any module of the package can be registered.

- per result, at parse time: ``(ResultInput) -> ScoreColumns``, one question_scores row of a
  result record (etl/normalize.py calls etl/scoring/rows.py result_score_rows);
- per line of a run's top-level results.jsonl: ``(record) -> LineScore``, one line_scores row
  (etl/extract/results.py calls rows.line_score_rows);
- read from the authors' score files: ``(object, qid, scorer) -> (rows, problem)``, the
  question_scores rows of one line, or the problem that rejects it; and
  ``(object) -> ScoreColumns``, its line_scores row (etl/extract/scores.py calls
  rows.file_score_rows).

The row builders of rows.py add the identity columns (qid, run_index, rec_no, line_no, task,
scorer); a scorer returns the columns of its own rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# A question_scores / line_scores row without its identity columns.
ScoreColumns = dict[str, Any]


@dataclass(slots=True, frozen=True)
class ResultInput:
    """One result record as every per-result scorer sees it: the record as written, its gold
    as written (etl.values.gold_label), its normalized status, and the normalized reading of
    gold and prediction (the set_f1 items; None where they cannot be read)."""

    record: dict[str, Any]
    label: Any
    status: str
    gold_items: list[str] | None
    prediction_items: list[str] | None


@dataclass(slots=True, frozen=True)
class LineScore:
    """One record line scored by one rule: the gold and prediction as the rule reads them
    and its numbers (fractions in [0, 1])."""

    gold: list[Any]
    predictions: list[Any]
    f1: float
    precision: float
    recall: float
    exact_match: float | None


ResultRule = Callable[[ResultInput], ScoreColumns]
LineRule = Callable[[dict[str, Any]], LineScore]
FileRowsRule = Callable[[dict[str, Any], str, str], tuple[list[ScoreColumns], str | None]]
FileLineRule = Callable[[dict[str, Any]], ScoreColumns]
