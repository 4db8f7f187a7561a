"""Extract the authors' per-question score files into question_scores.

Kinds and layouts (from the authors' scorers in UCSC-VLAA/ClinSeekAgent):

- ``scored`` (clinseekagent/scoring/score_multimodal.py) and ``rescored``
  (openresearcher_ehr/rescore_mm_vocab.py, a copy of scored.jsonl whose set rows are
  re-scored after vocabulary mapping): one object per (qid, run_index) with route
  (incomplete | set_f1 | llm_judge), len_gold, gold_names, correct, precision, recall, f1,
  accuracy, subset_match, set rows also tp / n_pred / n_gold and ``*_raw`` variants, judge
  rows judge_subtype / judge_match. One question_scores row per object.
- ``per_question`` (clinseekagent/scoring/score_text.py): one object per qid with
  ``runs: [{predictions, prediction_source, f1, precision, recall, em, tool_calls, turns}]``
  and question-level avg_f1 / avg_precision / avg_recall / avg_em. One row per run entry
  (run_index = the entry's own run_index, else its 1-based position); the question-level
  averages are repeated on every run row of the question so nothing of the file is lost and
  a question's average stays one GROUP BY away. A question the scorer found no result for
  (``runs: []``) still gets one row, with run_index NULL, status 'no_runs' and NULL metrics,
  because the authors' scores.json counts it in ``total``.

Damaged lines become rejects (see etl/read.py); a record without a qid is rejected.
"""

from __future__ import annotations

from typing import Any

import orjson

from etl import normalize
from etl.extract import Emitter, FileInfo, register
from etl.read import JsonlReader, excerpt_of

TABLE = "question_scores"
PAPER_MM = "paper_mm"  # line_scores rows of scored / rescored lines (sql/82_paper.sql)

# Keys of a scored / rescored row that scored_row maps to columns; every other key
# (gold_names, prediction_strs, judge_reason, prediction_strs_mapped, mapping_similarity,
# ...) is kept in question_scores.extra, so nothing the authors' scorer wrote is dropped.
SCORED_KEYS_MAPPED: frozenset[str] = frozenset({
    "qid", "run_index", "task", "route", "status", "note", "judge_subtype", "judge_match",
    "correct", "precision", "recall", "f1", "accuracy", "subset_match", "precision_raw",
    "recall_raw", "f1_raw", "accuracy_raw", "subset_match_raw", "tp", "n_pred", "n_gold",
    "len_gold", "vocab_mapped"})
# per_question.jsonl: the question's keys per_question_rows maps, and each run's. A run's
# predictions are only counted (n_pred), so the list itself is a leftover.
PER_QUESTION_KEYS_MAPPED: frozenset[str] = frozenset({
    "qid", "task", "task_type", "avg_f1", "avg_precision", "avg_recall", "avg_em", "runs"})
PER_QUESTION_RUN_KEYS_MAPPED: frozenset[str] = frozenset({
    "run_index", "prediction_source", "precision", "recall", "f1", "em", "tool_calls",
    "turns"})


def _extra(obj: dict[str, Any], mapped: frozenset[str], prefix: str = "") -> dict[str, Any]:
    return {f"{prefix}{k}": v for k, v in obj.items() if k not in mapped}


def _extra_text(extra: dict[str, Any]) -> str | None:
    # normalize.json_text: the one JSON writer that also takes what orjson refuses (nesting
    # deeper than 255, integers beyond 64 bits), so a leftover never costs its record
    return normalize.json_text(extra) if extra else None


def int_or_none(value: Any) -> int | None:
    number = normalize.to_number(value)
    if number is None or isinstance(value, bool) or number != int(number):
        return None
    return int(number)


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def list_text(value: Any) -> str | None:
    """A list field as compact JSON text (kept as written); None for anything else."""
    return normalize.json_text(value) if isinstance(value, list) else None


def qid_of(obj: dict[str, Any]) -> str | None:
    """The record's qid as text; None when it has none usable (no id is invented)."""
    qid = obj.get("qid")
    if isinstance(qid, str) and qid.strip():
        return qid
    if isinstance(qid, int) and not isinstance(qid, bool):
        return str(qid)
    return None


