"""Load stage: build a NEW DuckDB file from the staged Parquet of every file.

The database is written with storage compatibility for DuckDB 1.5 clients (Metabase,
DBeaver and duckdb-engine bundle 1.x). Deduplication of result copies happens here, in SQL
(sql/load/), so the rule is in one place and runs inside DuckDB's parallel engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from etl.discover import RESULT_KINDS, Discovery
from etl.extract import FileInfo
from etl.interrupts import stop_if_ctrl_c
from etl.models import DISPLAY_NAMES, alias_table
from etl.redact import Redactions
from etl.schema import STAGING_EXTRAS, arrow_schemas, create_schema, load_sql
from etl.stage import StageResult

STORAGE_VERSION = "v1.5.0"
RESULT_CHILDREN = ("messages", "tool_calls", "images", "question_scores")


# The insert of the trajectory text holds its long strings uncompressed until the
# checkpoint; below about 700 MB DuckDB spills them to disk and back, which doubled the
# messages insert on the bench tree (measured: 400 MB 10-19 s, 1 GB 7.6 s, 1.5 GB 5 s).
# 700 MB keeps the ingest's whole process tree under 1 GB (the workers have exited by then).
LOAD_MEMORY_LIMIT = "700MB"


def connect_new(path: Path, memory_limit: str = LOAD_MEMORY_LIMIT, threads: int = 2
                ) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path), config={
        "storage_compatibility_version": STORAGE_VERSION,
        "memory_limit": memory_limit,
        "threads": threads,
        "preserve_insertion_order": True,
    })
    con.execute("SET enable_progress_bar = false")  # it would write to our stdout
    return con


def _select_for(table: str, redactions: Redactions | None = None,
                exclude: tuple[str, ...] = ()) -> str:
    """The staged columns that belong to the table (all of them but the staging extras the
    table lacks), with redacted columns replaced by their redaction expression. Built from
    identifiers of schema/ and expressions of sql/redact/, never from values in the data."""
    own = set(arrow_schemas()[table].names)
    extras = [name for name in STAGING_EXTRAS if name not in own] + list(exclude)
    select = f"s.* EXCLUDE ({', '.join(extras)})" if extras else "s.*"
    replace = (redactions or {}).get(table)
    if replace:
        select += " REPLACE (" + ", ".join(f"{expr} AS {col}"
                                            for col, expr in replace.items()) + ")"
    return select


def in_transaction(con: duckdb.DuckDBPyConnection,
                   step: Callable[[duckdb.DuckDBPyConnection], None]) -> None:
    """Run step's statements as one transaction (rolled back if it raises). A Ctrl-C that a
    query before swallowed stops the load here."""
    stop_if_ctrl_c()
    con.execute("BEGIN TRANSACTION")
    try:
        step(con)
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]
                 ) -> None:
    if not rows:
        return
    schema = arrow_schemas()[table]
    data = {name: [row.get(name) for row in rows] for name in schema.names}
    con.register("_etl_batch", pa.Table.from_pydict(data, schema=schema))
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _etl_batch")
    finally:
        con.unregister("_etl_batch")


def build_database(con: duckdb.DuckDBPyConnection, disc: Discovery,
                   staged: dict[str, StageResult], cache_root: Path, ingest: dict[str, Any],
                   history: list[dict[str, Any]], post_load: Iterable[Callable] = (),
                   redactions: Redactions | None = None) -> None:
    """Create the schema and fill every table from discover + staged Parquet. With
    redactions (see etl/redact.py), redacted columns are replaced as they are loaded."""
    # DDL and each post-load step in one transaction: statement by statement, every
    # COMMENT ON commits on its own, and the schema alone took 0.7-1.3 s instead of 0.2 s.
    in_transaction(con, create_schema)
    files_by_id = {f.file_id: f for f in disc.files}

    con.execute("CREATE TEMP TABLE stage_files (file_id VARCHAR, path VARCHAR, "
                "kind VARCHAR, copy_rank INTEGER)")
    con.executemany("INSERT INTO stage_files VALUES (?, ?, ?, ?)",
                    [(f.file_id, f.path, f.kind, f.copy_rank or 99) for f in disc.files])

    _insert_rows(con, "files", [_file_row(f, staged.get(f.file_id), ingest["ingest_id"])
                                for f in disc.files])
    _insert_rows(con, "runs", [_run_row(r) for r in disc.runs.values()])
    _insert_rows(con, "models", [{"model": k, "display_name": v}
                                 for k, v in DISPLAY_NAMES.items()])
    aliases = alias_table()
    for run in disc.runs.values():
        if run.model_dir and run.model:
            aliases.setdefault(run.model_dir.lower(), run.model)
    _insert_rows(con, "model_aliases", [{"alias": a, "model": m}
                                        for a, m in sorted(aliases.items())])

    def parquet(table: str, kinds: frozenset[str] | None = None,
                exclude: frozenset[str] = frozenset()) -> list[str]:
        out = []
        for file_id, result in sorted(staged.items()):
            kind = files_by_id[file_id].kind
            if (kinds is not None and kind not in kinds) or kind in exclude:
                continue
            # every segment of a file that grew by appending (etl/segments.py)
            out.extend(str(path) for path in result.parquet_files(cache_root, table))
        return out

    result_files = parquet("results", RESULT_KINDS)
    con.execute(load_sql("result_copies.sql") if result_files else
                "CREATE TEMP TABLE result_copies (file_id VARCHAR, rec_no BIGINT, "
                "pick BIGINT, n_copies BIGINT)", {"files": result_files} if result_files
                else None)
    if result_files:
        con.execute(load_sql("results.sql").format(
            select=_select_for("results", redactions, exclude=("n_copies", "error_kind")),
            error_kind=load_sql("error_kind.sql").strip()),
            {"files": result_files})
    # The child inserts write each byte once (measured, docs/PERFORMANCE.md "Database
    # size"): one thread each, since a parallel insert leaves a partial row group where a
    # thread's run of input ends, which the next checkpoint merges and writes again, leaving
    # the first copy as free blocks in the file (11% of it on the long-tools bench tree, a
    # different amount on every build). The long text columns are declared ZSTD in schema/;
    # every other column gets DuckDB's own choice (forcing ZSTD on the short strings of ids,
    # tool names and scores took 2-3x more space).
    threads = int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])
    con.execute("SET threads = 1")
    # One INSERT per table, every file through the join against result_copies: loading the
    # files without a losing copy without the join made the insert faster but left 8 s of
    # compression to the checkpoint.
    for table in RESULT_CHILDREN:
        files = parquet(table, RESULT_KINDS)
        if files:
            con.execute(load_sql("children.sql").format(table=table,
                                                        select=_select_for(table, redactions)),
                        {"files": files})
    con.execute("CHECKPOINT")
    con.execute(f"SET threads = {threads:d}")
    score_files = parquet("question_scores", exclude=RESULT_KINDS)
    if score_files:
        select = _select_for("question_scores", redactions)
        con.execute(load_sql("scores.sql").format(select=select), {"files": score_files})
        con.execute(load_sql("score_duplicates.sql"), {"files": score_files})
    handled = {"results", *RESULT_CHILDREN, "files", "runs", "models", "model_aliases",
               "ingests"}
    for table in arrow_schemas():
        if table in handled:
            continue
        files = parquet(table)
        if files:
            select = _select_for(table, redactions)
            con.execute(load_sql("plain.sql").format(table=table, select=select),
                        {"files": files})
    con.execute(load_sql("finish.sql"))
    for problem in disc.problems:
        con.execute("INSERT INTO rejects (file_id, path, line_no, severity, error, excerpt, "
                    "ingest_id) VALUES (NULL, ?, NULL, ?, ?, NULL, ?)",
                    [problem.path, problem.severity, problem.error, ingest["ingest_id"]])
    for hook in post_load:
        in_transaction(con, hook)
    counts = con.execute("SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM "
                         "rejects)").fetchall()[0]
    ingest["n_results"], ingest["n_rejects"] = counts
    _insert_rows(con, "ingests", [*history, ingest])


def _file_row(info: FileInfo, result: StageResult | None, ingest_id: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "file_id": info.file_id, "run_id": info.run_id, "path": info.path,
        "real_path": info.real_path, "kind": info.kind, "size_bytes": info.size_bytes,
        "mtime_ns": info.mtime_ns, "copy_rank": info.copy_rank, "loaded": result is not None,
        "n_duplicates": 0 if result is not None else None,
    }
    if result is not None:
        row.update(sha256=result.sha256, n_lines=result.n_lines, n_rows=result.n_rows,
                   n_rejected=result.n_rejected, n_repaired=result.n_repaired,
                   n_in_progress=result.n_in_progress,
                   ingest_id=result.ingest_id or ingest_id)
    return row


def _run_row(run: Any) -> dict[str, Any]:
    return {
        "run_id": run.run_id, "benchmark": run.benchmark, "mode": run.mode,
        "split": run.split, "model": run.model, "is_archived": run.is_archived,
        "archive_name": run.archive_name, "path": run.path, "real_path": run.real_path,
        "n_results": 0, "expected_questions": run.expected_questions,
        "model_dir": run.model_dir, "n_files": run.n_files,
    }


def options_json(options: dict[str, Any]) -> str:
    return orjson.dumps(options, option=orjson.OPT_SORT_KEYS).decode()
