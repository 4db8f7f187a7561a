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

import datetime as dt
import errno
import hashlib
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from etl.pipeline.copies import RESULT_KINDS
from etl.pipeline.emitter import (
    ENTRY_MARKER,
    SKIP_KEYS_FILE,
    StageResult,
    cache_dir_name,
    result_from_json,
)
from etl.pipeline.plan import FilePlan
from etl.pipeline.segments import MAX_SEGMENTS, is_quiet
from etl.read import file_sha256

INDEX_NAME = "index.json"
# The parse cache holds the rows unredacted: its directory is made for its owner alone (and
# the staging writes its files under umask 077: private_files).
CACHE_MODE = 0o700
PRIVATE_UMASK = 0o077


def cache_root_for(db: Path) -> Path:
    return db.with_name(db.name + ".cache")


def make_cache_root(cache_root: Path) -> None:
    """Create the cache directory for its owner alone; an existing one this tool made (it
    holds an index) is made private too, a linked one is left as its owner chose."""
    cache_root.mkdir(mode=CACHE_MODE, parents=True, exist_ok=True)
    if cache_root.is_symlink() or not (cache_root / INDEX_NAME).exists():
        return
    try:
        if cache_root.stat().st_mode & 0o077:
            cache_root.chmod(CACHE_MODE)
    except OSError:
        pass


@contextmanager
def private_files() -> Iterator[None]:
    """Files and directories made inside (also by the parse workers started inside, which
    inherit the umask) are readable by their owner only."""
    previous = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(previous)


def read_index(cache_root: Path) -> dict[str, Any]:
    """The cache index, or {} when there is none or it is not one this tool wrote."""
    return load_index(cache_root)[0]


def load_index(cache_root: Path) -> tuple[dict[str, Any], str | None]:
    """(the cache index, None), or ({}, why it cannot be used) for an index that cannot be
    read or has a shape this tool never wrote; a missing index is ({}, None)."""
    path = cache_root / INDEX_NAME
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, f"cannot be read ({exc.strerror or exc})"
    except orjson.JSONDecodeError:
        return {}, "not JSON"
    problem = index_problem(data)
    return ({}, problem) if problem else (data, None)


def write_index(cache_root: Path, index: dict[str, Any]) -> None:
    """Replace the index atomically; the temporary file goes whatever happens (a disk that
    fills, an index path that is a directory)."""
    tmp = cache_root / f"{INDEX_TEMP_PREFIX}{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(orjson.dumps(index, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        os.replace(tmp, cache_root / INDEX_NAME)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


INDEX_TEMP_PREFIX = f".{INDEX_NAME}."


def forget_index(cache_root: Path) -> None:
    """Remove an index that no longer describes the published database (one that is no
    file is unusable anyway: load_index says so)."""
    path = cache_root / INDEX_NAME
    try:
        if path.is_symlink() or path.is_file():
            path.unlink()
    except OSError:
        pass


# ---- the shape of the index: anything else is rebuilt, never a traceback -------------------
_ENTRY_FIELDS: dict[str, tuple[type, ...]] = {
    "path": (str,), "size": (int,), "mtime_ns": (int,), "kind": (str,),
    "keep_images": (bool,), "parser": (str,), "cache_dir": (str,),
    "sha256": (str, type(None)), "skip_hash": (str, type(None))}
_HISTORY_FIELDS: dict[str, tuple[type, ...]] = {
    "ingest_id": (str,), "started_at": (str, type(None)), "finished_at": (str, type(None)),
    "root": (str, type(None)), "n_files": (int, type(None)), "n_results": (int, type(None)),
    "n_rejects": (int, type(None)), "n_parsed_files": (int, type(None)),
    "tool_version": (str, type(None)), "options": (str, type(None))}
_INT64 = 2**63


