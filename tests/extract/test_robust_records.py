"""One bad value costs one record at most, never the file or the ingest (issue 12).

Each test reproduces a crash or a silent loss seen on the ingest before the per-record
guards: the input is a tiny tree written here, the oracle is what DESIGN.md's rules say
must become of each line (loaded, counted duplicate, or a reject naming its line)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from etl.pipeline.ingest import IngestOptions, run_ingest

RUN = "mm_bench/oneshot/full2703/demo_model"
SCORED = "mm_bench/oneshot/scored/demo_model"


def ingest(tmp_path: Path, files: dict[str, bytes]) -> duckdb.DuckDBPyConnection:
    root = tmp_path / "tree"
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    db = tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1, wait_seconds=5))
    return duckdb.connect(str(db), read_only=True)


def rows(con: duckdb.DuckDBPyConnection, sql: str, *params: object) -> list[tuple]:
    return con.execute(sql, list(params)).fetchall()


def result_line(qid: str, extra: str = "") -> bytes:
    return (b'{"qid": "' + qid.encode() + b'", "run_index": 1, "task": "ehrxqa_table", '
            b'"status": "ok", "completed": true, "messages": []' + extra.encode() + b"}\n")


def test_lone_surrogate_escape_is_repaired_not_a_crash(tmp_path: Path) -> None:
    # orjson refuses "\ud83d" without its pair; the lenient stdlib fallback accepts it and
    # the Parquet write used to refuse the string: the ingest crashed.
    lines = result_line("q1", ', "question": "broken \\ud83d emoji"') + result_line("q2")
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": lines})
    assert rows(con, "SELECT qid, line_no, question FROM results ORDER BY qid") == [
        ("q1", 1, "broken \ufffd emoji"), ("q2", 2, None)]
    (severity, error), = rows(con, "SELECT severity, error FROM rejects WHERE line_no = 1")
    assert severity == "repaired" and "surrogate" in error


def test_lone_surrogate_in_a_key_and_qid(tmp_path: Path) -> None:
    lines = (b'{"qid": "q\\udc00", "\\ud800k": 1, "run_index": 1}\n' + result_line("q2"))
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": lines})
    assert rows(con, "SELECT qid, line_no FROM results ORDER BY line_no") == [
        ("q\ufffd", 1), ("q2", 2)]


def test_run_index_beyond_integer_in_scored_file_is_a_reject(tmp_path: Path) -> None:
    # question_scores.run_index is an INTEGER: 2**40 used to crash the Arrow conversion.
    scored = (b'{"qid": "q1", "run_index": 1099511627776, "f1": 0.5}\n'
              b'{"qid": "q2", "run_index": 1, "f1": 0.25}\n'
              b'{"qid": "q3", "run_index": 2, "f1": 1.0}\n')
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": result_line("q1"),
                            f"{SCORED}/scored.jsonl": scored})
    assert rows(con, "SELECT qid, run_index, f1, line_no FROM question_scores "
                     "WHERE scorer = 'scored' ORDER BY qid") == [
        ("q2", 1, 0.25, 2), ("q3", 2, 1.0, 3)]
    (line_no, severity, error), = rows(
        con, "SELECT line_no, severity, error FROM rejects WHERE path LIKE '%scored.jsonl'")
    assert (line_no, severity) == (1, "error") and "run_index" in error


@pytest.mark.parametrize("stamp", ["9999-12-31 23:30:00-05:00", "0001-01-01 00:30:00+05:00"])
def test_timestamp_overflow_costs_nothing_after_it(tmp_path: Path, stamp: str) -> None:
    # A year that overflows when moved to UTC raised inside the record loop: every record
    # after it in the file was lost without a reject.
    lines = (result_line("q1", f', "prediction_time": "{stamp}"') + result_line("q2")
             + result_line("q3", ', "prediction_time": "2150-01-02 03:04:05"'))
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": lines})
    assert rows(con, "SELECT qid, line_no, CAST(prediction_time AS VARCHAR) FROM results "
                     "ORDER BY qid") == [
        ("q1", 1, None), ("q2", 2, None), ("q3", 3, "2150-01-02 03:04:05")]


def test_number_beyond_a_double_is_null_and_listed(tmp_path: Path) -> None:
    # 1e400 used to load as +inf without a word (the stdlib fallback parses it so).
    scored = (b'{"qid": "q1", "run_index": 1, "f1": 1e400, "precision": -1e400}\n'
              b'{"qid": "q2", "run_index": 1, "f1": 0.5}\n')
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": result_line("q1"),
                            f"{SCORED}/scored.jsonl": scored})
    assert rows(con, "SELECT qid, f1, precision FROM question_scores "
                     "WHERE scorer = 'scored' ORDER BY qid") == [
        ("q1", None, None), ("q2", 0.5, None)]
    (line_no, severity, error), = rows(
        con, "SELECT line_no, severity, error FROM rejects WHERE path LIKE '%scored.jsonl'")
    assert (line_no, severity) == (1, "repaired") and "1e400" in error


def test_duplicate_score_rows_are_counted(tmp_path: Path) -> None:
    # The last of two rows with one key wins; the other used to vanish uncounted.
    scored = (b'{"qid": "q1", "run_index": 1, "f1": 0.1}\n'
              b'{"qid": "q2", "run_index": 1, "f1": 0.2}\n'
              b'{"qid": "q1", "run_index": 1, "f1": 0.3}\n'
              b'{"qid": "q1", "run_index": 1, "f1": 0.4}\n')
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": result_line("q1"),
                            f"{SCORED}/scored.jsonl": scored})
    assert rows(con, "SELECT qid, f1, line_no FROM question_scores WHERE scorer = 'scored' "
                     "ORDER BY qid") == [("q1", 0.4, 4), ("q2", 0.2, 2)]
    assert rows(con, "SELECT n_duplicates FROM files WHERE kind = 'scored'") == [(2,)]


def test_huge_integers_where_a_number_belongs(tmp_path: Path) -> None:
    # An integer beyond 64 bits (and one of 5000 digits) in a results record and a score
    # row: loaded with the value NULL, never a crash, the records after it intact.
    lines = (result_line("q1", ', "runs_per_question": 99999999999, "hadm_id": '
                         + "9" * 30 + ', "label": ' + "7" * 5000)
             + result_line("q2"))
    scored = (b'{"qid": "q1", "run_index": 1, "tp": 99999999999, "n_gold": '
              + b"9" * 400 + b', "f1": 1}\n{"qid": "q2", "run_index": 1}\n')
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": lines,
                            f"{SCORED}/scored.jsonl": scored})
    assert rows(con, "SELECT qid, runs_per_question, hadm_id FROM results ORDER BY qid") == [
        ("q1", None, None), ("q2", None, None)]
    assert rows(con, "SELECT qid, n_gold, f1 FROM question_scores WHERE scorer = 'scored' "
                     "ORDER BY qid") == [("q1", None, 1.0), ("q2", None, None)]
    repaired = rows(con, "SELECT path, line_no FROM rejects WHERE severity = 'repaired' "
                         "ORDER BY path, line_no")
    assert {line for _, line in repaired} == {1}


def test_a_failure_past_the_extractor_is_one_file_reject(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    # Whatever escapes the per-record guards (here: the Parquet write itself fails) costs
    # that file, with a reject saying so, never the ingest of the other files.
    import etl.pipeline.emitter

    real_close = etl.pipeline.emitter.ParquetEmitter.close
    failed: set[str] = set()

    def close_fails_once(self: etl.pipeline.emitter.ParquetEmitter) -> None:
        if "broken" in self.info.path and self.info.path not in failed:
            failed.add(self.info.path)  # the first write of that file only
            raise OSError("disk full")
        real_close(self)

    monkeypatch.setattr(etl.pipeline.emitter.ParquetEmitter, "close", close_fails_once)
    other = "ehr_bench/agentic/full1800/broken_model"
    con = ingest(tmp_path, {f"{RUN}/results.jsonl": result_line("q1"),
                            f"{other}/results.jsonl": result_line("q9")})
    assert rows(con, "SELECT qid FROM results") == [("q1",)]
    (path, line_no, severity, error), = rows(con, "SELECT path, line_no, severity, error "
                                                  "FROM rejects")
    assert (path, line_no, severity) == (f"{other}/results.jsonl", None, "error")
    assert "disk full" in error and "no row of this file is loaded" in error
