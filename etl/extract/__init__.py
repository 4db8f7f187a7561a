"""Extract stage: one function per file kind turns a file into table rows.

An extractor has the signature ``extract(file: FileInfo, emit: Emitter) -> None``. It reads
``file.abs_path`` (streaming: never the whole file in memory for JSONL; a results file
through ``JsonlReader.for_file(file)``, which reads the segment ``file.parse`` names), calls
``emit.row(table, row_dict)`` for every row of every table it produces and
``emit.reject(line_no, severity, error, excerpt)`` for every damaged or repaired line.
It never raises for bad input: a bad file is a reject with ``line_no=None``.
Row dicts may omit columns (they become NULL) and must not add columns the table lacks;
run_id / file_id / benchmark / mode / split / model columns are filled from ``file`` by the
emitter when the extractor leaves them out.

Extractors register themselves in EXTRACTORS by file kind (see etl/pipeline/discover.py for kinds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Segment:
    """The bytes of a results file one staging reads (etl/pipeline/segments.py): from `start`
    (a line start, `line_base` lines and `rec_base` records before it, `digest` the SHA-256
    state of the bytes before it) to `end` (None: the end of the file); with `hold_tail` an
    unterminated last line is held back. The reader fills `report` with where it stopped."""

    start: int = 0
    end: int | None = None
    line_base: int = 0
    rec_base: int = 0
    digest: Any = None
    hold_tail: bool = False
    report: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ParseOptions:
    """What the stage tells an extractor besides the file: set by the staging of one file
    (etl/pipeline/stage.py) on the copy of the FileInfo it hands to the extractor."""

    keep_images: bool = False  # store image base64, not only its hash and size
    # (qid, run_index) keys the run's preferred copies hold: this copy of them cannot win,
    # so it is staged bare (etl/pipeline/copies.py)
    skip_keys: frozenset[tuple[str, int]] = frozenset()
    segment: Segment | None = None  # None: the whole file
    # How an Inspect AI log's facts become keys (etl/extract/inspect_logs.py InspectKeys,
    # from etl ingest's --inspect-* and --cluster-key options); None: the defaults
    inspect: Any = None


@dataclass(slots=True)
class FileInfo:
    """A file found by discover, with everything its path says about it. Discover fills it;
    later stages read it and never change it (a per-file decision lives in the FilePlan of
    etl/pipeline/plan.py; the parse options reach the extractor on a copy)."""

    file_id: str
    path: str  # logical path relative to the root, "/"-separated
    abs_path: Path  # where to open it (may be reached through symlinks)
    real_path: str  # resolved path
    kind: str
    run_id: str | None = None
    benchmark: str | None = None
    mode: str | None = None
    split: str | None = None
    model: str | None = None
    is_archived: bool = False
    archive_name: str | None = None
    copy_rank: int | None = None
    size_bytes: int = 0
    mtime_ns: int = 0
    parse: ParseOptions = ParseOptions()
    # (device, inode) the walk found: the stage reads the file only while it is still that
    # one (a link retargeted since the walk is not followed)
    identity: tuple[int, int] | None = None
    # A record file linked in from outside the tree (etl/pipeline/discover.py
    # OUTSIDE_LINK_KINDS): read as records, no excerpt of it is kept in rejects
    outside: bool = False


class Emitter(Protocol):
    def row(self, table: str, row: dict[str, Any]) -> None: ...

    def reject(self, line_no: int | None, severity: str, error: str,
               excerpt: str | None = None) -> None: ...

    # Extractors of line-oriented files report the file's line count and hash here.
    def file_stats(self, n_lines: int | None = None, sha256: str | None = None) -> None: ...


Extractor = Callable[[FileInfo, Emitter], None]

EXTRACTORS: dict[str, Extractor] = {}


def register(*kinds: str) -> Callable[[Extractor], Extractor]:
    def wrap(fn: Extractor) -> Extractor:
        for kind in kinds:
            EXTRACTORS[kind] = fn
        return fn

    return wrap


def load_all() -> dict[str, Extractor]:
    """Import every extractor module so they register, and return the registry."""
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
        importlib.import_module(f"{__name__}.{mod.name}")
    return EXTRACTORS
