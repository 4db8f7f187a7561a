"""The ingest: discover -> plan and cache -> stage (parallel) -> load -> derive -> publish.

`run_ingest` is the library's entry point (the command line, `etl ingest`, is a thin layer
on it in etl/cli/). It raises the typed errors of etl/pipeline/errors.py; whatever it
raises, the previous database is untouched unless the message says otherwise."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import secrets
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import duckdb
import orjson

from etl import __version__
from etl.board_history import record_leaderboard_history
from etl.extract import FileInfo, load_all
from etl.extract.inspect_logs import (
    INSPECT_LOG_KIND,
    INSTALL_HINT,
    InspectKeys,
    inspect_available,
    inspect_version,
)
from etl.pipeline.cache import (
    cache_root_for,
    forget_damaged_entry,
    forget_index,
    index_entry,
    key_fingerprint,
    key_salt,
    load_index,
    make_cache_root,
    named_by,
    not_cached,
    private_files,
    prune_cache,
    record_interrupted,
    write_index,
)
from etl.pipeline.copies import plan_skips, split_preferred
from etl.pipeline.derive import derive_steps
from etl.pipeline.discover import (
    ARCHIVE_DIR,
    EXPECTED_LAYOUT,
    EXPECTED_TOP,
    MODE_DIRS,
    Discovery,
    discover,
    holds_inspect_logs,
    is_results_root,
    results_roots_below,
    runs_under,
)
from etl.pipeline.emitter import StageResult
from etl.pipeline.errors import (
    IngestError,
    IngestFailed,
    Interrupted,
    MissingLinkTargets,
    NoResults,
    NotAResultsRoot,
)
from etl.pipeline.interrupts import (
    crash_point,
    ctrl_c_handled,
    ctrl_c_held,
    ctrl_c_pressed,
    stop_if_ctrl_c,
)
from etl.pipeline.load import (
    LoadPlan,
    build_database,
    connect_new,
    heaviest_vector,
    loaded_record,
    options_json,
    plan_load,
)
from etl.pipeline.memory import LoadSteps, plan_memory
from etl.pipeline.plan import DEFAULT_QUIET_SECONDS, FilePlan
from etl.pipeline.profile import ProfiledConnection
from etl.pipeline.publish import (
    check_replaceable,
    clean_stale_temps,
    copy_published,
    ingest_lock,
    publish,
    published_stat,
    remove_temp,
    temp_path_for,
    writable_directory,
    written_through,
)
from etl.pipeline.workers import StageProgress, stage_files
from etl.redact import prepare_redaction
from etl.schema import code_fingerprint, parser_fingerprint
from etl.terminal import one_line

INTERRUPTED_MESSAGE = "interrupted; the previous database is unchanged"
PUBLISHED_THEN_INTERRUPTED = ("interrupted once the new database was in place; {db} holds "
                              "this ingest, complete")


@dataclass
class IngestOptions:
    keep_images: bool = False
    redact: bool = False
    redact_key: str | None = None
    jobs: int = 0  # 0: one worker per core
    full: bool = False  # parse every file again and build the database from scratch
    wait_seconds: float = 600.0
    # The quiet period: the unterminated last line of a results file modified less than this
    # long ago is in progress, not damage (etl/pipeline/segments.py).
    in_progress_seconds: float = DEFAULT_QUIET_SECONDS
    # DuckDB's, while the new database is built; None: a share of the machine's memory
    # (etl/pipeline/memory.py default_memory_limit)
    memory_limit: str | None = None
    # Ingest a root that is not a results root, or a tree with symlinks to missing targets,
    # instead of refusing it (NotAResultsRoot, MissingLinkTargets); a warning says so.
    force: bool = False
    # Write DuckDB's profile of every statement of the load here (etl/pipeline/profile.py).
    profile_dir: Path | None = None
    # False: load the rows only, without the derived tables, the views and the board
    # history (what `etl check` reads is the rows; the derive steps are half of a small
    # build). Only for a database that is thrown away: an update of it would lack them.
    derive: bool = True
    # How Inspect AI logs' facts become keys (benchmark of a task, task and patient metadata
    # keys); the defaults when None
    inspect: InspectKeys | None = None

    def content_options(self) -> dict[str, Any]:
        """The options that change what the database contains."""
        options: dict[str, Any] = {"keep_images": self.keep_images, "redact": self.redact}
        if self.inspect is not None and not self.inspect.is_default():
            options["inspect"] = self.inspect.as_json()
        return options


# Where the summary sends a reader for the rejected lines (etl check lists them instead).
SEE_REJECTS = "(see table rejects)"


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
    n_in_progress: int = 0  # unterminated last lines held back (etl/pipeline/segments.py)
    n_appended: int = 0  # of n_parsed: files parsed from where the last ingest stopped
    seconds: float = 0.0
    stage_seconds: float = 0.0
    load_seconds: float = 0.0
    table_rows: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # printed on stderr by the CLI
    # None: the database was updated from a copy of the published one (incremental);
    # otherwise why it was built from scratch.
    full_reason: str | None = None
    n_files_replaced: int = 0  # files whose rows the load inserted or deleted
    n_runs_reranked: int = 0  # runs whose results and derived rows were recomputed
    free_fraction: float = 0.0  # of the database file's blocks, free (left by updates)
    memory_limit: str = ""  # DuckDB's, as the load ran (etl/pipeline/memory.py plan_memory)
    # [step, wall seconds, CPU seconds] of every step of the load, in order
    load_steps: list[list[Any]] = field(default_factory=list)

    def in_progress_note(self) -> str:
        if not self.n_in_progress:
            return ""
        lines = "line" if self.n_in_progress == 1 else "lines"
        return (f"; {self.n_in_progress} {lines} in progress (files.n_in_progress: "
                "a writer is still on it, not loaded yet)")

    def load_note(self) -> str:
        if self.full_reason is not None:
            return f"built from scratch ({self.full_reason})"
        files = "file" if self.n_files_replaced == 1 else "files"
        runs = "run" if self.n_runs_reranked == 1 else "runs"
        return (f"updated: rows of {self.n_files_replaced} {files} replaced, "
                f"{self.n_runs_reranked} {runs} recomputed")

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
            f"  database {self.load_note()}",
            f"  runs     {self.n_runs}",
            f"  results  {self.n_results} (duplicate copies skipped: {self.n_duplicates})",
            f"  rejects  {self.n_rejected} errors, {self.n_repaired} repaired lines "
            f"{SEE_REJECTS}" + self.in_progress_note(),
            "  rows     " + ", ".join(f"{t} {n}" for t, n in sorted(self.table_rows.items())
                                      if t not in ("results", "rejects")),
        ]

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON-ready values (for scripts and the bench)."""
        out = {k: v for k, v in self.__dict__.items() if k != "db"}
        return {"db": str(self.db), **out}


