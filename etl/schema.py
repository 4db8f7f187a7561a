"""The schema files (schema/*.sql) and the SQL files (sql/): where they are and what they say.

schema/ is the single source of truth for table columns: staging derives its Arrow schemas
from it by running the DDL in an in-memory DuckDB."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import duckdb
import pyarrow as pa

PACKAGE_DIR = Path(__file__).resolve().parent
# In a source checkout schema/ and sql/ sit beside the package; an installed wheel carries
# them inside it as etl/_data/{schema,sql} (copied there at build time by setup.py).
_SHIPPED_DIR = Path(str(files("etl") / "_data"))
PROJECT_DIR = _SHIPPED_DIR if (_SHIPPED_DIR / "schema").is_dir() else PACKAGE_DIR.parent
SCHEMA_DIR = PROJECT_DIR / "schema"
SQL_DIR = PROJECT_DIR / "sql"
LOAD_SQL_DIR = SQL_DIR / "load"
QUERIES_DIR = SQL_DIR / "queries"
# The directories a wheel must ship (setup.py copies them into etl/_data).
DATA_DIRS = ("schema", "sql")

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


def query_text(name: str) -> str:
    """The SQL of sql/queries/<name>.sql: the readers' queries (API, CLI, explorer)."""
    return (QUERIES_DIR / f"{name}.sql").read_text(encoding="utf-8")


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


# The package modules whose code decides a staged row: the extractors and what they call, the
# staging itself (a worker imports only these), and discover and the copy rule, which decide
# the run fields and the preferred copies every staged row is written with. The cache index,
# the load, the lock and the Ctrl-C rules decide no row and are not here (a change to them
# parses nothing again). tests/pipeline/test_cache.py checks that every etl module the staging
# path imports is listed here.
ROW_MODULES = ("__init__.py", "archive.py", "benchmarks.py", "models.py", "normalize.py",
               "read.py", "schema.py", "statuses.py", "tasks.py", "values.py",
               "pipeline/__init__.py", "pipeline/copies.py", "pipeline/discover.py",
               "pipeline/emitter.py", "pipeline/inspect_stage.py", "pipeline/plan.py",
               "pipeline/segments.py", "pipeline/stage.py")
# Packages whose every module is on the staging path: the extractors, the scorers and the
# failure labels (a new module of any is in the key without an edit here).
ROW_PACKAGES = ("extract", "scoring", "failures")
ROW_DATA_FILES = ("archive_overrides.json",)  # data files those modules read


def row_input_files() -> list[Path]:
    """Every file an input of a staged row comes from: ROW_MODULES, the extractors and the
    scorers (ROW_PACKAGES), their data files and the table DDL (schema/)."""
    files = [PACKAGE_DIR / name for name in (*ROW_MODULES, *ROW_DATA_FILES)]
    for package in ROW_PACKAGES:
        files += sorted((PACKAGE_DIR / package).glob("*.py"))
    return [p for p in files if p.exists()] + schema_files()


def code_fingerprint() -> str:
    """Everything that shapes the database besides the staged rows: the DDL, the views, the
    load SQL and the modules of the package the ingest runs (the command line, the explorer
    and the synthetic trees excepted). The published database is updated in place of rebuilt
    only when it was built under the same fingerprint."""
    modules = [path for package in ("", "pipeline", *ROW_PACKAGES)
               for path in sorted((PACKAGE_DIR / package).glob("*.py"))]
    # the redaction rules too: the same tree under other rules is another database
    redact_sql = sorted((SQL_DIR / "redact").glob("*.sql"))
    return fingerprint([*schema_files(), *view_files(), *LOAD_SQL_DIR.glob("*.sql"),
                        *redact_sql, *modules, *row_input_files()])


def parser_fingerprint() -> str:
    """Changes whenever anything that decides staged rows changes (row_input_files), so a
    cached parse is reused only when parsing again would give the very same rows: an
    incremental ingest always equals a full rebuild."""
    return fingerprint(row_input_files())
