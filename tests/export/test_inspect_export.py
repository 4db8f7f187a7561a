"""The Parquet export of a warehouse of Inspect AI logs on Spark, as written: every table
registered from its exported DDL, every view from its exported Spark file, and the boards
through their whole chain of views equal DuckDB's (the default board and every scorer's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.export.engines import export_parquet_of, register_tables, row_problems


@pytest.fixture(scope="module")
def exported(inspect_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return export_parquet_of(inspect_db, tmp_path_factory.mktemp("inspect-engines") / "parquet")


def test_inspect_boards_on_spark_equal_duckdb(spark, exported, inspect_db) -> None:
    out, manifest = exported["out"], exported["manifest"]
    register_tables(spark, exported)
    for view in manifest["view_order"]:
        spark.sql((out / manifest["views"][view]["sql"]["spark"]).read_text())
    con = duckdb.connect(str(inspect_db), read_only=True)
    try:
        for view in ("leaderboard", "leaderboard_all_scorers", "leaderboard_clustered"):
            columns = [c["name"] for c in manifest["views"][view]["columns"]]
            quoted = ", ".join(f'"{c}"' for c in columns)
            want = con.execute(f'SELECT {quoted} FROM "{view}"').fetchall()
            got = [tuple(r) for r in spark.table(f"default.{view}").select(*columns).collect()]
            assert want and row_problems(view, columns, want, got) == [], view
        assert spark.table("inspect_scorers").count() == 6
        assert spark.table("token_usage").count() == con.execute(
            "SELECT count(*) FROM token_usage").fetchall()[0][0]
    finally:
        con.close()
