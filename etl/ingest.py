"""The ingest: discover -> stage (parallel, cached) -> load -> views -> publish.

Library entry point `run_ingest`; CLI commands `ingest` and `check` are thin layers on it."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import sys
import tempfile
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import click
import duckdb
import orjson

from etl import __version__
from etl.cache import (
    cache_root_for,
    load_skip_keys,
    not_cached,
    prune_cache,
    read_index,
    set_skip_keys,
    split_preferred,
    write_index,
)
from etl.discover import EXPECTED_TOP, Discovery, discover, root_layout_warning
from etl.extract import FileInfo, load_all
from etl.interrupts import ctrl_c_handled, ctrl_c_held, ctrl_c_pressed, stop_if_ctrl_c
from etl.load import LOAD_MEMORY_LIMIT, build_database, connect_new, options_json
from etl.publish import (
    EXIT_NO_RESULTS,
    Interrupted,
    check_replaceable,
    clean_stale_temps,
    ingest_lock,
    publish,
    published_stat,
    temp_path_for,
    writable_directory,
    written_through,
)
from etl.redact import prepare_redaction
from etl.schema import (
    LOAD_SQL_DIR,
    SQL_DIR,
    fingerprint,
    parser_fingerprint,
    row_input_files,
    schema_files,
    view_files,
)
from etl.segments import APPEND_OPTION, DEFAULT_QUIET_SECONDS, QUIET_OPTION
from etl.stage import StageResult, cache_dir_name, result_from_json, stage_files

INTERRUPTED_MESSAGE = "interrupted; the previous database is unchanged"
PUBLISHED_THEN_INTERRUPTED = ("interrupted once the new database was in place; {db} holds "
                              "this ingest, complete")


class NoResults(click.ClickException):
    """The root holds no file that loads into a run: nothing to build a warehouse from."""

    exit_code = EXIT_NO_RESULTS


@dataclass
class IngestOptions:
    keep_images: bool = False
    redact: bool = False
    redact_key: str | None = None
    jobs: int = 0  # 0: one worker per core
    full: bool = False  # ignore the parse cache and rebuild everything
    wait_seconds: float = 600.0
    progress: bool = True
    # The quiet period: the unterminated last line of a results file modified less than this
    # long ago is in progress, not damage (etl/segments.py).
    in_progress_seconds: float = DEFAULT_QUIET_SECONDS
    memory_limit: str = LOAD_MEMORY_LIMIT  # DuckDB's, while the new database is built

    def content_options(self) -> dict[str, Any]:
        """The options that change what the database contains."""
        return {"keep_images": self.keep_images, "redact": self.redact}


@dataclass
class IngestSummary:
    db: Path
    unchanged: bool = False
    n_files: int = 0
    n_loadable: int = 0
    n_parsed: int = 0
    n_cached: int = 0
    bytes_parsed: int = 0
    bytes_total: int = 0
    n_runs: int = 0
    n_results: int = 0
    n_rejected: int = 0
    n_repaired: int = 0
    n_duplicates: int = 0
    n_in_progress: int = 0  # unterminated last lines held back (etl/segments.py)
    n_appended: int = 0  # of n_parsed: files parsed from where the last ingest stopped
    seconds: float = 0.0
    stage_seconds: float = 0.0
    load_seconds: float = 0.0
    table_rows: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # printed on stderr by the CLI

    def in_progress_note(self) -> str:
        if not self.n_in_progress:
            return ""
        lines = "line" if self.n_in_progress == 1 else "lines"
        return (f"; {self.n_in_progress} {lines} in progress (files.n_in_progress: "
                "a writer is still on it, not loaded yet)")

    def lines(self) -> list[str]:
        if self.unchanged:
            return [f"{self.db}: nothing changed in {self.n_files} files; database left as is "
                    f"({self.seconds:.2f}s){self.in_progress_note()}."]
        mb = self.bytes_parsed / 1e6
        rate = mb / self.stage_seconds if self.stage_seconds > 0 else 0.0
        return [
            f"ingested into {self.db} in {self.seconds:.1f}s "
            f"(parse {self.stage_seconds:.1f}s, load {self.load_seconds:.1f}s)",
            f"  files    {self.n_files} seen, {self.n_loadable} loadable: {self.n_parsed} "
            f"parsed ({mb:.1f} MB, {rate:.1f} MB/s), {self.n_cached} unchanged (cached)"
            + (f", {self.n_appended} of the parsed only from their last line on (grown)"
               if self.n_appended else ""),
            f"  runs     {self.n_runs}",
            f"  results  {self.n_results} (duplicate copies skipped: {self.n_duplicates})",
            f"  rejects  {self.n_rejected} errors, {self.n_repaired} repaired lines "
            f"(see table rejects)" + self.in_progress_note(),
            "  rows     " + ", ".join(f"{t} {n}" for t, n in sorted(self.table_rows.items())
                                      if t not in ("results", "rejects")),
        ]


def _tree_signature(disc: Discovery) -> str:
    digest = hashlib.sha256()
    for f in disc.files:
        digest.update(orjson.dumps([f.path, f.kind, f.size_bytes, f.mtime_ns, f.run_id,
                                    f.real_path]))
    for p in disc.problems:
        digest.update(orjson.dumps([p.path, p.error, p.severity]))
    return digest.hexdigest()


def _sql_fingerprint() -> str:
    """Everything besides the staged rows that shapes the database: DDL, views, load SQL,
    the package modules (etl/*.py) and every input of a staged row."""
    return fingerprint([*schema_files(), *view_files(), *LOAD_SQL_DIR.glob("*.sql"),
                        *(SQL_DIR / "redact").glob("*.sql"),
                        *Path(__file__).parent.glob("*.py"), *row_input_files()])


def _post_load_hooks(options: IngestOptions) -> list:
    # Imported here, not guarded: a module that fails to import must fail the ingest (a
    # warehouse without its views or archive rows is not a success).
    from etl.archive import archive_rows
    from etl.best_at_k import add_best_at_k
    from etl.comparison import build_comparisons
    from etl.load import _insert_rows
    from etl.views import apply_views

    def add_archives(con: duckdb.DuckDBPyConnection) -> None:
        cols = [d[0] for d in con.execute("SELECT * FROM runs LIMIT 0").description]
        runs = [dict(zip(cols, row, strict=True))
                for row in con.execute("SELECT * FROM runs ORDER BY run_id").fetchall()]
        _insert_rows(con, "archive_runs", archive_rows(runs))

    # best@k needs the loaded scores, and the views need its table; the paired comparisons
    # read the leaderboard views, so they come after them
    return [add_archives, add_best_at_k, apply_views, build_comparisons]


def run_ingest(root: str | Path, db: str | Path, options: IngestOptions | None = None,
               ) -> IngestSummary:
    """Ingest the results tree at root into the database file db (built anew and swapped in
    atomically). Raises click.ClickException with a clear message on failure; the previous
    database is then untouched."""
    options = options or IngestOptions()
    started = time.perf_counter()
    root, given = Path(root), Path(db)
    db = written_through(given)  # a symlinked --db: its target is built, the link stays
    if not root.is_dir():
        raise click.ClickException(f"results root {root} is not a directory")
    check_replaceable(db)  # before the lock file and the cache appear beside it
    writable_directory(db)
    summary = IngestSummary(db=given)
    layout_warning = root_layout_warning(root)
    if layout_warning:
        summary.warnings.append(layout_warning)
    with ctrl_c_handled(), ingest_lock(db, options.wait_seconds):
        check_replaceable(db)  # again: another ingest may have written it meanwhile
        clean_stale_temps(db)
        content = options.content_options()
        disc = discover(root, options={"keep_images": options.keep_images,
                                       QUIET_OPTION: options.in_progress_seconds})
        extractors = load_all()
        loadable = [f for f in disc.files if f.kind in extractors]
        if not any(f.run_id for f in loadable):
            raise NoResults(
                f"no results under {root}: no result, score or summary file inside a run "
                f"directory ({len(disc.files)} files seen); expected "
                f"{root}/{{{'|'.join(EXPECTED_TOP)}}}/... Nothing was written.")
        summary.warnings.extend(_skipped_warnings(disc))
        cache_root = cache_root_for(db)
        cache_root.mkdir(parents=True, exist_ok=True)
        index = read_index(cache_root)
        parser = parser_fingerprint()
        preferred, secondary = split_preferred(loadable)
        staged: dict[str, StageResult] = {}
        # --full parses everything again but keeps the old cache and the ingest history
        # until the new database is published (a failed --full loses nothing).
        entries = {} if options.full else index.get("files", {})
        todo = not_cached(preferred, entries, parser, cache_root, staged)
        summary.n_files, summary.n_loadable = len(disc.files), len(loadable)
        summary.bytes_total = sum(f.size_bytes for f in loadable)
        signature = {"tree": _tree_signature(disc), "sql": _sql_fingerprint(),
                     "parser": parser, "options": options_json(content),
                     "redact_key": hashlib.sha256((options.redact_key or "").encode())
                     .hexdigest()}
        if not todo:
            set_skip_keys(secondary, preferred, staged, cache_root)
            todo_secondary = not_cached(secondary, entries, parser, cache_root, staged)
            if not todo_secondary and index.get("last") == signature and db.exists():
                summary.unchanged = True
                summary.n_cached = len(loadable)
                summary.n_in_progress = sum(r.n_in_progress for r in staged.values())
                summary.seconds = time.perf_counter() - started
                return summary

        ingest_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ-") + secrets.token_hex(3)
        started_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        plan = BuildPlan(root=root, db=db, disc=disc, loadable=loadable, preferred=preferred,
                         secondary=secondary, staged=staged, entries=entries, todo=todo,
                         index=index, cache_root=cache_root, parser=parser,
                         signature=signature, content=content)
        try:
            summary = _build(plan, options, summary, ingest_id, started_at)
        except KeyboardInterrupt:
            _save_interrupted(cache_root, index, staged, loadable, parser, ingest_id,
                              options)
            raise Interrupted(INTERRUPTED_MESSAGE) from None
    summary.seconds = time.perf_counter() - started
    return summary


@dataclass
class BuildPlan:
    """What run_ingest found before building: the tree, the cache and what it still holds."""

    root: Path
    db: Path
    disc: Discovery
    loadable: list[FileInfo]
    preferred: list[FileInfo]  # staged first (see etl.cache.split_preferred)
    secondary: list[FileInfo]
    staged: dict[str, StageResult]  # filled as files are staged or found in the cache
    entries: dict[str, Any]  # cache index entries usable by this ingest ({} with --full)
    todo: list[FileInfo]  # preferred files the cache does not hold
    index: dict[str, Any]  # the cache index as of the last ingest
    cache_root: Path
    parser: str
    signature: dict[str, Any]
    content: dict[str, Any]


def _build(plan: BuildPlan, options: IngestOptions, summary: IngestSummary, ingest_id: str,
           started_at: dt.datetime) -> IngestSummary:
    """Stage what is not cached, build the new database and publish it (run under the lock)."""
    root, db, disc, loadable = plan.root, plan.db, plan.disc, plan.loadable
    staged, entries, todo, index = plan.staged, plan.entries, list(plan.todo), plan.index
    cache_root, parser, content = plan.cache_root, plan.parser, plan.content
    preferred, secondary = plan.preferred, plan.secondary
    t0 = time.perf_counter()
    try:
        # Two rounds: the preferred copies of each run first, then the other copies,
        # told which keys the preferred ones hold (those copies cannot win).
        fresh = stage_files(todo, cache_root, parser, ingest_id, options.jobs,
                           options.progress)
        staged.update(fresh)
        set_skip_keys(secondary, preferred, staged, cache_root)
        todo_secondary = not_cached(secondary, entries, parser, cache_root, staged)
        for info in todo_secondary:
            load_skip_keys(info)  # the extractor stages bare copies of these keys
        fresh_secondary = stage_files(todo_secondary, cache_root, parser, ingest_id,
                                     options.jobs, options.progress)
    except BrokenProcessPool as exc:
        raise click.ClickException(
            f"a parse worker died (killed, or out of memory) while parsing; {db} left "
            f"as it was. Run again, or use --jobs 1 to find which file "
            f"kills it: {exc}") from exc
    staged.update(fresh_secondary)
    fresh.update(fresh_secondary)
    todo += todo_secondary
    summary.stage_seconds = time.perf_counter() - t0
    summary.n_parsed, summary.n_cached = len(fresh), len(loadable) - len(fresh)
    summary.n_in_progress = sum(r.n_in_progress for r in staged.values())
    # A grown file continues its chain: its first part is a segment staged before.
    appended = {fid for fid, r in fresh.items() if r.parts()[0]["cache_dir"] != r.cache_dir}
    summary.n_appended = len(appended)
    summary.bytes_parsed = sum(_bytes_read(f, appended) for f in todo)

    t1 = time.perf_counter()
    temp = temp_path_for(db)
    history = [_history_row(h) for h in index.get("ingests", [])]
    ingest_row = {"ingest_id": ingest_id, "started_at": started_at, "root": str(root),
                  "n_files": len(disc.files), "n_parsed_files": len(fresh),
                  "tool_version": f"{__version__}+{parser}", "options": options_json(content)}
    try:
        con = connect_new(temp, memory_limit=options.memory_limit)
        try:
            ingest_row["finished_at"] = None
            redactions = (prepare_redaction(con, options.redact_key)
                          if options.redact else None)
            build_database(con, disc, staged, cache_root, ingest_row, history,
                           post_load=_post_load_hooks(options), redactions=redactions)
            con.execute("UPDATE ingests SET finished_at = ? WHERE ingest_id = ?",
                        [dt.datetime.now(dt.UTC).replace(tzinfo=None), ingest_id])
            summary.table_rows = _table_rows(con)
            summary.n_duplicates = con.execute(
                "SELECT coalesce(sum(n_duplicates), 0) FROM files").fetchall()[0][0]
            summary.n_rejected, summary.n_repaired = con.execute(
                "SELECT count(*) FILTER (severity = 'error'), "
                "count(*) FILTER (severity = 'repaired') FROM rejects").fetchall()[0]
            con.execute("CHECKPOINT")
        finally:
            con.close()
    except BaseException as exc:
        _abandon_build(exc, temp, db)
    summary.n_runs = summary.table_rows.get("runs", 0)
    summary.n_results = summary.table_rows.get("results", 0)

    history_out = [*index.get("ingests", []), {**_jsonable(ingest_row),
                   "finished_at": dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(),
                   "n_results": summary.n_results,
                   "n_rejects": summary.n_rejected + summary.n_repaired}]
    by_id = {f.file_id: f for f in loadable}
    # Once the new file is in place the index must say so (the next ingest trusts it):
    # Ctrl-C from the rename to the index written is held back until both are done.
    with ctrl_c_held() as interrupted:
        try:
            stop_if_ctrl_c()  # pressed during the last query, which ran on: publish nothing
            publish(temp, db)
        except BaseException as exc:
            _abandon_build(exc, temp, db)
        summary.load_seconds = time.perf_counter() - t1
        write_index(cache_root, {
            "files": {fid: _index_entry(by_id[fid], res, options, parser)
                      for fid, res in staged.items()},
            "ingests": history_out[-1000:],
            "last": plan.signature,
            "published": published_stat(db),
        })
        prune_cache(cache_root, {d for r in staged.values() for d in r.cache_dirs()})
    if interrupted():
        raise Interrupted(PUBLISHED_THEN_INTERRUPTED.format(db=db))
    return summary


def _abandon_build(exc: BaseException, temp: Path, db: Path) -> NoReturn:
    """A failure while building or publishing: the temporary file goes, and the failure is
    raised as what it is to the user. Ctrl-C stays Ctrl-C, and so does the error a query
    raises when Ctrl-C stops it (DuckDB's "Query interrupted")."""
    temp.unlink(missing_ok=True)
    if isinstance(exc, click.ClickException | KeyboardInterrupt):
        raise exc
    if ctrl_c_pressed():
        raise KeyboardInterrupt from exc
    raise click.ClickException(
        f"ingest failed, {db} left as it was: {type(exc).__name__}: {exc}") from exc


def _bytes_read(info: FileInfo, appended: set[str]) -> int:
    """Bytes the parse of a file read: all of it, or what lies past where its chain stopped."""
    if info.file_id not in appended:
        return info.size_bytes
    return max(0, info.size_bytes - info.options[APPEND_OPTION]["resume"]["offset"])


def _index_entry(info: FileInfo, result: StageResult, options: IngestOptions, parser: str
                 ) -> dict[str, Any]:
    return {"path": info.path, "size": info.size_bytes, "mtime_ns": info.mtime_ns,
            "kind": info.kind, "keep_images": options.keep_images, "parser": parser,
            "cache_dir": result.cache_dir, "sha256": result.sha256,
            "skip_hash": result.skip_hash}


def _save_interrupted(cache_root: Path, index: dict[str, Any], staged: dict[str, StageResult],
                      loadable: list[FileInfo], parser: str, ingest_id: str,
                      options: IngestOptions) -> None:
    """After Ctrl-C: keep in the index every file this ingest finished staging, so the next
    ingest reuses them. Files staged by workers whose results never reached us are found
    on disk: a cache directory named for the file's current content, written by this
    ingest (stats.json says so). The last-build signature is dropped (no database was
    published) and nothing is pruned; the ingest history is unchanged."""
    files = dict(index.get("files", {}))
    by_id = {f.file_id: f for f in loadable}
    found = dict(staged)
    try:
        dirs = [p for p in cache_root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        dirs = []
    for path in dirs:
        info = by_id.get(path.name.split("-", 1)[0])
        if info is None or info.file_id in found:
            continue
        try:
            result = result_from_json(orjson.loads((path / "stats.json").read_bytes()))
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
            continue
        if (result.ingest_id == ingest_id and result.sha256
                and result.skip_hash == info.options.get("skip_hash")
                and result.cache_dir == path.name
                and path.name.startswith(cache_dir_name(info, result.sha256, parser))):
            found[info.file_id] = result
    for file_id, result in found.items():
        if file_id in by_id and result.cache_dir:
            files[file_id] = _index_entry(by_id[file_id], result, options, parser)
    write_index(cache_root, {**{k: v for k, v in index.items() if k != "last"},
                             "files": files})


def _skipped_warnings(disc: Discovery) -> list[str]:
    skipped = [p.path for p in disc.problems if p.severity == "skipped"]
    if not skipped:
        return []
    shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5
                                      else "")
    return [f"warning: not walked (hidden directories, virtual environments): {shown}"]


def _table_rows(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    names = [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
        "AND NOT temporary").fetchall()]
    out = {}
    for name in names:
        out[name] = con.table(name).count("*").fetchall()[0][0]
    return out


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, dt.datetime) else v) for k, v in row.items()}


def _history_row(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for key in ("started_at", "finished_at"):
        if isinstance(out.get(key), str):
            out[key] = dt.datetime.fromisoformat(out[key])
    return out


def check_memory_limit(value: str) -> str:
    """A --memory-limit DuckDB understands, or a usage error naming what it wants."""
    try:
        duckdb.connect(config={"memory_limit": value}).close()
    except duckdb.Error as exc:
        raise click.BadParameter(f"{value!r}: {str(exc).splitlines()[0]}"
                                 ) from None
    return value


@click.command("ingest")
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("warehouse.duckdb"), show_default=True,
              help="Database file to build (replaced atomically when the ingest succeeds).")
@click.option("--jobs", "-j", type=int, default=0, show_default="one per core",
              help="Worker processes that parse files in parallel.")
@click.option("--full", is_flag=True,
              help="Ignore the parse cache: parse every file again.")
@click.option("--keep-images", is_flag=True,
              help="Store the base64 data of image blocks (default: only hash and size).")
@click.option("--redact", is_flag=True,
              help="Build a shareable warehouse: no free text, ids replaced by keyed hashes.")
@click.option("--redact-key", envvar="ETL_REDACT_KEY",
              help="Secret key for the id hashes with --redact (or ETL_REDACT_KEY).")
@click.option("--wait", "wait_seconds", type=float, default=600.0, show_default=True,
              help="Seconds to wait for another ingest of the same database to finish.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--in-progress-seconds", type=float, default=DEFAULT_QUIET_SECONDS,
              show_default=True,
              help="The unterminated last line of a results file modified less than this "
                   "many seconds ago is in progress (a writer is still on it): not loaded, "
                   "not rejected, counted in files.n_in_progress. 0: judge it at once.")
@click.option("--memory-limit", default=LOAD_MEMORY_LIMIT, show_default=True,
              callback=lambda ctx, param, value: check_memory_limit(value),
              help="DuckDB memory limit while the new database is built (e.g. 2GB); past "
                   "it DuckDB spills to <db>.tmp-<pid>.tmp. The parse workers and Python "
                   "are outside it (docs/SAFETY.md says what a whole ingest uses).")
@click.option("--watch", "watch_tree", is_flag=True,
              help="Keep running: ingest again whenever a file under ROOT changes, one "
                   "line per ingest (Ctrl-C to stop).")
@click.option("--poll", "poll_seconds", type=click.FloatRange(min=0.01), default=2.0,
              show_default=True, help="With --watch: seconds between looks at the tree.")
@click.option("--settle", "settle_seconds", type=click.FloatRange(min=0), default=5.0,
              show_default=True,
              help="With --watch: ingest once no file has changed for this many seconds.")
@click.option("--max-ingests", type=click.IntRange(min=1), default=None,
              help="With --watch: stop after this many ingests.")
@click.option("--stop-after-idle", type=click.FloatRange(min=0), default=None,
              help="With --watch: stop once nothing has changed for this many seconds "
                   "since the last ingest.")
def ingest_command(root: Path, db: Path, jobs: int, full: bool, keep_images: bool,
                   redact: bool, redact_key: str | None, wait_seconds: float,
                   quiet: bool, in_progress_seconds: float, memory_limit: str,
                   watch_tree: bool,
                   poll_seconds: float, settle_seconds: float, max_ingests: int | None,
                   stop_after_idle: float | None) -> None:
    """Ingest the results tree ROOT into the DuckDB file --db.

    Every results / scores / summary file under ROOT is parsed (in parallel, cached by
    content: unchanged files are not parsed again), damaged lines go to the `rejects`
    table, duplicate copies of a result are loaded once, and the new database replaces the
    old one atomically: a failed or killed ingest leaves the previous database intact, and
    readers holding it open (BI tools) are not disturbed. An existing --db that is not a
    warehouse built by this tool is never replaced.

    \b
    Exit status:
      0    built, or nothing changed
      1    failed; the previous database is unchanged
      2    usage error
      3    another ingest of --db is running (gave up after --wait)
      4    --db is an existing file that is not a warehouse of this tool
      5    ROOT holds no results
      130  interrupted (Ctrl-C); the previous database is unchanged, the files
           parsed so far are reused by the next ingest (a Ctrl-C once the new
           file is being put in place waits for it, and says so)

    A results file that only grew since the last ingest (a run still being written) is
    parsed from its last complete line on. With --watch the command keeps ingesting as
    files change (exit 0 once --max-ingests or --stop-after-idle is reached, 130 on
    Ctrl-C); readers of --db are never blocked.
    """
    if redact and not redact_key:
        raise click.UsageError("--redact needs --redact-key (or ETL_REDACT_KEY): the ids are "
                               "replaced by hashes keyed with it.")
    options = IngestOptions(keep_images=keep_images, redact=redact, redact_key=redact_key,
                            jobs=jobs, full=full, wait_seconds=wait_seconds,
                            progress=not quiet and sys.stderr.isatty() and not watch_tree,
                            in_progress_seconds=in_progress_seconds, memory_limit=memory_limit)
    if watch_tree:
        from etl.watch import WatchOptions, watch  # etl.watch builds on this module

        watch(root, db, options, WatchOptions(
            poll_seconds=poll_seconds, settle_seconds=settle_seconds,
            max_ingests=max_ingests, stop_after_idle=stop_after_idle))
        return
    if max_ingests is not None or stop_after_idle is not None:
        raise click.UsageError("--max-ingests and --stop-after-idle go with --watch.")
    try:
        summary = run_ingest(root, db, options)
    except KeyboardInterrupt:  # outside the build (say while walking the tree)
        raise Interrupted(INTERRUPTED_MESSAGE) from None
    for warning in summary.warnings:
        click.echo(warning, err=True)
    for line in summary.lines():
        click.echo(line)


@click.command("check")
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@click.option("--max-rejects", type=int, default=20, show_default=True,
              help="How many rejects to list.")
def check_command(root: Path, max_rejects: int) -> None:
    """Report what ingesting ROOT would load and reject, without writing a database.

    Parses every file into a temporary directory that is removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="etl-check-") as tmp:
        db = Path(tmp) / "check.duckdb"
        summary = run_ingest(root, db, IngestOptions(progress=sys.stderr.isatty()))
        for warning in summary.warnings:
            click.echo(warning, err=True)
        for line in summary.lines():
            click.echo(line.replace(f"ingested into {db}", "would ingest"))
        con = duckdb.connect(str(db), read_only=True)
        try:
            click.echo("\nruns:")
            for run_id, n, expected in con.execute(
                    "SELECT run_id, n_results, expected_questions FROM runs "
                    "ORDER BY run_id").fetchall():
                exp = f" / {expected} expected" if expected else ""
                click.echo(f"  {run_id}: {n} results{exp}")
            rows = con.execute(
                "SELECT path, line_no, severity, error FROM rejects "
                "ORDER BY severity, path, line_no LIMIT ?", [max_rejects]).fetchall()
            if rows:
                click.echo("\nrejects:")
                for path, line_no, severity, error in rows:
                    where = f"{path}:{line_no}" if line_no else path
                    click.echo(f"  {severity:8s} {where}: {error}")
        finally:
            con.close()