def _tree_signature(disc: Discovery) -> str:
    digest = hashlib.sha256()
    for f in disc.files:
        digest.update(orjson.dumps([f.path, f.kind, f.size_bytes, f.mtime_ns, f.run_id,
                                    f.real_path]))
    for p in disc.problems:
        digest.update(orjson.dumps([p.path, p.error, p.severity]))
    return digest.hexdigest()


@dataclass
class _Ingest:
    """One ingest under way (run under the lock): what run_ingest found, and what it does."""

    root: Path
    db: Path
    options: IngestOptions
    summary: IngestSummary
    disc: Discovery
    loadable: list[FileInfo]
    preferred: list[FilePlan]  # staged first (etl/pipeline/copies.py)
    secondary: list[FilePlan]
    index: dict[str, Any]  # the cache index as of the last ingest
    entries: dict[str, Any]  # cache index entries usable by this ingest ({} with --full)
    cache_root: Path
    parser: str
    signature: dict[str, Any]
    ingest_id: str = ""
    staged: dict[str, StageResult] = field(default_factory=dict)

    @property
    def plans(self) -> list[FilePlan]:
        return self.preferred + self.secondary


def run_ingest(root: str | Path, db: str | Path, options: IngestOptions | None = None,
               progress: StageProgress | None = None,
               notify: Callable[[str], None] | None = None) -> IngestSummary:
    """Ingest the results tree at root into the database file db: updated from a copy of the
    published file when only some files changed, built anew otherwise, and swapped in
    atomically. `progress` hears about the parse; `notify` gets one-off notes (waiting for
    another ingest's lock). Raises an IngestError saying what went wrong; the previous
    database is then untouched."""
    options = options or IngestOptions()
    started = time.perf_counter()
    root, given = Path(root), Path(db)
    db = written_through(given)  # a symlinked --db: its target is built, the link stays
    if not root.is_dir():
        raise IngestFailed(f"results root {root} is not a directory")
    summary = IngestSummary(db=given)
    summary.warnings.extend(check_root(root, options.force))
    check_replaceable(db)  # before the lock file and the cache appear beside it
    writable_directory(db)
    try:
        with ctrl_c_handled(), ingest_lock(db, options.wait_seconds, notify):
            check_replaceable(db)  # again: another ingest may have written it meanwhile
            clean_stale_temps(db)
            run = _prepare(root, db, options, summary)
            if not _unchanged(run):
                _build(run, progress)
    except KeyboardInterrupt:  # outside the build (say while walking the tree)
        raise Interrupted(INTERRUPTED_MESSAGE) from None
    summary.seconds = time.perf_counter() - started
    return summary


