"""Where a load's time and a database's bytes go (etl/pipeline/profile.py): every statement
run through the profiled connection has DuckDB's profile of that statement, under the step
that ran it; the bytes of a column are the blocks it uses, its long strings included."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from types import SimpleNamespace

import duckdb
import orjson

from etl.pipeline.profile import ProfiledConnection, read_profile, storage_bytes


def test_every_statement_has_its_own_profile_under_its_step(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "p.duckdb"))
    step = SimpleNamespace(current="making the table")
    out = tmp_path / "profile"
    profiled = ProfiledConnection(con, out, step)
    statements = ["CREATE TABLE t AS SELECT range AS n FROM range(200000)",
                  "INSERT INTO t SELECT n + 1 FROM t WHERE n % 2 = 0"]
    profiled.execute(statements[0])
    step.current = "adding rows"
    profiled.execute(statements[1])
    assert profiled.execute("SELECT sum(n) FROM t").fetchall() == [(29999900000,)]
    profiled.execute("SELECT n FROM t WHERE n = ?", [7]).fetchall()
    con.close()
    said = read_profile(out)
    assert [(s["step"], s["sql"]) for s in said[:2]] == [
        ("making the table", statements[0]), ("adding rows", statements[1])]
    assert said[3]["sql"] == "SELECT n FROM t WHERE n = ?"
    for entry in said:
        # the file of each entry is DuckDB's profile of that very statement
        profile = orjson.loads((out / f"{entry['n']:05d}.json").read_bytes())
        assert profile["query"]["sql"].strip() == entry["sql"]
        assert entry["seconds"] > 0
    assert said[0]["peak_buffer_bytes"] > 0


def test_a_columns_bytes_include_its_long_strings(tmp_path: Path) -> None:
    """Strings of 40 kB of base64 (6 bits of randomness a character, so no compression
    stores them in fewer bytes than their random bytes): the column holds at least those
    bytes, the columns of the file sum to no more than its used blocks."""
    con = duckdb.connect(str(tmp_path / "s.duckdb"))
    random_bytes = 30_000
    texts = [base64.b64encode(os.urandom(random_bytes)).decode() for _ in range(300)]
    con.execute("CREATE TABLE doc (id INTEGER, body VARCHAR)")
    con.executemany("INSERT INTO doc VALUES (?, ?)", list(enumerate(texts)))
    con.execute("CREATE TABLE tiny (k INTEGER)")
    con.execute("INSERT INTO tiny SELECT range FROM range(1000)")
    con.execute("CHECKPOINT")
    columns = {(c["table"], c["column"]): c for c in storage_bytes(con)}
    used = con.execute("SELECT used_blocks * block_size FROM pragma_database_size()"
                       ).fetchall()[0][0]
    con.close()
    body = columns[("doc", "body")]["bytes"]
    stored_chars = sum(map(len, texts))
    assert len(texts) * random_bytes <= body <= stored_chars + (4 << 20)
    assert columns[("tiny", "k")]["bytes"] < 1 << 20
    assert sum(c["bytes"] for c in columns.values()) <= used


def test_a_columns_compression_is_that_of_its_values(tmp_path: Path) -> None:
    """A column of text whose values DuckDB stores as ZSTD and whose validity mask (one
    in eight rows has a value) it stores uncompressed: the column's compression is ZSTD."""
    con = duckdb.connect(str(tmp_path / "c.duckdb"))
    con.execute("SET force_compression = 'zstd'")
    con.execute("CREATE TABLE t AS SELECT CASE WHEN hash(range) % 8 = 0 "
                "THEN repeat(md5(range::VARCHAR), 10) END AS s FROM range(300000)")
    con.execute("CHECKPOINT")
    kinds = {(segment, kind) for segment, kind in con.execute(
        "SELECT DISTINCT segment_type, compression FROM pragma_storage_info('t')").fetchall()}
    columns = storage_bytes(con)
    con.close()
    assert ("VALIDITY", "Uncompressed") in kinds  # the case this test is about
    assert [(c["column"], c["compression"]) for c in columns] == [("s", "ZSTD")]
