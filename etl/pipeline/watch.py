"""`etl ingest --watch`: ingest again whenever the tree changes, so that a running evaluation
fills the warehouse as it goes.

The tree is polled (every `poll_seconds`: the discover walk, sizes and mtimes only, no file
is read); once it differs from the state last ingested, the watcher waits until no file has
changed for `settle_seconds` (a writer finishing a burst of lines) and ingests, printing one
line per ingest. A results file that only grew is parsed from its last complete line on
(etl/pipeline/segments.py), so an ingest costs about what was appended. Readers are never blocked:
each ingest publishes a new database file by an atomic rename (etl/pipeline/publish.py); a reader
that holds the old file open keeps reading the old one.

Bounded for scripts and tests by `max_ingests` and `stop_after_idle`; Ctrl-C ends the loop
after the current ingest has finished or been abandoned safely (the previous database is
kept, the files parsed so far are reused next time)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from etl.pipeline.discover import discover
from etl.pipeline.errors import IngestError, Interrupted
from etl.pipeline.ingest import IngestOptions, IngestSummary, run_ingest

WATCH_STOPPED = "watch stopped (Ctrl-C); the database holds the last ingest"


@dataclass
class WatchOptions:
    poll_seconds: float = 2.0  # how often the tree is looked at
    settle_seconds: float = 5.0  # no file changed for this long before an ingest starts
    max_ingests: int | None = None  # stop after this many ingests (None: no limit)
    # stop once the tree has not changed for this long after an ingest (None: never)
    stop_after_idle: float | None = None


@dataclass
class WatchReport:
    ingests: list[IngestSummary] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    stopped_because: str = ""


def tree_state(root: Path) -> str:
    """A digest of what the ingest would see: every file's path, size and mtime (the walk
    of etl/pipeline/discover.py, which reads no file), and the problems the walk found."""
    digest = hashlib.sha256()
    disc = discover(root)
    for f in disc.files:
        digest.update(orjson.dumps([f.path, f.size_bytes, f.mtime_ns]))
    for p in disc.problems:
        digest.update(orjson.dumps([p.path, p.error]))
    return digest.hexdigest()


def watch(root: str | Path, db: str | Path, options: IngestOptions | None = None,
          watch_options: WatchOptions | None = None,
          echo: Callable[[str], None] = print,
          sleep: Callable[[float], None] = time.sleep,
          clock: Callable[[], float] = time.monotonic) -> WatchReport:
    """Ingest root into db now and again after every change of the tree (see the module
    docstring). A failed ingest is reported and the watch goes on (the previous database
    stays). Raises Interrupted on Ctrl-C, after the ingest under way was abandoned safely."""
    root, db = Path(root), Path(db)
    options = options or IngestOptions()
    wopts = watch_options or WatchOptions()
    report = WatchReport()
    try:
        state = _state_or_none(root)
        ingested: str | None = None
        changed_at = clock() - wopts.settle_seconds  # the first ingest starts at once
        while True:
            if ingested != state and clock() - changed_at >= wopts.settle_seconds:
                _ingest_once(root, db, options, report, echo)
                options = dataclasses.replace(options, full=False)  # --full: the first only
                ingested = state
                changed_at = clock()
                if wopts.max_ingests is not None and len(report.ingests) + len(
                        report.failures) >= wopts.max_ingests:
                    report.stopped_because = f"{wopts.max_ingests} ingests made (the maximum)"
                    break
            elif (ingested == state and wopts.stop_after_idle is not None
                  and clock() - changed_at >= wopts.stop_after_idle):
                report.stopped_because = f"no change for {wopts.stop_after_idle:g}s"
                break
            sleep(wopts.poll_seconds)
            new = _state_or_none(root)
            if new != state:
                state, changed_at = new, clock()
    except KeyboardInterrupt:
        raise Interrupted(WATCH_STOPPED) from None
    except Interrupted as exc:  # Ctrl-C during an ingest: run_ingest saved what it staged
        raise Interrupted(f"{exc}; {WATCH_STOPPED}") from None
    echo(f"watch: stopped, {report.stopped_because}")
    return report


def _state_or_none(root: Path) -> str | None:
    try:
        return tree_state(root)
    except OSError:  # the root vanished or is unreadable for now: a state of its own
        return None


def _ingest_once(root: Path, db: Path, options: IngestOptions, report: WatchReport,
                 echo: Callable[[str], None]) -> None:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        summary = run_ingest(root, db, options)
    except Interrupted:
        raise
    except IngestError as exc:
        report.failures.append(str(exc))
        echo(f"{now} ingest failed, {db} left as it was: {exc}")
        return
    report.ingests.append(summary)
    echo(f"{now} {one_line(summary)}")


def one_line(summary: IngestSummary) -> str:
    """An ingest's summary in one line, for a log that grows by one line per ingest."""
    if summary.unchanged:
        return f"nothing changed ({summary.seconds:.1f}s){summary.in_progress_note()}"
    grown = f" ({summary.n_appended} grown)" if summary.n_appended else ""
    return (f"ingested {summary.n_parsed} files{grown}, {summary.n_cached} cached: "
            f"{summary.n_results} results, {summary.n_rejected} rejects in "
            f"{summary.seconds:.1f}s{summary.in_progress_note()}")
