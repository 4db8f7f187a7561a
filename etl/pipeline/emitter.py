"""Staged rows: the emitter that writes one file's rows as Parquet into its cache directory,
and the record of what a staging produced (StageResult, kept as the directory's stats.json).

Each staged file (or segment of a growing file) lives in its own cache directory
`<cache>/<file_id>-<sha16>-<parser>-<options>-<skip>[-<n>]/` holding one `<table>.parquet`
per table it produced and `stats.json`. Memory stays bounded: rows are flushed to Parquet in
batches (by row count and by approximate bytes)."""

from __future__ import annotations

import os
import shutil
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from etl.extract import FileInfo, load_all
from etl.read import EXCERPT_CHARS
from etl.schema import staged_schema

FLUSH_ROWS = 20_000
FLUSH_BYTES = 8 << 20
FILL_FROM_FILE = ("run_id", "file_id", "benchmark", "mode", "split", "model")
# The column whose text dominates a table's row size, to bound a batch's memory.
SIZE_COLUMN = {"messages": "content", "tool_calls": "arguments", "images": "data",
               "results": "question", "rejects": "excerpt"}
# The cache is read once per ingest on the same machine: fast beats small.
CACHE_COMPRESSION = "lz4"
SKIP_KEYS_FILE = "skip_keys.json"
# In every cache directory this tool makes: what prune_cache may delete.
ENTRY_MARKER = ".etl-cache-entry"


@dataclass(slots=True)
class StageResult:
    file_id: str
    cache_dir: str | None
    sha256: str | None
    n_lines: int | None
    n_rows: int
    n_rejected: int
    n_repaired: int
    tables: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    parsed: bool = True  # False when this ingest reused the cache
    ingest_id: str | None = None  # the ingest that parsed it
    skip_hash: str | None = None  # names the preferred copies it was staged against (cache.py)
    # An unterminated last line held back because a writer may still be on it (1 or 0).
    n_in_progress: int = 0
    # The cache directories of a file staged in segments (etl/segments.py), in file order:
    # [{"cache_dir", "tables", "n_rejected", "n_repaired", "tail"}]; empty: just cache_dir.
    segments: list[dict[str, Any]] = field(default_factory=list)
    # Where the next segment of a growing file starts (etl/segments.py); None: not resumable.
    resume: dict[str, Any] | None = None

    def parts(self) -> list[dict[str, Any]]:
        """The cache directories holding this file's rows, in file order."""
        return self.segments or [{"cache_dir": self.cache_dir, "tables": self.tables}]

    def parquet_files(self, cache_root: Path, table: str) -> list[Path]:
        """Every staged Parquet file of one table of this file."""
        return [cache_root / part["cache_dir"] / f"{table}.parquet" for part in self.parts()
                if part["cache_dir"] and part["tables"].get(table)]

    def cache_dirs(self) -> set[str]:
        return {part["cache_dir"] for part in self.parts() if part["cache_dir"]} | (
            {self.cache_dir} if self.cache_dir else set())


