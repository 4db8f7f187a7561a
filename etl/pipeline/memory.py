"""The load's memory budget: how much DuckDB may hold while the new database is built, and
what the ingest says when a step of the load still runs out.

The default is a share of the machine's memory (the physical memory, or the container's
limit when that is lower) with a floor: the load is planned to work inside any budget from
the floor up, since every statement of it can spill to the work area (<db>.tmp-<pid>.tmp,
beside the new database): the row inserts stream their staged Parquet, the inserted text
spills before it is compressed, and no statement sorts or hashes the trajectory text
(docs/PERFORMANCE.md "Memory"). A larger budget spills less; the share keeps the ingest's
whole process tree under 1 GB on a 24 GB machine."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from etl.pipeline.errors import IngestFailed

MIB = 1 << 20
# A fortieth of the machine's memory: measured on the bench trees (2 cores, 24 GB), the
# ingest's process tree peaks about 250 MB above DuckDB's limit (Python, the staged
# discovery, DuckDB's allocations outside its buffer pool).
MEMORY_SHARE = 1 / 40
# Below this the load still builds every bench tree, but spills most of what it inserts.
MEMORY_FLOOR_MIB = 512
CGROUP_LIMIT = Path("/sys/fs/cgroup/memory.max")  # cgroup v2: the container's limit


def machine_memory_bytes() -> int | None:
    """Physical memory, or the cgroup's memory limit when that is lower (None: unknown)."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        physical = None
    try:
        text = CGROUP_LIMIT.read_text().strip()
        limit = int(text) if text.isdigit() else None
    except OSError:
        limit = None
    known = [n for n in (physical, limit) if n and n > 0]
    return min(known) if known else None


def default_memory_limit(machine_bytes: int | None = None) -> str:
    """DuckDB's memory limit for the load when --memory-limit is not given: MEMORY_SHARE of
    the machine's memory, at least MEMORY_FLOOR_MIB, in whole MiB (DuckDB's 'MiB' unit)."""
    total = machine_bytes if machine_bytes is not None else machine_memory_bytes()
    share = int(total * MEMORY_SHARE) // MIB if total else 0
    return f"{max(MEMORY_FLOOR_MIB, share)}MiB"


# DuckDB compresses (and checkpoints) a column a vector of 2048 rows at a time, holding the
# vector's strings whole: a budget must hold the heaviest 2048 consecutive rows of a table,
# however the inserts are cut. The load plans for it (planned_limit): the base is what the
# row inserts need beside it (a row group of staged Parquet, the insert's buffers); the
# factor covers the vector's copy while it is compressed. Measured on trees built to need
# it (tests/pipeline/test_load_memory.py): 2048 rows of 79 MB built under 96 MB, not under 64 MB.
VECTOR_ROWS = 2048
PLAN_BASE_MIB = 64
PLAN_VECTOR_FACTOR = 1.5


def planned_need_mib(heaviest_vector_bytes: int) -> int:
    """The memory limit (MiB) the row inserts are planned to need, from the bytes of the
    heaviest vector of rows they insert."""
    return PLAN_BASE_MIB + int(PLAN_VECTOR_FACTOR * heaviest_vector_bytes / MIB + 0.999)


def limit_mib(memory_limit: str) -> float | None:
    """DuckDB's reading of a memory limit, in MiB (None when it cannot be read)."""
    con = duckdb.connect(config={"memory_limit": memory_limit})
    try:
        shown = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    finally:
        con.close()
    number, _, unit = str(shown).partition(" ")  # '667.5 MiB', '1.8 GiB', '976.5 KiB'
    scale = {"bytes": 1 / MIB, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024, "TiB": 1 << 20}
    try:
        return float(number) * scale[unit]
    except (ValueError, KeyError):
        return None


@dataclass
class MemoryPlan:
    """The memory limit a load runs with, and what the plan said of it."""

    limit: str
    need_mib: int  # planned_need_mib of the heaviest vector of rows
    warning: str | None = None


def plan_memory(requested: str | None, heaviest: tuple[str | None, int]) -> MemoryPlan:
    """The limit of a load whose heaviest 2048 rows (heaviest_vector) are (table, bytes):
    the requested limit, or the default raised to what those rows need; a warning when a
    requested limit is below it (the load is tried all the same: the plan is an estimate)."""
    table, vector_bytes = heaviest
    need = planned_need_mib(vector_bytes)
    if requested is None:
        default = default_memory_limit()
        default_mib = limit_mib(default) or MEMORY_FLOOR_MIB
        return MemoryPlan(default if need <= default_mib else f"{need}MiB", need)
    mib = limit_mib(requested)
    if mib is None or mib >= need:
        return MemoryPlan(requested, need)
    return MemoryPlan(requested, need, (
        f"warning: --memory-limit {requested} is below what this load is planned to need "
        f"({need}MiB): {VECTOR_ROWS} consecutive rows of {table} hold "
        f"{vector_bytes / 1e6:.0f} MB, and DuckDB holds that many rows whole while it "
        "compresses them; it may run out of memory"))


DEFAULT_HELP = (f"1/{round(1 / MEMORY_SHARE)} of this machine's memory, at least "
                f"{MEMORY_FLOOR_MIB}MiB")


class LoadOutOfMemory(IngestFailed):
    """A step of the load needed more than DuckDB's memory limit: nothing was published."""


class LoadSteps:
    """Which step of the load is running, so that running out of memory names it."""

    def __init__(self, memory_limit: str) -> None:
        self.memory_limit = memory_limit
        self.current = "opening the new database"
        # (step, wall seconds, CPU seconds of this process: DuckDB's threads included) of
        # every step that finished, in order
        self.timings: list[tuple[str, float, float]] = []

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Run a step: DuckDB's out-of-memory error inside it becomes LoadOutOfMemory
        naming it (raised once, by the innermost step)."""
        outer, self.current = self.current, name
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        except duckdb.Error as exc:
            if not is_out_of_memory(exc):
                raise
            raise self.out_of_memory(exc) from exc
        self.timings.append((name, time.perf_counter() - wall, time.process_time() - cpu))
        self.current = outer

    def out_of_memory(self, exc: BaseException) -> LoadOutOfMemory:
        said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return LoadOutOfMemory(
            f"the load ran out of memory while {self.current} (DuckDB's memory limit "
            f"{self.memory_limit}; DuckDB said: {said}). Nothing was published: the previous "
            f"database, if any, is unchanged. Run the ingest again with a larger "
            f"--memory-limit (for "
            f"instance --memory-limit {suggested_limit(self.memory_limit)}), or on a machine "
            "with more free memory.")


def is_out_of_memory(exc: duckdb.Error) -> bool:
    """DuckDB ran out of its memory limit: an OutOfMemoryException, or a commit that failed
    for it (a TransactionException saying so)."""
    if isinstance(exc, duckdb.OutOfMemoryException):
        return True
    text = str(exc)
    return isinstance(exc, duckdb.TransactionException) and (
        "Out of Memory" in text or "failed to pin block" in text
        or "could not allocate block" in text or "failed to allocate data" in text)


def suggested_limit(memory_limit: str) -> str:
    """Twice the limit that ran out, in MiB (the limit itself when DuckDB's reading of it
    cannot be parsed)."""
    mib = limit_mib(memory_limit)
    if mib is None:
        return memory_limit
    return f"{max(MEMORY_FLOOR_MIB, round(2 * mib))}MiB"