def _prepare(root: Path, db: Path, options: IngestOptions, summary: IngestSummary) -> _Ingest:
    """Discover the tree and plan every loadable file against the parse cache."""
    disc = discover(root)
    extractors = load_all()
    loadable = [f for f in disc.files if f.kind in extractors]
    if not any(f.run_id for f in loadable):
        raise NoResults(
            f"no results under {root}: no result, score or summary file inside a run "
            f"directory ({len(disc.files)} files seen); expected "
            f"{root}/{{{'|'.join(EXPECTED_TOP)}}}/... Nothing was written.")
    summary.warnings.extend(check_link_targets(root, disc, options.force))
    summary.warnings.extend(_skipped_warnings(disc))
    summary.n_files, summary.n_loadable = len(disc.files), len(loadable)
    summary.bytes_total = sum(f.size_bytes for f in loadable)
    cache_root = cache_root_for(db)
    make_cache_root(cache_root)
    index, problem = load_index(cache_root)
    if problem:
        summary.warnings.append(
            f"warning: {cache_root / 'index.json'} is not a parse cache index this tool "
            f"wrote ({one_line(problem)}); the cache is rebuilt")
    parser = parser_fingerprint()
    n_logs = sum(f.kind == INSPECT_LOG_KIND for f in loadable)
    if n_logs:
        # Inspect's reader and the user's keys decide an Inspect log's rows too
        parser += inspect_parser_suffix(options.inspect)
        if not inspect_available():
            summary.warnings.append(
                f"warning: {n_logs} Inspect AI log{'s' if n_logs > 1 else ''} not loaded "
                f"(each a row in rejects): reading them needs the inspect extra: "
                f"{INSTALL_HINT}")
    preferred, secondary = split_preferred(loadable)

    def plans(infos: list[FileInfo]) -> list[FilePlan]:
        return [FilePlan(info, keep_images=options.keep_images,
                         quiet_seconds=options.in_progress_seconds, inspect=options.inspect)
                for info in infos]

    content = options.content_options()
    signature = {"tree": _tree_signature(disc), "sql": code_fingerprint(),
                 "parser": parser, "options": options_json(content),
                 "redact_key": key_fingerprint(options.redact_key, _previous_salt(index))}
    # --full parses everything again but keeps the old cache and the ingest history until
    # the new database is published (a failed --full loses nothing).
    return _Ingest(root=root, db=db, options=options, summary=summary, disc=disc,
                   loadable=loadable, preferred=plans(preferred), secondary=plans(secondary),
                   index=index, entries={} if options.full else index.get("files", {}),
                   cache_root=cache_root, parser=parser, signature=signature)


