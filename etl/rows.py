"""Rows into the warehouse's tables, for the steps that write them after the load (archive
rows, best@k, the paired comparisons) and the load's own catalog tables.

Not on the staging path: a change here parses nothing again (etl/schema.py ROW_MODULES)."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import duckdb
import pyarrow as pa

from etl.schema import arrow_schemas


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]
                ) -> None:
    """Insert Python rows (dicts; missing keys are NULL) into a table of schema/."""
    if not rows:
        return
    schema = arrow_schemas()[table]
    data = {name: [row.get(name) for row in rows] for name in schema.names}
    con.register("_etl_batch", pa.Table.from_pydict(data, schema=schema))
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _etl_batch")
    except duckdb.Error:
        # in an aborted transaction unregister fails too: keep the error that says why
        with suppress(duckdb.Error):
            con.unregister("_etl_batch")
        raise
    con.unregister("_etl_batch")


def runs_to_recompute(con: duckdb.DuckDBPyConnection) -> None:
    """Make sure the temp table load_runs names the runs a post-load step recomputes: the
    load's (see _scope_tables), or every run when the step runs on its own (tests, tools)."""
    known = con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary AND "
                        "table_name = 'load_runs'").fetchall()[0][0]
    known += con.execute("SELECT count(*) FROM duckdb_views() WHERE temporary AND "
                         "view_name = 'load_runs'").fetchall()[0][0]
    if not known:  # a view: later calls on this connection see the runs added since
        con.execute("CREATE OR REPLACE TEMP VIEW load_runs AS SELECT run_id FROM runs")
