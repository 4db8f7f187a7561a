"""The parse cache beside a database (`<db>.cache/`): which files can be reused and which
must be parsed again.

Each staged file lives in its own directory (see etl/pipeline/emitter.py); `index.json` says which
directory holds which file as of the last successful ingest (path, size, mtime, content
hash, parser fingerprint). A file is parsed again only when its size changes, or its mtime
changes and its hash differs, or the parser changed, or (for a secondary copy of results)
keys it skipped are no longer held by its run's preferred copies. A results file that only
grew is parsed from where the last ingest stopped (etl/pipeline/segments.py); so is one whose
unterminated last line was held back as in progress and whose writer has since gone quiet."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any

import orjson

from etl.pipeline.copies import RESULT_KINDS
from etl.pipeline.emitter import SKIP_KEYS_FILE, StageResult, cache_dir_name, result_from_json
from etl.pipeline.plan import FilePlan
from etl.pipeline.segments import MAX_SEGMENTS, is_quiet
from etl.read import file_sha256

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


def cached_result(entry: dict[str, Any] | None, plan: FilePlan, parser: str,
                  cache_root: Path) -> StageResult | None:
    info = plan.info
    if not entry or entry.get("parser") != parser:
        return None
    if entry.get("skip_hash") != plan.skip_hash and not _skips_still_valid(
            entry, plan, cache_root):
        return None
    if (entry.get("path"), entry.get("size"), entry.get("kind"), entry.get("keep_images")) != (
            info.path, info.size_bytes, info.kind, plan.keep_images):
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
                                                                plan.quiet_seconds):
        return None  # its writer went quiet: the held-back last line must be judged now
    return result


def _chain_of(entry: dict[str, Any], cache_root: Path) -> StageResult | None:
    stats = cache_root / entry["cache_dir"] / "stats.json"
    try:
        return result_from_json(orjson.loads(stats.read_bytes()))
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None


def appendable(entry: dict[str, Any] | None, plan: FilePlan, parser: str, cache_root: Path
               ) -> dict[str, Any] | None:
    """The staged chain of a results file the cache cannot reuse as it is but that may only
    have grown (same parser and options, not smaller than the bytes hashed last time), as
    the JSON stage_segments continues from; None when it must be parsed from the start.
    Whether its first bytes are unchanged is checked by the worker (it reads them anyway)."""
    info = plan.info
    if (not entry or entry.get("parser") != parser or info.kind not in RESULT_KINDS
            or (entry.get("path"), entry.get("kind"), entry.get("keep_images")) != (
                info.path, info.kind, plan.keep_images)):
        return None
    if entry.get("skip_hash") != plan.skip_hash and not _skips_still_valid(
            entry, plan, cache_root):
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


def _skips_still_valid(entry: dict[str, Any], plan: FilePlan, cache_root: Path) -> bool:
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
    return skipped <= (plan.skip.keys(cache_root) if plan.skip else frozenset())


def not_cached(plans: list[FilePlan], entries: dict[str, Any], parser: str,
               cache_root: Path, staged: dict[str, StageResult]) -> list[FilePlan]:
    """Fill staged with the files the cache still holds; return the plans of the others
    (those that may only have grown continue their staged chain)."""
    todo = []
    for plan in plans:
        entry = entries.get(plan.file_id)
        cached = cached_result(entry, plan, parser, cache_root)
        if cached is not None:
            staged[plan.file_id] = cached
            continue
        plan.append_to = appendable(entry, plan, parser, cache_root)
        todo.append(plan)
    return todo


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie, killed and not reaped yet, does not)."""
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    try:  # a killed process stays a zombie until reaped: dead for our purpose
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def prune_cache(cache_root: Path, keep: set[str | None]) -> None:
    for path in cache_root.iterdir():
        if path.is_dir() and path.name not in keep:
            if path.name.startswith(".tmp-"):
                pid = path.name.rsplit("-", 1)[-1]
                if pid.isdigit() and int(pid) != os.getpid() and alive(int(pid)):
                    continue  # a live worker of another process
            shutil.rmtree(path, ignore_errors=True)


def index_entry(plan: FilePlan, result: StageResult, parser: str) -> dict[str, Any]:
    """The index's record of one staged file: what it was staged from and where it is."""
    info = plan.info
    return {"path": info.path, "size": info.size_bytes, "mtime_ns": info.mtime_ns,
            "kind": info.kind, "keep_images": plan.keep_images, "parser": parser,
            "cache_dir": result.cache_dir, "sha256": result.sha256,
            "skip_hash": result.skip_hash}


def record_interrupted(cache_root: Path, index: dict[str, Any], staged: dict[str, StageResult],
                       plans: list[FilePlan], parser: str, ingest_id: str) -> None:
    """After Ctrl-C: keep in the index every file this ingest finished staging, so the next
    ingest reuses them. Files staged by workers whose results never reached us are found
    on disk: a cache directory named for the file's current content, written by this
    ingest (stats.json says so). The last-build signature is dropped (no database was
    published); what the published database holds (`published`, `loaded`) stays, and
    nothing is pruned; the ingest history is unchanged."""
    files = dict(index.get("files", {}))
    by_id = {p.file_id: p for p in plans}
    found = dict(staged)
    try:
        dirs = [p for p in cache_root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        dirs = []
    for path in dirs:
        plan = by_id.get(path.name.split("-", 1)[0])
        if plan is None or plan.file_id in found:
            continue
        try:
            result = result_from_json(orjson.loads((path / "stats.json").read_bytes()))
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
            continue
        if (result.ingest_id == ingest_id and result.sha256
                and result.skip_hash == plan.skip_hash
                and result.cache_dir == path.name
                and path.name.startswith(cache_dir_name(plan.file_id, result.sha256, parser,
                                                        plan.keep_images, plan.skip_hash))):
            found[plan.file_id] = result
    for file_id, result in found.items():
        if file_id in by_id and result.cache_dir:
            files[file_id] = index_entry(by_id[file_id], result, parser)
    write_index(cache_root, {**{k: v for k, v in index.items() if k != "last"},
                             "files": files})
