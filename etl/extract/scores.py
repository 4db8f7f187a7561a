"""Extract the authors' per-question score files (kinds scored, rescored, per_question): each
line with a usable qid goes to the scorers the registry lists for its file kind
(etl/scoring/registry.py, their readers in etl/scoring/authors_files.py, the rows built by
etl/scoring/rows.py file_score_rows): question_scores rows, and for scored / rescored lines a
line_scores row (paper_mm).

Damaged lines become rejects (see etl/read.py); a record without a qid is rejected, and so is
a record whose rows cannot be built whole.
"""

from __future__ import annotations

from typing import Any

import orjson

from etl.extract import Emitter, FileInfo, register
from etl.read import JsonlReader, excerpt_of
from etl.scoring.registry import file_kinds_read
from etl.scoring.rows import file_score_rows
from etl.values import nonfinite_run_index, qid_of

TABLE = "question_scores"


@register(*file_kinds_read())
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
                problem = nonfinite_run_index(line.nonfinite) or _emit_score_rows(
                    obj, qid, file.kind, line.line_no, rec_no, emit)
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
    question_rows, line_rows, problem = file_score_rows(obj, qid, kind, line_no, rec_no)
    if problem:
        return problem
    for row in question_rows:
        emit.row(TABLE, row)
    for row in line_rows:
        emit.row("line_scores", row)
    return None


def _dump(obj: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(obj, default=str)
    except (TypeError, orjson.JSONEncodeError):  # e.g. an integer beyond 64 bits
        return ascii(obj).encode()
