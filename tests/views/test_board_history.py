"""What moved since the last ingest: leaderboard_history carried from the replaced database
into the new one (etl/board_history.py), the view leaderboard_changes, and the lines
`etl ingest` prints; checked against the leaderboards of the ingests themselves."""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

import etl.board_history as board_history
from etl.board_history import change_lines, record_leaderboard_history
from etl.pipeline.ingest import IngestOptions, run_ingest
from etl.views import apply_schema, apply_views
from tests.boards import load, single_runs
from tests.conftest import run_etl
from tests.html_pages import warehouse_rows as query
from tests.serving import get, running_server
from tests.small_tree import record, write_jsonl

BOARD = "ehr_bench/agentic/full1800"
BOTH = ["aspirin", "heparin"]  # the label of every record(): F1 1; ["aspirin"] scores 2/3


def board(db: Path) -> dict[str, dict[str, Any]]:
    return {r["run_id"]: r for r in query(db, "SELECT * FROM leaderboard")}


def run_results(root: Path, model: str, answer: list[str], n: int = 6) -> None:
    write_jsonl(root / BOARD / model / "results.jsonl",
                [record(f"q{i}", answer=answer) for i in range(n)])


def expected_changes(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]
                     ) -> dict[str, tuple[Any, ...]]:
    """run_id -> (score, rank, n) before and after, for every run that moved, appeared or
    left, read off the two leaderboards."""
    out = {}
    for run in before.keys() | after.keys():
        old, new = before.get(run), after.get(run)
        key = ("score", "rank", "n_questions")
        pair = tuple(None if old is None else old[k] for k in key) + tuple(
            None if new is None else new[k] for k in key)
        if old is None or new is None or pair[:3] != pair[3:]:
            out[run] = pair
    return out


