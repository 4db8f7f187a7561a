"""Extractor for run metadata files: manifest.json, status.json, region_map.json, cmd.txt and
run.log (the multi-run summary.json is kind multi_summary, read elsewhere).

What these files hold comes from the public code that writes them (UCSC-VLAA/ClinSeekAgent):
- manifest.json (openresearcher_ehr/run_multi_model_eval.py main()): {generated_at, mode,
  data, output_root, models, per_shard_concurrency, max_parallel_shards, shards:
  [{friendly_name, model_tag, region, model_id, input_path, shard_dir, rows}]}
- status.json (run_multi_model_eval.py run_shard(), per shard): {friendly_name, model_tag,
  region, model_id, input_rows, pid, returncode, results_rows}
- cmd.txt (run_shard()): `shlex.join(cmd)` of the deploy_agent_mm.py command line
  (--bedrock_model_id ... --bedrock_region ...)
- run.log: the agent's stdout/stderr (run_shard() tees deploy_agent_mm.py into it; the
  single-process runs redirect clinseekagent/run_text.py the same way); the lines counted
  are listed in RUN_LOG_PATTERNS.
- region_map.json (clinseekagent/run_text_curated.py main()): `{region: model_id}`, indent 2.
  Other shapes ({region: {...}}, {model: region | [regions]}, [{region, ...}]) are read too.
Every JSON value lands in run_meta in long form, so nothing a file says is lost.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Iterator
from typing import Any

from etl.extract import Emitter, FileInfo, register
from etl.models import canonical_model
from etl.read import BOM, excerpt_of, read_json_file
from etl.values import to_int

# A backend region name such as us-east-1, eu-central-2, us-gov-west-1, ap-southeast-2.
REGION_RE = re.compile(r"^[a-z]{2}(?:-gov)?-[a-z]+-\d+$")

# run.log line patterns -> run_log_stats column, taken from the print() calls of
# openresearcher_ehr/deploy_agent.py / deploy_agent_mm.py and clinseekagent/run_text.py
# (which prints "[qid=..] DONE Round N: ehr.finish called" where the others print
# "[qid=..] \u2705 Round N: ehr.finish called - DONE").
# Each pattern comes with a literal every match contains: a block of lines is scanned for
# the literal (bytes.find, memchr-fast) and the pattern is searched only in the lines that
# hold it, 10x faster than ten regex searches of every line of a multi-MB log. A line
# counts once per pattern however many matches it holds. The literal of a case-insensitive
# pattern (re.I) is written in lower case and searched in the lower-cased block. re.M: a
# search starts at the line's start inside the block, where ^ must match.
RUN_LOG_PATTERNS: dict[str, tuple[bytes, re.Pattern[bytes]]] = {
    "n_errors": (b"ERROR", re.compile(
        rb"^\s*(?:\[qid=[^\]]*\]\s*ERROR\b|\[?ERROR\]?[:\s])", re.M)),
    "n_tool_errors": (b"TOOL_ERROR[", re.compile(rb"\bTOOL_ERROR\[\d+\]:", re.M)),
    "n_tool_name_fixes": (b"TOOL_NAME_FIX:", re.compile(rb"\bTOOL_NAME_FIX:", re.M)),
    "n_synthetic_finish": (b"synthesized ehr.finish",
                           re.compile(rb"(?i)synthesized ehr\.finish", re.M)),
    "n_exceptions": (b"Traceback (most recent call last):",
                     re.compile(rb"^Traceback \(most recent call last\):", re.M)),
    "n_tool_calls": (b"TOOL_CALL[", re.compile(rb"\bTOOL_CALL\[\d+\]:", re.M)),
    "n_truncated_results": (b"TOOL_RESULT_TRUNCATED[",
                            re.compile(rb"\bTOOL_RESULT_TRUNCATED\[", re.M)),
    "n_finish_called": (b"ehr.finish called", re.compile(
        rb"ehr\.finish called - DONE|DONE Round \d+: ehr\.finish called", re.M)),
    "n_written": (b" written to ", re.compile(
        rb"^\[qid=[^\]]*\] task \d+/\d+ \| run .* written to ", re.M)),
    "n_questions_started": (b"Processing task ",
                            re.compile(rb"^Processing task \d+/\d+ \| question ", re.M)),
}
# Bytes of log read per block (cut at a newline, so no line spans two blocks).
RUN_LOG_BLOCK = 4 << 20
# run_multi_model_eval.py try_steal_work: log_path = shard_dir / f"run_steal_{run_id:02d}.log"
STEAL_LOG_NAME = re.compile(r"^run_steal_(\d+)\.log$")
# "Using AWS Bedrock: moonshotai.kimi-k2.5 @ us-east-1 | thinking=auto"
BACKEND_LINE = re.compile(rb"Using AWS Bedrock: (\S+) @ (\S+)")

def _dir_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _value_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)  # whole: nothing read is cut


def flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Leaf values of a JSON value as (key path, value): a.b, a[0].c; empty containers are
    leaves too ({} / [] as text) so their key still shows."""
    if isinstance(value, dict) and value:
        for key, child in value.items():
            yield from flatten(child, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list) and value:
        for i, child in enumerate(value):
            yield from flatten(child, f"{prefix}[{i}]")
    elif isinstance(value, dict | list):
        yield prefix, "{}" if isinstance(value, dict) else "[]"
    else:
        yield prefix, value


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _model_of(*names: Any) -> str | None:
    for name in names:
        if isinstance(name, str) and name:
            return canonical_model(name)
    return None


