"""The notebook API (etl.open): results, trajectory, scores, runs and coverage, each checked
against SQL written here over the same file (the raw tables: results, messages, tool_calls,
question_scores, runs), plus the promises every method keeps: pandas DataFrames by default
and pyarrow Tables when asked, JSON arrays as Python lists, a docstring whose example runs.

The oracle SQL runs on a cursor of the API's own connection (DuckDB allows one configuration
per file and process); it reads the tables, never the views or queries the API uses."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import etl
from etl.api import Warehouse
from etl.errors import UnknownName
from etl.search import SearchQuery

# DESIGN: the leaderboard's runs are not archived and of the benchmark's full split.
FULL_SPLITS = ("full1800", "subset600", "full2703")
OPUS = "ehr_bench/agentic/full1800/claude_opus_4_6"


@pytest.fixture(scope="module")
def wh(demo_db: Path):
    with etl.open(demo_db) as warehouse:
        yield warehouse


def rows(wh: Warehouse, sql: str, params: list | None = None) -> list[tuple]:
    return wh.con.cursor().execute(sql, params or []).fetchall()


def column(wh: Warehouse, sql: str, params: list | None = None) -> list:
    return [row[0] for row in rows(wh, sql, params)]


def run_ids(wh: Warehouse, where: str) -> set[str]:
    """Runs with results that satisfy `where` (SQL over runs AS u)."""
    return set(column(wh, f"SELECT DISTINCT r.run_id FROM results AS r JOIN runs AS u "
                          f"USING (run_id) WHERE {where}"))


CURRENT = "NOT coalesce(u.is_archived, false)"
FULL = f"u.split IN {FULL_SPLITS}"


# -- frames -----------------------------------------------------------------------------
def test_pandas_by_default_arrow_when_asked_lists_as_lists(wh: Warehouse, demo_db: Path
                                                           ) -> None:
    frame = wh.results(run=OPUS)
    assert isinstance(frame, pd.DataFrame)
    with etl.open(demo_db, frames="arrow") as arrow_wh:
        table = arrow_wh.results(run=OPUS)
    assert isinstance(table, pa.Table)
    assert frame["qid"].tolist() == table["qid"].to_pylist()
    gold = dict(rows(wh, "SELECT qid || '#' || run_index, gold FROM results WHERE run_id = ?",
                     [OPUS]))
    for qid, index, cell in zip(frame["qid"], frame["run_index"], frame["gold"], strict=True):
        assert type(cell) is list  # not a numpy array, not JSON text
        assert cell == json.loads(gold[f"{qid}#{index}"])
    assert table["gold"].to_pylist() == frame["gold"].tolist()


# -- results ----------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "where"), [
    ({}, f"{CURRENT} AND {FULL}"),
    ({"archived": True}, FULL),
    ({"split": "all"}, CURRENT),
    ({"archived": True, "split": "all"}, "true"),
    ({"split": "smoke20"}, f"{CURRENT} AND u.split = 'smoke20'"),
    ({"benchmark": "mm_bench", "mode": "oneshot"},
     f"{CURRENT} AND {FULL} AND u.benchmark = 'mm_bench' AND u.mode = 'oneshot'"),
])
def test_results_reads_the_runs_its_filters_name(wh: Warehouse, kwargs: dict, where: str
                                                  ) -> None:
    expected = run_ids(wh, where)
    assert expected  # each case selects something in the demo tree
    frame = wh.results(**kwargs)
    assert set(frame["run_id"]) == expected
    n_rows = column(wh, "SELECT count(*) FROM results WHERE run_id IN (SELECT unnest(?))",
                    [sorted(expected)])[0]
    assert len(frame) == n_rows
    assert not frame.duplicated(["run_id", "qid", "run_index"]).any()


def test_the_scopes_differ_where_the_tree_has_archived_and_smoke_runs(wh: Warehouse) -> None:
    # the default leaves out what archived= and split= add (so the cases above mean something)
    default = run_ids(wh, f"{CURRENT} AND {FULL}")
    assert run_ids(wh, FULL) - default and run_ids(wh, CURRENT) - default


def check_board_scores(wh: Warehouse, benchmark: str) -> int:
    """Check results()'s scores of benchmark by the default scorer and by set_f1; return how
    many answers set_f1's rule zeroed although they have an F1."""
    # The text board: the authors' scorer's F1 per answer whatever its status, 0 unscored.
    frame = wh.results(benchmark=benchmark)
    assert len(frame) > 0 and set(frame["scorer"]) == {"authors_text"}
    f1 = dict(((run, qid, index), value) for run, qid, index, value in rows(
        wh, "SELECT run_id, qid, run_index, f1 FROM question_scores "
            "WHERE scorer = 'authors_text'"))
    for run, qid, index, score in zip(frame["run_id"], frame["qid"], frame["run_index"],
                                      frame["score"], strict=True):
        assert score == pytest.approx(f1.get((run, qid, index)) or 0.0)
    # scorer= shows another scorer's number for the same answers: set_f1 scores error and
    # incomplete results 0 (the project's rule), its F1 otherwise
    other = wh.results(benchmark=benchmark, scorer="set_f1")
    assert set(other["scorer"]) == {"set_f1"} and len(other) == len(frame)
    set_f1 = dict(((run, qid, index), value) for run, qid, index, value in rows(
        wh, "SELECT run_id, qid, run_index, f1 FROM question_scores WHERE scorer = 'set_f1'"))
    zeroed = 0
    for run, qid, index, status, score in zip(other["run_id"], other["qid"],
                                              other["run_index"], other["status"],
                                              other["score"], strict=True):
        failed = status in ("error", "incomplete")
        zeroed += failed and bool(set_f1.get((run, qid, index)))
        assert score == pytest.approx(0.0 if failed else set_f1.get((run, qid, index)) or 0.0)
    return zeroed