class ParquetEmitter:
    """Collects rows per table and writes them to Parquet in bounded batches.

    Each row's values are appended to per-column lists as the row arrives, while its dict
    is still in the CPU cache, and a batch becomes Arrow in one from_pydict call. Sampled
    on the bench tree: transposing buffered row dicts afterwards (per column over every
    row) cost 18% of a worker's CPU in cache misses, and from_pylist more."""

    def __init__(self, info: FileInfo, out_dir: Path, ingest_id: str) -> None:
        self.info = info
        self.out_dir = out_dir
        self.ingest_id = ingest_id
        self.columns: dict[str, dict[str, list[Any]]] = {}  # table -> column -> values
        self.n_buffered: dict[str, int] = {}
        self.buffer_bytes: dict[str, int] = {}
        self.writers: dict[str, pq.ParquetWriter] = {}
        self.counts: dict[str, int] = {}
        self.n_rejected = 0
        self.n_repaired = 0
        self.n_lines: int | None = None
        self.sha256: str | None = None
        self._fill = {k: getattr(info, k) for k in FILL_FROM_FILE}
        self._schemas: dict[str, pa.Schema] = {}
        # rec_no -> line_no, so a repair of a child row (messages carry only rec_no) can
        # name the line it came from.
        self._line_of_rec: dict[int, int] = {}

    def _start_table(self, table: str) -> dict[str, list[Any]]:
        schema = self._schemas[table] = staged_schema(table)
        self.columns[table] = {name: [] for name in schema.names}
        self.n_buffered[table] = 0
        self.buffer_bytes[table] = 0
        self.counts[table] = 0
        return self.columns[table]

    def row(self, table: str, row: dict[str, Any]) -> None:
        columns = self.columns.get(table)
        if columns is None:
            columns = self._start_table(table)
        n = self.n_buffered[table]
        for name, value in row.items():
            column = columns.get(name)
            if column is None:  # a bug in an extractor
                raise KeyError(f"table {table} has no column {name!r}")
            if len(column) < n:  # columns earlier rows of this batch left out
                column.extend([None] * (n - len(column)))
            column.append(value)
        self.n_buffered[table] = n = n + 1
        self.counts[table] += 1
        line_no = row.get("line_no")
        if line_no is not None and table != "rejects":
            self._line_of_rec[row.get("rec_no")] = line_no
        big = row.get(SIZE_COLUMN.get(table, ""))
        if big is not None:
            self.buffer_bytes[table] += len(big)
        if n >= FLUSH_ROWS or self.buffer_bytes[table] >= FLUSH_BYTES:
            self._flush(table)

    def reject(self, line_no: int | None, severity: str, error: str,
               excerpt: str | None = None) -> None:
        if severity == "repaired":
            self.n_repaired += 1
        else:
            self.n_rejected += 1
        if self.info.outside:  # a file linked in from outside the tree: never quoted
            excerpt = None
        self.row("rejects", {"path": self.info.path, "line_no": line_no, "severity": severity,
                             "error": error, "excerpt": excerpt, "ingest_id": self.ingest_id})

    def file_stats(self, n_lines: int | None = None, sha256: str | None = None) -> None:
        if n_lines is not None:
            self.n_lines = n_lines
        if sha256 is not None:
            self.sha256 = sha256

    def _flush(self, table: str) -> None:
        n = self.n_buffered.get(table)
        if not n:
            return
        schema = self._schemas[table]
        columns = self.columns[table]
        for column in columns.values():
            if len(column) < n:
                column.extend([None] * (n - len(column)))
        self.columns[table] = {name: [] for name in schema.names}
        self.n_buffered[table] = 0
        batch = self._to_arrow(table, columns, schema)
        for name, value in self._fill.items():
            index = schema.get_field_index(name)
            if index >= 0 and value is not None and batch.column(index).null_count:
                batch = batch.set_column(index, schema.field(index),
                                         pc.fill_null(batch.column(index), value))
        writer = self.writers.get(table)
        if writer is None:
            writer = self.writers[table] = pq.ParquetWriter(
                self.out_dir / f"{table}.parquet", schema, compression=CACHE_COMPRESSION)
        writer.write_table(batch)
        self.buffer_bytes[table] = 0

    def _to_arrow(self, table: str, columns: dict[str, list[Any]], schema: pa.Schema
                  ) -> pa.Table:
        """The batch as Arrow. A value the column cannot hold (an integer beyond INTEGER, a
        string with a lone surrogate, a wrong type an extractor let through) must cost
        neither the batch nor its record: the batch is converted row by row, and each value
        that fails becomes NULL (text: U+FFFD for what UTF-8 cannot encode) with a
        `repaired` reject holding the original as text."""
        try:
            return pa.Table.from_pydict(columns, schema=schema)
        except (pa.ArrowException, OverflowError, TypeError, ValueError):
            pass
        rows = [dict(zip(columns, values, strict=True))
                for values in zip(*columns.values(), strict=True)]
        fixed = []
        for row in rows:
            try:
                pa.Table.from_pylist([row], schema=schema)
            except (pa.ArrowException, OverflowError, TypeError, ValueError):
                row = self._repair_row(table, row, schema)
            fixed.append(row)
        return pa.Table.from_pylist(fixed, schema=schema)

    def _repair_row(self, table: str, row: dict[str, Any], schema: pa.Schema
                    ) -> dict[str, Any]:
        row = dict(row)
        for column, value in list(row.items()):
            index = schema.get_field_index(column)
            if index < 0 or value is None:
                continue
            typ = schema.field(index).type
            if _storable(value, typ):
                continue
            repaired: Any = None
            if isinstance(value, str):
                repaired = value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
                if not _storable(repaired, typ):
                    repaired = None
            row[column] = repaired
            if table == "rejects":  # the reject itself: repairing it is all there is to do
                continue
            how = "stored with U+FFFD" if repaired is not None else "loaded as NULL"
            line_no = self._line_of_rec.get(row.get("rec_no"), row.get("line_no"))
            self.reject(line_no, "repaired",
                        f"{table}.{column}: {type(value).__name__} value cannot be stored "
                        f"as {typ}; {how}", ascii(value)[:EXCERPT_CHARS])
        return row

    def close(self) -> None:
        # rejects last: flushing another table may repair a value and add a reject.
        for table in sorted(self.columns, key=lambda name: name == "rejects"):
            self._flush(table)
        if self.n_buffered.get("rejects"):
            self._flush("rejects")
        for writer in self.writers.values():
            writer.close()


