"""Extractor for per-question result files (every copy kind: merged, top-level, region
shard, steal file, steal copy). Streams the file; each decoded record goes through
etl.normalize. Which copy of a duplicated result wins is decided later, in load."""

from __future__ import annotations

import orjson

from etl.benchmarks import MULTIMODAL, benchmark_kind
from etl.extract import Emitter, FileInfo, register
from etl.failures.rows import failure_rows
from etl.failures.tools import tools_of
from etl.normalize import normalize_record, record_usage
from etl.read import EXCERPT_CHARS, JsonlReader, Line, excerpt_of
from etl.scoring.registry import LINE_SCORED_KIND
from etl.scoring.rows import line_score_rows
from etl.scoring.text_runs import tool_name_counts
from etl.values import qid_of, run_index_of

CHILD_TABLES = ("messages", "tool_calls", "images", "question_scores")
FAILURE_TABLES = ("call_failures", "result_checks")  # etl/failures/rows.py


@register("results_merged", "results_top", "results_shard", "results_steal",
          "results_steal_copy")
def extract_results(file: FileInfo, emit: Emitter) -> None:
    keep_images = file.parse.keep_images
    # Keys already loaded from a preferred file of the same run (etl/pipeline/copies.py): a copy
    # of one of them can never win, so only its identity is staged (it still counts as a
    # copy), not its trajectory.
    skip_keys = file.parse.skip_keys
    reader = JsonlReader.for_file(file)  # the whole file, or its new lines (segments.py)
    rec_no = reader.rec_base
    try:
        for line in reader:
            if line.severity == "error":
                emit.reject(line.line_no, "error", line.error or "unreadable line", line.excerpt)
                continue
            if line.severity == "repaired" and line.obj_idx == 0:
                # One reject per repaired line, however many objects it held.
                emit.reject(line.line_no, "repaired", line.error or "repaired", line.excerpt)
            rec_no += 1
            record = line.obj
            if record is None:  # defensive: the reader gives an object unless severity error
                continue
            try:
                if file.kind == LINE_SCORED_KIND:
                    _emit_line_rows(record, line, rec_no, emit)
                _emit_record(record, line, rec_no, skip_keys, keep_images, file.benchmark, emit)
            except Exception as exc:  # noqa: BLE001 - one record's bug never costs the rest
                emit.reject(line.line_no, "error",
                            f"record {rec_no}: cannot be loaded: {type(exc).__name__}: "
                            f"{ascii(str(exc))[:300]}", _record_excerpt(line.excerpt, record))
    except OSError as exc:
        emit.reject(None, "error", f"cannot read {file.path}: {exc}", None)
    emit.file_stats(n_lines=reader.n_lines, sha256=reader.sha256)


def _emit_record(record: dict[str, object], line: Line, rec_no: int,
                 skip_keys: frozenset, keep_images: bool, benchmark: str | None,
                 emit: Emitter) -> None:
    if skip_keys:
        qid, (run_index, _) = qid_of(record), run_index_of(record, line.nonfinite)
        if (qid, run_index) in skip_keys:
            emit.row("results", {"qid": qid, "run_index": run_index,
                                 "line_no": line.line_no, "rec_no": rec_no})
            return
    rows, why = normalize_record(record, line_no=line.line_no, rec_no=rec_no,
                                 keep_images=keep_images,
                                 multimodal=benchmark_kind(benchmark) == MULTIMODAL,
                                 nonfinite=line.nonfinite)
    if rows is None:
        emit.reject(line.line_no, "error", f"record {rec_no}: {why}",
                    _record_excerpt(line.excerpt, record))
        return
    if rows.problems:
        # Loaded with what could be read; a value that did not fit its column, or a shape
        # that could not be read, is kept (original text, the extra columns) and named here.
        emit.reject(line.line_no, "repaired",
                    f"record {rec_no} (qid {rows.results['qid']}): "
                    + "; ".join(rows.problems)[:1000],
                    line.excerpt or _record_excerpt(None, record))
    if line.nonfinite:  # writer-valid bare NaN / Infinity, loaded as NULL (etl/read.py)
        rows.results["nonfinite_keys"] = orjson.dumps(list(line.nonfinite)).decode()
    emit.row("results", rows.results)
    for table in CHILD_TABLES:
        for row in getattr(rows, table):
            emit.row(table, row)
    usage = record_usage(record)
    if usage is not None:  # tokens, where the record counts them (token_usage, scope sample)
        emit.row("token_usage", {"qid": rows.results["qid"],
                                 "run_index": rows.results["run_index"], "rec_no": rec_no,
                                 "scope": "sample", "model": rows.results["backend_model_id"],
                                 **usage})
    labelled = failure_rows(rows, candidates=record.get("candidates"),
                            known_tools=tools_of(benchmark_kind(benchmark)))
    for table, table_rows in zip(FAILURE_TABLES, labelled, strict=True):
        for row in table_rows:
            emit.row(table, row)


def _emit_line_rows(record: dict[str, object], line: Line, rec_no: int, emit: Emitter) -> None:
    """line_scores rows (every line rule of the registry, etl/scoring/rows.py) and
    line_tool_counts rows of one line of a run's results.jsonl."""
    rows, problems = line_score_rows(record, line.line_no, rec_no)
    for problem in problems:
        emit.reject(line.line_no, "repaired", f"record {rec_no}: {problem}", line.excerpt)
    for row in rows:
        emit.row("line_scores", row)
    for tool, n_calls in tool_name_counts(record).items():
        emit.row("line_tool_counts", {"rec_no": rec_no, "tool": tool, "n_calls": n_calls})


def _record_excerpt(line_excerpt: str | None, record: dict[str, object]) -> str:
    if line_excerpt:
        return line_excerpt
    # Clean lines carry no excerpt; rebuild a short one from the record's first keys only,
    # so a multi-MB record is not serialized whole.
    head = {k: record[k] for k in list(record)[:8] if not isinstance(record[k], list | dict)}
    try:
        text = orjson.dumps(head)
    except (TypeError, orjson.JSONEncodeError):  # e.g. an integer beyond 64 bits
        text = ascii(head).encode()
    return excerpt_of(text)[:EXCERPT_CHARS]