def _shard_row(shard: dict[str, Any], source: str, source_dir: str) -> dict[str, Any]:
    return {
        "source": source, "source_dir": source_dir,
        "model_tag": _str_or_none(shard.get("model_tag")),
        "model": _model_of(shard.get("model_tag"), shard.get("friendly_name"),
                           shard.get("model_id")),
        "region": _str_or_none(shard.get("region")),
        "backend_model_id": _str_or_none(shard.get("model_id")),
        "input_rows": to_int(shard.get("input_rows", shard.get("rows"))),
        "results_rows": to_int(shard.get("results_rows")),
        "returncode": to_int(shard.get("returncode")),
        "pid": to_int(shard.get("pid")),
    }


def _region_map_rows(data: Any, source_dir: str) -> list[dict[str, Any]]:
    """region_map.json as run_text_curated.py writes it, {region: model_id}; also accept
    {region: {...}}, {model: region | [regions]} and [{region, model_id, ...}] shapes;
    others give no rows."""
    rows: list[dict[str, Any]] = []
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict) and isinstance(item.get("region"), str):
                rows.append(_shard_row(item, "region_map", source_dir))
        return rows
    if not isinstance(data, dict):
        return rows
    for key, value in data.items():
        if REGION_RE.match(str(key)):
            if isinstance(value, dict):
                rows.append(_shard_row({**value, "region": key}, "region_map", source_dir))
            else:
                rows.append(_shard_row({"region": key, "model_id": _str_or_none(value)},
                                       "region_map", source_dir))
            continue
        regions = value if isinstance(value, list) else [value]
        for region in regions:
            if isinstance(region, str) and REGION_RE.match(region):
                # key is a model id, slug or qid; only model-like keys name the model
                rows.append(_shard_row({"region": region, "model_id": key}, "region_map",
                                       source_dir))
    return rows


@register("manifest", "status", "region_map")
def extract_json_meta(file: FileInfo, emit: Emitter) -> None:
    try:
        raw = file.abs_path.read_bytes()
        data, severity, message = read_json_file(file.abs_path)
    except OSError as exc:
        emit.reject(None, "error", f"cannot read {file.path}: {exc}", None)
        return
    emit.file_stats(n_lines=raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1),
                    sha256=hashlib.sha256(raw).hexdigest())
    if severity == "error" or data is None:
        emit.reject(None, "error", f"{file.path}: not readable JSON ({message})",
                    excerpt_of(raw))
        return
    if severity == "repaired":
        emit.reject(None, "repaired", f"{file.path}: {message}", excerpt_of(raw))
    source_dir = _dir_of(file.path)
    for key, value in flatten(data):
        emit.row("run_meta", {"source": file.kind, "source_dir": source_dir, "key": key,
                              "value": _as_text(value), "value_type": _value_type(value)})
    if file.kind == "status":
        if isinstance(data, dict):
            emit.row("run_regions", _shard_row(data, "status", source_dir))
        else:
            emit.reject(None, "error", f"{file.path}: status.json is not a JSON object",
                        excerpt_of(raw))
    elif file.kind == "manifest":
        shards = data.get("shards") if isinstance(data, dict) else None
        if not isinstance(shards, list):
            emit.reject(None, "error", f"{file.path}: manifest.json has no shards list",
                        excerpt_of(raw))
            return
        for i, shard in enumerate(shards):
            if isinstance(shard, dict):
                emit.row("run_regions", _shard_row(shard, "manifest", source_dir))
            else:
                emit.reject(None, "error", f"{file.path}: shards[{i}] is not an object", None)
    else:
        for row in _region_map_rows(data, source_dir):
            emit.row("run_regions", row)


def _cmd_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: fall back to whitespace words
        return text.split()


