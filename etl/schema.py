"""The schema files (schema/*.sql) and the SQL files (sql/): where they are and what they say.

schema/ is the single source of truth for table columns: staging derives its Arrow schemas
from it by running the DDL in an in-memory DuckDB."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import duckdb
import pyarrow as pa

PROJECT_DIR = Path(__file__).resolve().parent.parent
SCHEMA_DIR = PROJECT_DIR / "schema"
SQL_DIR = PROJECT_DIR / "sql"
LOAD_SQL_DIR = SQL_DIR / "load"

# Columns every staged row carries besides its table's own: where it came from.
STAGING_EXTRAS = {"file_id": pa.string(), "rec_no": pa.int64()}


def sql_files(directory: Path) -> list[Path]:
    """The *.sql files of a directory in the order they are applied (by file name)."""
    return sorted(directory.glob("*.sql"), key=lambda path: path.name)


def schema_files() -> list[Path]:
    return sql_files(SCHEMA_DIR)


def view_files() -> list[Path]:
    return sql_files(SQL_DIR)


def load_sql(name: str) -> str:
    return (LOAD_SQL_DIR / name).read_text(encoding="utf-8")


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    for path in schema_files():
        con.execute(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def table_columns() -> dict[str, list[str]]:
    return {name: [f.name for f in schema] for name, schema in arrow_schemas().items()}


@lru_cache(maxsize=1)
def arrow_schemas() -> dict[str, pa.Schema]:
    """Arrow schema of each table as staged: its columns plus STAGING_EXTRAS."""
    con = duckdb.connect()
    try:
        create_schema(con)
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
            "ORDER BY table_name").fetchall()]
        out: dict[str, pa.Schema] = {}
        for name in names:
            rel = con.table(name).limit(0)
            out[name] = rel.to_arrow_table().schema
        return out
    finally:
        con.close()


def staged_schema(table: str) -> pa.Schema:
    schema = arrow_schemas()[table]
    for name, typ in STAGING_EXTRAS.items():
        if schema.get_field_index(name) < 0:
            schema = schema.append(pa.field(name, typ))
    return schema


def fingerprint(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def parser_fingerprint() -> str:
    """Changes whenever code that decides staged rows changes, so cached parses of an older
    parser are never reused."""
    etl_dir = PROJECT_DIR / "etl"
    files = [*etl_dir.glob("extract/*.py"), etl_dir / "read.py", etl_dir / "normalize.py",
             *etl_dir.glob("scoring*.py"), etl_dir / "stage.py", etl_dir / "models.py",
             *schema_files()]
    return fingerprint([p for p in files if p.exists()])
