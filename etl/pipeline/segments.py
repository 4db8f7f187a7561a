"""Append-only growth: a results file that a running evaluation is still writing is staged in
segments, so that a re-ingest parses only the lines added since the last one.

A results file is staged as a chain of cache directories (etl/pipeline/emitter.py), one per
segment of lines, each with its own Parquet files; the load reads the union of a file's
segments. The
first segment starts at byte 0. The StageResult of the chain (kept in the stats.json of its
last segment) says where the next segment starts (`resume`): just past the last newline
read, with the line number, the record number (rec_no) and the SHA-256 of the bytes
[0, hashed) as read then. When the file is larger the next time, the bytes [0, hashed) are
hashed again: equal, and only the new lines are parsed into a new segment, with line and
record numbers continuing where they stopped (so the copy rule "the last record of a key in
a file wins", sql/load/result_copies.sql, sees the same rec_no as a full parse would);
different (the file was truncated or rewritten), and the file is parsed again from byte 0.
The hash also gives files.sha256 of the whole file: it continues over the new bytes.

The unterminated last line (no newline yet) of a results file is "in progress" while the
file may still grow: it is neither loaded nor rejected, and counted in
files.n_in_progress. A file stops growing when its mtime is older than the quiet period
(`in_progress_seconds`, `etl ingest --in-progress-seconds`); then the line is judged like
any other line (DESIGN: a truncated line is a reject), in a segment of its own (`tail`),
which is dropped and parsed again as part of the next segment if the file grows after all.
Such a judged tail is the only segment that is ever parsed twice."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from pathlib import Path
from typing import Any

from etl.extract import FileInfo, Segment
from etl.pipeline.emitter import (
    ParquetEmitter,
    StageResult,
    cache_dir_name,
    extract_into,
    primary_rows,
    publish_dir,
    result_from_json,
    write_stats,
)
from etl.pipeline.plan import FilePlan
from etl.read import file_sha256

# A file appended to more often than this is parsed again in full, into one segment: the
# load reads every segment's Parquet, and many tiny files cost more than one parse.
MAX_SEGMENTS = 64


def is_quiet(mtime_ns: int | None, quiet_seconds: float, now_ns: int | None = None) -> bool:
    """The file has stopped growing: its mtime is at least quiet_seconds old (always, with a
    quiet period of 0)."""
    if quiet_seconds <= 0 or mtime_ns is None:
        return True
    now_ns = time.time_ns() if now_ns is None else now_ns
    return now_ns - mtime_ns >= quiet_seconds * 1e9


def verified_prefix(path: Path, offset: int, hashed: int, sha256: str | None) -> Any:
    """The SHA-256 state of the bytes [0, offset) of path, when its bytes [0, hashed) still
    hash to sha256 (the file only grew since); None when they do not (or it is shorter)."""
    if sha256 is None or not 0 <= offset <= hashed:
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        if _feed(digest, fh, offset) != offset:
            return None
        check = digest.copy()
        if _feed(check, fh, hashed - offset) != hashed - offset:
            return None
    return digest if check.hexdigest() == sha256 else None


def _feed(digest: Any, fh: Any, n: int, chunk: int = 1 << 20) -> int:
    done = 0
    while done < n and (block := fh.read(min(chunk, n - done))):
        digest.update(block)
        done += len(block)
    return done


def stage_segments(plan: FilePlan, info: FileInfo, cache_root: Path, parser: str,
                   ingest_id: str) -> StageResult:
    """Stage a results file (info: the plan's file with its parse options): only its new
    lines when the plan continues a chain whose bytes are still the file's first bytes, else
    the whole file; then judge or hold back its unterminated last line."""
    started = time.perf_counter()
    chain = result_from_json(plan.append_to) if plan.append_to else None
    digest = None
    if chain is not None and chain.resume is not None:
        try:
            digest = verified_prefix(info.abs_path, chain.resume["offset"],
                                     chain.resume["hashed"], chain.sha256)
        except OSError:
            digest = None
    if digest is None:
        chain = None  # new, truncated or rewritten: parse it from the start
    kept = [part for part in chain.parts() if not part.get("tail")] if chain else []
    resume = chain.resume if chain else {"offset": 0, "line_no": 0, "rec_no": 0}
    position = len(kept)

    tmp = cache_root / f".tmp-{info.file_id}-{position}-{os.getpid()}"
    stop: dict[str, Any] = {}
    emitter = extract_into(_segment_of(info, Segment(
        start=resume["offset"], line_base=resume["line_no"], rec_base=resume["rec_no"],
        digest=digest, hold_tail=True, report=stop)), tmp, ingest_id)
    sha = stop.get("sha256") or emitter.sha256 or file_sha256(info.abs_path)
    name = cache_dir_name(info.file_id, sha, parser, plan.keep_images, plan.skip_hash) + (
        f"-{position}" if position else "")
    parts = [*kept, _part(name, emitter)]
    n_lines = stop.get("line_no", emitter.n_lines)
    n_in_progress = 0
    tail_tmp = None
    if stop.get("tail_bytes"):
        if is_quiet(stop["mtime_ns"], plan.quiet_seconds):
            # The writer is done with it: judge the last line as any other (read up to the
            # bytes seen above, so that the file's hash and its rows describe one state).
            tail_tmp = cache_root / f".tmp-{info.file_id}-{position}t-{os.getpid()}"
            tail = extract_into(_segment_of(info, Segment(
                start=stop["offset"], end=stop["offset"] + stop["tail_bytes"],
                line_base=stop["line_no"], rec_base=stop["rec_no"])), tail_tmp, ingest_id)
            parts.append({**_part(name + "-tail", tail), "tail": True})
            n_lines = tail.n_lines if tail.n_lines is not None else n_lines
        else:
            n_in_progress = 1
    tables: dict[str, int] = {}
    for part in parts:
        for table, n in part["tables"].items():
            tables[table] = tables.get(table, 0) + n
    result = StageResult(
        file_id=info.file_id, cache_dir=name, sha256=sha, n_lines=n_lines,
        n_rows=primary_rows(info.kind, tables),
        n_rejected=sum(part["n_rejected"] for part in parts),
        n_repaired=sum(part["n_repaired"] for part in parts), tables=tables,
        seconds=time.perf_counter() - started, ingest_id=ingest_id,
        skip_hash=plan.skip_hash, n_in_progress=n_in_progress,
        segments=parts,
        resume=({key: stop[key] for key in ("offset", "line_no", "rec_no", "hashed")}
                if stop else None))  # no stop: the read failed, parse it all next time
    write_stats(tmp, result, info.parse.skip_keys)
    if tail_tmp is not None:
        publish_dir(tail_tmp, cache_root / (name + "-tail"))
    publish_dir(tmp, cache_root / name)  # last: its stats.json says the chain is complete
    return result


def _segment_of(info: FileInfo, segment: Segment) -> FileInfo:
    return dataclasses.replace(info, parse=dataclasses.replace(info.parse, segment=segment))


def _part(cache_dir: str, emitter: ParquetEmitter) -> dict[str, Any]:
    return {"cache_dir": cache_dir, "tables": dict(emitter.counts),
            "n_rejected": emitter.n_rejected, "n_repaired": emitter.n_repaired}