@register("cmd")
def extract_cmd(file: FileInfo, emit: Emitter) -> None:
    try:
        raw = file.abs_path.read_bytes()
    except OSError as exc:
        emit.reject(None, "error", f"cannot read {file.path}: {exc}", None)
        return
    emit.file_stats(n_lines=raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1),
                    sha256=hashlib.sha256(raw).hexdigest())
    if raw.startswith(BOM):
        raw = raw[len(BOM):]
    text = raw.decode("utf-8", errors="replace").replace("\\\n", " ").strip()
    source_dir = _dir_of(file.path)
    if not text:
        emit.reject(None, "error", f"{file.path}: empty command file", None)
        return
    emit.row("run_meta", {"source": "cmd", "source_dir": source_dir, "key": "command",
                          "value": text, "value_type": "string"})
    words = _cmd_words(text)
    options: dict[str, str | None] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("--"):
            name, eq, inline = word.partition("=")
            if eq:
                value: str | None = inline
            elif i + 1 < len(words) and not words[i + 1].startswith("--"):
                value = words[i + 1]
                i += 1
            else:
                value = None
            options[name] = value
            emit.row("run_meta", {"source": "cmd", "source_dir": source_dir, "key": name,
                                  "value": value, "value_type": "flag" if value is None
                                  else "string"})
        else:
            emit.row("run_meta", {"source": "cmd", "source_dir": source_dir,
                                  "key": f"argv[{i}]", "value": word,
                                  "value_type": "string"})
        i += 1
    region = options.get("--bedrock_region")
    model_id = options.get("--bedrock_model_id") or options.get("--model_name_or_path")
    if region or model_id:
        emit.row("run_regions", {"source": "cmd", "source_dir": source_dir,
                                 "model": _model_of(model_id) or file.model,
                                 "region": region, "backend_model_id": model_id})


def _log_blocks(path: str, digest: Any) -> Iterator[bytes]:
    """The file in blocks of whole lines (the last may lack its newline), hashed as read."""
    rest = b""
    with open(path, "rb") as fh:
        while chunk := fh.read(RUN_LOG_BLOCK):
            digest.update(chunk)
            data = rest + chunk
            cut = data.rfind(b"\n") + 1
            if cut:
                yield data[:cut]
            rest = data[cut:]
    if rest:
        yield rest


def count_matching_lines(literal: bytes, pattern: re.Pattern[bytes], block: bytes,
                         haystack: bytes | None = None) -> int:
    """How many lines of block hold a match of pattern, each line searched on its own (a
    line with two matches counts once). Only lines holding literal are searched; haystack
    (the block lower-cased, same offsets) is where literal is looked for, if given."""
    where = block if haystack is None else haystack
    n, pos = 0, where.find(literal)
    while pos >= 0:
        start = block.rfind(b"\n", 0, pos) + 1
        end = block.find(b"\n", pos)
        end = len(block) if end < 0 else end + 1
        if pattern.search(block, start, end):
            n += 1
        pos = where.find(literal, end)
    return n


@register("run_log")
def extract_run_log(file: FileInfo, emit: Emitter) -> None:
    counts = dict.fromkeys(RUN_LOG_PATTERNS, 0)
    backend: tuple[str, str] | None = None
    digest = hashlib.sha256()
    n_lines = 0
    try:
        for block in _log_blocks(file.abs_path, digest):  # a log can be large: by blocks
            n_lines += block.count(b"\n") + (not block.endswith(b"\n"))
            lowered = block.lower()
            for column, (literal, pattern) in RUN_LOG_PATTERNS.items():
                counts[column] += count_matching_lines(
                    literal, pattern, block, lowered if pattern.flags & re.I else None)
            if backend is None and (found := BACKEND_LINE.search(block)):
                backend = (found.group(1).decode("utf-8", "replace"),
                           found.group(2).decode("utf-8", "replace"))
    except OSError as exc:
        emit.reject(None, "error", f"cannot read {file.path}: {exc}", None)
        return
    emit.file_stats(n_lines=n_lines, sha256=digest.hexdigest())
    source_dir = _dir_of(file.path)
    steal = STEAL_LOG_NAME.match(file.path.rsplit("/", 1)[-1])
    emit.row("run_log_stats", {
        "source_dir": source_dir, "n_lines": n_lines, **counts,
        "steal_run": int(steal.group(1)) if steal else None,
        "backend_model_id": backend[0] if backend else None,
        "backend_region": backend[1] if backend else None,
    })
    if backend:
        emit.row("run_regions", {"source": "run_log", "source_dir": source_dir,
                                 "model": _model_of(backend[0]) or file.model,
                                 "region": backend[1], "backend_model_id": backend[0]})
