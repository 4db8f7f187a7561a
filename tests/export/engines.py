"""The export on the engines it is for: `etl export --parquet` of a warehouse, its tables
registered in Spark as docs/EXPORT.md says, and rows of Spark compared with DuckDB's (keys
exact, numbers to NUMERIC_TOLERANCE)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson
import sqlglot
from sqlglot import exp

from tests.conftest import run_etl

NUMERIC_TOLERANCE = 1e-9


def export_parquet_of(db: Path, out: Path) -> dict[str, Any]:
    """`etl export --parquet` of db into out: {"out", "manifest", "stdout", "db"}."""
    proc = run_etl("export", "--db", str(db), "--parquet", str(out))
    manifest = orjson.loads((out / "manifest.json").read_bytes())
    assert manifest["problems"] == []
    return {"out": out, "manifest": manifest, "stdout": proc.stdout, "db": db}


def register_tables(spark, exported: dict) -> None:
    """Every exported table in Spark's current database, the way docs/EXPORT.md says: its
    DDL file, then its partition sync."""
    register(spark, exported, list(exported["manifest"]["tables"]), [])


def needed_for(exported: dict, views: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The tables and the views (in view_order) that the given views read, directly or
    through other views, as their Spark files name them: what a reader registers to query
    only those views."""
    out, manifest = exported["out"], exported["manifest"]
    names = set(manifest["tables"]) | set(manifest["view_order"])
    needed: set[str] = set()

    def walk(name: str) -> None:
        if name in needed:
            return
        needed.add(name)
        if name in manifest["views"]:
            text = (out / manifest["views"][name]["sql"]["spark"]).read_text()
            tree = sqlglot.parse_one(text, read="spark")
            ctes = {cte.alias for cte in tree.find_all(exp.CTE)}
            for table in tree.find_all(exp.Table):
                if table.name in names and table.name not in ctes and table.name != name:
                    walk(table.name)

    for view in views:
        walk(view)
    return ([t for t in manifest["tables"] if t in needed],
            [v for v in manifest["view_order"] if v in needed])


def register(spark, exported: dict, tables: list[str], views: list[str]) -> None:
    """These tables (DDL file, then partition sync) and views (their Spark files, in this
    order) in Spark's current database, every file as written."""
    out, manifest = exported["out"], exported["manifest"]
    for table in tables:
        entry = manifest["tables"][table]
        spark.sql((out / entry["ddl"]["spark"]).read_text())
        if entry["partition_sync"]:
            spark.sql(entry["partition_sync"]["spark"])
    for view in views:
        spark.sql((out / manifest["views"][view]["sql"]["spark"]).read_text())


def is_float(value: Any) -> bool:
    return isinstance(value, float)


def sort_key(row: tuple) -> tuple:
    # Keys (non-float values) first, exactly; floats rounded so that two summation orders
    # sort alike.
    return tuple((v is None, f"{v:.6f}" if is_float(v) else str(v)) for v in row)


def row_problems(view: str, columns: list[str], want: list[tuple],
                  got: list[tuple]) -> list[str]:
    if len(want) != len(got):
        return [f"{view}: {len(got)} rows in Spark, {len(want)} in DuckDB"]
    for w, g in zip(sorted(want, key=sort_key), sorted(got, key=sort_key), strict=True):
        for name, a, b in zip(columns, w, g, strict=True):
            if is_float(a) or is_float(b):
                ok = a is not None and b is not None and math.isclose(
                    a, b, rel_tol=NUMERIC_TOLERANCE, abs_tol=NUMERIC_TOLERANCE)
                ok = ok or (a is None and b is None)
            else:
                ok = a == b and type(a) is type(b)
            if not ok:
                return [f"{view}.{name}: Spark {b!r}, DuckDB {a!r} (row {w!r})"]
    return []
