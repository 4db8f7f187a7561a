"""The export on the engines it is for: `etl export --parquet` of a warehouse, its tables
registered in Spark as docs/EXPORT.md says, and rows of Spark compared with DuckDB's (keys
exact, numbers to NUMERIC_TOLERANCE)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson

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
    out = exported["out"]
    for entry in exported["manifest"]["tables"].values():
        spark.sql((out / entry["ddl"]["spark"]).read_text())
        if entry["partition_sync"]:
            spark.sql(entry["partition_sync"]["spark"])


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
