"""Extractor for the input files of multi-region runs: <region>/input.jsonl (the shard's
rows, run_multi_model_eval.py build_shards: a round-robin slice of the test set written
before the agent starts) and <region>/input_steal_NN.jsonl (the donor's tail a
work-stealing helper was given, try_steal_work). One shard_inputs row per line, so coverage
can tell a question that was assigned but never answered from one nobody was given."""

from __future__ import annotations

from typing import Any

from etl.extract import Emitter, FileInfo, register
from etl.extract.runmeta import REGION_RE
from etl.read import JsonlReader
from etl.values import to_text


def input_qid(row: dict[str, Any]) -> str | None:
    """The qid the agent gives the row: deploy_agent.py resolve_qid (qid, else query_id,
    else task_subject[_hadm]); None where resolve_qid would say "unknown"."""
    qid = row.get("qid") or row.get("query_id")
    if qid:
        return str(qid)
    task, subject, hadm = row.get("task"), row.get("subject_id"), row.get("hadm_id")
    if subject is not None and task:
        return f"{task}_{subject}_{hadm}" if hadm is not None else f"{task}_{subject}"
    return None


@register("input")
def extract_inputs(file: FileInfo, emit: Emitter) -> None:
    parts = file.path.split("/")
    region = parts[-2] if len(parts) > 1 and REGION_RE.match(parts[-2]) else None
    reader = JsonlReader(file.abs_path)
    try:
        for line in reader:
            if line.severity == "error" or line.obj is None:
                emit.reject(line.line_no, "error", line.error or "unreadable line", line.excerpt)
                continue
            if line.severity == "repaired" and line.obj_idx == 0:
                emit.reject(line.line_no, "repaired", line.error or "repaired", line.excerpt)
            qid = input_qid(line.obj)
            if qid is None:
                emit.reject(line.line_no, "error", "input row has no qid (nor query_id, "
                            "task and subject_id)", line.excerpt)
                continue
            emit.row("shard_inputs", {"region": region, "qid": qid, "line_no": line.line_no,
                                      "task": to_text(line.obj.get("task"))})
    except OSError as exc:
        emit.reject(None, "error", f"cannot read {file.path}: {exc}", None)
    emit.file_stats(n_lines=reader.n_lines, sha256=reader.sha256)
