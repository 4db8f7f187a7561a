"""Archive lineage on the shared demo tree against what the generator planted
(OUT.truth.json "archives"): every archived run is linked as intended and archive_diff lists
exactly the questions whose status or normalized prediction the generator changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest


@pytest.fixture(scope="module")
def con(demo_db: Path) -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect(str(demo_db), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def archives(demo_tree: tuple[Path, dict]) -> dict[str, dict[str, Any]]:
    _, truth = demo_tree
    return {a["run_id"]: a for a in truth["archives"]}


def test_every_archive_is_linked_as_the_generator_intended(
        con: duckdb.DuckDBPyConnection, archives: dict[str, dict[str, Any]]) -> None:
    got = {row[0]: row[1:] for row in con.execute(
        "SELECT archived_run_id, archive_name, relation, superseded_by_run_id "
        "FROM archive_lineage").fetchall()}
    assert set(got) == set(archives)  # none dropped, none invented
    for run_id, want in archives.items():
        assert got[run_id] == (want["archive_name"], want["relation"], want["superseded_by"]), \
            run_id


def test_diff_changes_are_the_generators_changes(
        con: duckdb.DuckDBPyConnection, archives: dict[str, dict[str, Any]]) -> None:
    for run_id, want in archives.items():
        rows = con.execute(
            "SELECT qid, run_index, status_changed, prediction_changed FROM archive_diff "
            "WHERE archived_run_id = ? AND (status_changed OR prediction_changed)",
            [run_id]).fetchall()
        got = {(qid, run_index): {f for f, on in (("status", status), ("prediction", pred))
                                  if on}
               for qid, run_index, status, pred in rows}
        expected = {(c["qid"], c["run_index"]): set(c["fields"]) for c in want["changed"]}
        assert got == expected, run_id


def test_change_categories_agree_with_the_flags(con: duckdb.DuckDBPyConnection) -> None:
    """A row is 'same' exactly when nothing the generator could change differs (set_f1 is
    a function of status and answer, so it adds no changed question of its own)."""
    bad = con.execute(
        "SELECT archived_run_id, qid, run_index, change FROM archive_diff "
        "WHERE change NOT IN ('only_archived', 'only_current') "
        "AND (change = 'same') = (status_changed OR prediction_changed)").fetchall()
    assert bad == []


def test_lineage_counts_match_the_truth(con: duckdb.DuckDBPyConnection,
                                        archives: dict[str, dict[str, Any]]) -> None:
    got = dict(con.execute("SELECT archived_run_id, n_changed FROM archive_lineage").fetchall())
    assert got == {run_id: len(a["changed"]) for run_id, a in archives.items()}


def test_unparseable_archive(con: duckdb.DuckDBPyConnection,
                             archives: dict[str, dict[str, Any]]) -> None:
    unknown = [a for a in archives.values() if a["benchmark"] is None]
    assert [a["archive_name"] for a in unknown] == ["old_misc_dump"]
    (a,) = unknown
    row = con.execute(
        "SELECT parsed_by, benchmark, model, split, relation, superseded_by_run_id, "
        "n_archived_results FROM archive_lineage WHERE archived_run_id = ?",
        [a["run_id"]]).fetchone()
    assert row == ("unparsed", None, None, None, a["relation"], None,
                   con.execute("SELECT count(*) FROM results WHERE run_id = ?",
                               [a["run_id"]]).fetchone()[0])
    assert a["relation"] == "unknown"
    # Its results are listed, all only_archived: nothing to compare them with.
    changes = con.execute("SELECT DISTINCT change FROM archive_diff WHERE archived_run_id = ?",
                          [a["run_id"]]).fetchall()
    assert changes == [("only_archived",)]


def test_archive_without_a_current_run(con: duckdb.DuckDBPyConnection,
                                       demo_tree: tuple[Path, dict],
                                       archives: dict[str, dict[str, Any]]) -> None:
    """An archive of a benchmark/mode/model that has no current run (of any split)."""
    _, truth = demo_tree
    current = {(r["benchmark"], r["mode"], r["model"]) for r in truth["runs"]
               if not r["is_archived"]}
    lonely = [a for a in archives.values() if a["benchmark"] is not None
              and (a["benchmark"], a["mode"], a["model"]) not in current]
    assert lonely  # the demo tree plants one
    for a in lonely:
        assert a["relation"] == "orphaned" and a["superseded_by"] is None
        row = con.execute(
            "SELECT relation, superseded_by_run_id, match_kind, n_candidates, n_changed, "
            "n_only_archived, n_archived_results FROM archive_lineage "
            "WHERE archived_run_id = ?", [a["run_id"]]).fetchone()
        assert row[:5] == ("orphaned", None, None, 0, 0)
        assert row[5] == row[6] > 0  # every result listed as only_archived
