"""Stage: parse one file into a fresh directory of the parse cache, as Parquet.

Runs in a parse worker (etl/pipeline/workers.py) or in the ingest's own process. A results
file is staged in segments (etl/pipeline/segments.py: a file that only grew is parsed from
its last complete line on); any other file in one piece. Never raises for bad input: an
extractor crash becomes a reject naming the file (a bug to fix, not a lost run), and so does
a failure past the extractor (writing the Parquet): then the file's rows are not loaded and
one file-level reject says why."""

from __future__ import annotations

import dataclasses
import os
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from etl.extract import FileInfo, ParseOptions
from etl.extract.inspect_logs import INSPECT_LOG_KIND
from etl.pipeline.copies import RESULT_KINDS
from etl.pipeline.emitter import (
    ParquetEmitter,
    StageResult,
    cache_dir_name,
    extract_into,
    new_entry_dir,
    primary_rows,
    publish_dir,
    write_stats,
)
from etl.pipeline.inspect_stage import stage_inspect_log
from etl.pipeline.plan import FilePlan
from etl.pipeline.segments import stage_segments
from etl.read import file_sha256


def _never() -> bool:
    return False


def stage_file(plan: FilePlan, cache_root: str, parser: str, ingest_id: str,
               interrupted: Callable[[], bool] = _never) -> StageResult:
    """Parse one file into a fresh cache directory and return what it produced.
    `interrupted` says whether Ctrl-C came (in the ingest's own process): then a library's
    error is the interrupt, not the file's fault."""
    try:
        if not still_the_walked_file(plan.info):
            return _stage_failed(plan, Path(cache_root), parser, ingest_id, MOVED, None)
        info = parse_view(plan, Path(cache_root))
        if info.kind == INSPECT_LOG_KIND:  # by sample, not by line
            return stage_inspect_log(plan, info, Path(cache_root), parser, ingest_id)
        if info.kind in RESULT_KINDS:
            return stage_segments(plan, info, Path(cache_root), parser, ingest_id)
        return _stage_whole(plan, info, Path(cache_root), parser, ingest_id)
    except Exception as exc:  # noqa: BLE001 - one file's failure never stops the ingest
        if interrupted():
            raise KeyboardInterrupt from exc
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        error = (f"staging {plan.info.kind} failed: {type(exc).__name__}: "
                 f"{ascii(str(exc))[:300]} (at {Path(frame.filename).name}:{frame.lineno});"
                 " no row of this file is loaded")
        try:
            sha: str | None = file_sha256(plan.info.abs_path)
        except OSError:
            sha = None
        return _stage_failed(plan, Path(cache_root), parser, ingest_id, error, sha)


MOVED = ("not the file the walk found (replaced, or a symlink retargeted, since): not read; "
         "the next ingest reads what is there then")


def still_the_walked_file(info: FileInfo) -> bool:
    """Whether the path still names the file the walk found and vetted (same device and
    inode): the walk decided the file lies inside the tree, and a link retargeted since
    (say to /proc/self/environ) must not be followed."""
    if info.identity is None:
        return True
    try:
        st = os.stat(info.abs_path)
    except OSError:
        return True  # gone: the extractor's read fails and says so
    return (st.st_dev, st.st_ino) == tuple(info.identity)


def parse_view(plan: FilePlan, cache_root: Path) -> FileInfo:
    """The FileInfo the extractor sees: the file, with the parse options of its plan."""
    skip_keys = plan.skip.keys(cache_root) if plan.skip else frozenset()
    return dataclasses.replace(plan.info, parse=ParseOptions(keep_images=plan.keep_images,
                                                             skip_keys=skip_keys,
                                                             inspect=plan.inspect))


def _stage_whole(plan: FilePlan, info: FileInfo, cache_root: Path, parser: str,
                 ingest_id: str) -> StageResult:
    started = time.perf_counter()
    tmp = cache_root / f".tmp-{info.file_id}-{os.getpid()}"
    emitter = extract_into(info, tmp, ingest_id)
    sha = emitter.sha256 or file_sha256(info.abs_path)
    final = cache_root / cache_dir_name(info.file_id, sha, parser, plan.keep_images,
                                        plan.skip_hash)
    result = StageResult(
        file_id=info.file_id, cache_dir=final.name, sha256=sha, n_lines=emitter.n_lines,
        n_rows=primary_rows(info.kind, emitter.counts),
        n_rejected=emitter.n_rejected, n_repaired=emitter.n_repaired,
        tables=dict(emitter.counts), seconds=time.perf_counter() - started,
        ingest_id=ingest_id, skip_hash=plan.skip_hash)
    write_stats(tmp, result, info.parse.skip_keys)
    publish_dir(tmp, final)
    return result


def _stage_failed(plan: FilePlan, cache_root: Path, parser: str, ingest_id: str,
                  error: str, sha: str | None) -> StageResult:
    """The cache entry of a file none of whose rows is loaded: one reject saying why."""
    info = plan.info
    tmp = cache_root / f".tmp-{info.file_id}-{os.getpid()}"
    new_entry_dir(tmp)
    emitter = ParquetEmitter(info, tmp, ingest_id)
    emitter.reject(None, "error", error)
    emitter.close()
    sha = sha or "0" * 64
    final = cache_root / cache_dir_name(info.file_id, sha, parser, plan.keep_images,
                                        plan.skip_hash)
    result = StageResult(
        file_id=info.file_id, cache_dir=final.name, sha256=sha, n_lines=None, n_rows=0,
        n_rejected=1, n_repaired=0, tables=dict(emitter.counts), ingest_id=ingest_id,
        skip_hash=plan.skip_hash)
    write_stats(tmp, result)
    publish_dir(tmp, final)
    return result
