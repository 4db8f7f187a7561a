"""The ingest: discover -> stage (parallel, cached) -> load -> views -> publish.

Library entry point `run_ingest`; CLI commands `ingest` and `check` are thin layers on it."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import shutil
import sys
import tempfile
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import duckdb
import orjson

from etl import __version__
from etl.cache import (
    cache_root_for,
    not_cached,
    prune_cache,
    read_index,
    set_skip_keys,
    split_preferred,
    write_index,
)
from etl.discover import Discovery, discover
from etl.extract import load_all
from etl.load import build_database, connect_new, options_json
from etl.publish import clean_stale_temps, ingest_lock, publish, temp_path_for
from etl.redact import prepare_redaction
from etl.schema import LOAD_SQL_DIR, fingerprint, parser_fingerprint, schema_files, view_files
from etl.stage import StageResult, stage_files


@dataclass
class IngestOptions:
    keep_images: bool = False
    redact: bool = False
    redact_key: str | None = None
    jobs: int = 0  # 0: one worker per core
    full: bool = False  # ignore the parse cache and rebuild everything
    wait_seconds: float = 600.0
    progress: bool = True

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
    seconds: float = 0.0
    stage_seconds: float = 0.0
    load_seconds: float = 0.0
    table_rows: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        if self.unchanged:
            return [f"{self.db}: nothing changed in {self.n_files} files; database left as is "
                    f"({self.seconds:.2f}s)."]
        mb = self.bytes_parsed / 1e6
        rate = mb / self.stage_seconds if self.stage_seconds > 0 else 0.0
        return [
            f"ingested into {self.db} in {self.seconds:.1f}s "
            f"(parse {self.stage_seconds:.1f}s, load {self.load_seconds:.1f}s)",
            f"  files    {self.n_files} seen, {self.n_loadable} loadable: {self.n_parsed} "
            f"parsed ({mb:.1f} MB, {rate:.1f} MB/s), {self.n_cached} unchanged (cached)",
            f"  runs     {self.n_runs}",
            f"  results  {self.n_results} (duplicate copies skipped: {self.n_duplicates})",
            f"  rejects  {self.n_rejected} errors, {self.n_repaired} repaired lines "
            f"(see table rejects)",
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
    return fingerprint([*schema_files(), *view_files(), *LOAD_SQL_DIR.glob("*.sql"),
                        *Path(__file__).parent.glob("*.py")])


def _post_load_hooks(options: IngestOptions) -> list:
    hooks = []
    try:
        from etl.archive import archive_rows  # issue 5
    except ImportError:
        archive_rows = None
    if archive_rows is not None:
        def add_archives(con: duckdb.DuckDBPyConnection) -> None:
            from etl.load import _insert_rows
            cols = [d[0] for d in con.execute("SELECT * FROM runs LIMIT 0").description]
            runs = [dict(zip(cols, row, strict=True))
                    for row in con.execute("SELECT * FROM runs ORDER BY run_id").fetchall()]
            _insert_rows(con, "archive_runs", archive_rows(runs))
        hooks.append(add_archives)
    try:
        from etl.views import apply_views
    except ImportError:
        apply_views = None
    if apply_views is not None:
        hooks.append(apply_views)
        # Paired comparisons read the leaderboard views, so they come after them.
        from etl.comparison import build_comparisons
        hooks.append(build_comparisons)
    return hooks


def run_ingest(root: str | Path, db: str | Path, options: IngestOptions | None = None,
               ) -> IngestSummary:
    """Ingest the results tree at root into the database file db (built anew and swapped in
    atomically). Raises click.ClickException with a clear message on failure; the previous
    database is then untouched."""
    options = options or IngestOptions()
    started = time.perf_counter()
    root, db = Path(root), Path(db)
    if not root.is_dir():
        raise click.ClickException(f"results root {root} is not a directory")
    db.parent.mkdir(parents=True, exist_ok=True)
    summary = IngestSummary(db=db)
    with ingest_lock(db, options.wait_seconds):
        clean_stale_temps(db)
        cache_root = cache_root_for(db)
        if options.full:
            shutil.rmtree(cache_root, ignore_errors=True)
        cache_root.mkdir(parents=True, exist_ok=True)
        index = read_index(cache_root)
        content = options.content_options()
        disc = discover(root, options={"keep_images": options.keep_images})
        extractors = load_all()
        parser = parser_fingerprint()
        loadable = [f for f in disc.files if f.kind in extractors]
        preferred, secondary = split_preferred(loadable)
        staged: dict[str, StageResult] = {}
        entries = index.get("files", {})
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
                summary.seconds = time.perf_counter() - started
                return summary

        ingest_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ-") + secrets.token_hex(3)
        started_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        t0 = time.perf_counter()
        try:
            # Two rounds: the preferred copies of each run first, then the other copies,
            # told which keys the preferred ones hold (those copies cannot win).
            fresh = stage_files(todo, cache_root, parser, ingest_id, options.jobs,
                               options.progress)
            staged.update(fresh)
            set_skip_keys(secondary, preferred, staged, cache_root)
            todo_secondary = not_cached(secondary, entries, parser, cache_root, staged)
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
        summary.bytes_parsed = sum(f.size_bytes for f in todo)

        t1 = time.perf_counter()
        temp = temp_path_for(db)
        history = [_history_row(h) for h in index.get("ingests", [])]
        ingest_row = {"ingest_id": ingest_id, "started_at": started_at, "root": str(root),
                      "n_files": len(disc.files), "n_parsed_files": len(fresh),
                      "tool_version": f"{__version__}+{parser}", "options": options_json(content)}
        try:
            con = connect_new(temp)
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
            publish(temp, db)
        except BaseException as exc:
            temp.unlink(missing_ok=True)
            if isinstance(exc, click.ClickException | KeyboardInterrupt):
                raise
            raise click.ClickException(
                f"ingest failed, {db} left as it was: {type(exc).__name__}: {exc}") from exc
        summary.load_seconds = time.perf_counter() - t1
        summary.n_runs = summary.table_rows.get("runs", 0)
        summary.n_results = summary.table_rows.get("results", 0)

        history_out = [*index.get("ingests", []), {**_jsonable(ingest_row),
                       "finished_at": dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(),
                       "n_results": summary.n_results,
                       "n_rejects": summary.n_rejected + summary.n_repaired}]
        new_index = {
            "files": {fid: {"path": files_path[fid].path, "size": files_path[fid].size_bytes,
                            "mtime_ns": files_path[fid].mtime_ns, "kind": files_path[fid].kind,
                            "keep_images": options.keep_images, "parser": parser,
                            "cache_dir": res.cache_dir, "sha256": res.sha256,
                            "skip_hash": res.skip_hash}
                      for fid, res in staged.items()
                      for files_path in [{f.file_id: f for f in loadable}]},
            "ingests": history_out[-1000:],
            "last": signature,
        }
        write_index(cache_root, new_index)
        prune_cache(cache_root, {r.cache_dir for r in staged.values()})
    summary.seconds = time.perf_counter() - started
    return summary


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
def ingest_command(root: Path, db: Path, jobs: int, full: bool, keep_images: bool,
                   redact: bool, redact_key: str | None, wait_seconds: float,
                   quiet: bool) -> None:
    """Ingest the results tree ROOT into the DuckDB file --db.

    Every results / scores / summary file under ROOT is parsed (in parallel, cached by
    content: unchanged files are not parsed again), damaged lines go to the `rejects`
    table, duplicate copies of a result are loaded once, and the new database replaces the
    old one atomically: a failed or killed ingest leaves the previous database intact, and
    readers holding it open (BI tools) are not disturbed.
    """
    if redact and not redact_key:
        raise click.UsageError("--redact needs --redact-key (or ETL_REDACT_KEY): the ids are "
                               "replaced by hashes keyed with it.")
    options = IngestOptions(keep_images=keep_images, redact=redact, redact_key=redact_key,
                            jobs=jobs, full=full, wait_seconds=wait_seconds,
                            progress=not quiet and sys.stderr.isatty())
    summary = run_ingest(root, db, options)
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