def run_index_of(value: Any) -> tuple[int | None, str | None]:
    """(run_index, problem): the identity rule of result records (etl.normalize), so a
    score row and the result it scores agree on which run a value names."""
    return normalize.run_index_of({"run_index": value})


def scored_row(obj: dict[str, Any], scorer: str, qid: str, run_index: int) -> dict[str, Any]:
    gold_names = obj.get("gold_names")
    len_gold = int_or_none(obj.get("len_gold"))
    if len_gold is None and isinstance(gold_names, list):
        len_gold = len(gold_names)
    judge_match = obj.get("judge_match")
    return {
        "qid": qid,
        "run_index": run_index,
        "scorer": scorer,
        "task": text_or_none(obj.get("task")),
        "route": text_or_none(obj.get("route")),
        "status": text_or_none(obj.get("status")),
        "note": text_or_none(obj.get("note")),
        "judge_subtype": text_or_none(obj.get("judge_subtype")),
        "judge_match": judge_match if isinstance(judge_match, bool) else None,
        "correct": normalize.to_number(obj.get("correct")),
        "precision": normalize.to_number(obj.get("precision")),
        "recall": normalize.to_number(obj.get("recall")),
        "f1": normalize.to_number(obj.get("f1")),
        "accuracy": normalize.to_number(obj.get("accuracy")),
        "exact_match": normalize.to_number(obj.get("subset_match")),
        "precision_raw": normalize.to_number(obj.get("precision_raw")),
        "recall_raw": normalize.to_number(obj.get("recall_raw")),
        "f1_raw": normalize.to_number(obj.get("f1_raw")),
        "accuracy_raw": normalize.to_number(obj.get("accuracy_raw")),
        "exact_match_raw": normalize.to_number(obj.get("subset_match_raw")),
        "tp": int_or_none(obj.get("tp")),
        "n_pred": int_or_none(obj.get("n_pred")),
        "n_gold": int_or_none(obj.get("n_gold")),
        "len_gold": len_gold,
        "vocab_mapped": obj.get("vocab_mapped") if isinstance(obj.get("vocab_mapped"), bool)
        else None,
        "extra": _extra_text(_extra(obj, SCORED_KEYS_MAPPED)),
        "gold_names": list_text(gold_names),
        "prediction_strs": list_text(obj.get("prediction_strs")),
    }


def per_question_rows(obj: dict[str, Any], qid: str) -> tuple[list[dict[str, Any]], str | None]:
    """The run rows of one per_question record, or a problem that rejects the line."""
    runs = obj.get("runs", [])
    if runs is None:
        runs = []
    if not isinstance(runs, list):
        return [], "runs is not a list"
    question = {
        "qid": qid,
        "scorer": "per_question",
        "task": text_or_none(obj.get("task")),
        "task_type": text_or_none(obj.get("task_type")),
        "n_runs": len(runs),
        "avg_f1": normalize.to_number(obj.get("avg_f1")),
        "avg_precision": normalize.to_number(obj.get("avg_precision")),
        "avg_recall": normalize.to_number(obj.get("avg_recall")),
        "avg_em": normalize.to_number(obj.get("avg_em")),
    }
    question_extra = _extra(obj, PER_QUESTION_KEYS_MAPPED, "question.")
    if not runs:
        return [{**question, "run_index": None, "status": "no_runs",
                 "extra": _extra_text(question_extra)}], None
    rows = []
    for position, run in enumerate(runs, start=1):
        if not isinstance(run, dict):
            return [], f"runs[{position - 1}] is not an object"
        run_index, problem = run_index_of(run.get("run_index", position))
        if problem:
            return [], f"runs[{position - 1}]: {problem}"
        predictions = run.get("predictions")
        rows.append({
            **question,
            "run_index": run_index,
            "note": text_or_none(run.get("prediction_source")),
            "precision": normalize.to_number(run.get("precision")),
            "recall": normalize.to_number(run.get("recall")),
            "f1": normalize.to_number(run.get("f1")),
            "exact_match": normalize.to_number(run.get("em")),
            "n_pred": len(predictions) if isinstance(predictions, list) else None,
            "tool_calls": int_or_none(run.get("tool_calls")),
            "turns": int_or_none(run.get("turns")),
            "extra": _extra_text({**_extra(run, PER_QUESTION_RUN_KEYS_MAPPED),
                                  **question_extra}),
            "browser_calls": int_or_none(run.get("browser_calls")),
            "prediction_strs": list_text(predictions),
        })
    return rows, None


