"""Writing files into the tree while recording, for the truth file, what each one holds.

A `Dir` pairs a physical directory with its logical path (through symlinks, relative to
the root). `JsonlFile` writes one line at a time (big trees never sit in memory) and records
line numbers, loadable objects and planted damage."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from etl.synth.failures import RUN_ERRORS
from etl.synth.records import extra_keys, planted_key, prediction_of, tool_shapes
from etl.synth.scoring import text_f1, text_predictions

# the planted labels that make a tool message an error (tool_calls.is_error): the tool
# refused, failed or was not reached; an empty or a cut result is an answer
ERROR_LABELS = ("invalid_arguments", "unknown_tool", "tool_error", "infrastructure")
# copy preference of result files (DESIGN.md): lower wins
COPY_RANK = {"results_merged": 1, "results_top": 2, "results_shard": 3, "results_steal": 4,
             "results_steal_copy": 5}


def dumps_utf8(rec: dict[str, Any]) -> bytes:
    return orjson.dumps(rec)


def dumps_ascii(rec: dict[str, Any]) -> bytes:
    """The one-shot runner's json.dumps default: ASCII escapes (orjson cannot do this)."""
    return json.dumps(rec, ensure_ascii=True).encode("ascii")


@dataclass(slots=True)
class Copy:
    """One loadable copy of a result: where it is and what it says."""

    run_id: str
    qid: str
    run_index: int
    path: str
    line_no: int
    obj_idx: int
    rank: int
    status: str
    prediction: list[str]
    shapes: dict[str, int] = field(default_factory=dict)  # records.tool_shapes
    extra_keys: list[str] = field(default_factory=list)  # records.extra_keys
    task: str | None = None
    task_type: str | None = None
    # the authors' text scorer on this copy (etl/synth/scoring.py ports of score_text.py)
    authors_f1: float = 0.0
    authors_source: str = "no_prediction"
    # the failures planted in it (etl/synth/failures.py): (msg_idx, call_idx, label, detail)
    # per labelled call, (label, detail, n_calls) per label of the whole result
    call_failures: list[tuple[int, int, str, str]] = field(default_factory=list)
    result_failures: list[tuple[str, str, int]] = field(default_factory=list)


@dataclass
class Ledger:
    """Everything the truth file reports, filled in while writing."""

    files: list[dict[str, Any]] = field(default_factory=list)
    damage: list[dict[str, Any]] = field(default_factory=list)
    copies: list[Copy] = field(default_factory=list)
    symlinks: list[dict[str, Any]] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    nonfinite: list[dict[str, Any]] = field(default_factory=list)
    shapes: list[dict[str, Any]] = field(default_factory=list)  # planted writer habits
    # text-scorer summary files: path, shape (output_dir | output | flat), writer_rule
    score_shapes: list[dict[str, Any]] = field(default_factory=list)
    # mm runs: which authors' per-question file the leaderboard must use (rescored | scored)
    mm_score_sources: dict[str, str] = field(default_factory=dict)
    # the failures planted in each record (records.RecordMaker.planted, by planted_key)
    planted: dict[tuple[str, int, str | None], Any] = field(default_factory=dict)
    bytes_written: int = 0


@dataclass(slots=True)
class Dir:
    phys: Path
    logical: str
    ledger: Ledger

    def sub(self, name: str) -> Dir:
        p = self.phys / name
        p.mkdir(parents=True, exist_ok=True)
        return Dir(p, f"{self.logical}/{name}" if self.logical else name, self.ledger)

    def path_of(self, name: str) -> str:
        return f"{self.logical}/{name}" if self.logical else name

    def write_bytes(self, name: str, data: bytes, kind: str, run_id: str | None,
                    n_records: int | None = None) -> str:
        (self.phys / name).write_bytes(data)
        n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        path = self.path_of(name)
        self.ledger.files.append({"path": path, "kind": kind, "run_id": run_id,
                                  "n_lines": n_lines, "n_records": n_records})
        self.ledger.bytes_written += len(data)
        return path

    def write_json(self, name: str, obj: Any, kind: str, run_id: str | None) -> str:
        return self.write_bytes(name, json.dumps(obj, indent=2).encode() + b"\n", kind, run_id)

    def write_text(self, name: str, text: str, kind: str, run_id: str | None) -> str:
        return self.write_bytes(name, text.encode("utf-8"), kind, run_id)

    def symlink(self, name: str, target: str, outside_root: bool) -> None:
        os.symlink(target, self.phys / name)
        self.ledger.symlinks.append({"path": self.path_of(name), "target": target,
                                     "outside_root": outside_root})


