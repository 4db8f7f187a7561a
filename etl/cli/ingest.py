"""`etl ingest` and `etl check`: the command line of the ingest (etl/pipeline/).

The library raises typed errors (etl/pipeline/errors.py); etl/cli/errors.py turns them into
one message on stderr and the exit status each type names. Progress is drawn here, from
what the pipeline reports (a bar on a terminal, nothing otherwise)."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from etl.board_history import changes_since_last_ingest
from etl.cli.errors import EtlCommand
from etl.cli.options import BUILD_HELP, db_option
from etl.connection import open_warehouse
from etl.extract.inspect_logs import InspectKeys
from etl.pipeline.ingest import SEE_REJECTS, IngestOptions, IngestSummary, run_ingest
from etl.pipeline.load import memory_limit_problem
from etl.pipeline.memory import DEFAULT_HELP
from etl.pipeline.plan import DEFAULT_QUIET_SECONDS
from etl.schema import query_text
from etl.terminal import one_line, printable

FORCE_HELP = ("Ingest ROOT even when it holds no benchmark directory (exit 6) or symlinks "
              "whose targets are missing (exit 7); a warning says so.")


class ProgressBar:
    """The parse's progress as a click bar on stderr (etl/pipeline/workers.StageProgress)."""

    def __init__(self) -> None:
        self.bar: Any = None

    def start(self, n_files: int, n_bytes: int) -> None:
        self.bar = click.progressbar(length=max(n_bytes, 1), label=f"parsing {n_files} files",
                                     file=sys.stderr, show_pos=False, show_percent=True,
                                     item_show_func=lambda _: None)
        self.bar.__enter__()

    def advance(self, n_bytes: int) -> None:
        if self.bar is not None:
            self.bar.update(n_bytes)

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _say_on_stderr(message: str) -> None:
    click.echo(printable(message), err=True)


def _say(message: str) -> None:
    click.echo(printable(message))


def _run(root: Path, db: Path, options: IngestOptions, progress: bool) -> IngestSummary:
    return run_ingest(root, db, options, progress=ProgressBar() if progress else None,
                      notify=_say_on_stderr)