@register("scored", "rescored", "per_question")
def extract_scores(file: FileInfo, emit: Emitter) -> None:
    reader = JsonlReader(file.abs_path)
    rec_no = 0
    repaired_lines: set[int] = set()
    try:
        for line in reader:
            if line.severity == "error" or line.obj is None:
                emit.reject(line.line_no, "error", line.error or "not a JSON object",
                            line.excerpt)
                continue
            if line.severity == "repaired" and line.line_no not in repaired_lines:
                # Two objects on one line yield two Lines: the line is one reject.
                repaired_lines.add(line.line_no)
                emit.reject(line.line_no, "repaired", line.error or "repaired", line.excerpt)
            obj = line.obj
            rec_no += 1  # every decoded object is a record, loaded or rejected
            qid = qid_of(obj)
            if qid is None:
                emit.reject(line.line_no, "error", "record has no qid",
                            excerpt_of(_dump(obj)))
                continue
            try:
                problem = _emit_score_rows(obj, qid, file.kind, line.line_no, rec_no, emit)
            except Exception as exc:  # noqa: BLE001 - one record's bug never costs the rest
                problem = f"cannot be loaded: {type(exc).__name__}: {ascii(str(exc))[:300]}"
            if problem:
                emit.reject(line.line_no, "error", problem, excerpt_of(_dump(obj)))
    except OSError as exc:
        emit.reject(None, "error", f"cannot read file: {exc.strerror or exc}")
        return
    emit.file_stats(n_lines=reader.n_lines, sha256=reader.sha256)


def _emit_score_rows(obj: dict[str, Any], qid: str, kind: str, line_no: int, rec_no: int,
                     emit: Emitter) -> str | None:
    """Emit the rows of one record; return the problem that rejects it instead, if any.
    Rows are built whole before the first is emitted, so a record is all or nothing."""
    if kind == "per_question":
        rows, problem = per_question_rows(obj, qid)
    else:
        run_index, problem = run_index_of(obj.get("run_index"))
        rows = [] if problem else [scored_row(obj, kind, qid, run_index or 1)]
    if problem:
        return problem
    line = paper_mm_line(obj, kind, qid, line_no, rec_no) if kind != "per_question" else None
    for row in rows:
        row["line_no"] = line_no
        row["rec_no"] = rec_no
        emit.row(TABLE, row)
    if line is not None:
        emit.row("line_scores", line)
    return None


def paper_mm_line(obj: dict[str, Any], kind: str, qid: str, line_no: int, rec_no: int
                  ) -> dict[str, Any]:
    """The line as reorganize_results.py load_mm_bench_rows reads it (scorer paper_mm): the
    authors' f1 / precision / recall with a missing (or zero) value 0, gold_names and
    prediction_strs (else prediction_flat) each item str()-ed."""
    def number(key: str) -> float:
        return normalize.to_number(obj.get(key)) or 0.0

    def items(value: Any) -> list[str]:  # the authors iterate whatever is there
        return [str(x) for x in value] if isinstance(value, list | str) else []

    predictions = obj.get("prediction_strs") or obj.get("prediction_flat") or []
    return {"line_no": line_no, "rec_no": rec_no, "kind": kind, "qid": qid,
            "run_index": int_or_none(obj.get("run_index")), "task": text_or_none(obj.get("task")),
            "scorer": PAPER_MM, "f1": number("f1"), "precision": number("precision"),
            "recall": number("recall"),
            "gold": normalize.json_text(items(obj.get("gold_names") or [])),
            "predictions": normalize.json_text(items(predictions)),
            "raw_status": text_or_none(obj.get("status"))}


def _dump(obj: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(obj, default=str)
    except (TypeError, orjson.JSONEncodeError):  # e.g. an integer beyond 64 bits
        return ascii(obj).encode()
