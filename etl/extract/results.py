"""Extractor for per-question result files (every copy kind: merged, top-level, region
shard, steal file, steal copy). Streams the file; each decoded record goes through
etl.normalize. Which copy of a duplicated result wins is decided later, in load."""

from __future__ import annotations

import orjson

from etl import scoring_mm, scoring_paper, scoring_text_runs
from etl.extract import Emitter, FileInfo, register
from etl.normalize import (
    json_text,
    normalize_record,
    qid_of,
    run_index_of,
    to_bool,
    to_int,
    to_text,
)
from etl.read import EXCERPT_CHARS, JsonlReader, Line, excerpt_of

CHILD_TABLES = ("messages", "tool_calls", "images", "question_scores")


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
        qid, (run_index, _) = qid_of(record), run_index_of(record)
        if (qid, run_index) in skip_keys:
            emit.row("results", {"qid": qid, "run_index": run_index,
                                 "line_no": line.line_no, "rec_no": rec_no})
            return
    rows, why = normalize_record(record, line_no=line.line_no, rec_no=rec_no,
                                 keep_images=keep_images, multimodal=benchmark == "mm_bench")
    if rows is None:
        emit.reject(line.line_no, "error", f"record {rec_no}: {why}",
                    _record_excerpt(line.excerpt, record))
        return
    try:
        authors_rules(record, rows.results, benchmark, rows.question_scores)
    except Exception as exc:  # noqa: BLE001 - a scorer's bug costs its score rows, not the record
        rows.problems.append(f"the authors' rules cannot read it ({type(exc).__name__}: "
                             f"{ascii(str(exc))[:200]}); their scores are missing")
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


# The file the paper's chain and the authors' helper scripts read line by line: a run
# directory's results.jsonl (reorganize_results.py, compute_ci_from_per_sample_scores.py,
# score_diagnoses_ccs_results.py, analyze_tool_call_averages.py).
LINE_SCORED_KIND = "results_top"


def _emit_line_rows(record: dict[str, object], line: Line, rec_no: int, emit: Emitter) -> None:
    """line_scores rows (every rule of etl/scoring_paper.py) and line_tool_counts rows of
    one line, whatever becomes of the record itself: those scripts count every line, a
    superseded attempt or a record without a qid too."""
    base = {"line_no": line.line_no, "rec_no": rec_no, "kind": LINE_SCORED_KIND,
            "qid": to_text(record.get("qid")), "run_index": to_int(record.get("run_index")),
            "task": to_text(record.get("task")), "task_type": to_text(record.get("task_type")),
            "raw_status": to_text(record.get("status")),
            "completed": to_bool(record.get("completed")),
            "stop_reason": to_text(record.get("stop_reason"))}
    rows = []
    for name, rule in scoring_paper.LINE_SCORERS.items():
        try:
            score = rule(record)
        except Exception as exc:  # noqa: BLE001 - a rule's bug costs its row, not the line
            emit.reject(line.line_no, "repaired",
                        f"record {rec_no}: the {name} rule cannot read it ({type(exc).__name__}:"
                        f" {ascii(str(exc))[:200]}); its line score is missing", line.excerpt)
            continue
        rows.append({**base, "scorer": name, "f1": score.f1, "precision": score.precision,
                     "recall": score.recall, "exact_match": score.exact_match,
                     "gold": json_text(score.gold), "predictions": json_text(score.predictions)})
    for row in rows:
        emit.row("line_scores", row)
    for tool, n_calls in scoring_text_runs.tool_name_counts(record).items():
        emit.row("line_tool_counts", {"rec_no": rec_no, "tool": tool, "n_calls": n_calls})


def authors_rules(record: dict[str, object], result: dict[str, object],
                  benchmark: str | None, scores: list[dict[str, object]]) -> None:
    """The authors' rules beside the project's own: score_text.py's per-run tool
    statistics on every result; for mm_bench the multimodal scorer's prediction, gold and
    score (authors_mm_set rows), for the text benchmarks the legacy scorer's score."""
    result["authors_tool_calls"], result["authors_browser_calls"], result["authors_turns"] = (
        scoring_text_runs.run_stats(record))
    key = {"qid": result["qid"], "run_index": result["run_index"], "rec_no": result["rec_no"],
           "task": result.get("task"), "line_no": result["line_no"]}
    if benchmark == "mm_bench":
        # The multimodal scorer's prediction lives in this row's prediction_strs / gold_names;
        # results.prediction keeps the project's rule, which archive_diff compares (under the
        # mm rule an old run's ehr_finish calls are no finish calls at all).
        row = scoring_mm.score_record(record)
    else:
        row = scoring_text_runs.legacy_score(record)
        for name in scoring_paper.BOARD_SCORERS:
            paper = scoring_paper.LINE_SCORERS[name](record)
            scores.append({**key, "scorer": name, "route": name, "precision": paper.precision,
                           "recall": paper.recall, "f1": paper.f1,
                           "exact_match": paper.exact_match, "correct": paper.exact_match,
                           "status": result.get("status"),
                           "predictions": json_text(paper.predictions),
                           "gold_names": json_text(paper.gold)})
    scores.append({**key, **row})


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
