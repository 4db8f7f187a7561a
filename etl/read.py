"""Read stage: stream JSONL files line by line and decode each line, repairing what can be
repaired without guessing and describing what cannot.

Rules (docs/DESIGN.md): lines split on b"\\n" only (U+2028 / U+0085 inside strings are
ordinary characters), a UTF-8 BOM and CRLF endings are not damage, blank lines are skipped,
line numbers are 1-based. Repairs: two or more objects on one line, invalid UTF-8 (decoded
with U+FFFD), lone surrogate escapes (U+FFFD), numbers no column can hold (null). Anything
else that is not one JSON object is an error.

A bare NaN / Infinity / -Infinity is NOT damage: it is what Python's json.dumps writes for
a float nan or inf (allow_nan=True is its default, and every writer of the tree uses
json.dumps: deploy_agent*.py process_query_item*, run_multi_model_eval.py, the scorers).
Such a value is loaded as null and its path is listed in Line.nonfinite, so the record
keeps the fact (results.nonfinite_keys) and nothing counts it as a reject.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

EXCERPT_CHARS = 200
BOM = b"\xef\xbb\xbf"
READ_BUFFER = 1 << 20


@dataclass(slots=True)
class Line:
    """One decoded object of a line, or the problem that stopped it from being one."""

    line_no: int
    obj_idx: int  # 0, or the position of the object on a line that held several
    obj: dict[str, Any] | None  # None when severity == "error"
    severity: str | None  # None (clean), "repaired" (loaded after a repair) or "error"
    error: str | None
    excerpt: str | None
    # paths (key, key.sub, key[2]) of bare NaN / Infinity values, loaded as null
    nonfinite: tuple[str, ...] = ()


def excerpt_of(raw: bytes) -> str:
    return raw[: EXCERPT_CHARS * 4].decode("utf-8", errors="replace")[:EXCERPT_CHARS]


class _NonFinite:
    """Stands in for a bare NaN / Infinity while a line is decoded (see _clean_values)."""


_NONFINITE = _NonFinite()


def _loads_lenient(text: str) -> tuple[list[Any], list[str]]:
    """Decode one or more concatenated JSON values with the stdlib decoder, which accepts
    what orjson refuses (NaN / Infinity, numbers beyond a double, lone surrogate escapes).
    Returns the values, every one storable except bare NaN / Infinity (the _NONFINITE
    marker, see _clean_values), and the repairs made; raises ValueError if the text is not
    a sequence of complete JSON values."""
    repairs: list[str] = []

    def note(repair: str) -> None:
        if repair not in repairs:
            repairs.append(repair)

    def constant(name: str) -> _NonFinite:
        return _NONFINITE  # writer-valid, not a repair: _clean_values records where

    def big_float(text: str) -> float | None:
        number = float(text)
        if math.isfinite(number):
            return number
        note("number beyond a double (e.g. 1e400) loaded as null")
        return None

    def big_int(text: str) -> int | None:
        try:
            return int(text)
        except ValueError:  # more digits than Python converts (sys.int_info)
            note("integer of more than 4300 digits loaded as null")
            return None

    decoder = json.JSONDecoder(parse_constant=constant, parse_float=big_float,
                               parse_int=big_int)
    values: list[Any] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            break
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)
    if len(values) > 1:
        repairs.append(f"{len(values)} JSON objects on one line, each loaded")
    return values, repairs


_SURROGATE = re.compile("[\ud800-\udfff]")


def _fix_text(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def _clean_values(value: Any) -> tuple[Any, tuple[str, ...], bool]:
    """(value, nonfinite paths, surrogates fixed): every _NONFINITE marker replaced by None
    (its path recorded) and every lone surrogate (a `\\ud83d` escape without its pair, which
    the stdlib decoder accepts and no UTF-8 column can store) in keys and strings replaced
    by U+FFFD, in place. Iterative: the decoder allows nesting deeper than a recursive walk
    could follow."""
    if value is _NONFINITE:
        return None, ("$",), False
    found: list[str] = []
    fixed = False
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            items = list(node.items())
            keys_bad = any(_SURROGATE.search(k) for k, _ in items)
            for i, (key, child) in enumerate(items):
                child_path = f"{path}.{key}" if path else key
                if child is _NONFINITE:
                    child = None
                    found.append(child_path)
                elif isinstance(child, str) and _SURROGATE.search(child):
                    child = _fix_text(child)
                    fixed = True
                elif isinstance(child, dict | list):
                    stack.append((child, child_path))
                items[i] = (_fix_text(key) if keys_bad else key, child)
            if keys_bad:
                fixed = True
                node.clear()
                node.update(items)
            else:
                for key, child in items:
                    node[key] = child
        elif isinstance(node, list):
            for i, child in enumerate(node):
                child_path = f"{path}[{i}]"
                if child is _NONFINITE:
                    node[i] = None
                    found.append(child_path)
                elif isinstance(child, str) and _SURROGATE.search(child):
                    node[i] = _fix_text(child)
                    fixed = True
                elif isinstance(child, dict | list):
                    stack.append((child, child_path))
    return value, tuple(sorted(found)), fixed


def decode_line(raw: bytes, line_no: int) -> list[Line]:
    """Decode one line (with or without its newline) into Line items; [] for a blank line.

    A clean line is decoded as read: JSON allows the line ending after the object, so the
    line is not copied to drop it (the bench tree's lines average 25 kB). Anything else is
    judged on the line without its ending, as the rules and the reject texts say."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        obj = None
    if isinstance(obj, dict) and not _holds_big_float(obj):
        return [Line(line_no, 0, obj, None, None, None)]
    raw = _without_line_ending(raw)
    if not raw.strip():
        return []
    try:  # again without the ending: orjson's message gives positions in the line
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return _decode_damaged(raw, line_no, str(exc))
    if isinstance(obj, dict) and _holds_big_float(obj):
        return _decode_damaged(raw, line_no, "integer beyond 64 bits")
    if isinstance(obj, dict):
        return [Line(line_no, 0, obj, None, None, None)]
    return [Line(line_no, 0, None, "error", f"not a JSON object ({_json_type(obj)})",
                 excerpt_of(raw))]


def _without_line_ending(raw: bytes) -> bytes:
    """The line without its newline and without one carriage return before it."""
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    return raw


# orjson turns an integer literal beyond 64 bits (20+ digits, e.g. a subject_id of
# 18446744073709551617) into the nearest float, losing its digits. Such a float is at least
# 2**63 in magnitude; a record holding one is decoded again by the stdlib, which keeps
# every integer exact. Looked for where normalize reads numbers: the record's fields and
# one level inside them (a label's items, an object's values), not inside the trajectory,
# so the common line costs a glance at its few fields.
BIG_FLOAT = float(2**63)
NOT_SCANNED = frozenset({"messages"})


def _holds_big_float(obj: dict[str, Any]) -> bool:
    for key, value in obj.items():
        if isinstance(value, float):
            if abs(value) >= BIG_FLOAT:
                return True
        elif key in NOT_SCANNED:
            continue
        elif isinstance(value, list):
            if any(isinstance(v, float) and abs(v) >= BIG_FLOAT for v in value):
                return True
        elif isinstance(value, dict):
            if any(isinstance(v, float) and abs(v) >= BIG_FLOAT for v in value.values()):
                return True
    return False


def _decode_damaged(raw: bytes, line_no: int, orjson_error: str) -> list[Line]:
    repairs: list[str] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        repairs.append("invalid UTF-8 decoded with U+FFFD")
    try:
        values, more = _loads_lenient(text)
    except (ValueError, RecursionError):
        if repairs:
            # The bytes were the only problem orjson could not get past, or not: try again.
            try:
                values = [orjson.loads(text)]
                more = []
            except orjson.JSONDecodeError as exc:
                return [_error(raw, line_no, f"truncated or invalid JSON: {exc}")]
        else:
            return [_error(raw, line_no, f"truncated or invalid JSON: {orjson_error}")]
    repairs.extend(more)
    cleaned = [_clean_values(v) for v in values]
    if any(fixed for _, _, fixed in cleaned):
        repairs.append("lone surrogate escape replaced with U+FFFD")
    bad = [v for v, _, _ in cleaned if not isinstance(v, dict)]
    if bad or not values:
        kinds = ", ".join(sorted({_json_type(v) for v in bad})) or "nothing"
        return [_error(raw, line_no, f"not a JSON object ({kinds})")]
    note = "; ".join(repairs) if repairs else None
    severity = "repaired" if repairs else None
    ex = excerpt_of(raw) if repairs else None
    return [Line(line_no, i, v, severity, note, ex, paths)
            for i, (v, paths, _) in enumerate(cleaned)]


def _error(raw: bytes, line_no: int, message: str) -> Line:
    return Line(line_no, 0, None, "error", message, excerpt_of(raw))


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


class JsonlReader:
    """Iterate the decoded lines of a JSONL file without holding the file in memory.

    After iteration, `n_lines`, `n_bytes` and `sha256` describe the whole file.

    A reader may also read one segment of a file that grows by appending (etl/pipeline/segments.py):
    from byte `start` (a line start, with `line_base` lines and `rec_base` records before
    it, and `digest` the SHA-256 state of the bytes before it, so that `sha256` still covers
    the file from byte 0) up to byte `end`. With `hold_tail`, an unterminated last line (no
    newline: a writer may be in the middle of it) is neither decoded nor counted. When the
    read is done, `report` (a dict) receives where it stopped (see segment_end)."""

    def __init__(self, path: str | Path, *, start: int = 0, end: int | None = None,
                 line_base: int = 0, rec_base: int = 0, digest: Any = None,
                 hold_tail: bool = False, report: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.start, self.end = start, end
        self.hold_tail = hold_tail
        self.rec_base = rec_base  # where the extractor's record count (rec_no) begins
        self.n_lines = line_base
        self.n_records = 0  # decoded objects (Lines that are not errors) read
        self.n_bytes = 0  # bytes read from start, the held tail included
        self.end_offset = start  # just past the last newline read
        self.tail_bytes = 0  # length of the unterminated last line held back
        self.mtime_ns: int | None = None  # the file's mtime once read to its end
        self.sha256: str | None = None
        self._digest = digest
        self._report = report

    @classmethod
    def for_file(cls, file: Any) -> JsonlReader:
        """The reader of a FileInfo: its whole file, or the segment its parse options name
        (set by the staging of a growing file, etl/pipeline/segments.py)."""
        seg = file.parse.segment
        if seg is None:
            return cls(file.abs_path)
        return cls(file.abs_path, start=seg.start, end=seg.end, line_base=seg.line_base,
                   rec_base=seg.rec_base, digest=seg.digest, hold_tail=seg.hold_tail,
                   report=seg.report)

    def __iter__(self) -> Iterator[Line]:
        digest = self._digest if self._digest is not None else hashlib.sha256()
        # A 1 MB buffer: with the default 8 KB one, splitting the lines of a 100 MB results
        # file (records of up to MBs) cost 4x more CPU.
        with open(self.path, "rb", buffering=READ_BUFFER) as fh:
            if self.start:
                fh.seek(self.start)
            for raw in _lines(fh, None if self.end is None else self.end - self.start):
                digest.update(raw)
                self.n_bytes += len(raw)
                terminated = raw.endswith(b"\n")
                if not terminated and self.hold_tail:
                    self.tail_bytes = len(raw)
                    break
                self.n_lines += 1
                line_no = self.n_lines
                if terminated:
                    self.end_offset += len(raw)
                if line_no == 1 and raw.startswith(BOM):
                    raw = raw[len(BOM):]
                for line in decode_line(raw, line_no):
                    if line.severity != "error":
                        self.n_records += 1
                    yield line
            self.mtime_ns = os.fstat(fh.fileno()).st_mtime_ns
        self.sha256 = digest.hexdigest()
        if self._report is not None:
            self._report.update(self.segment_end())

    def segment_end(self) -> dict[str, Any]:
        """Where this read stopped, for the staging of the file's next segment."""
        return {"offset": self.end_offset, "line_no": self.n_lines,
                "rec_no": self.rec_base + self.n_records, "hashed": self.start + self.n_bytes,
                "tail_bytes": self.tail_bytes, "mtime_ns": self.mtime_ns,
                "sha256": self.sha256}


def _lines(fh: Any, limit: int | None) -> Iterator[bytes]:
    if limit is None:
        for raw in fh:  # not `yield from`: closing this generator would close the file
            yield raw
        return
    while limit > 0 and (raw := fh.readline(limit)):
        limit -= len(raw)
        yield raw


def read_json_file(path: str | Path) -> tuple[Any, str | None, str | None]:
    """Read a whole (small) JSON file. Returns (value, severity, message): severity None
    when clean, "repaired" after a lossless repair, "error" (value None) when unreadable."""
    raw = Path(path).read_bytes()
    if raw.startswith(BOM):
        raw = raw[len(BOM):]
    try:
        return orjson.loads(raw), None, None
    except orjson.JSONDecodeError as exc:
        lines = _decode_damaged(raw.strip(), 1, str(exc))
    if len(lines) == 1 and lines[0].severity != "error":
        # Clean for the stdlib decoder (a bare NaN / Infinity, writer-valid; an integer
        # beyond 64 bits, which orjson refuses) or repaired.
        return lines[0].obj, lines[0].severity, lines[0].error
    if lines and lines[0].severity == "error":
        return None, "error", lines[0].error
    return None, "error", "not one JSON object"


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()