@pytest.mark.parametrize("benchmark", ["ehr_bench", "agent_ehr_bench"])
def test_results_carry_the_boards_score_of_each_answer(wh: Warehouse, benchmark: str) -> None:
    n_zeroed = check_board_scores(wh, benchmark)
    if benchmark == "ehr_bench":  # an incomplete answer with an F1: set_f1's rule is tested
        assert n_zeroed > 0


def test_runs_on_no_board_have_no_score(wh: Warehouse) -> None:
    archived = wh.results(archived=True)
    gone = archived[archived["run_id"].str.startswith("_archive/")]
    assert len(gone) > 0
    assert gone["score"].isna().all() and gone["scorer"].isna().all()


# -- trajectory -------------------------------------------------------------------------
def busiest_question(wh: Warehouse) -> tuple[str, str, int]:
    """(run, qid, run_index) of an answer with the most tool calls, one of them an error."""
    return rows(wh, "SELECT run_id, qid, run_index FROM tool_calls GROUP BY ALL "
                    "HAVING bool_or(is_error) ORDER BY count(*) DESC, 1, 2, 3 LIMIT 1")[0]


def test_trajectory_is_one_row_per_message_with_calls_results_and_errors(wh: Warehouse
                                                                         ) -> None:
    run, qid, index = busiest_question(wh)
    frame = wh.trajectory(run, qid, index=index)
    messages = rows(wh, "SELECT msg_idx, role, content FROM messages WHERE run_id = ? AND "
                        "qid = ? AND run_index = ? ORDER BY msg_idx", [run, qid, index])
    assert list(zip(frame["msg_idx"], frame["role"], frame["content"], strict=True)) == \
        messages
    content = {msg_idx: text for msg_idx, _, text in messages}
    calls = rows(wh, "SELECT msg_idx, call_idx, tool, arguments, is_error, result_msg_idx "
                     "FROM tool_calls WHERE run_id = ? AND qid = ? AND run_index = ? "
                     "ORDER BY msg_idx, call_idx", [run, qid, index])
    made = {msg_idx: cells for msg_idx, cells in zip(frame["msg_idx"], frame["tool_calls"],
                                                     strict=True)}
    for msg_idx, call_idx, tool, arguments, is_error, result_at in calls:
        call = next(c for c in made[msg_idx] if c["call_idx"] == call_idx)
        assert (call["tool"], call["arguments"], call["is_error"]) == \
            (tool, arguments, is_error)
        assert call["result"] == (content[result_at] if result_at is not None else None)
        if result_at is not None:  # the tool message says which call it answers
            answer = frame[frame["msg_idx"] == result_at].iloc[0]
            assert answer["answers_tool"] == tool and bool(answer["is_error"]) == is_error
    assert sum(len(cells) for cells in frame["tool_calls"]) == len(calls)
    assert any(c["is_error"] for cells in frame["tool_calls"] for c in cells)
    assert all(type(cells) is list for cells in frame["tool_calls"])


def test_trajectory_takes_a_qid_from_a_frame_and_every_attempt(wh: Warehouse,
                                                               demo_db: Path) -> None:
    run, qid, index = busiest_question(wh)
    n_all = column(wh, "SELECT count(*) FROM messages WHERE run_id = ? AND qid = ?",
                   [run, qid])[0]
    assert len(wh.trajectory(run, qid)) == n_all
    from_pandas = wh.results(run=run, qid=qid)["qid"][0]
    assert len(wh.trajectory(run, from_pandas, index=index)) > 0
    with etl.open(demo_db, frames="arrow") as arrow_wh:
        scalar = arrow_wh.results(run=run, qid=qid)["qid"][0]  # a pyarrow scalar
        assert isinstance(scalar, pa.Scalar)
        assert arrow_wh.trajectory(run, scalar, index=index).num_rows > 0
    with pytest.raises(UnknownName, match="has no question"):
        wh.trajectory(run, qid + "x")
    with pytest.raises(UnknownName, match="has no attempt 99"):
        wh.trajectory(run, qid, index=99)


