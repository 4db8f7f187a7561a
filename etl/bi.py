"""What a BI tool sees when it opens the warehouse: every table and view listed from the
catalog, each read (row count and a few rows), failures recorded instead of raised.

It imports nothing but duckdb, the standard library and etl.connection (the one way a reader
opens the warehouse: read-only, external access off; itself duckdb and the standard library
only), so it runs under any DuckDB client version; the tests run it with a DuckDB 1.5 client
(what Metabase and DBeaver bundle):

    python -m etl.bi WAREHOUSE.duckdb      prints one JSON object: name -> probe result"""

from __future__ import annotations

import json
import sys
from typing import Any

import duckdb

from etl.connection import WarehouseUnavailable, open_warehouse

SAMPLE_ROWS = 3


def _quote(identifier: str) -> str:
    # Names come from the database's own catalog, never from row values.
    return '"' + identifier.replace('"', '""') + '"'


def probe_database(path: str) -> dict[str, dict[str, Any]]:
    """Open `path` read-only and read every user table and view. Returns, per name:
    kind (table | view), columns [(name, type)], rows (count) and error (None when it read)."""
    con = open_warehouse(path, own_queries_only=True)
    try:
        relations = con.execute(
            "SELECT table_name, table_type FROM information_schema.tables "
            "WHERE table_catalog = current_database() AND table_schema = 'main' "
            "ORDER BY table_name"
        ).fetchall()
        found: dict[str, dict[str, Any]] = {}
        for name, table_type in relations:
            kind = "view" if table_type == "VIEW" else "table"
            entry: dict[str, Any] = {"kind": kind, "columns": [], "rows": None, "error": None}
            try:
                cursor = con.execute(f"SELECT * FROM {_quote(name)} LIMIT {SAMPLE_ROWS}")
                entry["columns"] = [[d[0], str(d[1])] for d in cursor.description]
                cursor.fetchall()
                entry["rows"] = con.execute(f"SELECT count(*) FROM {_quote(name)}").fetchall()[0][0]
            except duckdb.Error as error:
                entry["error"] = f"{type(error).__name__}: {error}"
            found[name] = entry
        return found
    finally:
        con.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m etl.bi WAREHOUSE.duckdb", file=sys.stderr)
        return 2
    try:
        result = probe_database(argv[0])
    except (duckdb.Error, WarehouseUnavailable) as error:
        print(f"cannot open {argv[0]} with duckdb {duckdb.__version__}: {error}", file=sys.stderr)
        return 1
    print(json.dumps({"duckdb_version": duckdb.__version__, "relations": result}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
