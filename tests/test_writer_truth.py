"""The writer shapes `etl synth` plants (docs/SYNTH.md "Writer shapes"), checked in the
ingested demo warehouse against the generator's truth file."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest


@pytest.fixture(scope="module")
def con(demo_db: Path):
    c = duckdb.connect(str(demo_db), read_only=True)
    yield c
    c.close()


def test_bare_nan_is_loaded_as_null_without_a_reject(con, demo_tree) -> None:
    _, truth = demo_tree
    planted = [n for n in truth["nonfinite"] if "results" in n["path"].rsplit("/", 1)[-1]
               or n["path"].endswith("merged_unique.jsonl")]
    assert planted, "the demo tree plants bare NaN in result files"
    for n in truth["nonfinite"]:
        assert con.execute("SELECT count(*) FROM rejects r JOIN files f USING (file_id) "
                           "WHERE f.path = ? AND r.line_no = ?",
                           [n["path"], n["line_no"]]).fetchone()[0] == 0, n
    for n in planted:
        row = con.execute(
            "SELECT r.nonfinite_keys FROM results r JOIN files f USING (file_id) "
            "WHERE f.path = ? AND r.line_no = ?", [n["path"], n["line_no"]]).fetchone()
        if row is None:  # a copy that lost to a preferred one
            continue
        assert n["key"] in json.loads(row[0]), n
    n_flagged = con.execute("SELECT count(*) FROM results WHERE nonfinite_keys IS NOT NULL"
                            ).fetchone()[0]
    assert 0 < n_flagged <= len(planted)