def index_problem(data: Any) -> str | None:
    """What is wrong with the shape of a cache index, or None: every value the ingest reads
    from it has the type index_entry, the history and loaded_record give it."""
    if not isinstance(data, dict):
        return "not a JSON object"
    checks = (("files", dict, _files_problem), ("ingests", list, _history_problem),
              ("last", dict, _signature_problem), ("published", list, _published_problem),
              ("loaded", dict, _loaded_problem))
    for key, kind, check in checks:
        if key not in data:
            continue
        if not isinstance(data[key], kind):
            return f"{key} is not a JSON {'object' if kind is dict else 'array'}"
        problem = check(data[key])
        if problem:
            return f"{key}: {problem}"
    return None


def _typed(value: Any, types: tuple[type, ...]) -> bool:
    """isinstance, where a JSON true is no integer and an integer fits 64 bits."""
    if isinstance(value, bool):
        return bool in types
    if isinstance(value, int):
        return int in types and -_INT64 <= value < _INT64
    return isinstance(value, types)


def _fields_problem(record: Any, fields: dict[str, tuple[type, ...]], required: set[str]
                    ) -> str | None:
    if not isinstance(record, dict):
        return "not an object"
    for name in required - record.keys():
        return f"no {name}"
    for name, value in record.items():
        if name in fields and not _typed(value, fields[name]):
            return f"{name} has the wrong type"
    return None


def _plain_name(name: Any) -> bool:
    """A directory name inside the cache: no separator, not . or .."""
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name
            and "\0" not in name)


def _files_problem(files: dict[str, Any]) -> str | None:
    for file_id, entry in files.items():
        problem = _fields_problem(entry, _ENTRY_FIELDS, set(_ENTRY_FIELDS))
        if problem is None and not _plain_name(entry["cache_dir"]):
            problem = "cache_dir is not a directory name"
        if problem:
            return f"{file_id}: {problem}"
    return None


def _history_problem(rows: list[Any]) -> str | None:
    seen: set[str] = set()
    for i, row in enumerate(rows):
        problem = _fields_problem(row, _HISTORY_FIELDS, {"ingest_id"})
        if problem is None and (set(row) - set(_HISTORY_FIELDS)):
            problem = f"unknown column {sorted(set(row) - set(_HISTORY_FIELDS))[0]}"
        if problem is None and row["ingest_id"] in seen:
            problem = "ingest_id twice"
        for key in ("started_at", "finished_at"):
            if problem is None and isinstance(row.get(key), str):
                try:
                    dt.datetime.fromisoformat(row[key])
                except ValueError:
                    problem = f"{key} is not a time"
        if problem:
            return f"[{i}]: {problem}"
        seen.add(row["ingest_id"])
    return None


def _signature_problem(signature: dict[str, Any]) -> str | None:
    fingerprint = signature.get("redact_key")
    if fingerprint is not None and key_salt(fingerprint) is None:
        return "redact_key is not a key fingerprint"
    return None


def _published_problem(published: list[Any]) -> str | None:
    if len(published) != 3 or not all(_typed(v, (int,)) for v in published):
        return "not three integers"
    return None


def _loaded_problem(loaded: dict[str, Any]) -> str | None:
    problem = _signature_problem(loaded)
    if problem:
        return problem
    if "free_fraction" in loaded and not _typed(loaded["free_fraction"], (int, float)):
        return "free_fraction is not a number"
    files = loaded.get("files", {})
    if not isinstance(files, dict):
        return "files is not an object"
    for file_id, record in files.items():
        problem = _fields_problem(record, {"run_id": (str, type(None)), "parts": (list,)},
                                  {"run_id", "parts"})
        if problem is None and not all(_plain_name(p) for p in record["parts"]):
            problem = "parts are not directory names"
        if problem:
            return f"files.{file_id}: {problem}"
    return None


# ---- the fingerprint of the redaction key --------------------------------------------------
# What the index keeps of the key, to know a database was built with the same one: a
# salted, iterated HMAC-SHA-256 (PBKDF2) under a random salt kept beside it, so the index
# does not hand out a hash that a short key can be looked up or guessed from at SHA-256's
# speed. Computed once per --redact ingest.
KEY_DERIVATION = "pbkdf2_sha256"
KEY_ITERATIONS = 200_000
KEY_SALT_BYTES = 16