class JsonlFile:
    """Writes a JSONL file line by line. `record` writes a well-formed object; the damage
    helpers write what real runs left behind and log it with its 1-based line number."""

    def __init__(self, d: Dir, name: str, kind: str, run_id: str | None,
                 dumps: Callable[[dict[str, Any]], bytes] = dumps_utf8, *,
                 crlf: bool = False, bom: bool = False) -> None:
        self.d, self.kind, self.run_id, self.dumps = d, kind, run_id, dumps
        self.path = d.path_of(name)
        self.fh = open(d.phys / name, "wb")  # noqa: SIM115 - closed in close()
        self.eol = b"\r\n" if crlf else b"\n"
        self.line_no = 0
        self.n_records = 0
        self.size = 0
        self.rank = COPY_RANK.get(kind)
        if bom:
            self.fh.write(b"\xef\xbb\xbf")
            self.size += 3
            self._damage(1, "utf8_bom", "benign")
        if crlf:
            self._damage(None, "crlf_line_endings", "benign")

    def _damage(self, line_no: int | None, kind: str, severity: str) -> None:
        self.d.ledger.damage.append({"path": self.path, "line_no": line_no, "kind": kind,
                                     "severity": severity})

    def _line(self, data: bytes, eol: bool = True) -> int:
        self.line_no += 1
        self.fh.write(data)
        self.size += len(data)
        if eol:
            self.fh.write(self.eol)
            self.size += len(self.eol)
        return self.line_no

    def _loaded(self, rec: dict[str, Any], line_no: int, obj_idx: int) -> None:
        self.n_records += 1
        if self.rank is None or "qid" not in rec:
            return
        raw = rec.get("status")
        # a record without a status (the raw rows of eval_ehrbench_qa.py) is success when
        # completed, error when it has an error, else incomplete (DESIGN.md)
        status = str(raw) if raw is not None else (
            "success" if rec.get("completed") is True else
            "error" if rec.get("error") else "incomplete")
        gold = rec["label"] if "label" in rec else rec.get("ground_truth")
        preds, source = text_predictions(rec)
        status = "success" if status == "ok" else status
        planted = self.d.ledger.planted.get(planted_key(rec))
        calls = list(planted.calls) if planted is not None else []
        results = list(planted.results) if planted is not None else []
        if status == "error":  # the run's own error, as the synth wrote it
            results = [RUN_ERRORS[rec["error"]] + (0,)] if rec.get("error") in RUN_ERRORS \
                else []
        shapes = tool_shapes(rec)
        # tool messages that are a failure: the calls carrying a planted error label
        shapes["n_error_results"] = len({(c[0], c[1]) for c in calls if c[2] in ERROR_LABELS})
        self.d.ledger.copies.append(Copy(
            self.run_id or "", str(rec["qid"]), int(rec.get("run_index") or 1), self.path,
            line_no, obj_idx, self.rank, status, prediction_of(rec), shapes,
            extra_keys(rec), rec.get("task"), rec.get("task_type"),
            text_f1(preds, gold)["f1"], source, calls, results))

    def record(self, rec: dict[str, Any], raw: bytes | None = None) -> int:
        """Write one object (pre-serialized bytes may be passed to reuse a line)."""
        line_no = self._line(self.dumps(rec) if raw is None else raw)
        self._loaded(rec, line_no, 0)
        return line_no

    # ---- damage kinds (DESIGN.md: error = rejected, repaired = loaded, benign = neither)
    def truncated(self, rec: dict[str, Any]) -> None:
        data = self.dumps(rec)
        self._damage(self._line(data[: max(10, len(data) // 2)], eol=False), "truncated_line",
                     "error")

    def two_objects(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        line_no = self._line(self.dumps(first) + self.dumps(second))
        self._loaded(first, line_no, 0)
        self._loaded(second, line_no, 1)
        self._damage(line_no, "two_objects_one_line", "repaired")

    def with_nan(self, rec: dict[str, Any], key: str, token: bytes = b"NaN") -> None:
        """`key` (a top-level key holding null) written as a bare NaN / Infinity, as
        Python's json.dumps writes a float nan / inf: writer-valid, so "benign" (loaded,
        no reject), and listed in the ledger's nonfinite entries."""
        data = self.dumps({**rec, key: None})
        k = orjson.dumps(key)
        needle = k + b":null" if k + b":null" in data else k + b": null"
        line_no = self._line(data.replace(needle, needle[:-4] + token, 1))
        self._loaded(rec, line_no, 0)
        self._damage(line_no, "bare_nan" if token == b"NaN" else "bare_infinity", "benign")
        self.d.ledger.nonfinite.append({"path": self.path, "line_no": line_no, "key": key,
                                        "run_id": self.run_id, "qid": rec.get("qid"),
                                        "run_index": rec.get("run_index") or 1})

    def json_array(self, rec: dict[str, Any]) -> None:
        self._damage(self._line(b"[" + self.dumps(rec) + b"]"), "json_array_line", "error")

    def garbage(self, text: bytes) -> None:
        self._damage(self._line(text), "garbage_line", "error")

    def without_qid(self, rec: dict[str, Any]) -> None:
        line_no = self._line(self.dumps({k: v for k, v in rec.items() if k != "qid"}))
        self.n_records += 1  # a well-formed object, rejected by the ingest for lack of a qid
        self._damage(line_no, "missing_qid", "error")

    def invalid_utf8(self, rec: dict[str, Any]) -> None:
        """Raw bytes that are not UTF-8 inside a string value (decoded with U+FFFD)."""
        data = self.dumps(rec)
        # inside free text (a message body, else the error text), never a key field
        markers = (b'"content":"', b'"content": "', b'"error":"', b'"error": "')
        marker = next(m for m in markers if m in data)
        at = data.index(marker) + len(marker)
        line_no = self._line(data[:at] + b"\xff\xfe" + data[at:])
        # the ingest loads the record with two U+FFFD at the start of that text
        self._loaded(rec, line_no, 0)
        self._damage(line_no, "invalid_utf8", "repaired")

    def blank(self) -> None:
        self._damage(self._line(b""), "blank_line", "benign")

    def close(self) -> str:
        self.fh.close()
        self.d.ledger.files.append({"path": self.path, "kind": self.kind, "run_id": self.run_id,
                                    "n_lines": self.line_no, "n_records": self.n_records})
        self.d.ledger.bytes_written += self.size
        return self.path
