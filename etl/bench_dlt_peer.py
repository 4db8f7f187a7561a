"""The dlt peer row of `etl bench`: what a data engineer would write instead of this ETL.

A standalone script (it imports nothing from etl, so its time and memory are dlt's alone):
read every result file line by line with orjson, skip and count a damaged line (or a line
that is not a JSON object) instead of dying on it, and let dlt (https://dlthub.com)
normalize the nested records into DuckDB child tables (results, results__messages,
results__messages__tool_calls, ...), loaded as Parquet files; dlt's own defaults otherwise
(one normalize worker, its default buffers). `etl bench` runs it in a child process with a
fresh pipelines dir and telemetry off (RUNTIME__DLTHUB_TELEMETRY=false).

    python etl/bench_dlt_peer.py OUT.duckdb PIPELINES_DIR FILE...

Prints one JSON object: the dlt version, records loaded, lines skipped, and the row count
of every table dlt created; or {"missing": "dlt"} when dlt is not installed."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from itertools import islice

import orjson

PAGE_RECORDS = 100  # dlt's docs: yield pages, not single rows (fewer calls per item)
# dlt's default for DuckDB is insert_values (SQL INSERT files): on a 0.5 GB bench tree it
# took 11 minutes and 14.5 GB of memory (DuckDB parsing multi-MB INSERT statements).
# Parquet is the other format dlt's DuckDB page lists; it is what one picks for volume.
LOADER_FILE_FORMAT = "parquet"


def read_records(paths: list[str], counts: dict[str, int]) -> Iterator[dict]:
    """Every JSON object of every line; a line that is not one is counted in counts."""
    for path in paths:
        with open(path, "rb") as fh:
            for line in fh:
                if not line.strip():
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    counts["skipped_lines"] += 1
                    continue
                if not isinstance(record, dict):
                    counts["skipped_lines"] += 1
                    continue
                counts["records"] += 1
                yield record


def pages(records: Iterator[dict]) -> Iterator[list[dict]]:
    while page := list(islice(records, PAGE_RECORDS)):
        yield page


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    db, pipelines_dir, paths = argv[0], argv[1], argv[2:]
    try:
        import dlt
    except ImportError:
        print(json.dumps({"missing": "dlt"}))
        return 0
    counts = {"records": 0, "skipped_lines": 0}
    pipeline = dlt.pipeline(pipeline_name="bench_dlt_peer", pipelines_dir=pipelines_dir,
                            destination=dlt.destinations.duckdb(db), dataset_name="peer")
    pipeline.run(pages(read_records(paths, counts)), table_name="results",
                 write_disposition="replace", loader_file_format=LOADER_FILE_FORMAT)
    tables: dict[str, int] = {}
    with pipeline.sql_client() as client:
        names = [row[0] for row in client.execute_sql(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = ? "
            "ORDER BY table_name", pipeline.dataset_name)]
        for name in names:
            # a name dlt just created, quoted by dlt (no value from the data)
            qualified = client.make_qualified_table_name(name)
            tables[name] = client.execute_sql(f"SELECT count(*) FROM {qualified}")[0][0]
    print(json.dumps({"dlt_version": dlt.__version__, **counts, "tables": tables}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