def assert_changes(db: Path, before: dict[str, dict[str, Any]],
                   after: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = query(db, "SELECT * FROM leaderboard_changes")
    ingests = [r["ingest_id"] for r in query(db, "SELECT ingest_id FROM ingests "
                                                 "ORDER BY started_at")]
    want = expected_changes(before, after)
    assert {r["run_id"] for r in rows} == set(want)
    for row in rows:
        got = (row["score_before"], row["rank_before"], row["n_questions_before"],
               row["score_after"], row["rank_after"], row["n_questions_after"])
        assert got == want[row["run_id"]]
        assert (row["ingest_before"], row["ingest_after"]) == tuple(ingests[-2:])
        if row["score_before"] is not None and row["score_after"] is not None:
            assert row["diff"] == pytest.approx(row["score_after"] - row["score_before"])
    return rows


def test_changes_across_ingests_of_a_tree_where_runs_change(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    # Quotes and a semicolon in the path: the replaced file is attached by a bound parameter.
    db = tmp_path / "it's; DROP TABLE results; --" / "w.duckdb"
    run_results(root, "claude_opus_4_6", ["aspirin"])  # 2/3
    run_results(root, "kimi_k2_5", ["x"])  # 0
    run_results(root, "claude_sonnet_4_6", BOTH, n=3)  # 1
    first = run_etl("ingest", str(root), "--db", str(db), "--quiet")
    assert "  changed  " not in first.stdout
    assert query(db, "SELECT * FROM leaderboard_changes") == []
    before = board(db)

    # One run changes: kimi now answers every question right (score and rank move; opus
    # drops a rank); sonnet is untouched.
    run_results(root, "kimi_k2_5", BOTH)
    second = run_etl("ingest", str(root), "--db", str(db), "--quiet")
    after = board(db)
    rows = assert_changes(db, before, after)
    assert {r["model"] for r in rows} == {"kimi_k2_5", "claude_opus_4_6"}
    lines = [line for line in second.stdout.splitlines() if line.startswith("  changed")]
    assert lines == ["  changed  ehr_bench agentic: kimi_k2_5 0.0000 -> 1.0000 (+1.0000, "
                     "rank 3 -> 1); claude_opus_4_6 0.6667 -> 0.6667 (+0.0000, rank 2 -> 3)"]
    history = query(db, "SELECT ingest_seq, count(*) AS n FROM leaderboard_history "
                        "GROUP BY ingest_seq ORDER BY ingest_seq")
    assert history == [{"ingest_seq": 1, "n": 3}, {"ingest_seq": 2, "n": 3}]

    # A run leaves and another appears.
    shutil.rmtree(root / BOARD / "claude_sonnet_4_6")
    run_results(root, "glm_4_7", ["aspirin"], n=2)
    summary = run_ingest(root, db, IngestOptions(jobs=1))
    assert summary.warnings == []
    rows = assert_changes(db, after, board(db))
    left = [r for r in rows if r["score_after"] is None]
    new = [r for r in rows if r["score_before"] is None]
    assert [r["model"] for r in left] == ["claude_sonnet_4_6"]
    assert [r["model"] for r in new] == ["glm_4_7"]
    text = board_history.changes_since_last_ingest(db)
    assert len(text) == 1
    assert "claude_sonnet_4_6 left (was 1.0000, rank 1)" in text[0]
    assert "glm_4_7 new, 0.6667" in text[0]
    assert query(db, "SELECT max(ingest_seq) AS m FROM leaderboard_history") == [{"m": 3}]
    # The explorer's home page lists the same lines, its JSON the view's rows.
    with running_server(db) as base:
        status, _, body = get(f"{base}/?format=json")
        assert status == 200
        assert {r["run_id"] for r in json.loads(body)["changes"]} == {r["run_id"] for r in rows}
        page = get(f"{base}/")[2].decode()
    listed = page.split('id="changes"', 1)[1].split("</ul>", 1)[0]
    assert html.escape(text[0].strip(), quote=False) in listed


@pytest.fixture()
def warehouse() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    apply_schema(con)
    apply_views(con)
    meta = {f"q{i}": ("t1", i) for i in range(4)}
    load(con, {"a": single_runs({q: 1.0 for q in meta}),
               "b": single_runs({q: 0.5 for q in meta})}, meta, compare=False)
    yield con
    con.close()


def seqs(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str]]:
    return con.execute("SELECT DISTINCT ingest_seq, ingest_id FROM leaderboard_history "
                       "ORDER BY ALL").fetchall()


def test_history_keeps_the_last_ingests(warehouse: duckdb.DuckDBPyConnection,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_history, "KEEP_INGESTS", 2)
    for ingest in ("i1", "i2", "i3"):
        assert record_leaderboard_history(warehouse, None, ingest) is None
    assert seqs(warehouse) == [(2, "i2"), (3, "i3")]


def test_history_of_an_older_warehouse_or_an_unreadable_file(
        warehouse: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    older = tmp_path / "older.duckdb"  # a warehouse built before the history existed
    duckdb.connect(str(older)).close()
    assert record_leaderboard_history(warehouse, older, "now") is None
    assert seqs(warehouse) == [(1, "now")]
    broken = tmp_path / "broken.duckdb"
    broken.write_bytes(b"not a database at all")
    problem = record_leaderboard_history(warehouse, broken, "later")
    assert problem is not None and str(broken) in problem and "starts again" in problem
    assert seqs(warehouse) == [(1, "later")]


def test_history_is_copied_from_the_previous_file(warehouse: duckdb.DuckDBPyConnection,
                                                  tmp_path: Path) -> None:
    previous = tmp_path / "previous.duckdb"
    old = duckdb.connect(str(previous))
    apply_schema(old)
    old.execute("INSERT INTO leaderboard_history VALUES (4, 'old', 'ehr_bench', 'agentic', "
                "'b', 'ehr_bench/agentic/full1800/b', 0.75, 1, 4)")
    old.close()
    record_leaderboard_history(warehouse, None, "stale")  # replaced by the carried rows
    assert record_leaderboard_history(warehouse, previous, "new") is None
    assert seqs(warehouse) == [(4, "old"), (5, "new")]
    changes = warehouse.execute("SELECT model, score_before, score_after, rank_before, "
                                "rank_after FROM leaderboard_changes ORDER BY model").fetchall()
    assert changes == [("a", None, 1.0, None, 1), ("b", 0.75, 0.5, 1, 2)]


def test_a_long_board_line_counts_the_rest() -> None:
    rows = [{"benchmark": "b", "mode": "m", "model": f"m{i}", "score_before": 0.5,
             "score_after": 0.5, "diff": 0.0, "rank_before": i, "rank_after": i + 1,
             "n_questions_before": 9, "n_questions_after": 9} for i in range(9)]
    (line,) = change_lines(rows)
    assert line.count("rank") == board_history.ITEMS_PER_LINE
    assert line.endswith("; 3 more (leaderboard_changes)")
