"""Stage an Inspect AI log (etl/extract/inspect_logs.py) into a fresh cache directory,
reading only the samples that changed since its previous staging.

A running Inspect evaluation flushes finished samples into its `.eval` log, so a log grows
by whole samples. The previous staging's directory holds every sample's rows and, in
SAMPLES_FILE, each sample's digest (its summary and zip entry); a sample with the same
digest now keeps its rows (copied from there), any other is read with Inspect's reader. The
new directory holds the whole log, so the load replaces the log's rows as for any re-staged
file, and an update equals a full parse.

How the previous staging is found: its StageResult carries a `resume` ({"offset": 0,
"hashed": 0, "samples": SAMPLES_FILE}), so the parse cache hands it to the next staging of
the same path, parser and options as it hands a results file's chain
(etl/pipeline/cache.py appendable -> FilePlan.append_to); a changed parser or option gives
no previous staging, and the log is read whole."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from etl.extract import FileInfo
from etl.extract.inspect_logs import SAMPLE_TABLES, PreviousParse, read_log
from etl.pipeline.emitter import (
    ParquetEmitter,
    StageResult,
    cache_dir_name,
    new_entry_dir,
    primary_rows,
    publish_dir,
    write_stats,
)
from etl.pipeline.plan import FilePlan
from etl.read import file_sha256

SAMPLES_FILE = "inspect_samples.json"


def stage_inspect_log(plan: FilePlan, info: FileInfo, cache_root: Path, parser: str,
                      ingest_id: str) -> StageResult:
    started = time.perf_counter()
    tmp = cache_root / f".tmp-{info.file_id}-{os.getpid()}"
    new_entry_dir(tmp)
    emitter = ParquetEmitter(info, tmp, ingest_id)
    previous = previous_parse(plan, cache_root)

    def reuse(keys: set[tuple[str, int]]) -> None:
        assert previous is not None
        copy_sample_rows(previous.cache_dir, keys, emitter)

    report = read_log(info, emitter, previous, reuse)
    emitter.close()
    sha = file_sha256(info.abs_path)
    final = cache_root / cache_dir_name(info.file_id, sha, parser, plan.keep_images,
                                        plan.skip_hash)
    (tmp / SAMPLES_FILE).write_bytes(orjson.dumps({
        "digests": [[q, e, d] for (q, e), d in sorted(report.digests.items())],
        "read": sorted(report.read), "reused": sorted(report.reused)}))
    result = StageResult(
        file_id=info.file_id, cache_dir=final.name, sha256=sha, n_lines=None,
        n_rows=primary_rows(info.kind, emitter.counts), n_rejected=emitter.n_rejected,
        n_repaired=emitter.n_repaired, tables=dict(emitter.counts),
        seconds=time.perf_counter() - started, ingest_id=ingest_id,
        skip_hash=plan.skip_hash, resume={"offset": 0, "hashed": 0, "samples": SAMPLES_FILE})
    write_stats(tmp, result)
    publish_dir(tmp, final)
    return result


def previous_parse(plan: FilePlan, cache_root: Path) -> PreviousParse | None:
    """The previous staging of this log (same path, parser and options), if the cache still
    holds it with its sample digests."""
    if not plan.append_to or not plan.append_to.get("cache_dir"):
        return None
    directory = cache_root / plan.append_to["cache_dir"]
    try:
        data = orjson.loads((directory / SAMPLES_FILE).read_bytes())
        digests = {(str(q), int(e)): str(d) for q, e, d in data["digests"]}
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return PreviousParse(cache_dir=directory, digests=digests)


def copy_sample_rows(directory: Path, keys: set[tuple[str, int]],
                     emitter: ParquetEmitter) -> None:
    """Emit the rows the previous staging made of these samples, table by table."""
    wanted = pa.array(sorted(f"{qid}\x00{epoch}" for qid, epoch in keys), pa.string())
    for table in SAMPLE_TABLES:
        path = directory / f"{table}.parquet"
        if not path.exists():
            continue
        data = pq.read_table(path)
        key = pc.binary_join_element_wise(data.column("qid"),
                                          pc.cast(data.column("run_index"), pa.string()),
                                          "\x00")
        for row in data.filter(pc.is_in(key, value_set=wanted)).to_pylist():
            emitter.row(table, row)
