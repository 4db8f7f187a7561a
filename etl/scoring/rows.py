"""The one place question_scores and line_scores rows are built: each builder asks the
registry (etl/scoring/registry.py) which scorers apply, calls their rules and adds the
identity columns. A scorer's bug costs its own row, named in the record's problems (a
`repaired` reject), never the record or another scorer's row.

- result_score_rows: every per-result scorer of the result's benchmark kind, called by
  etl/normalize.py normalize_record for each result record;
- line_score_rows: every line rule, for each line of a run's top-level results.jsonl
  (etl/extract/results.py);
- file_score_rows: the scorers reading the authors' score files of one kind, for each line
  of such a file (etl/extract/scores.py).
"""

from __future__ import annotations

from typing import Any

from etl.benchmarks import MULTIMODAL, TEXT
from etl.scoring.base import ResultInput, ScoreColumns
from etl.scoring.registry import (
    LINE_SCORED_KIND,
    Scorer,
    line_scorers,
    result_scorers,
    scorers_of_kind,
)
from etl.values import RUN_INDEX_MAX, json_text, to_bool, to_int, to_text


def _failure(scorer: Scorer, exc: Exception) -> str:
    return (f"the {scorer.name} scorer cannot read it ({type(exc).__name__}: "
            f"{ascii(str(exc))[:200]}); its score is missing")


# The rules of each row source, in registry order (the order of the rows).
_RESULT_RULES = {kind: tuple((s, s.score_result) for s in result_scorers(kind))
                 for kind in (TEXT, MULTIMODAL)}
_LINE_RULES = tuple((s, s.score_line) for s in line_scorers())


def result_score_rows(result: ResultInput, key: dict[str, Any], task: str | None,
                      line_no: int, multimodal: bool, problems: list[str]
                      ) -> list[dict[str, Any]]:
    """The question_scores rows of one result record: one per per-result scorer of its
    benchmark kind. ``key`` is the result's (qid, run_index, rec_no)."""
    rows = []
    for scorer, rule in _RESULT_RULES[MULTIMODAL if multimodal else TEXT]:
        try:
            columns = rule(result)
        except Exception as exc:  # noqa: BLE001 - a scorer's bug costs its row, not the record
            problems.append(_failure(scorer, exc))
            continue
        rows.append({**key, "task": task, "line_no": line_no, **columns,
                     "scorer": scorer.name})
    return rows


def _line_run_index(record: dict[str, Any]) -> int | None:
    """run_index as the line wrote it, kept when the INTEGER column can hold it (0 and
    negatives too: the line rules count every line). One beyond that range is NULL here
    without a reject of its own: the same value makes the record an error reject
    (etl/values.py run_index_value), which names it."""
    number = to_int(record.get("run_index"))
    if number is None or not -RUN_INDEX_MAX - 1 <= number <= RUN_INDEX_MAX:
        return None
    return number


def line_score_rows(record: dict[str, Any], line_no: int, rec_no: int
                    ) -> tuple[list[dict[str, Any]], list[str]]:
    """(line_scores rows, problems) of one line of a run's results.jsonl: every line rule,
    whatever becomes of the record itself (the scripts those rules port count every line, a
    superseded attempt or a record without a qid too)."""
    base = {"line_no": line_no, "rec_no": rec_no, "kind": LINE_SCORED_KIND,
            "qid": to_text(record.get("qid")), "run_index": _line_run_index(record),
            "task": to_text(record.get("task")), "task_type": to_text(record.get("task_type")),
            "raw_status": to_text(record.get("status")),
            "completed": to_bool(record.get("completed")),
            "stop_reason": to_text(record.get("stop_reason"))}
    rows, problems = [], []
    for scorer, rule in _LINE_RULES:
        try:
            score = rule(record)
        except Exception as exc:  # noqa: BLE001 - a rule's bug costs its row, not the line
            problems.append(f"the {scorer.name} rule cannot read it ({type(exc).__name__}:"
                            f" {ascii(str(exc))[:200]}); its line score is missing")
            continue
        rows.append({**base, "scorer": scorer.name, "f1": score.f1,
                     "precision": score.precision, "recall": score.recall,
                     "exact_match": score.exact_match, "gold": json_text(score.gold),
                     "predictions": json_text(score.predictions)})
    return rows, problems


def file_score_rows(obj: dict[str, Any], qid: str, kind: str, line_no: int, rec_no: int
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    """(question_scores rows, line_scores rows, problem) of one line of an authors' score
    file of this kind; with a problem the line is rejected whole and there are no rows."""
    question_rows: list[ScoreColumns] = []
    line_rows: list[ScoreColumns] = []
    scorers = scorers_of_kind(kind)
    for scorer in scorers:
        if scorer.read_rows is not None:
            rows, problem = scorer.read_rows(obj, qid, scorer.name)
            if problem:
                return [], [], problem
            question_rows += [{**row, "scorer": scorer.name, "line_no": line_no,
                               "rec_no": rec_no} for row in rows]
    for scorer in scorers:
        if scorer.read_line is not None:
            line_rows.append({**scorer.read_line(obj), "line_no": line_no, "rec_no": rec_no,
                              "kind": kind, "qid": qid, "scorer": scorer.name})
    return question_rows, line_rows, None
