"""Extract every number of the authors' summary JSON files into summary_metrics (long rows).

Layouts (UCSC-VLAA/ClinSeekAgent):
- ``summary`` (score_multimodal.py ``aggregate``): top-level numbers (total, incomplete,
  len1_*, len2plus_*, unified_*, vocab_threshold) and task maps per_task_len1 /
  per_task_len2plus / per_task_unified {task: {count, accuracy, ..., by_subtype: {..}}}.
- ``summary_vocab`` (rescore_mm_vocab.py): the same family with per_task_len2plus_vocab.
- ``scores_json`` (score_text.py): {overall: {...}, per_task: {task: {...}},
  per_task_type: {type: {...}}}. The text scorer writes that very payload as summary.json
  when run with --output-dir, so a ``summary`` file with that shape (an ``overall`` object
  and a ``per_task`` map, no len1/len2plus keys) is labelled scoring 'scores' too.
- ``scores_json`` of the older evaluate_results.py (``--output`` before per_task existed): a
  flat {task: {total, completed, runs, precision, recall, f1, tool_calls_avg,
  browser_tool_pct, prediction_sources}} map; its numbers get scope 'per_task' and the task
  from the top-level key. file_shape / writer_rule say which shape and scorer version wrote a
  text summary (output_dir, output, flat; see text_shape).
- ``multi_summary``: run-level summary of a multi-model raw run (row counts, not scores),
  walked the same generic way.

How a number's path becomes (scope, task, metric):
- a top-level number -> scope 'overall', task NULL, metric = its key;
- under the top-level ``overall`` object -> scope 'overall', metric = the rest of the path;
- under a top-level ``per_*`` object (a task map) -> scope = that key, task = the next key,
  metric = the rest of the path joined with '.' (by_subtype.yesno, prediction_sources.x);
  a number directly at the task level gets metric 'value';
- under any other top-level key -> scope = that key, task NULL, metric = the rest.
json_path always holds the full path ($.per_task_len1.ehrxqa_image.accuracy).
Values: numbers as written, bools as 1/0, numeric strings parsed; other strings, nulls and
non-finite numbers are not numbers and are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from etl.extract import Emitter, FileInfo, register
from etl.read import file_sha256, read_json_file
from etl.values import to_number

TABLE = "summary_metrics"

SCORING_OF_KIND = {
    "summary": "summary",
    "summary_vocab": "summary_vocab",
    "scores_json": "scores",
    "multi_summary": "multi_summary",
    "tool_json": "tool_json",
    "repair_summary": "repair_summary",
}
# helper/score_diagnoses_ccs_results.py writes a scores.json of its own shape next to
# results.jsonl: {sample_num, task_num, completed_task_num, score: {avg, max, best@k: {metric}},
# info: {...}, by_task: {task: {the same}}}.
CCS_SCORING, CCS_SHAPE, CCS_RULE = "ccs_scores", "ccs_helper", "score_diagnoses_ccs"


def is_ccs_scores(document: Any) -> bool:
    return (isinstance(document, dict) and "sample_num" in document
            and isinstance(document.get("score"), dict)
            and isinstance(document["score"].get("avg"), dict))

PathPart = str | int
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def walk_numbers(value: Any, path: tuple[PathPart, ...] = ()) -> Iterator[
        tuple[tuple[PathPart, ...], float]]:
    """Every (path, number) under value, depth first, in document order."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield from walk_numbers(child, (*path, str(key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from walk_numbers(child, (*path, index))
    else:
        number = to_number(value)
        if number is not None:
            yield path, number


def format_path(parts: tuple[PathPart, ...], root: str = "$") -> str:
    """JSONPath text: $.a.b[0]; keys that are not plain names are quoted: $["a b"]."""
    out = [root]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _PLAIN_KEY.match(part):
            out.append(f".{part}")
        else:
            out.append('["' + part.replace("\\", "\\\\").replace('"', '\\"') + '"]')
    return "".join(out)


def _rest(parts: tuple[PathPart, ...]) -> str:
    """The path below a section as a metric name: by_subtype.yesno, models[0].rows."""
    text = format_path(parts, root="")
    return text[1:] if text.startswith(".") else text


# The text scorer's number keys of one task block; a flat file is a map of such blocks.
_TASK_BLOCK_KEYS = frozenset({"total", "completed", "runs", "precision", "recall", "f1",
                              "tool_calls_avg", "browser_tool_pct", "prediction_sources"})


def is_flat_scores(document: Any) -> bool:
    """An older evaluate_results.py --output file: {task: {total, completed, runs, ...}}."""
    return (isinstance(document, dict) and bool(document)
            and not any(key == "overall" or key.startswith("per_") for key in document)
            and all(isinstance(block, dict) and {"total", "f1"} <= block.keys()
                    and block.keys() <= _TASK_BLOCK_KEYS | {"turns_avg"}
                    for block in document.values()))


def text_shape(scoring: str, document: Any, path: str) -> tuple[str | None, str | None]:
    """(file_shape, writer_rule) of a text-scorer summary (see schema/10_scores.sql):
    flat files were written by the legacy evaluate_results.py, the others by score_text.py
    (summary.json of --output-dir, any other name is an --output file)."""
    if scoring == CCS_SCORING:
        return CCS_SHAPE, CCS_RULE
    if scoring != "scores":
        return None, None
    if is_flat_scores(document):
        return "flat", "evaluate_results_legacy"
    shape = "output_dir" if path.rsplit("/", 1)[-1] == "summary.json" else "output"
    return shape, "score_text_current"


