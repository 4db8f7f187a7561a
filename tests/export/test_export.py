"""`etl export --parquet` on the demo warehouse: the export is read back with DuckDB and with
pyarrow.dataset and compared with the database itself (counts per table and per partition,
every view's rows). The exported Spark and Trino SQL is checked on those engines in
tests/export/test_export_engines.py."""

from __future__ import annotations

import math
import shutil
import warnings
from pathlib import Path

import duckdb
import orjson
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from click.testing import CliRunner

from etl.cli import cli

PARTITION_KEYS = ["benchmark", "mode", "model"]
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


class SizeNotice(UserWarning):
    """A measured figure worth seeing in the test output."""



def _catalog(con: duckdb.DuckDBPyConnection, function: str, column: str) -> list[str]:
    rows = con.execute(f"SELECT {column} FROM {function}() WHERE NOT internal "
                       f"AND database_name = current_database() ORDER BY 1").fetchall()
    return [row[0] for row in rows]


def _count(con: duckdb.DuckDBPyConnection, relation: str) -> int:
    return con.execute(f'SELECT count(*) FROM "{relation}"').fetchall()[0][0]


def _parquet_files(directory: Path) -> list[str]:
    return sorted(str(p) for p in directory.rglob("*.parquet"))


def _hive_dataset(directory: Path) -> ds.Dataset:
    partitioning = ds.HivePartitioning.discover(null_fallback=HIVE_NULL)
    return ds.dataset(str(directory), format="parquet", partitioning=partitioning)


def test_every_table_read_back_with_duckdb_and_pyarrow(exported: dict, db) -> None:
    out, manifest = exported["out"], exported["manifest"]
    tables = _catalog(db, "duckdb_tables", "table_name")
    assert sorted(manifest["tables"]) == tables
    reader = duckdb.connect()
    for table in tables:
        expected = _count(db, table)
        directory = out / manifest["tables"][table]["path"]
        assert manifest["tables"][table]["rows"] == expected, table
        files = _parquet_files(directory)
        assert files, f"{table}: no Parquet file written"
        read = reader.execute("SELECT count(*) FROM read_parquet(?, hive_partitioning = true)",
                              [files]).fetchall()[0][0]
        assert read == expected, table
        assert _hive_dataset(directory).count_rows() == expected, table
    assert any(manifest["tables"][t]["rows"] > 0 for t in tables)


def test_per_result_tables_are_partitioned_by_run_keys(exported: dict, db) -> None:
    out, manifest = exported["out"], exported["manifest"]
    for table in ["results", "messages", "tool_calls", "question_scores"]:
        entry = manifest["tables"][table]
        assert entry["partition_by"] == PARTITION_KEYS, table
        directory = out / entry["path"]
        for file in _parquet_files(directory):
            parts = Path(file).relative_to(directory).parts
            assert [p.split("=", 1)[0] for p in parts[:-1]] == PARTITION_KEYS, file
            # Hive convention: the keys live in the directory names, not in the files.
            assert not set(PARTITION_KEYS) & set(pq.read_schema(file).names), file
        # Rows per (benchmark, mode, model) from the directory names, against the database
        # where the keys come from the row's run.
        table_read = _hive_dataset(directory).to_table(columns=PARTITION_KEYS)
        exported_counts = (table_read.group_by(PARTITION_KEYS).aggregate([([], "count_all")])
                           .to_pylist())
        got = {tuple(r[k] for k in PARTITION_KEYS): r["count_all"] for r in exported_counts}
        sql = (f'SELECT r.benchmark, r.mode, r.model, count(*) FROM "{table}" AS t '
               "LEFT JOIN runs AS r ON r.run_id = t.run_id GROUP BY ALL")
        want = {tuple(row[:3]): row[3] for row in db.execute(sql).fetchall()}
        assert got == want, table
        assert len(want) > 3, f"{table}: the demo data should span several partitions"


def test_small_tables_are_one_file_each(exported: dict) -> None:
    out, manifest = exported["out"], exported["manifest"]
    for table in ["runs", "files", "rejects", "models", "ingests"]:
        entry = manifest["tables"][table]
        assert entry["partition_by"] == []
        assert [Path(f).name for f in _parquet_files(out / entry["path"])] == ["data_0.parquet"]


