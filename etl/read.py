"""Read stage: stream JSONL files line by line and decode each line, repairing what can be
repaired without guessing and describing what cannot.

Rules (docs/DESIGN.md): lines split on b"\\n" only (U+2028 / U+0085 inside strings are
ordinary characters), a UTF-8 BOM and CRLF endings are not damage, blank lines are skipped,
line numbers are 1-based. Repairs: two or more objects on one line, invalid UTF-8 (decoded
with U+FFFD). Anything else that is not one JSON object is an error.

A bare NaN / Infinity / -Infinity is NOT damage: it is what Python's json.dumps writes for
a float nan or inf (allow_nan=True is its default, and every writer of the tree uses
json.dumps: deploy_agent*.py process_query_item*, run_multi_model_eval.py, the scorers).
Such a value is loaded as null and its path is listed in Line.nonfinite, so the record
keeps the fact (results.nonfinite_keys) and nothing counts it as a reject.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

EXCERPT_CHARS = 200
BOM = b"\xef\xbb\xbf"


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
    """Stands in for a bare NaN / Infinity while a line is decoded (see _strip_nonfinite)."""


_NONFINITE = _NonFinite()


def _loads_lenient(text: str) -> tuple[list[Any], list[str]]:
    """Decode one or more concatenated JSON values with the stdlib decoder, which accepts
    NaN / Infinity (as the _NONFINITE marker). Returns the values and the repairs made;
    raises ValueError if the text is not a sequence of complete JSON values."""
    repairs: list[str] = []
    decoder = json.JSONDecoder(parse_constant=lambda name: _NONFINITE)
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


def _strip_nonfinite(value: Any, path: str, found: list[str]) -> Any:
    """value with every _NONFINITE marker replaced by None; their paths go to found."""
    if value is _NONFINITE:
        found.append(path or "$")
        return None
    if isinstance(value, dict):
        return {k: _strip_nonfinite(v, f"{path}.{k}" if path else k, found)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_nonfinite(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


def decode_line(raw: bytes, line_no: int) -> list[Line]:
    """Decode one line (without its newline) into Line items; [] for a blank line."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if not raw.strip():
        return []
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return _decode_damaged(raw, line_no, str(exc))
    if isinstance(obj, dict):
        return [Line(line_no, 0, obj, None, None, None)]
    return [Line(line_no, 0, None, "error", f"not a JSON object ({_json_type(obj)})",
                 excerpt_of(raw))]


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
    stripped: list[tuple[Any, tuple[str, ...]]] = []
    for value in values:
        found: list[str] = []
        stripped.append((_strip_nonfinite(value, "", found), tuple(found)))
    bad = [v for v, _ in stripped if not isinstance(v, dict)]
    if bad or not values:
        kinds = ", ".join(sorted({_json_type(v) for v in bad})) or "nothing"
        return [_error(raw, line_no, f"not a JSON object ({kinds})")]
    note = "; ".join(repairs) if repairs else None
    severity = "repaired" if repairs else None
    ex = excerpt_of(raw) if repairs else None
    return [Line(line_no, i, v, severity, note, ex, paths)
            for i, (v, paths) in enumerate(stripped)]


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

    After iteration, `n_lines`, `n_bytes` and `sha256` describe the whole file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.n_lines = 0
        self.n_bytes = 0
        self.sha256: str | None = None

    def __iter__(self) -> Iterator[Line]:
        digest = hashlib.sha256()
        with open(self.path, "rb") as fh:
            for line_no, raw in enumerate(fh, start=1):
                digest.update(raw)
                self.n_bytes += len(raw)
                self.n_lines = line_no
                if line_no == 1 and raw.startswith(BOM):
                    raw = raw[len(BOM):]
                if raw.endswith(b"\n"):
                    raw = raw[:-1]
                yield from decode_line(raw, line_no)
        self.sha256 = digest.hexdigest()


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
    if len(lines) == 1 and lines[0].severity is None:  # bare NaN / Infinity: writer-valid
        return lines[0].obj, None, None
    if len(lines) == 1 and lines[0].severity == "repaired":
        return lines[0].obj, "repaired", lines[0].error
    if lines and lines[0].severity == "error":
        return None, "error", lines[0].error
    return None, "error", "not one JSON object"


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()
