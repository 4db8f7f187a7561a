"""Copies of one result: which file's copy wins, and which files are staged knowing that.

A run's results may be written several times: merged_unique.jsonl, the run's top-level
results.jsonl, region shards `<region>/results.jsonl`, `results_steal_NN.jsonl` and
`steal_NN/results.jsonl`. The copy from the most preferred kind wins (COPY_RANK, lower
wins), then path order, then the LAST record in that file (a resumed writer appends the
newer attempt); the ranking itself runs in SQL over the staged keys
(sql/load/result_copies.sql, which reads files.copy_rank).

Region shards and steal files mostly repeat the preferred file (on the bench tree 37% of all
records are such copies), so they are staged after the preferred files of their run, told
which keys those hold: such a copy cannot win, and only its identity is staged (it still
counts as a copy), not its trajectory."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from etl.extract import FileInfo
from etl.pipeline.emitter import StageResult
from etl.pipeline.plan import FilePlan, SkipCopies

COPY_RANK = {
    "results_merged": 1,
    "results_top": 2,
    "results_shard": 3,
    "results_steal": 4,
    "results_steal_copy": 5,
    # An Inspect AI log is a run of its own, its one copy of each sample (etl/extract/
    # inspect_logs.py): a results file for the load (results and their children)
    "inspect_log": 1,
}
RESULT_KINDS = frozenset(COPY_RANK)


def split_preferred(loadable: list[FileInfo]) -> tuple[list[FileInfo], list[FileInfo]]:
    """(files staged in full first, result files that are not their run's preferred kind)."""
    best: dict[str, int] = {}
    for f in loadable:
        if f.kind in RESULT_KINDS and f.run_id and f.copy_rank is not None:
            best[f.run_id] = min(best.get(f.run_id, f.copy_rank), f.copy_rank)
    preferred, secondary = [], []
    for f in loadable:
        if (f.kind in RESULT_KINDS and f.run_id and f.copy_rank is not None
                and f.copy_rank > best[f.run_id]):
            secondary.append(f)
        else:
            preferred.append(f)
    return preferred, secondary


def plan_skips(secondary: list[FilePlan], preferred: list[FilePlan],
               staged: dict[str, StageResult], cache_root: Path) -> None:
    """Tell each secondary file which staged preferred copies of its run it is staged
    against: the staged results Parquet of its run's preferred result files (relative to the
    cache: directories named by content), in a stable order, and their digest. The keys are
    read later, only for a file that must be staged: reading them for every file cost 0.6 s
    of a 1.1 s no-op ingest of the bench tree."""
    sources: dict[str | None, list[str]] = {}
    for plan in preferred:
        result = staged.get(plan.file_id)
        if (plan.info.kind not in RESULT_KINDS or result is None
                or not result.tables.get("results")):
            continue
        # every segment of a file that grew by appending (etl/pipeline/segments.py)
        sources.setdefault(plan.info.run_id, []).extend(
            str(path.relative_to(cache_root)) for path in result.parquet_files(cache_root,
                                                                               "results"))
    for plan in secondary:
        files = tuple(sorted(sources.get(plan.info.run_id, ())))
        plan.skip = SkipCopies(files, hashlib.sha256(orjson.dumps(files)).hexdigest()[:16])