def _same_rows(left: list[tuple], right: list[tuple]) -> bool:
    def key(row: tuple) -> tuple:
        return tuple((value is None, str(value)) for value in row)

    if len(left) != len(right):
        return False
    for a, b in zip(sorted(left, key=key), sorted(right, key=key), strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, float) or isinstance(y, float):
                if x is None or y is None or not math.isclose(x, y, rel_tol=1e-12,
                                                              abs_tol=1e-12):
                    return False
            elif x != y:
                return False
    return True


def test_views_as_parquet_hold_the_database_rows(exported: dict, db) -> None:
    out, manifest = exported["out"], exported["manifest"]
    views = _catalog(db, "duckdb_views", "view_name")
    assert sorted(manifest["views"]) == views
    reader = duckdb.connect()
    for view in views:
        entry = manifest["views"][view]
        columns = [c["name"] for c in entry["columns"]]
        quoted = ", ".join(f'"{c}"' for c in columns)
        want = db.execute(f'SELECT {quoted} FROM "{view}"').fetchall()
        got = reader.execute(f"SELECT {quoted} FROM read_parquet(?)",
                             [_parquet_files(out / entry["path"])]).fetchall()
        assert entry["rows"] == len(want), view
        assert _same_rows(got, want), view
    assert manifest["views"]["leaderboard"]["rows"] > 0


def test_manifest_describes_columns_and_source_ingest(exported: dict, db) -> None:
    manifest = exported["manifest"]
    ingest = db.execute("SELECT ingest_id, root FROM ingests ORDER BY finished_at DESC "
                        "LIMIT 1").fetchall()[0]
    assert manifest["source"]["ingest"]["ingest_id"] == ingest[0]
    assert manifest["source"]["ingest"]["root"] == ingest[1]
    assert manifest["source"]["database_bytes"] == exported["db"].stat().st_size
    comments = dict(db.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE table_name = 'results' "
        "AND database_name = current_database()").fetchall())
    entry = {c["name"]: c["comment"] for c in manifest["tables"]["results"]["columns"]}
    assert entry == comments
    added = [c["name"] for c in manifest["tables"]["messages"]["columns"]][-3:]
    assert added == PARTITION_KEYS
    for view in manifest["views"].values():
        assert set(view["sql"]) == {"duckdb", "trino", "spark"}
        for path in view["sql"].values():
            assert (exported["out"] / path).is_file()


def _dir_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def test_output_reports_sizes_against_the_database(exported: dict) -> None:
    out, stdout = exported["out"], exported["stdout"]
    export_mb = _dir_bytes(out) / 1e6
    db_mb = exported["db"].stat().st_size / 1e6
    assert f"{export_mb:.1f} MB on disk" in stdout
    assert f"database {db_mb:.1f} MB" in stdout
    # A warning, so the figure shows in the summary of a normal (captured) pytest run.
    warnings.warn(SizeNotice(f"Parquet export {export_mb:.2f} MB vs database {db_mb:.2f} MB"),
                  stacklevel=1)


def test_existing_export_is_replaced_only_when_asked(exported: dict, tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(exported["out"], out)
    runner = CliRunner()
    args = ["export", "--db", str(exported["db"]), "--parquet", str(out)]
    refused = runner.invoke(cli, args)
    assert refused.exit_code == 1
    assert "already holds an export; pass --replace" in refused.output
    (out / "stale.txt").write_text("from an older export")
    replaced = runner.invoke(cli, [*args, "--replace"])
    assert replaced.exit_code == 0, replaced.output
    assert not (out / "stale.txt").exists()
    assert orjson.loads((out / "manifest.json").read_bytes())["tables"]["results"]["rows"] == \
        exported["manifest"]["tables"]["results"]["rows"]
    assert not list(tmp_path.glob(".copy.*")), "temporary directories left behind"


def test_foreign_directory_and_missing_database_give_clear_errors(exported: dict,
                                                                  tmp_path: Path) -> None:
    runner = CliRunner()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    result = runner.invoke(cli, ["export", "--db", str(exported["db"]), "--parquet",
                                 str(foreign), "--replace"])
    assert result.exit_code == 1
    assert "holds no manifest.json" in result.output
    assert (foreign / "notes.txt").read_text() == "keep me"
    missing = runner.invoke(cli, ["export", "--db", str(tmp_path / "none.duckdb"),
                                  "--parquet", str(tmp_path / "x")])
    assert missing.exit_code == 1
    assert "not found" in missing.output and "Traceback" not in missing.output
    assert not (tmp_path / "x").exists()
