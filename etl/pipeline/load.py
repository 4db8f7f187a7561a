"""Load stage: bring a DuckDB file up to date with the staged Parquet of every file.

A cold build starts from an empty file; an incremental one from a copy of the published
database, and replaces only the rows of the files that changed (see LoadPlan). Both run the
same statements: a cold build is an incremental one where every file is new and no row was
loaded before, so `--full` and an incremental ingest cannot drift apart.

The database is written with storage compatibility for DuckDB 1.5 clients (Metabase,
DBeaver and duckdb-engine bundle 1.x). Deduplication of result copies happens here, in SQL
(sql/load/), so the rule is in one place and runs inside DuckDB's parallel engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from etl.extract import FileInfo
from etl.models import DISPLAY_NAMES, alias_table
from etl.pipeline.copies import RESULT_KINDS
from etl.pipeline.discover import Discovery
from etl.pipeline.emitter import StageResult
from etl.pipeline.interrupts import crash_point, stop_if_ctrl_c
from etl.pipeline.memory import VECTOR_ROWS, LoadSteps, default_memory_limit
from etl.redact import Redactions
from etl.rows import insert_rows
from etl.schema import STAGING_EXTRAS, arrow_schemas, create_schema, load_sql

STORAGE_VERSION = "v1.5.0"
RESULT_CHILDREN = ("messages", "tool_calls", "images", "question_scores", "call_failures",
                   "result_checks", "token_usage")
# Tables filled from the discovery and the code, not from staged rows: rewritten whole on
# every load (they are small).
CATALOG_TABLES = ("files", "runs", "models", "model_aliases", "ingests")


@dataclass
class LoadPlan:
    """Which rows a load replaces.

    - `parts[file_id]`: the cache directories whose rows are inserted: every part of a new or
      re-staged file, only the new segments of a file that grew (etl/pipeline/segments.py).
    - `dropped`: files whose loaded rows are deleted first: re-staged (rewritten, truncated,
      staged against other preferred copies), deleted, or no longer loadable.
    - `runs`: the runs whose results are re-ranked and whose derived rows (best@k, paired
      comparisons, ...) are recomputed: the runs of every file in parts or dropped.
    - `full`: a cold build into an empty file (the schema is created, the views applied);
      `reason` says why (None for an update of the published database).
    """

    full: bool
    reason: str | None = None
    parts: dict[str, list[str]] = field(default_factory=dict)
    dropped: set[str] = field(default_factory=set)
    runs: set[str] = field(default_factory=set)


# An update rewrites the row groups it appends to or deletes from, and DuckDB reuses the
# blocks it frees but never gives them back: a file updated many times holds free space.
# Measured on a 1 GB bench tree, appending a record per ingest: the file settles at about a
# quarter free. Past half free, the next ingest builds a fresh (compact) file instead.
COMPACT_AT = 0.5

# What must be equal between the published database and this ingest for the database to be
# updated in place of rebuilt: the code and SQL (schema, views, load SQL, the package), the
# parser, the content options (--keep-images, --redact) and the redaction key.
SAME_FOR_INCREMENTAL = {"sql": "the code or SQL changed", "parser": "the parser changed",
                        "options": "--keep-images or --redact changed",
                        "redact_key": "the redaction key changed"}


def part_dirs(result: StageResult) -> list[str]:
    return [part["cache_dir"] for part in result.parts() if part["cache_dir"]]


def loaded_record(signature: dict[str, Any], loadable: list[FileInfo],
                  staged: dict[str, StageResult], free_fraction: float) -> dict[str, Any]:
    """What a published database holds, for the cache index: the signature it was built
    under, the fraction of its file that is free space, and per file its run and the cache
    directories (parts) whose rows it loaded."""
    run_of = {f.file_id: f.run_id for f in loadable}
    return {**{key: signature[key] for key in SAME_FOR_INCREMENTAL},
            "free_fraction": free_fraction,
            "files": {fid: {"run_id": run_of.get(fid), "parts": part_dirs(res)}
                      for fid, res in staged.items()}}


def plan_load(loaded: dict[str, Any] | None, published_is_ours: bool,
              signature: dict[str, Any], db: Path, loadable: list[FileInfo],
              staged: dict[str, StageResult], full: bool) -> LoadPlan:
    """Which rows the load replaces. `loaded` is the index's record of the published
    database (loaded_record), trusted when `published_is_ours` (the file is still the one
    this tool published)."""
    run_of = {f.file_id: f.run_id for f in loadable}
    current = {fid: part_dirs(res) for fid, res in staged.items()}
    reason = None
    if full:
        reason = "--full"
    elif loaded is None or not db.exists():
        reason = "no database to update"
    elif not published_is_ours:
        reason = f"{db.name} is not the file the last ingest published"
    elif loaded.get("free_fraction", 0.0) > COMPACT_AT:
        reason = (f"compacting: {loaded['free_fraction']:.0%} of {db.name} is space freed "
                  "by earlier updates")
    else:
        reason = next((why for key, why in SAME_FOR_INCREMENTAL.items()
                       if loaded.get(key) != signature.get(key)), None)
    if reason is not None:
        return LoadPlan(full=True, reason=reason, parts=current,
                        runs={r for r in run_of.values() if r is not None})
    plan = LoadPlan(full=False)
    before = loaded.get("files", {})
    for fid, dirs in current.items():
        old = before.get(fid)
        same_run = old is not None and old["run_id"] == run_of[fid]
        if same_run and old["parts"] == dirs:
            continue  # the same rows (a touched file, or not changed at all)
        if same_run and dirs[:len(old["parts"])] == old["parts"]:
            plan.parts[fid] = dirs[len(old["parts"]):]  # it grew: only the new segments
        else:
            plan.parts[fid] = dirs
            if old is not None:
                plan.dropped.add(fid)
        plan.runs.add(run_of[fid])
        if old is not None:
            plan.runs.add(old["run_id"])
    for fid, old in before.items():
        if fid not in current:  # deleted, or no longer loadable
            plan.dropped.add(fid)
            plan.runs.add(old["run_id"])
    plan.runs.discard(None)
    return plan


def memory_limit_problem(value: str) -> str | None:
    """Why DuckDB refuses value as a memory limit (its own first line), or None."""
    try:
        duckdb.connect(config={"memory_limit": value}).close()
    except duckdb.Error as exc:
        return str(exc).splitlines()[0]
    return None


def connect_new(path: Path, memory_limit: str | None = None, threads: int = 2
                ) -> duckdb.DuckDBPyConnection:
    """The new database at path, with the load's memory budget (etl/pipeline/memory.py;
    None: the default share of the machine) and its spill directory beside it
    (<path>.tmp, which clean_stale_temps removes if the ingest is killed)."""
    con = duckdb.connect(str(path), config={
        "storage_compatibility_version": STORAGE_VERSION,
        "memory_limit": memory_limit or default_memory_limit(),
        "threads": threads,
        "temp_directory": f"{path}.tmp",
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


class _Parts:
    """The staged Parquet files of the load, by table: which ones to insert from, which
    ones hold every copy of the results of the runs the load re-ranks."""

    def __init__(self, disc: Discovery, staged: dict[str, StageResult], cache_root: Path,
                 plan: LoadPlan) -> None:
        self.cache_root = cache_root
        self.kind = {f.file_id: f.kind for f in disc.files}
        self.run = {f.file_id: f.run_id for f in disc.files}
        self.staged = staged
        self.plan = plan

    def _files(self, table: str, dirs: Iterable[str]) -> list[str]:
        out = []
        for name in dirs:
            path = self.cache_root / name / f"{table}.parquet"
            if path.exists():
                out.append(str(path))
        return out

    def added(self, table: str, result_kinds: bool | None = None) -> list[str]:
        """Parquet of table in the parts this load inserts (result files only, other files
        only, or both)."""
        dirs = []
        for file_id in sorted(self.plan.parts):
            is_result = self.kind.get(file_id) in RESULT_KINDS
            if result_kinds is None or result_kinds == is_result:
                dirs.extend(self.plan.parts[file_id])
        return self._files(table, dirs)

    def of_runs(self, table: str, result_kinds: bool) -> list[str]:
        """Parquet of table in every part of every (result / other) file of the re-ranked
        runs, loaded before or not."""
        dirs = []
        for file_id, result in sorted(self.staged.items()):
            if self.run.get(file_id) not in self.plan.runs:
                continue
            if (self.kind.get(file_id) in RESULT_KINDS) != result_kinds:
                continue
            dirs.extend(part["cache_dir"] for part in result.parts() if part["cache_dir"])
        return self._files(table, dirs)


# The tables whose rows carry long text (what a vector of 2048 rows can weigh).
TEXT_TABLES = ("results", *RESULT_CHILDREN, "rejects")


def heaviest_vector(disc: Discovery, staged: dict[str, StageResult], cache_root: Path,
                    plan: LoadPlan) -> tuple[str | None, int]:
    """(table, bytes) of the heaviest 2048 consecutive rows the load inserts into a table of
    long text (etl/pipeline/memory.py plans the budget from it), from the footers of the
    staged Parquet alone: row groups in insertion order, the rows of a row group taken as
    equally heavy."""
    parts = _Parts(disc, staged, cache_root, plan)
    heaviest: tuple[str | None, int] = (None, 0)
    con = duckdb.connect()
    try:
        for table in TEXT_TABLES:
            files = parts.added(table)
            if not files:
                continue
            groups = con.execute(load_sql("row_group_sizes.sql"), {"files": files}).fetchall()
            order = {path: i for i, path in enumerate(files)}
            groups.sort(key=lambda g: (order.get(g[0], 0), g[1]))
            weight = _heaviest_window([(rows, size) for _, _, rows, size in groups])
            if weight > heaviest[1]:
                heaviest = (table, weight)
    finally:
        con.close()
    return heaviest


def _heaviest_window(groups: list[tuple[int, int]], rows: int = VECTOR_ROWS) -> int:
    """The most bytes any `rows` consecutive rows hold, given (rows, bytes) of consecutive
    groups whose rows are taken as equally heavy (a window starts at a group's first row)."""
    best = 0
    for start in range(len(groups)):
        left, total = rows, 0.0
        for n, size in groups[start:]:
            if n <= 0:
                continue
            take = min(left, n)
            total += size * take / n
            left -= take
            if not left:
                break
        best = max(best, int(total))
    return best


def build_database(con: duckdb.DuckDBPyConnection, disc: Discovery,
                   staged: dict[str, StageResult], cache_root: Path, ingest: dict[str, Any],
                   history: list[dict[str, Any]], plan: LoadPlan,
                   post_load: Iterable[Callable] = (),
                   redactions: Redactions | None = None,
                   steps: LoadSteps | None = None) -> None:
    """Bring con's database up to date: create the schema (cold build), replace the rows of
    the plan's files, re-rank the results of its runs, then run the post-load steps. With
    redactions (see etl/redact.py), redacted columns are replaced as they are loaded.
    `steps` hears which step runs (an out-of-memory error names it)."""
    steps = steps or LoadSteps(str(con.execute(
        "SELECT current_setting('memory_limit')").fetchall()[0][0]))
    if plan.full:
        # DDL in one transaction: statement by statement, every COMMENT ON commits on its
        # own, and the schema alone took 0.7-1.3 s instead of 0.2 s.
        with steps.step("creating the schema"):
            in_transaction(con, create_schema)
    parts = _Parts(disc, staged, cache_root, plan)
    with steps.step("loading the catalog (files, runs, models)"):
        _scope_tables(con, disc, plan)
        in_transaction(con, lambda c: _load_catalog(c, disc, staged, ingest["ingest_id"]))
    with steps.step("loading rejects and the run metadata, summary and score-file tables"):
        in_transaction(con, lambda c: _load_file_tables(c, disc, parts, redactions,
                                                        ingest["ingest_id"]))
    _load_results(con, parts, redactions, steps)
    crash_point("replaced")
    with steps.step("loading the scores of the authors' per-question files"):
        in_transaction(con, lambda c: _load_scores(c, parts, redactions))
    with steps.step("counting duplicates and results per run"):
        con.execute(load_sql("inspect_runs.sql"))  # the runs of Inspect logs take their keys
        con.execute(load_sql("finish.sql"))
    for hook in post_load:
        with steps.step(f"deriving {getattr(hook, '__name__', 'a derived table')}"):
            in_transaction(con, hook)
    crash_point("recomputed")
    counts = con.execute("SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM "
                         "rejects)").fetchall()[0]
    ingest["n_results"], ingest["n_rejects"] = counts
    insert_rows(con, "ingests", [*history, ingest])


def _scope_tables(con: duckdb.DuckDBPyConnection, disc: Discovery, plan: LoadPlan) -> None:
    """Temp tables the load SQL and the post-load steps read: every file of the tree
    (stage_files), the runs whose rows are replaced (load_runs) and the files whose loaded
    rows are deleted (dropped_files). Values are inserted as parameters, never as SQL."""
    _temp_table(con, "stage_files", pa.table({
        "file_id": [f.file_id for f in disc.files], "path": [f.path for f in disc.files],
        "kind": [f.kind for f in disc.files],
        "copy_rank": pa.array([f.copy_rank or 99 for f in disc.files], pa.int32()),
        "run_id": pa.array([f.run_id for f in disc.files], pa.string())}))
    _temp_table(con, "load_runs", pa.table({"run_id": pa.array(sorted(plan.runs), pa.string())}))
    _temp_table(con, "dropped_files",
                pa.table({"file_id": pa.array(sorted(plan.dropped), pa.string())}))
    # What the published database held, before the catalog tables are rewritten: its files,
    # its runs, its scorers and the ingest that published it (etl/board_history.py keeps the
    # boards whose inputs did not change).
    con.execute("CREATE OR REPLACE TEMP TABLE loaded_files AS "
                "SELECT file_id, run_id, kind, n_duplicates FROM files")
    con.execute("CREATE OR REPLACE TEMP TABLE loaded_runs AS SELECT * FROM runs")
    con.execute("CREATE OR REPLACE TEMP TABLE loaded_scorers AS SELECT * FROM scorers")
    con.execute("CREATE OR REPLACE TEMP TABLE published_ingest AS "
                "SELECT ingest_id FROM ingests ORDER BY started_at DESC LIMIT 1")


def _temp_table(con: duckdb.DuckDBPyConnection, name: str, data: pa.Table) -> None:
    """A temp table holding data (an Arrow table: values travel as data, never as SQL)."""
    con.register("_etl_scope", data)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM _etl_scope")
    finally:
        con.unregister("_etl_scope")


def _load_catalog(con: duckdb.DuckDBPyConnection, disc: Discovery,
                  staged: dict[str, StageResult], ingest_id: str) -> None:
    """files, runs, models, model_aliases: rewritten whole from the discovery."""
    for table in CATALOG_TABLES:
        con.execute(f"DELETE FROM {table}")  # fixed names, not data
    insert_rows(con, "files", [_file_row(f, staged.get(f.file_id), ingest_id)
                               for f in disc.files])
    insert_rows(con, "runs", [_run_row(r) for r in disc.runs.values()])
    insert_rows(con, "models", [{"model": k, "display_name": v}
                                for k, v in DISPLAY_NAMES.items()])
    aliases = alias_table()
    for run in disc.runs.values():
        if run.model_dir and run.model:
            aliases.setdefault(run.model_dir.lower(), run.model)
    insert_rows(con, "model_aliases", [{"alias": a, "model": m}
                                       for a, m in sorted(aliases.items())])
    # Duplicate counts of files whose run keeps its rows stay what they were; the others
    # are counted again by finish.sql and score_duplicates.sql.
    con.execute(load_sql("keep_duplicates.sql"))


def _load_file_tables(con: duckdb.DuckDBPyConnection, disc: Discovery, parts: _Parts,
                      redactions: Redactions | None, ingest_id: str) -> None:
    """rejects and every table without copies to resolve (run metadata, summaries, shard
    inputs, ...): the rows of dropped files go, the rows of the added parts come in."""
    own_tables = {"results", "rejects", *RESULT_CHILDREN, *CATALOG_TABLES}
    for table in ["rejects", *(t for t in sorted(arrow_schemas()) if t not in own_tables)]:
        files = parts.added(table)
        if "file_id" not in arrow_schemas()[table].names:
            if files:  # a table of staged rows that cannot be replaced file by file
                raise RuntimeError(f"staged table {table} has no file_id column")
            continue
        con.execute(f"DELETE FROM {table} WHERE file_id IN (SELECT file_id FROM "  # noqa: S608
                    "dropped_files)" + (" OR file_id IS NULL" if table == "rejects" else ""))
        if files:
            con.execute(load_sql("plain.sql").format(
                table=table, select=_select_for(table, redactions)), {"files": files})
    for problem in disc.problems:
        con.execute("INSERT INTO rejects (file_id, path, line_no, severity, error, excerpt, "
                    "ingest_id) VALUES (NULL, ?, NULL, ?, ?, NULL, ?)",
                    [problem.path, problem.severity, problem.error, ingest_id])


def _load_results(con: duckdb.DuckDBPyConnection, parts: _Parts,
                  redactions: Redactions | None, steps: LoadSteps) -> None:
    """Re-rank every copy of every result of the plan's runs (sql/load/result_copies.sql)
    and replace the rows of the results whose preferred copy is not the loaded one."""
    with steps.step("ranking the copies of each result"):
        copies = parts.of_runs("results", result_kinds=True)
        if copies:
            con.execute(load_sql("result_copies.sql"), {"files": copies})
        else:  # read_parquet needs at least one file
            con.execute("CREATE OR REPLACE TEMP TABLE result_copies (run_id VARCHAR, "
                        "qid VARCHAR, run_index INTEGER, file_id VARCHAR, rec_no BIGINT, "
                        "part VARCHAR, pick BIGINT, n_copies BIGINT)")
        in_transaction(con, lambda c: c.execute(load_sql("result_changes.sql")))
    load_dirs = [str(Path(row[0]).parent) for row in con.execute(
        "SELECT DISTINCT part FROM load_keys ORDER BY part").fetchall()]
    # The row inserts write each byte once (measured, docs/PERFORMANCE.md "Database
    # size"): one thread each, since a parallel insert leaves a partial row group where a
    # thread's run of input ends, which the next checkpoint merges and writes again, leaving
    # the first copy as free blocks in the file (11% of it on the long-tools bench tree, a
    # different amount on every build). One thread also bounds what the insert holds: one
    # row group of staged Parquet read at a time, and the inserted rows in file order
    # without a sort (a sort of the results by key held all their text at once and ran out
    # of memory on a 6 GB tree; docs/PERFORMANCE.md "Memory"). The long text columns are
    # declared ZSTD in schema/; every other column gets DuckDB's own choice (forcing ZSTD on
    # the short strings of ids, tool names and scores took 2-3x more space).
    threads = int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])
    con.execute("SET threads = 1")
    # One INSERT per table, every file through the join against load_keys: loading the
    # files without a losing copy without the join made the insert faster but left 8 s of
    # compression to the checkpoint.
    if load_dirs:
        with steps.step("inserting the results"):
            con.execute(load_sql("results.sql").format(
                select=_select_for("results", redactions,
                                   exclude=("n_copies", "error_kind")),
                error_kind=load_sql("error_kind.sql").strip()),
                {"files": [str(Path(d) / "results.parquet") for d in load_dirs]})
    for table in RESULT_CHILDREN:
        files = [str(Path(d) / f"{table}.parquet") for d in load_dirs
                 if (Path(d) / f"{table}.parquet").exists()]
        if files:
            with steps.step(f"inserting the {table} of the results"):
                con.execute(load_sql("children.sql").format(
                    table=table, select=_select_for(table, redactions)),
                    {"files": files})
    with steps.step("writing the inserted rows (checkpoint)"):
        con.execute("CHECKPOINT")
    # Not in a finally: after a commit that ran out of memory the database is invalid, and
    # DuckDB's FatalException would hide what went wrong (the load is abandoned anyway).
    con.execute(f"SET threads = {threads:d}")


def _load_scores(con: duckdb.DuckDBPyConnection, parts: _Parts,
                 redactions: Redactions | None) -> None:
    """Scores read from the authors' per-question files of the plan's runs: replaced whole
    (they are small), with their duplicates counted again."""
    con.execute(load_sql("scores_drop.sql"), {"result_kinds": sorted(RESULT_KINDS)})
    score_files = parts.of_runs("question_scores", result_kinds=False)
    if score_files:
        select = _select_for("question_scores", redactions)
        con.execute(load_sql("scores.sql").format(select=select), {"files": score_files})
        con.execute(load_sql("score_duplicates.sql"), {"files": score_files})


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
        "scored_elsewhere": run.scored_elsewhere,
    }


def options_json(options: dict[str, Any]) -> str:
    return orjson.dumps(options, option=orjson.OPT_SORT_KEYS).decode()
