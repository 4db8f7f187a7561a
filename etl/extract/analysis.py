"""Extractors for what the authors' analysis scripts write into or beside a results tree
(UCSC-VLAA/ClinSeekAgent openresearcher_ehr/analysis/ and helper/). None of it is a run:

- ``mm_classification``: analysis/mm_bench_classify/classification_*.jsonl, the multimodal
  task classifier's output that reorganize_results.py cuts the mm_bench table by
  (load_mm_classifier: ``classification`` else ``classification_fallback``, task ``other``
  when neither has one) -> mm_task_classification.
- ``hier_aggregate``: <root>/hierarchical/<paradigm>/<bench>/<model>/aggregate.json of
  reorganize_results.py: every node's count / f1 / precision / recall -> hierarchical_metrics,
  reconciled against the paper views (paper_hierarchy_reconciliation).
- ``repaired_results``: results.repaired.jsonl of helper/repair_diagnoses_ccs_results.py, one
  row per line with what its summary counts -> repaired_result_lines.
"""

from __future__ import annotations

from typing import Any

from etl.extract import Emitter, FileInfo, register
from etl.extract.summaries import read_document
from etl.models import canonical_model
from etl.read import JsonlReader
from etl.values import to_bool, to_number, to_text


def _jsonl(file: FileInfo, emit: Emitter, row_of: Any) -> None:
    """Stream a JSONL file: damaged lines are rejects, each object goes through row_of
    (table, row) or None (a problem string rejects the line)."""
    reader = JsonlReader(file.abs_path)
    try:
        for line in reader:
            if line.severity == "error" or line.obj is None:
                emit.reject(line.line_no, "error", line.error or "not a JSON object",
                            line.excerpt)
                continue
            if line.severity == "repaired" and line.obj_idx == 0:
                emit.reject(line.line_no, "repaired", line.error or "repaired", line.excerpt)
            try:
                table, row = row_of(line.obj)
            except Exception as exc:  # noqa: BLE001 - one record's bug never costs the rest
                emit.reject(line.line_no, "error", f"cannot be loaded: {type(exc).__name__}: "
                            f"{ascii(str(exc))[:300]}", line.excerpt)
                continue
            if table is None:
                emit.reject(line.line_no, "error", row, line.excerpt)
                continue
            emit.row(table, {**row, "line_no": line.line_no})
    except OSError as exc:
        emit.reject(None, "error", f"cannot read file: {exc.strerror or exc}")
        return
    emit.file_stats(n_lines=reader.n_lines, sha256=reader.sha256)


def classification_row(obj: dict[str, Any]) -> tuple[str | None, Any]:
    """reorganize_results.load_mm_classifier, one line."""
    qid = to_text(obj.get("qid"))
    if qid is None:
        return None, "record has no qid (the classifier file keys every row by qid)"
    cls = obj.get("classification") or obj.get("classification_fallback") or {}
    if not isinstance(cls, dict):
        cls = {}
    return "mm_task_classification", {
        "qid": qid,
        "coarse_task": to_text(obj.get("coarse_task")),
        "raw_task": to_text(cls.get("task")) or "other",
        "is_multimodal": bool(cls.get("is_multimodal")),
        "multimodal_kind": to_text(cls.get("multimodal_kind")) or "none",
    }


@register("mm_classification")
def extract_classification(file: FileInfo, emit: Emitter) -> None:
    def row_of(obj: dict[str, Any]) -> tuple[str | None, Any]:
        table, row = classification_row(obj)
        return (table, {**row, "path": file.path}) if table else (table, row)

    _jsonl(file, emit, row_of)


def repaired_row(obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """One line of results.repaired.jsonl: what summarize_records counts."""
    info = obj.get("repair_info")
    return "repaired_result_lines", {
        "qid": to_text(obj.get("qid")),
        "raw_status": to_text(obj.get("status")),
        "completed": to_bool(obj.get("completed")),
        "stop_reason": to_text(obj.get("stop_reason")),
        "repaired": bool(info.get("repaired")) if isinstance(info, dict) else False,
    }


@register("repaired_results")
def extract_repaired(file: FileInfo, emit: Emitter) -> None:
    _jsonl(file, emit, repaired_row)


# Keys of an aggregate.json node that are numbers, not child nodes (reorganize_results.py).
_NODE_NUMBERS = ("count", "f1", "precision", "recall", "f1_sum", "prec_sum", "rec_sum")


def hierarchy_rows(document: Any) -> list[dict[str, Any]]:
    """Every node of an aggregate.json: (layer path, metric, value)."""
    rows: list[dict[str, Any]] = []

    def walk(node: dict[str, Any], path: list[str]) -> None:
        for key, value in node.items():
            if key in _NODE_NUMBERS:
                number = to_number(value)
                if number is not None:
                    rows.append({"layer": len(path), "node_path": "/".join(path),
                                 "node": path[-1] if path else None, "metric": key,
                                 "value": number})
            elif isinstance(value, dict):
                walk(value, [*path, str(key)])

    if isinstance(document, dict):
        walk(document, [])
    return rows


@register("hier_aggregate")
def extract_hierarchy(file: FileInfo, emit: Emitter) -> None:
    # hierarchical/<paradigm>/<bench>/<model>/aggregate.json
    parts = file.path.split("/")
    if len(parts) != 5:
        emit.reject(None, "error", "an aggregate.json of reorganize_results.py sits at "
                    "hierarchical/<paradigm>/<bench>/<model>/aggregate.json; not loaded")
        return
    read = read_document(file, emit)
    if read is None:
        return
    document, sha256 = read
    for row in hierarchy_rows(document):
        emit.row("hierarchical_metrics", {**row, "path": file.path, "mode": parts[1],
                                          "benchmark": parts[2], "model_dir": parts[3],
                                          "model": canonical_model(parts[3])})
    emit.file_stats(sha256=sha256)
