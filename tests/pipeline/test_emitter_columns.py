"""The emitter's column buffers (rows appended value by value, missing columns padded with
NULL, flushed in batches) write exactly the rows given: checked against pyarrow's own
from_pylist of the same row dicts, for generated rows that leave out any columns, across
batch boundaries, with a value the column cannot hold among them."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from etl.extract import FileInfo
from etl.pipeline import emitter as stage
from etl.schema import staged_schema
from tests.budgets import examples

COLUMNS = ["qid", "run_index", "rec_no", "msg_idx", "role", "content", "n_tool_calls"]
VALUES = {
    "qid": st.text(max_size=5), "run_index": st.integers(1, 5), "rec_no": st.integers(1, 9),
    "msg_idx": st.integers(0, 30),
    "role": st.sampled_from(["user", "assistant", "tool", None]),
    "content": st.one_of(st.none(), st.text(max_size=20)),
    "n_tool_calls": st.integers(0, 3),
}
row_strategy = st.lists(st.sampled_from(COLUMNS), unique=True, min_size=1).flatmap(
    lambda keys: st.fixed_dictionaries({k: VALUES[k] for k in keys}))


def _info(tmp: Path) -> FileInfo:
    return FileInfo(file_id="f1", path="r/results.jsonl", abs_path=tmp / "x", real_path="x",
                    kind="results_top", run_id="r", model="m")


@settings(max_examples=examples(60), deadline=None)
@given(rows=st.lists(row_strategy, max_size=40), flush_rows=st.integers(1, 7))
def test_written_rows_equal_the_rows_given(tmp_path_factory, rows, flush_rows) -> None:
    out = Path(tmp_path_factory.mktemp("emit"))
    old, stage.FLUSH_ROWS = stage.FLUSH_ROWS, flush_rows
    try:
        emitter = stage.ParquetEmitter(_info(out), out, "ing")
        for row in rows:
            emitter.row("messages", row)
        emitter.close()
    finally:
        stage.FLUSH_ROWS = old
    schema = staged_schema("messages")
    if not rows:
        assert not (out / "messages.parquet").exists()
        return
    got = pq.read_table(out / "messages.parquet").to_pylist()
    filled = [{"run_id": "r", "file_id": "f1", "model": "m", **row} for row in rows]
    expected = pa.Table.from_pylist(filled, schema=schema).to_pylist()
    # run_id / file_id / model are filled from the file where the row left them NULL
    assert got == expected
    assert emitter.counts["messages"] == len(rows)


def test_a_value_the_column_cannot_hold_costs_only_that_value(tmp_path: Path) -> None:
    emitter = stage.ParquetEmitter(_info(tmp_path), tmp_path, "ing")
    emitter.row("results", {"qid": "b", "run_index": 1, "rec_no": 2, "line_no": 4})
    emitter.row("messages", {"qid": "a", "msg_idx": 0, "content": "x", "rec_no": 1})
    emitter.row("messages", {"qid": "b", "msg_idx": 2**40, "rec_no": 2})
    emitter.row("messages", {"qid": "c", "msg_idx": 1})
    emitter.close()
    got = pq.read_table(tmp_path / "messages.parquet", columns=["qid", "msg_idx", "content"])
    assert got.to_pylist() == [{"qid": "a", "msg_idx": 0, "content": "x"},
                               {"qid": "b", "msg_idx": None, "content": None},
                               {"qid": "c", "msg_idx": 1, "content": None}]
    rejects = pq.read_table(tmp_path / "rejects.parquet").to_pylist()
    assert [(r["line_no"], r["severity"]) for r in rejects] == [(4, "repaired")]
    assert "messages.msg_idx" in rejects[0]["error"]


def test_an_unknown_column_is_an_extractor_bug(tmp_path: Path) -> None:
    emitter = stage.ParquetEmitter(_info(tmp_path), tmp_path, "ing")
    emitter.row("messages", {"qid": "a"})
    try:
        emitter.row("messages", {"qid": "b", "no_such_column": 1})
    except KeyError as exc:
        assert "no_such_column" in str(exc)
    else:
        raise AssertionError("an unknown column was accepted")
