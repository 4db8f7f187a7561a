"""`etl query`: reads work in every format; writes, settings, extensions and file access are
refused with a one-line message and exit code 2; the database file is never modified."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from etl.cli import cli
from etl.output import format_rows
from etl.query import QueryFailed, QueryRefused, run_queries, run_query

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"
SECRET = "s3cr3t-line-outside-the-database"


def build_warehouse(path: Path, display_suffix: str = "") -> Path:
    """A small warehouse built from the real schema DDL, with a few known rows."""
    con = duckdb.connect(str(path))
    try:
        for ddl in sorted(SCHEMA_DIR.glob("*.sql")):
            con.execute(ddl.read_text(encoding="utf-8"))
        con.executemany(
            "INSERT INTO models (model, display_name) VALUES (?, ?)",
            [
                ("claude_opus_4_6", "Claude Opus 4.6" + display_suffix),
                ("gpt_5", "GPT-5 | with a pipe" + display_suffix),
                ("kimi_k2_5", None),
            ],
        )
        con.executemany(
            "INSERT INTO runs (run_id, benchmark, mode, split, model, is_archived, n_results)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                ("ehr_bench/agentic/full1800/claude_opus_4_6", "ehr_bench", "agentic",
                 "full1800", "claude_opus_4_6", False, 1800),
                ("ehr_bench/oneshot/smoke20/gpt_5", "ehr_bench", "oneshot", "smoke20",
                 "gpt_5", False, 20),
            ],
        )
        con.execute(
            "INSERT INTO ingests (ingest_id, started_at, root, n_files) VALUES (?, ?, ?, ?)",
            ["i1", dt.datetime(2025, 3, 4, 5, 6, 7), "line one\nline two", 3],
        )
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return path


@pytest.fixture(scope="module")
def warehouse_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_warehouse(tmp_path_factory.mktemp("template") / "warehouse.duckdb")


@pytest.fixture()
def warehouse(warehouse_template: Path, tmp_path: Path) -> Path:
    # Each test gets its own copy: building from DDL once keeps the suite fast.
    return Path(shutil.copyfile(warehouse_template, tmp_path / "warehouse.duckdb"))


@pytest.fixture()
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.csv"
    path.write_text(f"col\n{SECRET}\n", encoding="utf-8")
    return path


def run_cli(*args: str, input_text: str | None = None):
    return CliRunner().invoke(cli, ["query", *args], input=input_text)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- reads that must work


def test_run_query_returns_columns_and_rows(warehouse: Path) -> None:
    columns, rows = run_query(warehouse, "SELECT model, display_name FROM models ORDER BY model")
    assert columns == ["model", "display_name"]
    assert rows[0] == ("claude_opus_4_6", "Claude Opus 4.6")
    assert rows[2] == ("kimi_k2_5", None)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(*) AS n FROM runs",
        "WITH r AS (SELECT * FROM runs) SELECT count(*) AS n FROM r",
        "FROM runs SELECT count(*) AS n",
        "VALUES (2)",
        "-- a comment first\nSELECT 2 AS n;",
    ],
)
def test_select_forms_are_read(warehouse: Path, sql: str) -> None:
    _, rows = run_query(warehouse, sql)
    assert rows == [(2,)]


def test_show_describe_summarize_explain_pragma(warehouse: Path) -> None:
    _, tables = run_query(warehouse, "SHOW TABLES")
    assert ("runs",) in tables and ("results",) in tables
    columns, described = run_query(warehouse, "DESCRIBE runs")
    assert columns[:2] == ["column_name", "column_type"]
    assert ("run_id", "VARCHAR") in [row[:2] for row in described]
    _, summary = run_query(warehouse, "SUMMARIZE runs")
    assert "n_results" in [row[0] for row in summary]
    _, plan = run_query(warehouse, "EXPLAIN SELECT * FROM runs")
    assert "runs" in str(plan)
    _, analyzed = run_query(warehouse, "EXPLAIN ANALYZE SELECT count(*) FROM runs")
    assert analyzed and analyzed[0][0] == "analyzed_plan"
    _, version = run_query(warehouse, "PRAGMA version")
    assert version[0][0] == f"v{duckdb.__version__}"
    _, info = run_query(warehouse, "PRAGMA table_info('models')")
    assert [row[1] for row in info] == ["model", "display_name"]


def test_several_reads_each_printed(warehouse: Path) -> None:
    results = run_queries(warehouse, "SELECT 1 AS a; SELECT 'x' AS b")
    assert [(r.columns, r.rows) for r in results] == [(["a"], [(1,)]), (["b"], [("x",)])]
    result = run_cli("--db", str(warehouse), "SELECT 1 AS first_col; SELECT 2 AS second_col")
    assert result.exit_code == 0, result.output
    assert "first_col" in result.stdout and "second_col" in result.stdout


def test_max_rows_cuts_and_says_so(warehouse: Path) -> None:
    (result,) = run_queries(warehouse, "SELECT * FROM range(10)", max_rows=3)
    assert len(result.rows) == 3 and result.truncated
    out = run_cli("--db", str(warehouse), "--max-rows", "3", "SELECT * FROM range(10) r(i)")
    assert out.exit_code == 0
    assert "(3 rows)" in out.stdout
    assert "first 3 rows" in out.stderr
    full = run_cli("--db", str(warehouse), "--max-rows", "0", "SELECT * FROM range(10) r(i)")
    assert "(10 rows)" in full.stdout and full.stderr == ""


# ---------------------------------------------------------------- refusals

REFUSED_STATEMENTS = [
    "COPY runs TO 'out.csv'",
    "COPY (SELECT 1) TO '/tmp/etl-query-should-not-exist.csv'",
    "EXPORT DATABASE 'exported'",
    "ATTACH 'other.duckdb' AS other",
    "DETACH warehouse",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "RESET lock_configuration",
    "SET VARIABLE x = 1",
    "PRAGMA enable_profiling",
    "PRAGMA threads = 1",
    "CREATE TABLE t (a INTEGER)",
    "CREATE TEMP TABLE t AS SELECT 1",
    "CREATE MACRO m() AS 1",
    "INSERT INTO models VALUES ('x', 'y')",
    "UPDATE models SET display_name = 'x'",
    "DELETE FROM models",
    "DROP TABLE models",
    "ALTER TABLE models ADD COLUMN c INTEGER",
    "CHECKPOINT",
    "CALL pragma_version()",
    "BEGIN TRANSACTION",
    "VACUUM",
    "USE memory",
    "EXPLAIN ANALYZE COPY runs TO 'out.csv'",
    "EXPLAIN ANALYZE INSERT INTO models VALUES ('x', 'y')",
    "SELECT 1; INSERT INTO models VALUES ('x', 'y')",
]


@pytest.mark.parametrize("sql", REFUSED_STATEMENTS)
def test_non_read_statements_are_refused(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sql: str
) -> None:
    monkeypatch.chdir(tmp_path)
    before = digest(warehouse)
    with pytest.raises(QueryRefused):
        run_queries(warehouse, sql)
    result = run_cli("--db", str(warehouse), sql)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    message = result.stderr.strip()
    assert message.startswith("etl query: refused") and "\n" not in message
    assert "Traceback" not in result.output
    assert digest(warehouse) == before
    # nothing was written next to the database or in the working directory
    assert sorted(p.name for p in tmp_path.iterdir()) == ["warehouse.duckdb"]
    assert not Path("/tmp/etl-query-should-not-exist.csv").exists()


FILE_READS = [
    "SELECT * FROM read_text('{secret}')",
    "SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM read_csv_auto('{secret}')",
    "SELECT * FROM '{secret}'",
    "SELECT * FROM read_blob('{secret}')",
    "SELECT * FROM read_json_auto('{secret}')",
    "SELECT * FROM sniff_csv('{secret}')",
    "SELECT * FROM read_parquet('x.parquet')",
    "SELECT * FROM glob('/*')",
    "SELECT * FROM glob('{dir}/*')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('../../etc/passwd')",
    "SELECT * FROM read_text('../' || 'secret.csv')",
    "SELECT * FROM query('SELECT * FROM read_text(''{secret}'')')",
    "SELECT * FROM duckdb_extensions()",
    "WITH s AS (SELECT * FROM read_text('{secret}')) SELECT count(*) FROM s",
]


@pytest.mark.parametrize("template", FILE_READS)
def test_file_access_from_sql_is_refused(
    warehouse: Path,
    secret_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    template: str,
) -> None:
    workdir = tmp_path / "sub"
    workdir.mkdir()
    monkeypatch.chdir(workdir)  # so '../secret.csv' would resolve to the secret file
    sql = template.format(secret=secret_file, dir=tmp_path)
    with pytest.raises(QueryRefused, match="cannot read or write files"):
        run_queries(warehouse, sql)
    result = run_cli("--db", str(warehouse), sql)
    assert result.exit_code == 2, result.output
    assert SECRET not in result.output
    assert "root:" not in result.output
    assert result.stderr.startswith("etl query: refused") and result.stderr.count("\n") == 1


def test_refusal_happens_before_any_statement_runs(warehouse: Path) -> None:
    # The read first would be fine alone; the whole batch is refused because of the COPY.
    with pytest.raises(QueryRefused, match="COPY"):
        run_queries(warehouse, "SELECT 1; COPY runs TO 'x.csv'")


def test_database_file_unchanged_by_queries(warehouse: Path) -> None:
    before = digest(warehouse)
    mtime = warehouse.stat().st_mtime_ns
    run_query(warehouse, "SELECT * FROM runs")
    run_query(warehouse, "SUMMARIZE results")
    with pytest.raises(QueryRefused):
        run_query(warehouse, "DELETE FROM runs")
    assert digest(warehouse) == before
    assert warehouse.stat().st_mtime_ns == mtime
    assert not warehouse.with_name(warehouse.name + ".wal").exists()


# ---------------------------------------------------------------- errors


def test_missing_database(tmp_path: Path) -> None:
    missing = tmp_path / "nope.duckdb"
    result = run_cli("--db", str(missing), "SELECT 1")
    assert result.exit_code == 2
    assert "database not found" in result.stderr and str(missing) in result.stderr
    assert not missing.exists()


def test_not_a_database(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.duckdb"
    bogus.write_text("this is not a database\n", encoding="utf-8")
    result = run_cli("--db", str(bogus), "SELECT 1")
    assert result.exit_code == 2
    assert result.stderr.startswith("etl query: cannot open database")
    assert "Traceback" not in result.output


def test_query_error_shows_duckdb_message(warehouse: Path) -> None:
    with pytest.raises(QueryFailed, match="no_such_table"):
        run_query(warehouse, "SELECT * FROM no_such_table")
    result = run_cli("--db", str(warehouse), "SELECT nope FROM runs")
    assert result.exit_code == 1
    assert "Binder Error" in result.stderr and "nope" in result.stderr
    assert "Traceback" not in result.output
    syntax = run_cli("--db", str(warehouse), "SELEC 1")
    assert syntax.exit_code == 1 and "Parser Error" in syntax.stderr


def test_empty_or_missing_sql(warehouse: Path) -> None:
    assert run_cli("--db", str(warehouse)).exit_code == 2
    empty = run_cli("--db", str(warehouse), "  -- only a comment\n")
    assert empty.exit_code == 2 and "no SQL statement" in empty.stderr
    both = run_cli("--db", str(warehouse), "--file", "x.sql", "SELECT 1")
    assert both.exit_code == 2 and "not both" in both.stderr


# ---------------------------------------------------------------- formats


def test_table_format_is_aligned(warehouse: Path) -> None:
    result = run_cli(
        "--db", str(warehouse),
        "SELECT model, display_name, n_results FROM models LEFT JOIN runs USING (model) "
        "ORDER BY model",
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split(" | ")[0].strip() == "model"
    assert set(lines[1]) <= {"-", "+"}
    body = lines[2:5]
    # the column separators line up on every row
    positions = {line.index(" | ") for line in [lines[0], *body]}
    assert len(positions) == 1
    assert body[0].endswith("1800") and body[1].rstrip().endswith("  20")  # right-aligned
    assert "NULL" in body[2]
    assert lines[-1] == "(3 rows)"


def test_table_escapes_newlines(warehouse: Path) -> None:
    result = run_cli("--db", str(warehouse), "SELECT root FROM ingests")
    assert "line one\\nline two" in result.stdout


def test_csv_format(warehouse: Path) -> None:
    result = run_cli(
        "--db", str(warehouse), "--format", "csv",
        "SELECT model, display_name FROM models ORDER BY model",
    )
    assert result.exit_code == 0
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows == [
        ["model", "display_name"],
        ["claude_opus_4_6", "Claude Opus 4.6"],
        ["gpt_5", "GPT-5 | with a pipe"],
        ["kimi_k2_5", ""],
    ]
    quoted = run_cli("--db", str(warehouse), "--format", "csv", "SELECT root FROM ingests")
    assert list(csv.reader(io.StringIO(quoted.stdout))) == [["root"], ["line one\nline two"]]


def test_json_format(warehouse: Path) -> None:
    result = run_cli(
        "--db", str(warehouse), "--format", "json",
        "SELECT ingest_id, started_at, started_at::DATE AS day, n_files, "
        "1.25::DECIMAL(5, 2) AS dec, 'NaN'::DOUBLE AS nan, NULL AS nothing, [1, 2] AS list "
        "FROM ingests",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [
        {
            "ingest_id": "i1",
            "started_at": "2025-03-04T05:06:07",
            "day": "2025-03-04",
            "n_files": 3,
            "dec": 1.25,
            "nan": None,
            "nothing": None,
            "list": [1, 2],
        }
    ]
    empty = run_cli("--db", str(warehouse), "--format", "json", "SELECT * FROM runs WHERE false")
    assert json.loads(empty.stdout) == []


def test_markdown_format(warehouse: Path) -> None:
    result = run_cli(
        "--db", str(warehouse), "--format", "md",
        "SELECT model, display_name, n_results FROM models LEFT JOIN runs USING (model) "
        "ORDER BY model",
    )
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "| model | display_name | n_results |"
    assert lines[1] == "|---|---|---:|"
    assert lines[3] == "| gpt_5 | GPT-5 \\| with a pipe | 20 |"
    assert lines[4] == "| kimi_k2_5 |  |  |"
    newline = run_cli("--db", str(warehouse), "--format", "md", "SELECT root FROM ingests")
    assert newline.stdout.splitlines()[2] == "| line one<br>line two |"


def test_csv_and_json_take_one_statement(warehouse: Path) -> None:
    result = run_cli("--db", str(warehouse), "--format", "json", "SELECT 1; SELECT 2")
    assert result.exit_code == 2 and "one statement" in result.stderr


def test_format_rows_values() -> None:
    rows = [(decimal.Decimal("10"), dt.date(2024, 1, 2), True, b"\x01\xff")]
    columns = ["d", "day", "flag", "blob"]
    assert json.loads(format_rows(columns, rows, "json")) == [
        {"d": 10, "day": "2024-01-02", "flag": True, "blob": "\\x01ff"}
    ]
    assert format_rows(columns, rows, "csv") == "d,day,flag,blob\n10,2024-01-02,true,\\x01ff\n"
    long_cell = format_rows(["c"], [("x" * 200,)], "table", max_cell_width=10)
    assert "xxxxxxxxx…" in long_cell and "x" * 11 not in long_cell
    with pytest.raises(ValueError, match="unknown output format"):
        format_rows(columns, rows, "xml")


# ---------------------------------------------------------------- --file, --help


def test_sql_from_file(warehouse: Path, tmp_path: Path) -> None:
    sql_file = tmp_path / "report.sql"
    sql_file.write_text("-- runs per benchmark\nSELECT count(*) AS n FROM runs;\n", "utf-8")
    result = run_cli("--db", str(warehouse), "--file", str(sql_file), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout == "n\n2\n"
    stdin = run_cli("--db", str(warehouse), "--file", "-", "--format", "csv",
                    input_text="SELECT 7 AS n")
    assert stdin.stdout == "n\n7\n"
    missing = run_cli("--db", str(warehouse), "--file", str(tmp_path / "none.sql"))
    assert missing.exit_code == 2 and "SQL file not found" in missing.stderr
    refused = tmp_path / "bad.sql"
    refused.write_text("DROP TABLE runs;", "utf-8")
    bad = run_cli("--db", str(warehouse), "--file", str(refused))
    assert bad.exit_code == 2 and "refused DROP" in bad.stderr


def test_help_explains() -> None:
    result = CliRunner().invoke(cli, ["query", "--help"])
    assert result.exit_code == 0
    text = result.output
    for word in ("read-only", "--file", "--format", "--max-rows", "--db", "Refused", "COPY",
                 "Exit codes", "json"):
        assert word in text


# ---------------------------------------------------------------- concurrency


HOLDER = textwrap.dedent(
    """
    import sys, duckdb
    con = duckdb.connect(sys.argv[1], read_only=True)
    con.execute("SELECT count(*) FROM runs").fetchall()
    print("open", flush=True)
    sys.stdin.readline()
    con.close()
    """
)


def test_works_while_another_process_holds_the_file_and_across_atomic_rename(
    warehouse: Path, tmp_path: Path
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(warehouse)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        _, rows = run_query(warehouse, "SELECT display_name FROM models WHERE model = 'gpt_5'")
        assert rows == [("GPT-5 | with a pipe",)]
        # An ingest publishes by building a new file and renaming it over the old one.
        staged = build_warehouse(tmp_path / "next.duckdb", display_suffix=" (new)")
        os.replace(staged, warehouse)
        _, rows = run_query(warehouse, "SELECT display_name FROM models WHERE model = 'gpt_5'")
        assert rows == [("GPT-5 | with a pipe (new)",)]
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=30)
    assert holder.returncode == 0
