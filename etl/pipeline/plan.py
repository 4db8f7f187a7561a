"""What an ingest does with each loadable file, decided before any worker runs: reuse its
staged rows, or stage it whole or from where its chain stopped, and against which preferred
copies of its run (FilePlan). The cache step (etl/pipeline/cache.py) and the copy rule
(etl/pipeline/copies.py) fill a plan; the stage (etl/pipeline/stage.py) reads it. What the
load does with the database is its own plan (etl/pipeline/load.py LoadPlan)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from etl.extract import FileInfo

DEFAULT_QUIET_SECONDS = 60.0


@dataclass
class SkipCopies:
    """The preferred copies a secondary results file is staged against
    (etl/pipeline/copies.py): their staged results Parquet (paths relative to the cache)
    and the digest that names them in the file's cache key. The keys they hold are read
    once, only when the file must be staged."""

    sources: tuple[str, ...]
    digest: str
    keys_read: frozenset[tuple[str, int]] | None = field(default=None, repr=False)

    def keys(self, cache_root: Path) -> frozenset[tuple[str, int]]:
        """The (qid, run_index) keys of the preferred copies."""
        if self.keys_read is None:
            keys: set[tuple[str, int]] = set()
            for name in self.sources:
                table = pq.read_table(cache_root / name, columns=["qid", "run_index"])
                keys.update(zip(table.column("qid").to_pylist(),
                                table.column("run_index").to_pylist(), strict=True))
            self.keys_read = frozenset(keys)
        return self.keys_read


@dataclass
class FilePlan:
    """One loadable file of this ingest and how it is staged."""

    info: FileInfo
    keep_images: bool = False
    # The unterminated last line of a results file modified less than this long ago is in
    # progress: held back, neither loaded nor rejected (etl/pipeline/segments.py).
    quiet_seconds: float = DEFAULT_QUIET_SECONDS
    # A secondary copy of results: the preferred copies of its run it is staged against.
    skip: SkipCopies | None = None
    # A results file that may only have grown: the staged chain (StageResult as JSON) its new
    # lines continue; None: staged from byte 0.
    append_to: dict[str, Any] | None = None
    # An Inspect AI log: how its facts become keys (etl/extract/inspect_logs.py InspectKeys);
    # None: the defaults
    inspect: Any = None

    @property
    def file_id(self) -> str:
        return self.info.file_id

    @property
    def skip_hash(self) -> str | None:
        return self.skip.digest if self.skip else None

    def bytes_to_read(self) -> int:
        """Bytes the staging reads: all of the file, or what lies past where its chain
        stopped."""
        if self.append_to is None:
            return self.info.size_bytes
        return max(0, self.info.size_bytes - self.append_to["resume"]["offset"])