def classify(parts: tuple[PathPart, ...], flat: bool = False) -> tuple[str, str | None, str]:
    """(scope, task, metric) of a number at this path (rules in the module docstring); in a
    flat scores file the top-level keys are tasks (scope per_task)."""
    if flat and len(parts) >= 2:
        return "per_task", str(parts[0]), _rest(parts[1:])
    if len(parts) <= 1:
        return "overall", None, _rest(parts) or "value"
    top = str(parts[0])
    if top == "overall":
        return "overall", None, _rest(parts[1:])
    if top.startswith("per_") and isinstance(parts[1], str):
        return top, parts[1], _rest(parts[2:]) or "value"
    return top, None, _rest(parts[1:])


def scoring_of(kind: str, document: Any) -> str:
    scoring = SCORING_OF_KIND.get(kind, kind)
    if scoring in ("summary", "scores") and is_ccs_scores(document):
        return CCS_SCORING
    if scoring in ("summary", "scores") and is_flat_scores(document):
        return "scores"
    if (scoring == "summary" and isinstance(document, dict)
            and isinstance(document.get("overall"), dict)
            and isinstance(document.get("per_task"), dict)
            and "len1_count" not in document and "unified_count" not in document):
        return "scores"
    return scoring


def classify_ccs(parts: tuple[PathPart, ...]) -> tuple[str, str | None, str]:
    """(scope, task, metric) in a score_diagnoses_ccs_results.py scores.json: by_task.<task>
    numbers have scope by_task, the rest overall; the metric is the rest of the path
    (score.avg.f1_score, score.best@2.recall, info.incomplete_run_count, sample_num)."""
    if parts[0] == "by_task" and len(parts) >= 3:
        return "by_task", str(parts[1]), _rest(parts[2:])
    return "overall", None, _rest(parts)


def tool_json_numbers(document: Any) -> Iterator[tuple[str, str | None, str, float, str]]:
    """(scope, task, metric, value, json_path) of a tool.json of
    helper/analyze_tool_call_averages.py: summary numbers (scope summary), and each record of
    by_category / by_exact_tool as <name>.<key> (scope by_category / by_exact_tool), for the
    whole file (task NULL) and for each task of by_task."""
    def sections(block: Any, task: str | None, base: tuple[PathPart, ...]):
        if not isinstance(block, dict):
            return
        for key, number in (block.get("summary") or {}).items():
            value = to_number(number)
            if value is not None:
                yield ("summary", task, key, value,
                       format_path((*base, "summary", key)))
        for scope in ("by_category", "by_exact_tool"):
            records = block.get(scope)
            for index, record in enumerate(records if isinstance(records, list) else []):
                if not isinstance(record, dict):
                    continue
                name = str(record.get("name"))
                for key, number in record.items():
                    value = to_number(number) if key != "name" else None
                    if value is not None:
                        yield (scope, task, f"{name}.{key}", value,
                               format_path((*base, scope, index, key)))

    yield from sections(document, None, ())
    by_task = document.get("by_task") if isinstance(document, dict) else None
    for task, block in (by_task.items() if isinstance(by_task, dict) else []):
        yield from sections(block, str(task), ("by_task", str(task)))


def tool_json_filter(document: Any) -> str:
    """The status filter a tool.json was made with: success_only (the script's default: only
    records with status success) or all_statuses (--all-statuses)."""
    summary = document.get("summary") if isinstance(document, dict) else None
    value = summary.get("status_filter") if isinstance(summary, dict) else None
    return value if value in ("success_only", "all_statuses") else "success_only"


def read_document(file: FileInfo, emit: Emitter) -> tuple[Any, str] | None:
    """(JSON document, sha256) of a one-document file; None, with its reject emitted, when
    it cannot be read (a repaired document is returned and named in a repaired reject)."""
    try:
        document, severity, message = read_json_file(file.abs_path)
        sha256 = file_sha256(file.abs_path)
    except OSError as exc:
        emit.reject(None, "error", f"cannot read file: {exc.strerror or exc}")
        return None
    if severity == "error":
        emit.reject(None, "error", f"not a readable JSON document: {message}")
        emit.file_stats(sha256=sha256)
        return None
    if severity == "repaired":
        emit.reject(None, "repaired", message or "repaired")
    return document, sha256


@register("summary", "summary_vocab", "scores_json", "multi_summary", "tool_json",
          "repair_summary")
def extract_summary(file: FileInfo, emit: Emitter) -> None:
    read = read_document(file, emit)
    if read is None:
        return
    document, sha256 = read
    scoring = scoring_of(file.kind, document)
    if scoring == "tool_json":
        rule = f"analyze_tool_call_averages:{tool_json_filter(document)}"
        for scope, task, metric, number, path in tool_json_numbers(document):
            emit.row(TABLE, {"scoring": scoring, "writer_rule": rule, "scope": scope,
                             "task": task, "metric": metric, "value": number,
                             "json_path": path})
        emit.file_stats(sha256=sha256)
        return
    shape, rule = text_shape(scoring, document, file.path)
    for parts, number in walk_numbers(document):
        scope, task, metric = (classify_ccs(parts) if scoring == CCS_SCORING
                               else classify(parts, shape == "flat"))
        emit.row(TABLE, {
            "file_shape": shape,
            "writer_rule": rule,
            "scoring": scoring,
            "scope": scope,
            "task": task,
            "metric": metric,
            "value": number,
            "json_path": format_path(parts),
        })
    emit.file_stats(sha256=sha256)
