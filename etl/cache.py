"""The parse cache beside a database (`<db>.cache/`): which files can be reused and which
must be parsed again.

Each staged file lives in its own directory (see etl/stage.py); `index.json` says which
directory holds which file as of the last successful ingest (path, size, mtime, content
hash, parser fingerprint). A file is parsed again only when its size changes, or its mtime
changes and its hash differs, or the parser changed, or (for a secondary copy of results)
keys it skipped are no longer held by its run's preferred copies. A results file that only
grew is parsed from where the last ingest stopped (etl/segments.py); so is one whose
unterminated last line was held back as in progress and whose writer has since gone quiet."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq

from etl.discover import RESULT_KINDS
from etl.extract import FileInfo
from etl.publish import alive
from etl.read import file_sha256
from etl.segments import APPEND_OPTION, MAX_SEGMENTS, is_quiet, quiet_seconds_of
from etl.stage import SKIP_KEYS_FILE, StageResult, result_from_json

INDEX_NAME = "index.json"


def cache_root_for(db: Path) -> Path:
    return db.with_name(db.name + ".cache")


def read_index(cache_root: Path) -> dict[str, Any]:
    try:
        return orjson.loads((cache_root / INDEX_NAME).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}


def write_index(cache_root: Path, index: dict[str, Any]) -> None:
    tmp = cache_root / f".{INDEX_NAME}.{os.getpid()}"
    tmp.write_bytes(orjson.dumps(index, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    os.replace(tmp, cache_root / INDEX_NAME)


def cached_result(entry: dict[str, Any] | None, info: FileInfo, parser: str,
                   cache_root: Path) -> StageResult | None:
    if not entry or entry.get("parser") != parser:
        return None
    if entry.get("skip_hash") != info.options.get("skip_hash") and not _skips_still_valid(
            entry, info, cache_root):
        return None
    if (entry.get("path"), entry.get("size"), entry.get("kind"), entry.get("keep_images")) != (
            info.path, info.size_bytes, info.kind, bool(info.options.get("keep_images"))):
        return None
    if entry.get("mtime_ns") != info.mtime_ns:
        # Touched or rewritten with the same size: the content hash decides.
        try:
            if file_sha256(info.abs_path) != entry.get("sha256"):
                return None
        except OSError:
            return None
    result = _chain_of(entry, cache_root)
    if result is not None and result.n_in_progress and is_quiet(info.mtime_ns,
                                                                quiet_seconds_of(info)):
        return None  # its writer went quiet: the held-back last line must be judged now
    return result


def _chain_of(entry: dict[str, Any], cache_root: Path) -> StageResult | None:
    stats = cache_root / entry["cache_dir"] / "stats.json"
    try:
        return result_from_json(orjson.loads(stats.read_bytes()))
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None


def appendable(entry: dict[str, Any] | None, info: FileInfo, parser: str, cache_root: Path
               ) -> dict[str, Any] | None:
    """The staged chain of a results file the cache cannot reuse as it is but that may only
    have grown (same parser and options, not smaller than the bytes hashed last time), as
    the JSON stage_segments continues from; None when it must be parsed from the start.
    Whether its first bytes are unchanged is checked by the worker (it reads them anyway)."""
    if (not entry or entry.get("parser") != parser or info.kind not in RESULT_KINDS
            or (entry.get("path"), entry.get("kind"), entry.get("keep_images")) != (
                info.path, info.kind, bool(info.options.get("keep_images")))):
        return None
    if entry.get("skip_hash") != info.options.get("skip_hash") and not _skips_still_valid(
            entry, info, cache_root):
        return None
    try:
        data = orjson.loads((cache_root / entry["cache_dir"] / "stats.json").read_bytes())
        chain = result_from_json(data)
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None
    if (chain.resume is None or len(chain.parts()) >= MAX_SEGMENTS
            or info.size_bytes < chain.resume["hashed"]):
        return None
    return data


def _skips_still_valid(entry: dict[str, Any], info: FileInfo, cache_root: Path) -> bool:
    """A file staged while skipping keys K stays valid while every key of K is still held by
    a preferred file (a resumed writer appending to merged_unique.jsonl only adds keys);
    when a key went away, its copy here may now win and must be staged in full."""
    skipped: set[tuple[str, int]] = set()
    if entry.get("skip_hash"):
        try:
            skipped = {(q, r) for q, r in orjson.loads(
                (cache_root / entry["cache_dir"] / SKIP_KEYS_FILE).read_bytes())}
        except (OSError, orjson.JSONDecodeError, ValueError, TypeError):
            return False
    return skipped <= load_skip_keys(info)


def not_cached(files: list[FileInfo], entries: dict[str, Any], parser: str,
                cache_root: Path, staged: dict[str, StageResult]) -> list[FileInfo]:
    """Fill staged with the files the cache still holds; return the others."""
    todo = []
    for info in files:
        entry = entries.get(info.file_id)
        cached = cached_result(entry, info, parser, cache_root)
        if cached is not None:
            staged[info.file_id] = cached
            continue
        info.options.pop(APPEND_OPTION, None)
        chain = appendable(entry, info, parser, cache_root)
        if chain is not None:
            info.options[APPEND_OPTION] = chain
        todo.append(info)
    return todo


def split_preferred(loadable: list[FileInfo]) -> tuple[list[FileInfo], list[FileInfo]]:
    """(files staged in full first, result files that are not their run's preferred kind).

    Region shards and steal files mostly repeat merged_unique.jsonl (and one-shot shards
    repeat the top-level results.jsonl): on the bench tree 37% of all records are such
    copies. Staging them after the preferred files lets their extractor skip the copies
    that cannot win instead of normalizing whole trajectories to throw them away."""
    best: dict[str, int] = {}
    for f in loadable:
        if f.kind in RESULT_KINDS and f.run_id and f.copy_rank is not None:
            best[f.run_id] = min(best.get(f.run_id, f.copy_rank), f.copy_rank)
    preferred, secondary = [], []
    for f in loadable:
        if (f.kind in RESULT_KINDS and f.run_id and f.copy_rank is not None
                and f.copy_rank > best[f.run_id]):
            secondary.append(f)
        else:
            preferred.append(f)
    return preferred, secondary


def set_skip_keys(secondary: list[FileInfo], preferred: list[FileInfo],
                   staged: dict[str, StageResult], cache_root: Path) -> None:
    """Give each secondary file the hash of the staged copies of its run's preferred result
    files (their Parquet, in directories named by content), which keys its cache entry, and
    where those copies are. The keys themselves are read (load_skip_keys) only for a file that
    must be staged, or whose entry was made under other preferred copies: reading them for
    every file cost 0.6 s of a 1.1 s no-op ingest of the bench tree."""
    sources: dict[str | None, list[str]] = {}
    for f in preferred:
        result = staged.get(f.file_id)
        if f.kind not in RESULT_KINDS or result is None or not result.tables.get("results"):
            continue
        # every segment of a file that grew by appending (etl/segments.py)
        sources.setdefault(f.run_id, []).extend(
            str(path.relative_to(cache_root)) for path in result.parquet_files(cache_root,
                                                                               "results"))
    for f in secondary:
        files = sorted(sources.get(f.run_id, ()))
        f.options.pop("skip_keys", None)
        f.options["skip_sources"] = [str(cache_root / name) for name in files]
        f.options["skip_hash"] = hashlib.sha256(orjson.dumps(files)).hexdigest()[:16]


def load_skip_keys(info: FileInfo) -> frozenset[tuple[str, int]]:
    """The (qid, run_index) keys the preferred copies of info's run hold (see set_skip_keys),
    read once and kept in info.options["skip_keys"], where the extractor finds them."""
    if "skip_keys" not in info.options:
        info.options["skip_keys"] = _keys_of(tuple(info.options.get("skip_sources", ())))
    return info.options["skip_keys"]


@functools.lru_cache(maxsize=64)
def _keys_of(paths: tuple[str, ...]) -> frozenset[tuple[str, int]]:
    keys: set[tuple[str, int]] = set()
    for path in paths:
        table = pq.read_table(path, columns=["qid", "run_index"])
        keys.update(zip(table.column("qid").to_pylist(), table.column("run_index").to_pylist(),
                        strict=True))
    return frozenset(keys)


def prune_cache(cache_root: Path, keep: set[str | None]) -> None:
    for path in cache_root.iterdir():
        if path.is_dir() and path.name not in keep:
            if path.name.startswith(".tmp-"):
                pid = path.name.rsplit("-", 1)[-1]
                if pid.isdigit() and int(pid) != os.getpid() and alive(int(pid)):
                    continue  # a live worker of another process
            shutil.rmtree(path, ignore_errors=True)