def inspect_parser_suffix(keys: InspectKeys | None) -> str:
    """What the parse cache's key adds for a tree holding Inspect logs: the installed
    inspect_ai version (its reader decides their rows; absent, they are rejects) and the
    user's keys. A tree without Inspect logs keeps its key, so adding the first log, or
    another inspect_ai, parses every file once more (the key is the tree's, not a kind's)."""
    keys_json = orjson.dumps((keys or InspectKeys()).as_json(), option=orjson.OPT_SORT_KEYS)
    reader = f"{inspect_available() and inspect_version()}"
    digest = hashlib.sha256(reader.encode() + keys_json).hexdigest()
    return f"-i{digest[:8]}"


def _previous_salt(index: dict[str, Any]) -> str | None:
    """The salt of the key fingerprint the index holds: the same key then gives the same
    fingerprint (a new salt would make every --redact ingest a cold build)."""
    return (key_salt(index.get("loaded", {}).get("redact_key"))
            or key_salt(index.get("last", {}).get("redact_key")))


def check_root(root: Path, force: bool) -> list[str]:
    """Refuse a root that holds no benchmark directory (NotAResultsRoot): its files would
    be read as nonsense runs (`demo/tree/ehr_bench/agentic/...` from `demo/` makes a run
    `tree/ehr_bench/agentic/full1800` of seven models). Forced, the refusal is a warning."""
    if is_results_root(root) is not False or holds_inspect_logs(root):
        return []
    found = results_roots_below(root)
    layout = (f"  expected:  {root}/{EXPECTED_LAYOUT}\n"
              f"             (<benchmark>: {', '.join(EXPECTED_TOP[:-1])} or any directory "
              f"holding {' or '.join(m + '/' for m in MODE_DIRS)}; superseded runs in "
              f"{ARCHIVE_DIR}/)")
    what = f"{root} is not a results root: none of its directories is a benchmark directory"
    if found:
        use = f"  use:       {one_line(str(found[0]))}" + "".join(
            f"\n        or {one_line(str(d))}" for d in found[1:5])
    else:
        use = "  no directory within 3 levels below it holds that layout"
    if force:
        return [f"warning: {what}; ingested as it is (--force)\n{layout}\n{use}"]
    raise NotAResultsRoot(f"{what}.\n{layout}\n{use}\nIts files would be read as runs that "
                          f"do not exist; nothing was written (--force ingests it as it is).")


def check_link_targets(root: Path, disc: Discovery, force: bool) -> list[str]:
    """Refuse a tree with symlinks whose target is missing (MissingLinkTargets), naming what
    each costs: a tree copied without the target of its `subset600` link would otherwise
    lose every agent_ehr_bench run with no more than a reject row. Forced, a warning."""
    missing = [p for p in disc.problems if p.missing_target is not None]
    if not missing:
        return []
    current = {run.benchmark for run in disc.runs.values() if not run.is_archived}
    lines = []
    for problem in missing:
        link = root / problem.path
        target = os.path.abspath(os.path.join(link.parent, problem.missing_target or ""))
        cost = runs_under(problem.path)
        benchmark = problem.path.split("/")[0]
        if benchmark != ARCHIVE_DIR and benchmark not in current:
            cost += f"; {benchmark} has no run left in this tree"
        lines.append(f"  {one_line(problem.path)} -> {one_line(problem.missing_target or '')}"
                     f" (missing: {one_line(target)})\n      costs {one_line(cost)}")
    what = (f"a symlink in {root} points to a missing target" if len(missing) == 1
            else f"{len(missing)} symlinks in {root} point to missing targets")
    if force:
        return [f"warning: {what}; ingested without (--force), each a row in rejects:\n"
                + "\n".join(lines)]
    raise MissingLinkTargets(
        f"{what}:\n" + "\n".join(lines) + "\nCopy the tree with the targets of its links "
        "(or fix the links), or pass --force to ingest without them (each is then a row in "
        "rejects). Nothing was written.")


def _unchanged(run: _Ingest) -> bool:
    """Nothing to do: every file is cached as it is, and the published database was built
    from this very tree, code and options."""
    todo = not_cached(run.preferred, run.entries, run.parser, run.cache_root, run.staged)
    if todo:
        return False
    plan_skips(run.secondary, run.preferred, run.staged, run.cache_root)
    todo_secondary = not_cached(run.secondary, run.entries, run.parser, run.cache_root,
                                run.staged)
    if todo_secondary or run.index.get("last") != run.signature or not run.db.exists():
        run.staged.clear()
        return False
    summary = run.summary
    summary.unchanged = True
    summary.n_cached = len(run.loadable)
    summary.n_in_progress = sum(r.n_in_progress for r in run.staged.values())
    return True


