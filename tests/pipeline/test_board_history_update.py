"""An update of the published database recomputes the leaderboard history of the boards
whose runs changed and keeps the last ingest's rows of the others (etl/board_history.py).
The oracle is a full rebuild of the same tree: its leaderboard is what every board's rows
of the last ingest must be, whichever were kept and whichever recomputed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

import etl.board_history as board_history
from tests.small_tree import (
    AGENTIC,
    MM_RAW,
    ONESHOT,
    assert_same_warehouse,
    build_tree,
    ingest,
    record,
    write_jsonl,
)

SECOND_AGENTIC = "ehr_bench/agentic/full1800/kimi_k2_5"


def last_boards(db: Path) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """The last ingest's rows of leaderboard_history, by board, exactly as stored."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT benchmark, mode, model, run_id, score, rank, n_questions "
            "FROM leaderboard_history WHERE ingest_seq = "
            "(SELECT max(ingest_seq) FROM leaderboard_history) ORDER BY ALL").fetchall()
    finally:
        con.close()
    out: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for row in rows:
        out.setdefault((row[0], row[1]), []).append(row)
    return out


def append(path: Path, *records: dict[str, Any]) -> None:
    with open(path, "ab") as fh:
        fh.write(b"".join(orjson.dumps(r) + b"\n" for r in records))


@pytest.fixture()
def recomputed(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each ingest's history step decided to recompute (None: every board)."""
    seen: list[Any] = []
    decide = board_history._boards_to_recompute

    def spy(con: duckdb.DuckDBPyConnection) -> Any:
        seen.append(decide(con))
        return seen[-1]

    monkeypatch.setattr(board_history, "_boards_to_recompute", spy)
    return seen


def test_one_board_changed_keeps_the_others_and_equals_a_full_build(
        tmp_path: Path, recomputed: list[Any]) -> None:
    root, db = tmp_path / "tree", tmp_path / "warehouse.duckdb"
    build_tree(root)
    write_jsonl(root / SECOND_AGENTIC / "results.jsonl",
                [record(f"q{i}", answer=["heparin"]) for i in range(5)])
    # the truncated last line of build_tree's agentic run ended, so that the appends below
    # start a line of their own
    (root / AGENTIC / "results.jsonl").write_bytes(
        (root / AGENTIC / "results.jsonl").read_bytes() + b"\n")
    ingest(root, db)
    before = last_boards(db)
    assert {("ehr_bench", "agentic"), ("ehr_bench", "oneshot"),
            ("mm_bench", "agentic")} <= set(before)

    # one board: the one-shot run answers a question it had not
    append(root / ONESHOT / "results.jsonl", record("q7", answer=["aspirin", "heparin"]))
    summary = ingest(root, db)
    assert summary.full_reason is None
    assert recomputed[-1] == [("ehr_bench", "oneshot")]
    after = last_boards(db)
    for key in set(before) - {("ehr_bench", "oneshot")}:
        assert after[key] == before[key]  # kept as stored, to the last bit
    assert after[("ehr_bench", "oneshot")] != before[("ehr_bench", "oneshot")]
    full = tmp_path / "full.duckdb"
    ingest(root, full, full=True)
    assert_same_warehouse(db, full)

    # two boards in one ingest: a text run and the multimodal run
    append(root / AGENTIC / "results.jsonl", record("q8", answer=["x"]))
    append(root / MM_RAW / "us-west-2/results.jsonl",
           record("m8", answer=["heparin"], task="medmod_phenotyping"))
    summary = ingest(root, db)
    assert summary.full_reason is None
    assert recomputed[-1] == [("ehr_bench", "agentic"), ("mm_bench", "agentic")]
    assert last_boards(db)[("ehr_bench", "oneshot")] == after[("ehr_bench", "oneshot")]
    full.unlink()
    ingest(root, full, full=True)
    assert_same_warehouse(db, full)


def test_a_run_that_leaves_its_board_is_recomputed(tmp_path: Path,
                                                   recomputed: list[Any]) -> None:
    """A deleted run is not in the tree any more: its board is found from what the
    published database held."""
    root, db = tmp_path / "tree", tmp_path / "warehouse.duckdb"
    build_tree(root)
    write_jsonl(root / SECOND_AGENTIC / "results.jsonl",
                [record(f"q{i}", answer=["heparin"]) for i in range(5)])
    ingest(root, db)
    assert any(row[3] == SECOND_AGENTIC for row in last_boards(db)[("ehr_bench", "agentic")])
    (root / SECOND_AGENTIC / "results.jsonl").unlink()
    summary = ingest(root, db)
    assert summary.full_reason is None
    assert recomputed[-1] == [("ehr_bench", "agentic")]
    assert not any(row[3] == SECOND_AGENTIC
                   for row in last_boards(db)[("ehr_bench", "agentic")])
    full = tmp_path / "full.duckdb"
    ingest(root, full, full=True)
    assert_same_warehouse(db, full)