# -- scores, runs, coverage -------------------------------------------------------------
def test_scores_are_every_scorers_rows_with_lists(wh: Warehouse) -> None:
    frame = wh.scores(benchmark="mm_bench")
    expected = rows(wh, "SELECT s.run_id, s.qid, s.run_index, s.scorer, s.f1, s.gold_names "
                        "FROM question_scores AS s JOIN runs AS u USING (run_id) "
                        f"WHERE u.benchmark = 'mm_bench' AND {CURRENT} AND {FULL} "
                        "ORDER BY ALL")
    got = sorted(zip(frame["run_id"], frame["qid"], frame["run_index"], frame["scorer"],
                     frame["f1"], frame["gold_names"], strict=True),
                 key=lambda r: r[:4])
    assert len(got) == len(expected) > 0
    for (*key, f1, names), (*key_sql, f1_sql, names_sql) in zip(
            got, sorted(expected, key=lambda r: r[:4]), strict=True):
        assert key == key_sql
        assert (f1 is None or f1 != f1) if f1_sql is None else f1 == pytest.approx(f1_sql)
        assert names == (json.loads(names_sql) if names_sql is not None else None)
    assert len({*frame["scorer"]}) > 2  # every scorer, not the board's alone
    one = wh.scores(benchmark="mm_bench", scorer="authors_mm_set")
    assert set(one["scorer"]) == {"authors_mm_set"}
    assert len(one) == sum(1 for r in expected if r[3] == "authors_mm_set")


def test_runs_and_their_display_names(wh: Warehouse) -> None:
    frame = wh.runs(archived=True, split="all")
    expected = rows(wh, "SELECT u.run_id, coalesce(m.display_name, u.model) FROM runs AS u "
                        "LEFT JOIN models AS m USING (model) ORDER BY 1")
    assert [(run, None if pd.isna(name) else name) for run, name in
            zip(frame["run_id"], frame["display_name"], strict=True)] == expected
    default = wh.runs()
    assert set(default["run_id"]) == set(column(
        wh, f"SELECT run_id FROM runs AS u WHERE {CURRENT} AND {FULL}"))
    # a run that answered on a leaderboard split names the scorer of its board
    answered = run_ids(wh, f"{CURRENT} AND {FULL}")
    on_board = default[default["run_id"].isin(answered)]
    assert on_board["board_scorer"].notna().all()
    archived = frame[frame["is_archived"].fillna(False).astype(bool)]
    assert len(archived) > 0 and archived["board_scorer"].isna().all()


def test_coverage_counts_the_questions_present(wh: Warehouse) -> None:
    frame = wh.coverage(benchmark="ehr_bench", split="all")
    present = dict(rows(wh, "SELECT r.run_id, count(DISTINCT r.qid) FROM results AS r "
                            f"JOIN runs AS u USING (run_id) WHERE {CURRENT} AND "
                            "u.benchmark = 'ehr_bench' GROUP BY 1"))
    assert dict(zip(frame["run_id"], frame["present"], strict=True)) == present
    expected = dict(rows(wh, "SELECT run_id, expected_questions FROM runs"))
    for run, n_present, missing in zip(frame["run_id"], frame["present"], frame["missing"],
                                       strict=True):
        if expected[run] is not None:
            assert missing == expected[run] - n_present


# -- docstrings -------------------------------------------------------------------------
def public_methods() -> list[tuple[str, object]]:
    return [(name, fn) for name, fn in inspect.getmembers(Warehouse, inspect.isfunction)
            if not name.startswith("_") and name != "close"]


@pytest.mark.parametrize("name", [name for name, _ in public_methods()])
def test_each_methods_example_runs(wh: Warehouse, name: str) -> None:
    doc = inspect.getdoc(getattr(Warehouse, name)) or ""
    assert "Example:" in doc, f"Warehouse.{name} has no example"
    code = " ".join(line.strip() for line in doc.split("Example:", 1)[1].strip().splitlines())
    qid = column(wh, "SELECT qid FROM results WHERE run_id = ? ORDER BY qid LIMIT 1",
                 [OPUS])[0]
    result = eval(code, {"wh": wh, "qid": qid, "SearchQuery": SearchQuery})  # noqa: S307
    assert result is not None


def test_help_of_etl_open_tours_the_api() -> None:
    doc = inspect.getdoc(etl.open)
    for method in ("leaderboard", "runs", "results", "scores", "coverage", "trajectory",
                   "compare", "search", "sql"):
        assert f"wh.{method}(" in doc, method
    assert "UnknownName" in doc and "pyarrow" in doc and "alias" in doc