def _build(run: _Ingest, progress: StageProgress | None) -> None:
    """Stage what is not cached, build the new database and publish it."""
    run.ingest_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ-") + secrets.token_hex(3)
    started_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    summary, db = run.summary, run.db
    temp = temp_path_for(db)
    try:
        with private_files():  # the staged rows are unredacted: for their owner only
            fresh = _stage(run, progress)
    except BaseException as exc:
        _fail(run, exc, temp)
    t1 = time.perf_counter()
    ingest_row = {"ingest_id": run.ingest_id, "started_at": started_at, "root": str(run.root),
                  "n_files": len(run.disc.files), "n_parsed_files": len(fresh),
                  "tool_version": f"{__version__}+{run.parser}",
                  "options": options_json(run.options.content_options())}
    load_plan = plan_load(run.index.get("loaded"), _published_is_ours(run), run.signature,
                          db, run.loadable, run.staged, run.options.full)
    summary.full_reason = load_plan.reason
    summary.n_files_replaced = len(load_plan.parts.keys() | load_plan.dropped)
    summary.n_runs_reranked = len(load_plan.runs)
    try:
        _load(run, load_plan, temp, ingest_row)
    except BaseException as exc:
        _fail(run, exc, temp)
    summary.n_runs = summary.table_rows.get("runs", 0)
    summary.n_results = summary.table_rows.get("results", 0)
    history = [*_same_options_history(run), {
        **_jsonable(ingest_row),
        "finished_at": dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(),
        "n_results": summary.n_results, "n_rejects": summary.n_rejected + summary.n_repaired}]
    # Once the new file is in place the index must say so (the next ingest trusts it):
    # Ctrl-C from the rename to the index written is held back until both are done.
    with ctrl_c_held() as interrupted:
        try:
            stop_if_ctrl_c()  # pressed during the last query, which ran on: publish nothing
            publish(temp, db)
            crash_point("renamed")
        except BaseException as exc:
            _fail(run, exc, temp)
        summary.load_seconds = time.perf_counter() - t1
        _record_published(run, history)
    if interrupted():
        raise Interrupted(PUBLISHED_THEN_INTERRUPTED.format(db=db))


def _record_published(run: _Ingest, history: list[dict[str, Any]]) -> None:
    """Write the index of the database just published and prune the cache. The database is
    in place whatever happens here: a failure is a warning (exit 0 still means published),
    and the next ingest, which then finds no index it can use, builds from scratch."""
    by_id = {p.file_id: p for p in run.plans}
    try:
        write_index(run.cache_root, {
            "files": {fid: index_entry(by_id[fid], res, run.parser)
                      for fid, res in run.staged.items()},
            "ingests": history[-1000:],
            "last": run.signature,
            "published": published_stat(run.db),
            "loaded": loaded_record(run.signature, run.loadable, run.staged,
                                    run.summary.free_fraction),
        })
    except OSError as exc:
        # The old index describes the file just replaced: the next ingest must not trust it
        # (the tree changed back, it would find "nothing changed").
        forget_index(run.cache_root)
        run.summary.warnings.append(
            f"warning: {run.db} is published, but the parse cache index could not be "
            f"written ({exc.strerror or exc}: {run.cache_root / 'index.json'}); the next "
            "ingest parses every file and builds from scratch")
        return
    try:
        left_alone = prune_cache(run.cache_root,
                                 {d for r in run.staged.values() for d in r.cache_dirs()},
                                 named_by(run.index))
    except OSError as exc:
        left_alone = []
        run.summary.warnings.append(
            f"warning: {run.cache_root} could not be pruned ({exc.strerror or exc})")
    if left_alone:
        names = ", ".join(one_line(n) for n in left_alone[:3]) + (
            f" and {len(left_alone) - 3} more" if len(left_alone) > 3 else "")
        run.summary.warnings.append(
            f"note: {run.cache_root} holds {len(left_alone)} "
            f"{'entry' if len(left_alone) == 1 else 'entries'} this tool did not make, "
            f"left alone: {names}")