def key_fingerprint(key: str | None, salt: str | None) -> dict[str, Any] | None:
    """The fingerprint of the redaction key (None without a key), under salt (hex; a new
    random one when None)."""
    if not key:
        return None
    salt = salt or secrets.token_hex(KEY_SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha256", key.encode("utf-8", "surrogatepass"),
                                 bytes.fromhex(salt), KEY_ITERATIONS).hex()
    return {"kdf": KEY_DERIVATION, "iterations": KEY_ITERATIONS, "salt": salt,
            "digest": digest}


def key_salt(fingerprint: Any) -> str | None:
    """The salt of a fingerprint key_fingerprint made (None for anything else)."""
    if not isinstance(fingerprint, dict):
        return None
    salt = fingerprint.get("salt")
    if (fingerprint.get("kdf") != KEY_DERIVATION or not isinstance(salt, str)
            or not re.fullmatch(r"[0-9a-f]{2,128}", salt) or len(salt) % 2):
        return None
    return salt


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


def prune_cache(cache_root: Path, keep: set[str | None], named_before: set[str]) -> list[str]:
    """Delete what this tool made in the cache and no longer needs: entries not in keep
    that carry ENTRY_MARKER or that the previous index named (entries written before the
    marker existed), staging directories of dead workers (empty ones too: killed before
    the marker), index files half written by dead ingests. Anything else is left alone:
    returns the names of what was (the cache may be a link to a scratch directory holding
    other things)."""
    left_alone = []
    for path in sorted(cache_root.iterdir()):
        name = path.name
        if name in keep or name == INDEX_NAME:
            continue
        if name.startswith(INDEX_TEMP_PREFIX) and not path.is_symlink() and path.is_file():
            pid = name[len(INDEX_TEMP_PREFIX):]
            if pid.isdigit() and (int(pid) == os.getpid() or not alive(int(pid))):
                path.unlink(missing_ok=True)
                continue
        if path.is_symlink() or not path.is_dir():
            left_alone.append(name)
            continue
        pid = name.rsplit("-", 1)[-1] if name.startswith(".tmp-") else ""
        live = pid.isdigit() and int(pid) != os.getpid() and alive(int(pid))
        if pid.isdigit() and not live and _empty(path):
            # A worker killed between making its staging directory and marking it: rmdir
            # removes nothing but an empty directory.
            _rmdir(path)
            continue
        if not (name in named_before or (path / ENTRY_MARKER).is_file()):
            left_alone.append(name)
            continue
        if live:
            continue  # a live worker of another process
        shutil.rmtree(path, ignore_errors=True)
    return left_alone


def _empty(directory: Path) -> bool:
    try:
        return not any(os.scandir(directory))
    except OSError:
        return False


def _rmdir(directory: Path) -> None:
    try:
        directory.rmdir()
    except OSError:
        pass


def named_by(index: dict[str, Any]) -> set[str]:
    """The cache directories an index names (its files' entries and the parts loaded)."""
    names = {entry["cache_dir"] for entry in index.get("files", {}).values()}
    for record in index.get("loaded", {}).get("files", {}).values():
        names.update(record["parts"])
    return names


def forget_damaged_entry(cache_root: Path, index: dict[str, Any], error: str) -> str | None:
    """When error (a failed load) names a file of the parse cache this tool made (DuckDB
    names a truncated Parquet file it cannot read), remove that entry and the index's
    record of its file, so the next ingest parses the file again instead of failing the
    same way until --full. Returns the entry's name, or None when error names none."""
    found = re.search(re.escape(str(cache_root)) + r"/([^/'\"]+)/[^/'\"]+", error)
    if found is None:
        return None
    name = found.group(1)
    entry = cache_root / name
    if entry.is_symlink() or not entry.is_dir() or not (
            name in named_by(index) or (entry / ENTRY_MARKER).is_file()):
        return None
    file_id = name.split("-", 1)[0]
    files = {fid: e for fid, e in index.get("files", {}).items() if fid != file_id}
    try:
        write_index(cache_root, {**{k: v for k, v in index.items() if k != "last"},
                                 "files": files})
    except OSError:
        return None
    shutil.rmtree(entry, ignore_errors=True)
    return name


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