def _storable(value: Any, typ: pa.DataType) -> bool:
    try:
        pa.array([value], type=typ)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        return False
    return True


def new_entry_dir(tmp: Path) -> None:
    """A fresh staging directory (this process's own name), marked as made by this tool:
    the ingest deletes nothing else in the cache (etl/pipeline/cache.py prune_cache)."""
    if tmp.is_symlink():
        tmp.unlink()
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / ENTRY_MARKER).touch()


def extract_into(info: FileInfo, tmp: Path, ingest_id: str) -> ParquetEmitter:
    """Run the file's extractor into the fresh directory tmp; its rows end up there as
    Parquet, the emitter keeps the counts."""
    extractor = load_all().get(info.kind)
    new_entry_dir(tmp)
    emitter = ParquetEmitter(info, tmp, ingest_id)
    try:
        if extractor is not None:
            extractor(info, emitter)
    except Exception as exc:  # noqa: BLE001 - a reject, never a crash of the whole ingest
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        emitter.reject(None, "error", f"extractor {info.kind} failed: {type(exc).__name__}: "
                       f"{exc} (at {Path(frame.filename).name}:{frame.lineno})")
    emitter.close()
    return emitter


def write_stats(tmp: Path, result: StageResult,
                skip_keys: frozenset[tuple[str, int]] | None = None) -> None:
    """stats.json (and, for a secondary copy, the keys it was staged against) into the
    staging directory: the directory is a cache entry once stats.json is there."""
    if skip_keys:
        (tmp / SKIP_KEYS_FILE).write_bytes(orjson.dumps(sorted(skip_keys)))
    (tmp / "stats.json").write_bytes(orjson.dumps(result_to_json(result)))


def cache_dir_name(file_id: str, sha: str, parser: str, keep_images: bool,
                   skip_hash: str | None) -> str:
    """A staged file's cache directory: named by what decides its rows (the file's content,
    the parser, --keep-images and the preferred copies it was staged against)."""
    images = "i" if keep_images else "n"
    return f"{file_id}-{sha[:16]}-{parser}-{images}-{(skip_hash or 'all')[:12]}"


def publish_dir(tmp: Path, final: Path) -> None:
    """Put the staged directory tmp in place as final. An entry already there (staged again
    by --full) is moved aside first and removed after: removed first, a Ctrl-C during the
    removal left the file with no entry at all, to be parsed again by the next ingest."""
    if not final.exists():
        os.replace(tmp, final)
        return
    old = final.with_name(f".tmp-{final.name}-old-{os.getpid()}")
    shutil.rmtree(old, ignore_errors=True)
    os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def primary_rows(kind: str, counts: dict[str, int]) -> int:
    """Records a file yielded: results for result files (their messages, tool calls and
    scores are children), otherwise every row but rejects."""
    if "results" in counts or kind.startswith("results"):
        return counts.get("results", 0)
    return sum(n for table, n in counts.items() if table != "rejects")


def result_to_json(result: StageResult) -> dict[str, Any]:
    return {
        "file_id": result.file_id, "cache_dir": result.cache_dir, "sha256": result.sha256,
        "n_lines": result.n_lines, "n_rows": result.n_rows, "n_rejected": result.n_rejected,
        "n_repaired": result.n_repaired, "tables": result.tables, "seconds": result.seconds,
        "ingest_id": result.ingest_id, "skip_hash": result.skip_hash,
        "n_in_progress": result.n_in_progress, "segments": result.segments,
        "resume": result.resume,
    }


def result_from_json(data: dict[str, Any]) -> StageResult:
    return StageResult(
        file_id=data["file_id"], cache_dir=data["cache_dir"], sha256=data["sha256"],
        n_lines=data["n_lines"], n_rows=data["n_rows"], n_rejected=data["n_rejected"],
        n_repaired=data["n_repaired"], tables=data["tables"], seconds=data["seconds"],
        parsed=False, ingest_id=data.get("ingest_id"), skip_hash=data.get("skip_hash"),
        n_in_progress=data.get("n_in_progress", 0), segments=data.get("segments") or [],
        resume=data.get("resume"))