def _task_map(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """TASK=BENCHMARK pairs, or a usage error naming the one that is not."""
    pairs = []
    for value in values:
        task, sep, benchmark = value.partition("=")
        if not sep or not task.strip() or not benchmark.strip():
            raise click.BadParameter(f"{value!r}: expected TASK=BENCHMARK, e.g. "
                                     "ehr_qa=ehr_bench")
        pairs.append((task.strip(), benchmark.strip()))
    return tuple(pairs)


def check_memory_limit(value: str | None) -> str | None:
    """A --memory-limit DuckDB understands, or a usage error naming what it wants (None:
    the default, a share of the machine's memory)."""
    if value is None:
        return None
    problem = memory_limit_problem(value)
    if problem:
        raise click.BadParameter(f"{value!r}: {problem}")
    return value


@click.command("ingest", cls=EtlCommand)
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@db_option(BUILD_HELP, build=True)
@click.option("--jobs", "-j", type=int, default=0, show_default="one per core",
              help="Worker processes that parse files in parallel.")
@click.option("--full", is_flag=True,
              help="Ignore the parse cache and the published database: parse every file "
                   "again and build the database from scratch.")
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
@click.option("--memory-limit", default=None,
              show_default=DEFAULT_HELP,
              callback=lambda ctx, param, value: check_memory_limit(value),
              help="DuckDB memory limit while the new database is built (e.g. 2GB); past "
                   "it the load spills to <db>.tmp-<pid>.tmp beside the new database. A "
                   "larger limit spills less. The parse workers and Python are outside it "
                   "(docs/SAFETY.md says what a whole ingest uses).")
@click.option("--force", is_flag=True, help=FORCE_HELP)
@click.option("--profile-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write DuckDB's profile of every statement of the load to this directory "
                   "(one JSON file each, listed with its step in statements.jsonl).")
@click.option("--summary-json", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the ingest's figures (the summary below, as numbers) to "
                   "this file as JSON.")
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
@click.option("--inspect-benchmark", "inspect_benchmarks", multiple=True,
              metavar="TASK=BENCHMARK", callback=lambda ctx, param, value: _task_map(value),
              help="Inspect AI logs: the benchmark of an Inspect task (repeatable; default: "
                   "the task name itself), e.g. ehr_qa=ehr_bench puts its runs on the "
                   "ehr_bench boards.")
@click.option("--inspect-task-key", metavar="KEY",
              help="Inspect AI logs: the sample metadata key that names each sample's task "
                   "(default: the Inspect task name).")
@click.option("--cluster-key", metavar="KEY",
              help="Inspect AI logs: the sample metadata key that names the patient, for "
                   "the clustered statistics (default: subject_id when a sample has it).")
def ingest_command(root: Path, db: Path, jobs: int, full: bool, keep_images: bool,
                   redact: bool, redact_key: str | None, wait_seconds: float,
                   quiet: bool, in_progress_seconds: float, memory_limit: str | None,
                   force: bool, profile_dir: Path | None,
                   summary_json: Path | None,
                   watch_tree: bool, poll_seconds: float, settle_seconds: float,
                   max_ingests: int | None, stop_after_idle: float | None,
                   inspect_benchmarks: tuple[tuple[str, str], ...],
                   inspect_task_key: str | None, cluster_key: str | None) -> None:
    """Ingest the results tree ROOT into the DuckDB file --db.

    Every results / scores / summary file under ROOT is parsed (in parallel, cached by
    content: unchanged files are not parsed again), damaged lines go to the `rejects`
    table, duplicate copies of a result are loaded once. When only some files changed, the
    published database is copied and only their rows are replaced (an appended record
    costs what it adds); otherwise it is built from scratch. Either way the new file
    replaces the old one atomically: a failed or killed ingest leaves the previous database
    intact, and readers holding it open (BI tools) are not disturbed. An existing --db that
    is not a warehouse built by this tool is never replaced.

    \b
    Exit status:
      0    built, or nothing changed
      1    failed; the previous database is unchanged
      2    usage error
      3    another ingest of --db is running (gave up after --wait)
      4    --db is an existing file that is not a warehouse of this tool
      5    ROOT holds no results
      6    ROOT is not a results root (no benchmark directory in it: one
           level too high, or the repository); the message names the
           directory to use. --force ingests it anyway
      7    a symlink in ROOT points to a missing target; the message names
           the runs it costs. --force ingests without them
      130  interrupted (Ctrl-C); the previous database is unchanged, the files
           parsed so far are reused by the next ingest (a Ctrl-C once the new
           file is being put in place waits for it, and says so)

    A results file that only grew since the last ingest (a run still being written) is
    parsed from its last complete line on. With --watch the command keeps ingesting as
    files change (exit 0 once --max-ingests or --stop-after-idle is reached, 130 on
    Ctrl-C); readers of --db are never blocked.

    ROOT may also hold Inspect AI logs (*.eval, *.json), at any depth, or be a directory
    of them alone: each log is a run (needs the inspect extra; see the --inspect-* options).
    """
    if redact and not redact_key:
        raise click.UsageError("--redact needs --redact-key (or ETL_REDACT_KEY): the ids are "
                               "replaced by hashes keyed with it.")
    options = IngestOptions(keep_images=keep_images, redact=redact, redact_key=redact_key,
                            jobs=jobs, full=full, wait_seconds=wait_seconds,
                            in_progress_seconds=in_progress_seconds,
                            memory_limit=memory_limit, force=force,
                            profile_dir=profile_dir,
                            inspect=InspectKeys(inspect_benchmarks, inspect_task_key,
                                                cluster_key))
    if watch_tree and summary_json is not None:
        raise click.UsageError("--summary-json writes the figures of one ingest; it does "
                               "not go with --watch.")
    if watch_tree:
        from etl.pipeline.ingest import check_root
        from etl.pipeline.watch import WatchOptions, watch

        for warning in check_root(root, force):  # a wrong root: refused once, up front
            _say_on_stderr(warning)
        watch(root, db, options, WatchOptions(
            poll_seconds=poll_seconds, settle_seconds=settle_seconds,
            max_ingests=max_ingests, stop_after_idle=stop_after_idle), echo=_say)
        return
    if max_ingests is not None or stop_after_idle is not None:
        raise click.UsageError("--max-ingests and --stop-after-idle go with --watch.")
    summary = _run(root, db, options, progress=not quiet and sys.stderr.isatty())
    if summary_json is not None:
        import orjson

        summary_json.write_bytes(orjson.dumps(summary.to_json(), default=str,
                                              option=orjson.OPT_INDENT_2))
    _print_summary(summary, _same)
    if not summary.unchanged:  # one line per board that moved since the previous ingest
        for line in changes_since_last_ingest(db):
            _say(line)


def _same(line: str) -> str:
    return line


def _print_summary(summary: IngestSummary, edit: Callable[[str], str],
                   skip: tuple[str, ...] = ()) -> None:
    for warning in summary.warnings:
        _say_on_stderr(warning)
    for line in summary.lines():
        if not skip or not line.startswith(skip):
            _say(edit(line))


@click.command("check", cls=EtlCommand)
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@click.option("--max-rejects", type=int, default=20, show_default=True,
              help="How many rejects to list.")
@click.option("--force", is_flag=True, help=FORCE_HELP)
def check_command(root: Path, max_rejects: int, force: bool) -> None:
    """Report what ingesting ROOT would load and reject, without writing a database.

    Parses every file into a temporary directory that is removed afterwards, and loads the
    rows there without the views and derived tables an ingest computes after the load."""
    with tempfile.TemporaryDirectory(prefix="etl-check-") as tmp:
        db = Path(tmp) / "check.duckdb"
        summary = _run(root, db, IngestOptions(derive=False, force=force),
                       progress=sys.stderr.isatty())
        con = open_warehouse(db, own_queries_only=True)
        try:
            runs = con.execute(query_text("check_runs")).fetchall()
            rejects = con.execute(query_text("check_rejects"),
                                  {"limit": max_rejects}).fetchall()
            n_rejects = con.execute(query_text("check_n_rejects")).fetchall()[0][0]
        finally:
            con.close()
    # The database is gone: the rejects are the ones listed here, not a table to look into.
    where = ("" if not rejects else " (listed below)" if len(rejects) == n_rejects
             else f" (the first {len(rejects)} below; --max-rejects for more)")

    def edit(line: str) -> str:
        return (line.replace(f"ingested into {db}", "would ingest")
                .replace(f" {SEE_REJECTS}", where))

    # no database is kept and the derived tables are not computed: no lines on them
    _print_summary(summary, edit, skip=("  database ", "  rows "))
    click.echo("\nruns:")
    for run_id, n, expected in runs:
        exp = f" / {expected} expected" if expected else ""
        _say(f"  {one_line(run_id)}: {n} results{exp}")
    if rejects:
        click.echo("\nrejects:")
        for path, line_no, severity, error in rejects:
            where_in_file = f"{path}:{line_no}" if line_no else path
            _say(f"  {severity:8s} {one_line(where_in_file)}: {one_line(error or '')}")