def _same_options_history(run: _Ingest) -> list[dict[str, Any]]:
    """The earlier ingests a new database keeps in its history: those built with the same
    content options (--redact, --keep-images). A redacted warehouse built over a plain one
    does not list the plain builds (nor their boards: _load)."""
    options = options_json(run.options.content_options())
    return [row for row in run.index.get("ingests", []) if row.get("options") == options]


def _stage(run: _Ingest, progress: StageProgress | None) -> dict[str, StageResult]:
    """Parse what the cache does not hold, in two rounds: the preferred copies of each run
    first, then the other copies, told which keys the preferred ones hold (those copies
    cannot win). Returns the freshly staged files."""
    t0 = time.perf_counter()
    opts = run.options
    try:
        todo = not_cached(run.preferred, run.entries, run.parser, run.cache_root, run.staged)
        fresh = stage_files(todo, run.cache_root, run.parser, run.ingest_id, opts.jobs,
                            progress)
        run.staged.update(fresh)
        plan_skips(run.secondary, run.preferred, run.staged, run.cache_root)
        todo_secondary = not_cached(run.secondary, run.entries, run.parser, run.cache_root,
                                    run.staged)
        for plan in todo_secondary:
            plan.skip.keys(run.cache_root)  # read here once: the worker stages them bare
        fresh_secondary = stage_files(todo_secondary, run.cache_root, run.parser,
                                      run.ingest_id, opts.jobs, progress)
    except BrokenProcessPool as exc:
        raise IngestFailed(
            f"a parse worker died (killed, or out of memory) while parsing; {run.db} left "
            f"as it was. Run again, or use --jobs 1 to find which file kills it: {exc}"
        ) from exc
    run.staged.update(fresh_secondary)
    fresh.update(fresh_secondary)
    parsed = todo + todo_secondary
    summary = run.summary
    summary.stage_seconds = time.perf_counter() - t0
    summary.n_parsed, summary.n_cached = len(fresh), len(run.loadable) - len(fresh)
    summary.n_in_progress = sum(r.n_in_progress for r in run.staged.values())
    # A grown file continues its chain: its first part is a segment staged before.
    grown = {p.file_id for p in parsed
             if fresh[p.file_id].parts()[0]["cache_dir"] != fresh[p.file_id].cache_dir}
    summary.n_appended = len(grown)
    summary.bytes_parsed = sum(p.bytes_to_read() if p.file_id in grown else p.info.size_bytes
                               for p in parsed)
    return fresh


def _load(run: _Ingest, load_plan: LoadPlan, temp: Path, ingest_row: dict[str, Any]) -> None:
    """Build the new database file at temp: a copy of the published one updated, or a
    cold build."""
    summary = run.summary
    if not load_plan.full:
        copy_published(run.db, temp)
        crash_point("copied")
    memory = plan_memory(run.options.memory_limit,
                         heaviest_vector(run.disc, run.staged, run.cache_root, load_plan))
    summary.memory_limit = memory.limit
    if memory.warning:
        summary.warnings.append(memory.warning)
    steps = LoadSteps(memory.limit)
    with steps.step("opening the new database"):
        con = connect_new(temp, memory_limit=memory.limit)
    if run.options.profile_dir is not None:
        con = ProfiledConnection(con, run.options.profile_dir, steps)  # type: ignore[assignment]
    try:
        ingest_row["finished_at"] = None
        with steps.step("preparing the redaction"):
            redactions = (prepare_redaction(con, run.options.redact_key)
                          if run.options.redact else None)
        history_rows = _same_options_history(run)
        history = [_history_row(h) for h in history_rows]
        derive = run.options.derive
        build_database(con, run.disc, run.staged, run.cache_root, ingest_row, history,
                       load_plan, post_load=derive_steps(load_plan.full) if derive else [],
                       redactions=redactions, steps=steps)
        # The boards of earlier ingests: already in an updated copy; a cold build takes them
        # from the file it replaces.
        previous = run.db if load_plan.full and run.db.exists() else None
        with steps.step("recording the leaderboard history"):
            problem = (record_leaderboard_history(con, previous, run.ingest_id)
                       if derive else None)
        if problem:
            summary.warnings.append(problem)
        other_options = [row["ingest_id"] for row in run.index.get("ingests", [])
                         if row not in history_rows]
        with steps.step("counting the rows of every table"):
            if other_options and derive:  # the boards of builds left out of the history
                con.execute("DELETE FROM leaderboard_history "
                            "WHERE list_contains(?, ingest_id)", [other_options])
            con.execute("UPDATE ingests SET finished_at = ? WHERE ingest_id = ?",
                        [dt.datetime.now(dt.UTC).replace(tzinfo=None), run.ingest_id])
            summary.table_rows = _table_rows(con)
            summary.n_duplicates = con.execute(
                "SELECT coalesce(sum(n_duplicates), 0) FROM files").fetchall()[0][0]
            summary.n_rejected, summary.n_repaired = con.execute(
                "SELECT count(*) FILTER (severity = 'error'), "
                "count(*) FILTER (severity = 'repaired') FROM rejects").fetchall()[0]
        with steps.step("writing the new database (final checkpoint)"):
            con.execute("CHECKPOINT")
        summary.free_fraction = free_fraction(con)
        crash_point("built")
    finally:
        summary.load_steps = [[name, wall, cpu] for name, wall, cpu in steps.timings]
        con.close()


