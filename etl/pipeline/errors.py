"""The ingest's errors, one type per way it can fail, each with the exit status `etl ingest`
gives it (the command line turns them into messages; the library raises them). The previous
database is untouched whenever one is raised before the new file is in place."""

from __future__ import annotations

from etl.errors import EtlError


class IngestError(EtlError):
    """An ingest that did not publish a new database. str() is the whole message."""

    exit_code = 1


class IngestFailed(IngestError):
    """Building or publishing failed (a worker died, DuckDB failed, the disk is full, ...)."""


class IngestLocked(IngestError):
    """Another ingest holds the database's lock longer than --wait."""

    exit_code = 3


class NotAWarehouse(IngestError):
    """--db names an existing file this tool did not build: replacing it would destroy it."""

    exit_code = 4


class NoResults(IngestError):
    """The root holds no file that loads into a run: nothing to build a warehouse from."""

    exit_code = 5


class NotAResultsRoot(IngestError):
    """The root holds no benchmark directory (a directory one level too high, a repository):
    its files would be read as nonsense runs. IngestOptions.force (--force) ingests it."""

    exit_code = 6


class MissingLinkTargets(IngestError):
    """Symlinks in the tree point to targets that do not exist (a tree copied without them):
    the runs they lead to would be missing without a word. IngestOptions.force (--force)
    ingests without them, each link a row in rejects."""

    exit_code = 7


class Interrupted(IngestError):
    """Ctrl-C (SIGINT): what was published, or that nothing was, is in the message."""

    exit_code = 130