def _published_is_ours(run: _Ingest) -> bool:
    """The database file is still the one the last ingest published (size, mtime, inode)."""
    try:
        return run.index.get("published") == published_stat(run.db)
    except OSError:
        return False


def free_fraction(con: duckdb.DuckDBPyConnection) -> float:
    """The fraction of the database file's blocks that are free (DuckDB's database_size)."""
    total, free = con.execute("SELECT total_blocks, free_blocks FROM pragma_database_size()"
                              ).fetchall()[0]
    return free / total if total else 0.0


def _fail(run: _Ingest, exc: BaseException, temp: Path) -> NoReturn:
    """A failure while staging, building or publishing: the temporary file goes, and the
    failure is raised as what it is to the user. Ctrl-C stays Ctrl-C, and so does the error a
    query raises when Ctrl-C stops it (DuckDB's "Query interrupted"); after Ctrl-C the files
    staged so far are recorded for the next ingest. A file of the parse cache that cannot
    be read (truncated) is forgotten, so the next ingest parses its file again."""
    remove_temp(temp)
    if isinstance(exc, KeyboardInterrupt) or (
            not isinstance(exc, IngestError) and ctrl_c_pressed()):
        try:
            record_interrupted(run.cache_root, run.index, run.staged, run.plans, run.parser,
                               run.ingest_id)
        except OSError:
            pass  # the next ingest parses those files again
        raise Interrupted(INTERRUPTED_MESSAGE) from None
    if isinstance(exc, IngestError):
        raise exc
    damaged = forget_damaged_entry(run.cache_root, run.index, str(exc))
    if damaged:
        raise IngestFailed(
            f"ingest failed, {run.db} left as it was: a file of the parse cache is damaged "
            f"({damaged}); it is forgotten and the next ingest parses its file again. "
            f"{type(exc).__name__}: {exc}") from exc
    raise IngestFailed(
        f"ingest failed, {run.db} left as it was: {type(exc).__name__}: {exc}") from exc


def _skipped_warnings(disc: Discovery) -> list[str]:
    skipped = [p.path for p in disc.problems if p.severity == "skipped"]
    if not skipped:
        return []
    shown = ", ".join(one_line(p) for p in skipped[:5]) + (
        f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
    return [f"warning: not walked (hidden directories, virtual environments): {shown}"]


def _table_rows(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    names = [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
        "AND NOT temporary").fetchall()]
    return {name: con.table(name).count("*").fetchall()[0][0] for name in names}


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, dt.datetime) else v) for k, v in row.items()}


def _history_row(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for key in ("started_at", "finished_at"):
        if isinstance(out.get(key), str):
            out[key] = dt.datetime.fromisoformat(out[key])
    return out
